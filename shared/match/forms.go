package match

import (
	"slices"

	"github.com/skillmatch/skillmatch/shared/match/rerank"
	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// Word forms. The Snowball stemmer joins a word's inflections ("rooms",
// "room") but not its derivations: "rent" and "rental", "direct" and
// "director", "fly" and "flight" stay apart, so on SGD's cards a request
// to "rent a car" met only "Rent Movie" in BM25, the car service's cards
// saying "rental". WordNet's derivational links join them where the two
// stems share their start (one word's forms, not synonyms: "rent" and
// "rental", not "rent" and "lease"), and BM25 then also searches the form
// the cards hold. Three limits keep it honest:
//   - only the words of trusted skills with no examples count: a skill
//     with examples is matched through them (on CLINC150, whose cards have
//     examples, nothing changes), and an untrusted card's words widen
//     nothing;
//   - an added form must be held by at least as many of those skills as
//     the caller's own word, so that it never weighs more in BM25 than
//     what the caller wrote ("a rental car" is not widened to "rent",
//     which one skill holds, "Rent Movie");
//   - the reranker's coverage features and term weights read the
//     request's own terms only; only the BM25 scores and ranks it reads
//     see the added forms.
// Measured on SGD dev (built-in model, per task against the code before):
// 15 tasks fixed, 3 broken, ECE unchanged; on SGD-X variant 1 (the same
// tasks, cards reworded; not tuned on) 14 fixed, none broken. Tried and
// dropped: WordNet synonyms and hypernyms added the same way (121 fixed,
// 116 broken, ECE 0.040 → 0.047; only for words no card holds: 61 fixed,
// 65 broken): a synonym is another word, with its own senses, at full
// weight; adding the rarer form as well (12 broken); joining two words
// the cards write as one ("one way" → "Oneway"): 12 fixed and none broken
// on SGD, but 8 fixed and 14 broken on the reworded cards, where one
// agent writes the round trip as one word in its booking skill's name and
// as two in its search's, and the joined word sent round-trip searches to
// the booking.

// cardForms is what widening a request reads of a catalog.
type cardForms struct {
	lex rerank.Lexicon
	// held is how many trusted description-only skills hold each stem in
	// their name, tags or description.
	held map[string]int
	// from maps a stem to the stems of those skills' words that are its
	// forms by the lexicon's links from the card word ("rental" lists
	// "rent"; "rent" does not list "rental").
	from map[string][]string
}

// newCardForms reads the n docs that skip leaves; nil when none is a
// skill without examples (the lexicon, which lex loads, is then not
// needed).
func newCardForms(lex func() rerank.Lexicon, docs func(i int) *index.Doc, n int, skip func(doc int) bool) *cardForms {
	var cf *cardForms
	seen := map[string]bool{}
	for d := range n {
		doc := docs(d)
		if doc == nil || len(doc.Examples) > 0 || skip(d) {
			continue
		}
		if cf == nil {
			cf = &cardForms{lex: lex(), held: map[string]int{}, from: map[string][]string{}}
		}
		for _, t := range unionTerms(doc.NameTerms, doc.TagTerms, doc.DescTerms) {
			cf.held[t]++
		}
		for _, w := range doc.TextWords {
			if seen[w] {
				continue
			}
			seen[w] = true
			st := analyze.Stem(w)
			for _, r := range cf.lex.RelatedStems(w) {
				if isForm(st, r) && !slices.Contains(cf.from[r], st) {
					cf.from[r] = append(cf.from[r], st)
				}
			}
		}
	}
	return cf
}

// unionTerms is the sorted, unique union of term sets.
func unionTerms(sets ...[]string) []string {
	var out []string
	for _, s := range sets {
		out = append(out, s...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// widen returns terms (text's BM25 terms) followed by the other forms of
// text's words that the catalog's description-only skills hold, each at
// most once; terms itself when there are none.
func (cf *cardForms) widen(terms []string, text string) []string {
	if cf == nil {
		return terms
	}
	out := terms
	var buf [32]string // a request's words, on the stack when few
	for _, w := range analyze.AppendWords(buf[:0], text) {
		if analyze.IsStopword(w) {
			continue
		}
		st := analyze.Stem(w)
		floor := max(1, cf.held[st])
		for _, forms := range [2][]string{cf.lex.RelatedStems(w), cf.from[st]} {
			for _, r := range forms {
				if r == st || !isForm(st, r) || cf.held[r] < floor || slices.Contains(out, r) {
					continue
				}
				if len(out) == len(terms) {
					out = slices.Clip(terms) // an append copies: the caller's terms stay as they were
				}
				out = append(out, r)
			}
		}
	}
	return out
}

// isForm says whether stems a and b look like one word's forms: the
// shorter is the start of the longer, or all of it but its last letter
// when that stem is long enough not to be another word's start (five
// letters: "decid", "decis") or ends in the i the stemmer writes for a
// final y ("fli", "flight"), and the longer adds a suffix's few letters.
// WordNet relates synonyms and broader words too, and those that share a
// start are not forms: "park" and "parcel", "cab" and "cabriolet", "bar"
// and "barricade".
func isForm(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	n := 0
	for n < len(a) && a[n] == b[n] {
		n++
	}
	const suffix = 4 // "-ment", "-ion", "-al", "-er": a derivation adds a few letters
	switch {
	case n < 3 || len(b)-n > suffix:
		return false
	case n == len(a):
		return true
	default:
		return n == len(a)-1 && (len(a) >= 5 || a[len(a)-1] == 'i')
	}
}
