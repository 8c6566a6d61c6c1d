package rerank

import (
	"math"
	"slices"
	"testing"

	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// toyWords is a word-vector table small enough to reason about: unit
// vectors on three axes, "cash" and "payment" at 0.8 of each other.
type toyWords map[string][]float32

func (t toyWords) Dim() int { return 3 }
func (t toyWords) WordVector(dst []float32, w string) (float32, bool) {
	v, ok := t[w]
	if !ok {
		return 0, false
	}
	copy(dst, v)
	if w == "rare" {
		return 1, true
	}
	return 0.5, true
}

var toy = toyWords{
	"cash":    {1, 0, 0},
	"payment": {0.8, 0.6, 0},
	"weather": {0, 0, 1},
	"rare":    {0, 1, 0},
	"anti":    {-1, 0, 0},
}

func TestAlignment(t *testing.T) {
	tests := []struct {
		name        string
		need        string
		text, label []string
		to, from    float64
	}{
		{"exact word", "cash", []string{"cash"}, []string{"cash"}, 1, 1},
		{"paraphrase without a shared word", "cash", []string{"payment"}, []string{"payment"}, 0.8, 0.8},
		{"unrelated", "cash", []string{"weather"}, []string{"weather"}, 0, 0},
		{"negative cosine counts as none", "cash", []string{"anti"}, []string{"anti"}, 0, 0},
		{"best match per task word", "cash", []string{"weather", "payment", "cash"}, nil, 1, 0},
		// Weights: rare (1) found, cash (0.5) not: 1/1.5.
		{"rare words weigh more", "the cash rare", []string{"rare"}, []string{"rare", "weather"}, 1 / 1.5, 1 / 1.5},
		{"unknown skill words are skipped", "cash", []string{"zzz"}, []string{"zzz", "cash"}, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAlignment(toy, tt.need)
			if a == nil {
				t.Fatal("no alignment for a need with known words")
			}
			if got := a.toSkill(tt.text); math.Abs(got-tt.to) > 1e-6 {
				t.Errorf("toSkill = %v, want %v", got, tt.to)
			}
			if got := a.fromSkill(tt.label); math.Abs(got-tt.from) > 1e-6 {
				t.Errorf("fromSkill = %v, want %v", got, tt.from)
			}
		})
	}
}

func TestAlignmentNoWords(t *testing.T) {
	for _, need := range []string{"", "the of and", "zzz qqq"} {
		if a := newAlignment(toy, need); a != nil {
			t.Errorf("need %q: alignment without content words", need)
		}
	}
	if a := newAlignment(nil, "cash"); a != nil {
		t.Error("alignment without word vectors")
	}
}

// toyLex relates "cash" to "money".
type toyLex map[string][]string

func (l toyLex) RelatedStems(w string) []string { return l[w] }

// Align fills the candidates' alignment and lexical cover, and the
// features standardise them over the shortlist: the same whatever the
// level, so they mean the same in any catalog.
func TestAlignFeatures(t *testing.T) {
	cands := []index.Candidate{
		{Entry: &index.Doc{TextWords: []string{"payment"}, LabelWords: []string{"payment"}, DescTerms: []string{"money"}}},
		{Entry: &index.Doc{TextWords: []string{"weather"}, LabelWords: []string{"weather"}, DescTerms: []string{"weather"}}},
	}
	Align(toy, toyLex{"cash": {"money"}}, "cash", cands)
	al := alignFeatures(make([]float64, 6*len(cands)), cands)
	to, from, lex := al[0], al[2], al[4]
	if !(to[0] > to[1] && from[0] > from[1]) {
		t.Errorf("paraphrase not above unrelated: align %v, align_label %v", to, from)
	}
	if lex[0] != 1 || lex[1] != 0 {
		t.Errorf("lex_cover %v, want [1 0]: cash is related to money", lex)
	}
	for k := 1; k < 6; k += 2 {
		if al[k][0] != 1 || al[k][1] != -1 {
			t.Errorf("z-scores %d: %v, want ±1", k, al[k])
		}
	}
	f := Features(&Input{Req: &extract.Requirement{Need: "cash"}, Result: &index.Result{Candidates: cands}})
	for name, want := range map[string]float64{"align": to[0], "align_label": from[0], "align_z": 1, "align_label_z": 1,
		"lex_cover": 1, "lex_cover_z": 1} {
		if got := f[0][slices.Index(FeatureNames, name)]; math.Abs(got-want) > 1e-6 {
			t.Errorf("feature %s = %v, want %v", name, got, want)
		}
	}
	Align(toy, nil, "cash", cands)
	if cands[0].Lex != 0 || cands[0].Align == 0 {
		t.Errorf("without a lexicon: lex %v (want 0), align %v (want kept)", cands[0].Lex, cands[0].Align)
	}
	Align(nil, toyLex{"cash": {"money"}}, "cash", cands)
	al = alignFeatures(make([]float64, 6*len(cands)), cands)
	for k := range al {
		if al[k][0] != 0 {
			t.Errorf("feature %d without word vectors: %v, want 0", k, al[k])
		}
	}
}

func TestLexCover(t *testing.T) {
	lex := toyLex{"cash": {"money"}, "film": {"movi"}}
	doc := &index.Doc{NameTerms: []string{"movi"}, DescTerms: []string{"money", "rare"}}
	tests := []struct {
		need string
		want float64
	}{
		{"cash", 1},               // through a relative
		{"rare", 1},               // the word itself (stemmed)
		{"weather", 0},            // neither
		{"weather rare", 1 / 1.5}, // rare weighs 1, weather 0.5
	}
	for _, tt := range tests {
		a := newAlignment(toy, tt.need)
		if got := a.lexCover(a.lexicalStems(lex), doc); math.Abs(got-tt.want) > 1e-6 {
			t.Errorf("lexCover(%q) = %v, want %v", tt.need, got, tt.want)
		}
	}
}

// The word cache's per-doc rows give exactly the alignment the words do:
// the matcher's fast path computes the same features as the plain one.
func TestWordCacheRowsMatchWords(t *testing.T) {
	docs := []index.Doc{
		{TextWords: []string{"payment", "weather", "zzz"}, LabelWords: []string{"payment", "zzz"}},
		{TextWords: []string{"weather"}, LabelWords: []string{"weather", "rare"}},
		{TextWords: nil, LabelWords: nil},
		{TextWords: []string{"payment", "zzz", "cash"}, LabelWords: []string{"payment", "zzz"}}, // a prefix, as Analyze makes them
	}
	cache := NewWordCache(toy, docs)
	for _, need := range []string{"cash", "the cash rare", "weather payment", "zzz"} {
		plain := make([]index.Candidate, len(docs))
		fast := make([]index.Candidate, len(docs))
		for i := range docs {
			plain[i] = index.Candidate{Doc: i, Entry: &docs[i]}
			fast[i] = plain[i]
		}
		Align(toy, nil, need, plain)
		Align(cache, nil, need, fast)
		for i := range docs {
			if plain[i].Align != fast[i].Align || plain[i].AlignLabel != fast[i].AlignLabel {
				t.Errorf("need %q doc %d: words %v/%v, cache rows %v/%v", need, i,
					plain[i].Align, plain[i].AlignLabel, fast[i].Align, fast[i].AlignLabel)
			}
		}
	}
}

// TestWordCacheRequestWords: through WithRequestWords, a request's word that
// the skills' vectors lack is read from the request vectors, and aligns;
// the skills' own words keep their rows.
func TestWordCacheRequestWords(t *testing.T) {
	docs := []index.Doc{
		{TextWords: []string{"payment", "zzz"}, LabelWords: []string{"payment"}},
		{TextWords: []string{"weather"}, LabelWords: []string{"weather"}},
	}
	// The request vectors know "zzz" (a trade word learned from doc 0's
	// text), and give "payment" another vector the cache must not take.
	requests := toyWords{"zzz": {0.8, 0.6, 0}, "payment": {0, 0, 1}, "weather": {0, 0, 1}}
	plain := NewWordCache(toy, docs)
	learned := plain.WithRequestWords(requests)
	dst := make([]float32, 3)
	if _, ok := plain.WordVector(dst, "zzz"); ok {
		t.Error("without request words, zzz has a vector")
	}
	if _, ok := learned.WordVector(dst, "zzz"); !ok || !slices.Equal(dst, requests["zzz"]) {
		t.Errorf("with request words, zzz reads %v, want the request vectors' %v", dst, requests["zzz"])
	}
	if _, ok := learned.WordVector(dst, "payment"); !ok || !slices.Equal(dst, toy["payment"]) {
		t.Errorf("payment reads %v, want the cache's own %v", dst, toy["payment"])
	}
	align := func(c *WordCache) float32 {
		cands := []index.Candidate{{Doc: 0, Entry: &docs[0]}, {Doc: 1, Entry: &docs[1]}}
		Align(c, nil, "zzz", cands)
		return cands[0].Align
	}
	if before, after := align(plain), align(learned); !(before == 0 && after > 0.99) {
		t.Errorf("a request of zzz aligns with doc 0 at %.3f, with the request words at %.3f: want 0, then 1", before, after)
	}
}

func TestWordCacheLacking(t *testing.T) {
	docs := []index.Doc{
		{TextWords: []string{"payment", "zzz", "cash", "qqq"}, LabelWords: []string{"payment"}},
		{TextWords: []string{"weather"}, LabelWords: []string{"weather"}},
	}
	c := NewWordCache(toy, docs)
	for _, tt := range []struct {
		doc   int
		words []string
		want  []string
	}{
		{0, docs[0].TextWords, []string{"zzz", "qqq"}},
		{1, docs[1].TextWords, nil},
		{1, []string{"weather", "other"}, []string{"weather", "other"}}, // not the words it read
		{5, []string{"qqq"}, []string{"qqq"}},
	} {
		if got := c.Lacking(nil, tt.doc, tt.words); !slices.Equal(got, tt.want) {
			t.Errorf("Lacking(doc %d, %v) = %v, want %v", tt.doc, tt.words, got, tt.want)
		}
	}
}
