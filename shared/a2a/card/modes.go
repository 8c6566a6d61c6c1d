package card

import (
	"slices"

	"github.com/skillmatch/skillmatch/shared/a2a/mediatype"
)

// modes normalises a mode list, keeping order, dropping duplicates and
// words that are not media types (each drop is noted). A nil list stays
// nil and a present list stays non-nil even when nothing survives: for a
// skill, present modes replace the card's defaults.
func modes(raw []string, path string, n *notes) []string {
	if raw == nil {
		return nil
	}
	out := make([]string, 0, len(raw))
	var dropped []string
	for _, m := range raw {
		mt, ok := mediatype.Normalize(m)
		if !ok {
			dropped = append(dropped, m)
			continue
		}
		if !slices.Contains(out, mt) {
			out = append(out, mt)
		}
	}
	for i, d := range dropped {
		if i == 5 {
			n.add(path, "and %d more dropped", len(dropped)-i)
			break
		}
		d, _, _ = truncate(cleanPlain(d), 40)
		n.add(path, "dropped %q (not a media type)", d)
	}
	if len(raw) > 0 && len(out) == 0 {
		n.add(path, "no media type left")
	}
	return out
}
