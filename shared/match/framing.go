package match

import (
	"slices"
	"strings"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
)

// framing are the words that say something is asked, not what: greetings
// and thanks, the addressee, the modal verbs that ask ("hey, would you
// help me locate some nice attractions?") and the verb forms of seeking.
// Those are listed form by form, not matched by stem as seekVerbs are:
// "location" and "findings" stem with "locate" and "find" but are what is
// asked about. Together they are most of a short request, and in a GloVe average
// they outweigh its one or two content words: sgd-x1's attraction card (a
// skill that lists a city's attractions) stood 0.40 from such a request,
// a hotel search (described in the words of searching, reading up on
// and booking hotels) 0.62, and the request went unanswered. BM25 and the
// reranker's word features still read every word.
var framing = map[string]bool{
	"hi": true, "hello": true, "hey": true, "please": true, "thanks": true, "thank": true,
	"can": true, "could": true, "would": true, "you": true,
	"find": true, "finds": true, "finding": true, "found": true,
	"search": true, "searches": true, "searching": true, "searched": true,
	"look": true, "looks": true, "looking": true, "looked": true, "lookup": true,
	"locate": true, "locates": true, "locating": true, "located": true,
	"seek": true, "seeks": true, "seeking": true, "sought": true,
	"see": true, "sees": true, "seeing": true, "saw": true, "seen": true,
}

// denseText is the text an in-process embedder (vector.Local: the
// built-in word vectors) embeds for a request to a catalog of
// description-only cards: q without its framing words, or q itself when
// only stopwords would be left ("can you do it?", "can you find it?"). A
// request is compared like with like: a description has no framing, but
// a card example is a request as written, framing and all, so where most
// agents give examples the request is embedded whole (Matcher.
// wholeRequests). Stripped there too, clinc150 fitted on its own
// training texts as examples refused 86 of its 100 no-match requests
// rather than 90; stripping the examples as well cost hostile cases
// ("translate hello how are you" is no framing). A remote embedder
// reads the whole request: a sentence model weighs its framing itself.
func denseText(q string) string {
	ws := analyze.Words(q)
	kept := make([]string, 0, len(ws))
	for _, w := range ws {
		if !framing[w] {
			kept = append(kept, w)
		}
	}
	if len(kept) == len(ws) || !slices.ContainsFunc(kept, func(w string) bool { return !analyze.IsStopword(w) }) {
		return q
	}
	return strings.Join(kept, " ")
}
