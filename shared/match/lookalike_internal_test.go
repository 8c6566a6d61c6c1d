package match

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/match/rerank"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// TestServesAlike: a skill of another agent serves a request alike when
// its stated job holds every term of the request that the best skill's
// holds, two or more. An in-house and an outsourced accounts-payable desk
// share too few tag terms for lookAlikeJob, and "pay the courier firm's
// October invoices" was delegated to one of them.
func TestServesAlike(t *testing.T) {
	tests := []struct {
		need string
		a, b *index.Doc
		want bool
	}{
		{"pay the courier firm's October invoices", payables, payflow, true},
		{"pay the courier firm's October invoices", payflow, payables, true},
		// A term only the best one states ("run") tells them apart.
		{"run the supplier payments for month end", payables, payflow, false},
		{"translate this pdf document", translate, summary, false},
		// One shared term says little.
		{"the pdf", translate, summary, false},
	}
	for _, tt := range tests {
		if got := servesAlike(requestTerms(tt.need), tt.a, tt.b); got != tt.want {
			t.Errorf("servesAlike(%q) = %v, want %v", tt.need, got, tt.want)
		}
	}
}

// statedDoc is a skill with only its stated terms: name, tags and
// description.
func statedDoc(name, tags, desc string) *index.Doc {
	return &index.Doc{Name: name, NameTerms: requestTermsSorted(name), TagTerms: requestTermsSorted(tags), DescTerms: requestTermsSorted(desc)}
}

// Skills both look-alike tests read: an in-house and an outsourced
// payables desk, and two jobs on one PDF.
var (
	payables = statedDoc("Supplier payment run", "supplier payments, payment run, remittance, accounts payable",
		"Pays approved supplier invoices by bank transfer on the weekly payment run and sends remittance advice.")
	payflow = statedDoc("Invoice payment processing", "outsourced AP, supplier payments, invoice processing, remittance",
		"Processes and pays your suppliers' invoices on your behalf from a funded client account, with a remittance email to each payee.")
	summary   = statedDoc("Summarize PDF", "pdf, summary", "Summarizes a PDF document into a one-page brief with the key points.")
	translate = statedDoc("Translate PDF", "pdf, translation", "Translates a PDF document into another language, keeping its layout.")
)

func requestTermsSorted(text string) []string {
	terms := requestTerms(text)
	slices.Sort(terms)
	return terms
}

// TestStatesOneJob: two agents' own wordings of one service share a
// quarter of each one's stated terms and two tag terms; two jobs of one
// trade share a few common words, or more of them but not their tags.
func TestStatesOneJob(t *testing.T) {
	statement := statedDoc("Supplier statement reconciliation", "supplier statement, reconciliation",
		"Checks a supplier's statement against the invoices and payments we have on file and lists the differences.")
	care := statedDoc("Answer customer messages", "customer service, customer emails, order queries, live chat",
		"Replies to customers' emails, chats and marketplace messages about their orders: where it is, what went wrong, what happens next.")
	offshore := statedDoc("Customer email and chat replies", "customer support, email replies, chat, 24/7",
		"Our agents answer your shoppers' emails and chat messages about orders, deliveries and products, 24/7.")
	tests := []struct {
		name string
		a, b *index.Doc
		want bool
	}{
		{"payables in-house and outsourced", payables, payflow, true},
		// 6 of 22 shared: under a third of the larger.
		{"counselling in-house and outsourced",
			statedDoc("Counselling appointments", "counselling, student wellbeing, mental health, appointments",
				"Books a student in for one-to-one counselling with a university counsellor, in person or online; notes stay within the service."),
			statedDoc("Student counselling sessions", "counselling, student mental health, evening sessions, telephone support",
				"Short courses of counselling for students of partner institutions by phone or video, with sessions in the evenings and at weekends and a first appointment within two working days."),
			true},
		{"customer replies in-house and offshore", care, offshore, true},
		{"statement check and invoice payment", statement, payflow, false},
		{"summary and translation of a PDF", summary, translate, false},
		// 8 of 31 stated terms, one tag term.
		{"home insurance quote and an outside loss adjuster", homeQuote, lossAdjuster, false},
		{"untagged wordings of one service",
			statedDoc("Supplier payment run", "", "Pays approved supplier invoices by bank transfer and sends remittance advice."),
			statedDoc("Invoice payments", "", "Pays your suppliers' invoices from a client account and emails each remittance."),
			true},
	}
	for _, tt := range tests {
		if got := statesOneJob(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: statesOneJob = %v, want %v", tt.name, got, tt.want)
		}
	}
	if !quarterOfEach(statedTerms(homeQuote), statedTerms(lossAdjuster)) {
		t.Error("the quote and the loss adjuster no longer share a quarter of their stated terms: the row tests nothing")
	}
}

// TestTagsOneJob: two agents' tag lists for one service share three
// terms, or two and the thing their names end in; neighbouring jobs share
// fewer, or end their names alike by chance.
func TestTagsOneJob(t *testing.T) {
	inHouseTickets := statedDoc("Customer tickets", "zendesk, support ticket, customer issue, escalation", "")
	outsourcedTickets := statedDoc("Managed ticket response", "customer support, tickets, 24/7, outsourced support, multilingual", "")
	councilRepairs := statedDoc("Council home repairs", "council housing, tenant repairs, damp and mould, boiler", "")
	contractorRepairs := statedDoc("Responsive and out-of-hours repairs", "emergency repairs, out of hours, social housing, boarding up", "")
	tests := []struct {
		name string
		a, b *index.Doc
		want bool
	}{
		{"three tag terms", inHouseTickets, outsourcedTickets, true},
		{"two tag terms, names ending in repairs", councilRepairs, contractorRepairs, true},
		{"two tag terms, names ending apart", councilRepairs,
			statedDoc("Housing benefit claim", "housing benefit, rent, tenant help", ""), false},
		{"one tag term, names ending alike", statedDoc("Contract review", "contracts, legal, review", ""),
			statedDoc("Access review", "access, quarterly review, permissions", ""), false},
	}
	for _, tt := range tests {
		if got := tagsOneJob(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: tagsOneJob = %v, want %v", tt.name, got, tt.want)
		}
		if got := lookAlikeJob(tt.a, tt.b, decide.AlikeDiffers); got != tt.want {
			t.Errorf("%s: lookAlikeJob under other handling = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// A home insurance quote and an outside loss adjuster: neighbouring jobs
// of one trade.
var (
	homeQuote = statedDoc("Home insurance quote", "home insurance, buildings, contents, tenants, quote",
		"Buildings and contents quotes: the property's type, age and bedrooms, the rebuild cost, the value of the contents and any claims or flooding in the past five years.")
	lossAdjuster = statedDoc("Loss adjusting - buildings and contents", "loss adjuster, property damage, flood claims, home claims",
		"Visits damaged homes for the insurer, inspects the damage, agrees the scope of works and reports on the cost of the loss and the reserve.")
)

func TestRewordedPaste(t *testing.T) {
	const desc = "Writes a letter confirming how many years of claim-free driving a customer has earned on a motor policy, to take to a new insurer when they switch."
	const reworded = "Produces a letter confirming how many years of claim-free driving a policyholder has built up on a motor policy, to take to a new insurer when they move."
	const own = "Certifies your no-claims history for another insurer, by email within a day."
	skill := func(desc string, examples ...string) *card.Skill {
		return &card.Skill{Description: desc, Examples: examples}
	}
	tests := []struct {
		name string
		a, b *card.Skill
		want bool
	}{
		{"description and example reworded a word or two",
			skill(desc, "I'm switching insurer, please send my no claims letter"),
			skill(reworded, "I'm moving insurer, please send my no claims bonus letter"), true},
		{"a stock description, examples written apart",
			skill(desc, "I'm switching insurer, please send my no claims letter"),
			skill(reworded, "need proof of five claim-free years for Aviva"), false},
		{"an example's form, descriptions written apart",
			skill(desc, "I'm switching insurer, please send my no claims letter"),
			skill(own, "I'm moving insurer, please send my no claims bonus letter"), false},
		// Services written from one template, without examples, are
		// siblings, not pastes.
		{"no examples", skill(desc), skill(reworded), false},
		// Only the first maxSkeletonExamples are read: the comparison runs
		// while a request waits, and card text is untrusted.
		{"the copied example past the bound",
			skill(desc, "I'm switching insurer, please send my no claims letter"),
			skill(reworded, append(slices.Repeat([]string{"need proof of five claim-free years for Aviva"}, maxSkeletonExamples),
				"I'm moving insurer, please send my no claims bonus letter")...), false},
	}
	for _, tt := range tests {
		if got := rewordedPaste(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: rewordedPaste = %v, want %v (description %.2f)", tt.name, got, tt.want, wordsInOrder(skeleton(tt.a.Description), skeleton(tt.b.Description)))
		}
	}
}

func TestWordsInOrder(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"hold a table for six", "Hold a table, for six!", 1},
		{"hold a table for six", "for six hold a table", 0.6},
		{"hold a table", "", 0},
		{"a b c d", "a x c y", 0.5},
	}
	for _, tt := range tests {
		if got := wordsInOrder(skeleton(tt.a), skeleton(tt.b)); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("wordsInOrder(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestCopiedCard(t *testing.T) {
	sk := func(name, desc string, examples ...string) card.Skill {
		return card.Skill{Name: name, Description: desc, Examples: examples}
	}
	permit := sk("Resident permit", "Apply for or renew a resident parking permit.", "I moved into Zone C and need a permit for my car")
	fine := sk("Challenge a fine", "Challenges parking fines.", "I got a ticket on a yellow line")
	renamed := sk("Resident parking", "Apply for or renew a resident parking permit.")
	ownPermit := sk("Resident permit", "Permits for residents of controlled zones.", "my new flat is in a permit zone")
	tests := []struct {
		name string
		a, b []card.Skill
		want bool
	}{
		{"one skill of two, same description", []card.Skill{renamed}, []card.Skill{permit, fine}, true},
		{"one skill of two, same name and examples", []card.Skill{permit}, []card.Skill{fine, permit}, true},
		{"as many skills", []card.Skill{permit}, []card.Skill{permit}, false},
		{"more skills than the other", []card.Skill{permit, fine}, []card.Skill{permit}, false},
		{"one name, own words", []card.Skill{ownPermit}, []card.Skill{permit, fine}, false},
		{"a skill of its own besides", []card.Skill{permit, ownPermit}, []card.Skill{permit, fine, renamed}, false},
		{"no skills", nil, []card.Skill{permit}, false},
	}
	for _, tc := range tests {
		if got := copiedCard(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: copiedCard = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A skill of an agent that offers a skill under the best one's own name
// is no look-alike of it: that same-named skill is its counterpart there.
// sgd-x1's reworded flight searches ranked one service's reservation
// above its search, and the reservation was taken for the twin, so the
// sibling search never pooled (sgd and sgd-x1, dev and train: 23 right
// delegations and 7 wrong ones came of marking the search instead).
func TestNamesItElsewhere(t *testing.T) {
	skill := func(id, name, desc string) card.Skill {
		return card.Skill{ID: id, Name: name, Description: desc, Tags: []string{"flight"}}
	}
	air := agentWith("air", skill("search", "Find Oneway Flight", "Search one-way flights that fly to a chosen city"),
		skill("reserve", "Book Oneway Flight", "Reserve a one-way flight on a chosen airline"))
	jet := agentWith("jet", skill("reserve", "Book Oneway Flight", "Book the one way flight you picked with the airline"),
		skill("search", "Find Oneway Flight", "Look up one way flights with your own preferences"))
	m, err := New(catalog.New(air, jet), WithEmbedder(embed.Default()))
	if err != nil {
		t.Fatal(err)
	}
	doc := func(key string) int {
		for d := range m.refs {
			if m.idx.Doc(d).Key == key {
				return d
			}
		}
		t.Fatalf("no doc %s", key)
		return -1
	}
	airSearch, jetReserve, jetSearch := doc("air/search"), doc("jet/reserve"), doc("jet/search")
	if !m.namesItElsewhere(airSearch, jetReserve) {
		t.Error("jet's reservation: jet's search goes by air's search's name, want true")
	}
	if m.namesItElsewhere(airSearch, jetSearch) {
		t.Error("jet's search is the same-named skill itself, want false")
	}
	ranked := func(d int) Ranked {
		return Ranked{Scored: rerank.Scored{Candidate: index.Candidate{Doc: d, Entry: m.idx.Doc(d)}}}
	}
	out := []Ranked{ranked(airSearch), ranked(jetReserve), ranked(jetSearch)}
	m.markLookAlikes(&extract.Requirement{Need: "show me one way flights to Tulsa"}, out)
	if out[1].AlikeOf != "" {
		t.Errorf("jet/reserve marked a look-alike (%s) of air/search", out[1].Alike)
	}
	if out[2].AlikeOf != "air/search" || out[2].Alike != decide.AlikeTwin {
		t.Errorf("jet/search: AlikeOf %q Alike %q, want a twin of air/search", out[2].AlikeOf, out[2].Alike)
	}
}

// nameKey.mayShareName must rule out no pair of docs that sameName holds
// one name, names differing in case, spacing, plurals, word splits and
// Unicode case folding among them; and namesItElsewhere must say what
// sameName over the agent's other skills says.
func TestNameKeysRuleOutOnlyOtherNames(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	parts := []string{"Find", "find", "FIND", "a", "A", "Restaurant", "restaurants", "One", "Way", "Oneway", "one-way",
		"Flight", "flights", "Cut-out", "Cutout", "Straße", "STRASSE", "\u212aelvin", "kelvin", "ſtar", "Star", "", " ", "\xff", "\ufffd", "the", "Σίσυφος", "ΣΊΣΥΦΟΣ"}
	var docs []index.Doc
	for i := range 300 {
		var ws []string
		for range rng.IntN(4) {
			ws = append(ws, parts[rng.IntN(len(parts))])
		}
		sep := []string{" ", "  ", "\t"}[rng.IntN(3)]
		d := index.Doc{Key: fmt.Sprintf("a%d/s", i), Name: strings.Join(ws, sep)}
		if rng.IntN(4) == 0 {
			d.Name = " " + d.Name + " "
		}
		d.Analyze()
		docs = append(docs, d)
	}
	keys := nameKeysOf(docs)
	same, ruledOut := 0, 0
	for i := range docs {
		for j := range docs {
			want := sameName(&docs[i], &docs[j])
			may := keys[i].mayShareName(keys[j])
			if want && !may {
				t.Fatalf("%q and %q go by one name, but their keys rule it out", docs[i].Name, docs[j].Name)
			}
			if want {
				same++
			}
			if !may {
				ruledOut++
			}
		}
	}
	// The keys must do their job: rule out the pairs of other names
	// (hash collisions aside, all of them).
	if total := len(docs) * len(docs); same == 0 || ruledOut != total-same {
		t.Errorf("%d pairs of %d share a name and the keys ruled out %d, want every other pair", same, total, ruledOut)
	}
}

// appendFoldKey makes equal exactly the strings strings.EqualFold holds
// equal.
func FuzzFoldKey(f *testing.F) {
	for _, p := range [][2]string{{"Kelvin", "\u212aelvin"}, {"ſtar", "STAR"}, {"Straße", "STRASSE"}, {"\xff", "\ufffd"}, {"Σ", "ς"}, {"ǅ", "ǆ"}} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if got, want := string(appendFoldKey(nil, a)) == string(appendFoldKey(nil, b)), strings.EqualFold(a, b); got != want {
			t.Fatalf("%q, %q: appendFoldKey says %v, EqualFold %v", a, b, got, want)
		}
	})
}

// termGroups puts docs of the very same term list together, in doc order,
// and leaves out docs without terms and those keep refuses.
func TestTermGroups(t *testing.T) {
	lists := [][]string{{"hall", "hire"}, {"pool"}, nil, {"hall", "hire"}, {"hall"}, {"pool"}, {"hall", "hire"}}
	terms := func(d int) []string { return lists[d] }
	for _, tc := range []struct {
		name string
		keep func(int) bool
		want [][]int
	}{
		{"all", nil, [][]int{{0, 3, 6}, {1, 5}, {4}}},
		{"kept", func(d int) bool { return d != 3 }, [][]int{{0, 6}, {1, 5}, {4}}},
	} {
		if got := termGroups(len(lists), terms, tc.keep); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: groups %v, want %v", tc.name, got, tc.want)
		}
	}
}
