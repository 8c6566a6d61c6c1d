package match

import (
	"fmt"
	"strings"

	"github.com/skillmatch/skillmatch/shared/a2a/mediatype"
	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// thingWords are the beginnings of the words in which a skill's card says
// it makes a thing a request asked for, by the media types read from it:
// the card of a school photographer or a drone survey declares text
// output and speaks of photos ("class photos", "aerial photos").
var thingWords = []struct {
	prefix string // of the media type, or the type itself
	thing  string // what the request asked for, in the explanation
	words  []string
}{
	{"image/", "pictures", []string{"photo", "pictur", "imag", "camera", "portrait"}},
	{"video/", "video", []string{"video", "film", "footage"}},
	{"audio/", "audio", []string{"audio", "recording", "sound", "podcast", "voice"}},
	{mediatype.Pptx, "slides", []string{"slide", "presentation", "deck"}},
}

// shrinkUnmade lowers the probability of each candidate whose card does
// not say it makes what the request asked for, when the outputs read from
// the words were dropped because no skill passes with them (see
// extract.Requirement.OutputsLoose). Such a request is ranked on its other
// words, which cannot tell whether the skill makes the thing: "we need
// photos of the weather in Lisbon" went to a weather forecast at 1.00. A
// skill whose words name the thing (a school photographer's "class
// photos") keeps its probability. The order stays, as for a thin link:
// four labelled requests of three hostile sets reach this, too few to say
// more than that such a pick is a guess (thinShrink).
func shrinkUnmade(req *extract.Requirement, out []Ranked) {
	things, words := thingWordsOf(req.DroppedOutputs)
	if len(words) == 0 {
		return
	}
	var note []string
	for i := range out {
		if out[i].Entry == nil || namesThing(out[i].Entry, words) {
			continue
		}
		if note == nil {
			note = make([]string, len(out))
		}
		note[i] = fmt.Sprintf("the request asks for %s, which the card does not say it makes. ", things)
	}
	if note != nil {
		unpair(out, note)
		shrinkMarked(out, note, thinShrink)
	}
}

// thingWordsOf names the things the media types are and gives their
// thing words (see thingWords).
func thingWordsOf(types []string) (things string, words []string) {
	var names []string
	for _, tw := range thingWords {
		for _, t := range types {
			if strings.HasPrefix(t, tw.prefix) {
				names = append(names, tw.thing)
				words = append(words, tw.words...)
				break
			}
		}
	}
	return strings.Join(names, " or "), words
}

// namesThing says whether a word of skill d's text or examples begins
// with one of the thing words.
func namesThing(d *index.Doc, words []string) bool {
	for _, set := range [][]string{d.TextWords, d.ExampleTerms} {
		for _, w := range set {
			for _, p := range words {
				if strings.HasPrefix(w, p) {
					return true
				}
			}
		}
	}
	return false
}
