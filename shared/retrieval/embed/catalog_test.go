package embed

import (
	"slices"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// skill is a vector.CatalogText of texts, its words split as the index splits
// them.
func skill(texts ...string) vector.CatalogText {
	return vector.CatalogText{Words: analyze.Words(strings.Join(texts, " ")), Texts: texts}
}

// hotelSkills is an invented hotel group's catalog: one skill names its
// job in a trade word GloVe lacks ("chargebacks"), and every skill names
// one of the group's hotels, a word GloVe lacks too.
func hotelSkills() []vector.CatalogText {
	return []vector.CatalogText{
		skill("Chargebacks", "Answers card-scheme chargebacks and retrieval requests with evidence: the folio, the signed terms, the check-in record.", "dispute"),
		skill("Room booking", "Books rooms at Saltmarsh House and the other hotels for guests arriving on a given date."),
		skill("Parking permits", "Issues staff parking permits for the car park at Saltmarsh House.", "parking"),
		skill("Account notes", "Adds a note to a guest account, for example account CWE-3302148 or CWE-3302149."),
	}
}

func shipped(t *testing.T) *GloVe {
	t.Helper()
	_, g, err := loadBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestLearnCatalogGivesTradeWordsTheirSkillsMeaning(t *testing.T) {
	g := shipped(t)
	dst := make([]float32, g.Dim())
	for _, w := range []string{"chargeback", "saltmarsh", "cwe"} {
		if _, ok := g.WordVector(dst, w); ok {
			t.Fatalf("GloVe has a vector for %q: the test needs a word it lacks", w)
		}
	}
	skills := hotelSkills()
	request := "a chargeback from Amex for a stay in August"
	before := g.EmbedText(request)
	learned := g.LearnCatalog(skills).(*GloVe)

	if !slices.Equal(g.EmbedText(request), before) {
		t.Error("LearnCatalog changed the embedder it was called on")
	}
	if learned.ID() != g.ID() {
		t.Errorf("ID %q, want g's %q", learned.ID(), g.ID())
	}
	// The request now reads as the chargeback skill, by far.
	texts := make([][]float32, len(skills))
	for i, s := range skills {
		texts[i] = g.EmbedText(strings.Join(s.Texts, ". "))
	}
	own, was := vector.Cosine(learned.EmbedText(request), texts[0]), vector.Cosine(before, texts[0])
	if own < was+0.2 {
		t.Errorf("cosine with the chargeback skill %.3f, before %.3f: want a rise of 0.2 or more", own, was)
	}
	for i := 1; i < len(texts); i++ {
		if c := vector.Cosine(learned.EmbedText(request), texts[i]); c >= own {
			t.Errorf("skill %d at %.3f, not under the chargeback skill's %.3f", i, c, own)
		}
	}
	// A trade word is learned in every form the stemmer joins; a name
	// only ever capitalised, and a code's prefix, are not.
	for w, want := range map[string]bool{"chargeback": true, "chargebacks": true, "saltmarsh": false, "cwe": false} {
		if _, ok := learned.WordVector(dst, w); ok != want {
			t.Errorf("WordVector(%q) ok = %v, want %v", w, ok, want)
		}
	}
	// A word the vectors have keeps its own vector.
	known := make([]float32, g.Dim())
	wk, _ := g.WordVector(known, "parking")
	if wl, ok := learned.WordVector(dst, "parking"); !ok || wl != wk || !slices.Equal(dst, known) {
		t.Error("a known word's vector changed")
	}
}

func TestLearnCatalogWeighsWidelyUsedWordsDown(t *testing.T) {
	g := shipped(t)
	skills := []vector.CatalogText{
		skill("Quoting", "Prices a fleet's tyres from a supplier's quote: the quoteline and the fitting."),
		skill("Ordering", "Orders parts against a quoteline once approved."),
		skill("Invoices", "Checks an invoice against its quoteline and the delivery note."),
		skill("Returns", "Sends faulty parts back: the rma form and the courier."),
		skill("Stock", "Counts the parts in the stores every month."),
	}
	learned := g.LearnCatalog(skills).(*GloVe)
	dst := make([]float32, g.Dim())
	wide, okWide := learned.WordVector(dst, "quoteline")
	narrow, okNarrow := learned.WordVector(dst, "rma")
	if !okWide || !okNarrow {
		t.Fatalf("learned quoteline %v, rma %v: want both", okWide, okNarrow)
	}
	if !(wide < narrow) || narrow != 1 {
		t.Errorf("weights: quoteline (3 skills) %.3f, rma (1 skill) %.3f; want rma 1 and quoteline under it", wide, narrow)
	}
	again := g.LearnCatalog(skills)
	if !slices.Equal(again.EmbedText("the rma for the quoteline"), learned.EmbedText("the rma for the quoteline")) {
		t.Error("learning the same catalog twice gave other vectors")
	}
}

func TestLearnCatalogNothingToLearn(t *testing.T) {
	g := shipped(t)
	for name, skills := range map[string][]vector.CatalogText{
		"none":             nil,
		"known words only": {skill("Weather", "Gives the weather forecast for a city.")},
		"names only":       {skill("Lodge", "Books the Brackenfold Lodge for a weekend.")},
	} {
		if got := g.LearnCatalog(skills); got != vector.Local(g) {
			t.Errorf("%s: a new embedder, want g itself", name)
		}
	}
}

func TestWrittenPlain(t *testing.T) {
	for _, c := range []struct {
		texts []string
		word  string
		want  bool
	}{
		{[]string{"Answers chargebacks with evidence"}, "chargebacks", true},
		{[]string{"Chargebacks"}, "chargebacks", false},
		{[]string{"Chargebacks", "chargebacks"}, "chargebacks", true},
		{[]string{"Print the BEOs for Friday"}, "beos", true},
		{[]string{"Rooms at Saltmarsh House"}, "saltmarsh", false},
		{[]string{"account CWE-3302148"}, "cwe", false},
		{[]string{"order 88/cwe and cwe"}, "cwe", true},
		{[]string{"order 88/cwe"}, "cwe", false},
		{[]string{"chargebacks"}, "chargeback", false}, // not whole
		{[]string{"Mrs Okunade's booking"}, "okunade", false},
		{[]string{"a xlsx file"}, "xlsx", true},
		{nil, "xlsx", false},
		{[]string{"x"}, "", false},
	} {
		if got := writtenPlain(c.texts, c.word); got != c.want {
			t.Errorf("writtenPlain(%q, %q) = %v, want %v", c.texts, c.word, got, c.want)
		}
	}
}

// FuzzWrittenPlain: card text is untrusted; reading it must never panic,
// and a word it finds is in the text, in one of its forms.
func FuzzWrittenPlain(f *testing.F) {
	f.Add("account CWE-3302148 and the chargebacks", "cwe")
	f.Add("-9/", "9")
	f.Add("é-1x", "x")
	f.Fuzz(func(t *testing.T, text, w string) {
		if !writtenPlain([]string{text}, w) {
			return
		}
		forms := []string{w, strings.ToUpper(w)}
		if base, ok := strings.CutSuffix(w, "s"); ok {
			forms = append(forms, strings.ToUpper(base)+"s")
		}
		for _, f := range forms {
			if strings.Contains(text, f) {
				return
			}
		}
		t.Errorf("writtenPlain(%q, %q) = true, but the text holds none of its forms", text, w)
	})
}
