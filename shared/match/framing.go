package match

import (
	"strings"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
)

// framing are the words that say something is asked, not what: greetings
// and thanks, the addressee and the modal verbs that ask ("hi, can you
// help me find some attractions?"). With the verbs of seeking
// (seekVerbs) they are most of a short request, and in a GloVe average
// they outweigh its one or two content words: sgd-x1's attraction card
// ("View Attractions: Show a list of attractions in the city") stood 0.40
// from that request, a hotel search ("Search for, learn about, and book
// hotels") 0.62, and the request went unanswered. BM25 and the
// reranker's word features still read every word.
var framing = map[string]bool{
	"hi": true, "hello": true, "hey": true, "please": true, "thanks": true, "thank": true,
	"can": true, "could": true, "would": true, "you": true,
}

// denseText is the text the built-in word vectors embed for a request:
// q without its framing words and verbs of seeking, or q itself when
// nothing else is left ("can you help?"). A remote embedder reads the
// whole request: a sentence model weighs its framing itself.
func denseText(q string) string {
	ws := analyze.Words(q)
	kept := make([]string, 0, len(ws))
	for _, w := range ws {
		if !framing[w] && !seekVerbs[analyze.Stem(w)] {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 || len(kept) == len(ws) {
		return q
	}
	return strings.Join(kept, " ")
}
