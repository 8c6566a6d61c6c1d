package index

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
)

func testDocs() []Doc {
	return []Doc{
		{Key: "bank/transfer", AgentID: "bank", SkillID: "transfer", AgentName: "Bank", Name: "Transfer money",
			Description: "Moves money between the customer's accounts.", Tags: []string{"transfer", "funds"},
			Examples: []string{"shift 100 dollars out of checking into savings", "send money to my savings account"}},
		{Key: "bank/balance", AgentID: "bank", SkillID: "balance", AgentName: "Bank", Name: "Account balance",
			Description: "Tells how much money is in an account.", Tags: []string{"balance"},
			Examples: []string{"how much money do i have", "what is my checking balance"}},
		{Key: "weather/forecast", AgentID: "weather", SkillID: "forecast", AgentName: "Weather", Name: "Weather forecast",
			Description: "Forecast of rain, wind and temperature for a city.", Tags: []string{"weather", "forecast"},
			Examples: []string{"will it rain in paris tomorrow", "what is the temperature in berlin"}},
		{Key: "travel/flight", AgentID: "travel", SkillID: "flight", AgentName: "Travel", Name: "Book a flight",
			Description: "Books plane tickets between two cities.", Tags: []string{"flights", "booking"}},
	}
}

func query(text string) Query {
	e := embed.Default()
	return Query{Text: text, Terms: analyze.Terms(text), Vector: e.EmbedText(text)}
}

func TestMemorySearch(t *testing.T) {
	m, err := NewMemory(testDocs(), embed.Default())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		text string
		want string
	}{
		{"please move 50 dollars into my savings", "bank/transfer"},
		{"is it going to rain in rome", "weather/forecast"},
		{"how much is in my checking account", "bank/balance"},
		{"get me plane tickets to lisbon", "travel/flight"},
	}
	for _, tt := range tests {
		res, err := m.Search(context.Background(), query(tt.text))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Candidates) == 0 || res.Candidates[0].Entry.Key != tt.want {
			t.Errorf("%q: top %v, want %s", tt.text, keys(res), tt.want)
			continue
		}
		c := res.Candidates[0]
		if c.FusedRank != 1 || c.Fused <= 0 || (c.BM25Rank == 0 && c.DenseRank == 0) {
			t.Errorf("%q: candidate fields not filled: %+v", tt.text, c)
		}
		if len(res.TermWeights) != len(query(tt.text).Terms) {
			t.Errorf("%q: %d term weights for %d terms", tt.text, len(res.TermWeights), len(query(tt.text).Terms))
		}
	}
}

func TestMemoryAllowIsAHardFilter(t *testing.T) {
	m, _ := NewMemory(testDocs(), embed.Default())
	q := query("send money to my savings account")
	q.Allow = []bool{false, true, true, true}
	res, err := m.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if res.Allowed != 3 {
		t.Errorf("allowed %d, want 3", res.Allowed)
	}
	for _, c := range res.Candidates {
		if c.Doc == 0 {
			t.Fatalf("a disallowed doc was returned: %v", keys(res))
		}
	}
	for _, n := range append(res.Neighbors, res.LexNeighbors...) {
		if n.Doc == 0 {
			t.Fatalf("a disallowed doc was a neighbor")
		}
	}
	q.Allow = []bool{false, false, false, false}
	if res, _ = m.Search(context.Background(), q); len(res.Candidates) != 0 || res.Allowed != 0 {
		t.Errorf("nothing allowed, got %v", keys(res))
	}
	q.Allow = []bool{true}
	if _, err := m.Search(context.Background(), q); err == nil {
		t.Error("allow of the wrong length accepted")
	}
}

func TestMemoryShortlistLength(t *testing.T) {
	m, _ := NewMemory(testDocs(), embed.Default())
	q := query("money account balance weather flight")
	q.Shortlist = 2
	res, _ := m.Search(context.Background(), q)
	if len(res.Candidates) != 2 {
		t.Errorf("shortlist %d, want 2", len(res.Candidates))
	}
	for i, c := range res.Candidates {
		if c.FusedRank != i+1 {
			t.Errorf("fused ranks out of order: %v", res.Candidates)
		}
	}
}

func TestMemoryEmptyQuery(t *testing.T) {
	m, _ := NewMemory(testDocs(), embed.Default())
	if _, err := m.Search(context.Background(), Query{}); !errors.Is(err, ErrEmptyQuery) {
		t.Errorf("err %v, want ErrEmptyQuery", err)
	}
}

func TestMemoryDenseIsMaxOverExamples(t *testing.T) {
	m, _ := NewMemory(testDocs(), embed.Default())
	q := query("will it rain in paris tomorrow") // an example, word for word
	res, _ := m.Search(context.Background(), q)
	c := res.Candidates[0]
	if c.Entry.Key != "weather/forecast" || c.ExampleSim < 0.999 || c.Dense < c.DescSim || c.BestExample != 0 {
		t.Errorf("dense %v, example %v (#%d), desc %v", c.Dense, c.ExampleSim, c.BestExample, c.DescSim)
	}
}

func TestNewMemoryRejectsDocWithoutKey(t *testing.T) {
	if _, err := NewMemory([]Doc{{Name: "x"}}, embed.Default()); err == nil {
		t.Error("doc without key accepted")
	}
}

func keys(r *Result) []string {
	var out []string
	for _, c := range r.Candidates {
		out = append(out, c.Entry.Key)
	}
	return out
}

func TestDocsResolvesLikeMemoryAndDoesNotSearch(t *testing.T) {
	docs := []Doc{{Key: "a/x", Name: "book a flight"}, {Key: "b/y", Name: "weather forecast"}}
	d := Docs(docs)
	if d.Len() != 2 || d.Doc(1).Key != "b/y" {
		t.Fatalf("Docs: len %d, doc 1 %q", d.Len(), d.Doc(1).Key)
	}
	if _, err := d.Search(context.Background(), Query{Terms: []string{"flight"}}); !errors.Is(err, ErrNotSearchable) {
		t.Errorf("Search: err %v, want ErrNotSearchable", err)
	}
}

// Searches run concurrently on one index: a large one searches BM25 beside
// the dense scan, and both reuse pooled scratch. Each answer must be the
// one the query gets alone (run with -race to check the sharing too).
func TestMemoryConcurrentSearches(t *testing.T) {
	words := []string{"invoice", "payment", "refund", "flight", "hotel", "weather", "rain", "ticket",
		"report", "summary", "translate", "schedule", "meeting", "budget", "contract", "review"}
	word := func(i int) string { return words[i%len(words)] }
	var docs []Doc
	for i := 0; len(docs)*3 < parallelMinVectors+300; i++ {
		docs = append(docs, Doc{Key: fmt.Sprintf("a%d/s%d", i/10, i), AgentID: fmt.Sprintf("a%d", i/10), SkillID: fmt.Sprintf("s%d", i),
			Name: word(i) + " " + word(i/3), Description: "handles " + word(i/7) + " and " + word(i/11) + " work",
			Examples: []string{"please " + word(i/5) + " my " + word(i), "a " + word(i/13) + " for " + word(i/2)}})
	}
	m, err := NewMemory(docs, embed.Default())
	if err != nil {
		t.Fatal(err)
	}
	if len(m.vs.Owner) < parallelMinVectors {
		t.Fatalf("%d vectors: too few for the lexical search beside the dense one", len(m.vs.Owner))
	}
	var queries []Query
	for i := range 12 {
		q := query(word(i) + " the " + word(3*i+1) + " " + word(5*i+2))
		if i%3 == 1 { // agents filtered out, as the hard filters do
			q.Allow = make([]bool, len(docs))
			for d := range q.Allow {
				q.Allow[d] = (d/10)%4 != i%4
			}
		}
		q.Shortlist = 10 + i
		queries = append(queries, q)
	}
	ctx := context.Background()
	want := make([]*Result, len(queries))
	for i, q := range queries {
		if want[i], err = m.Search(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4*len(queries))
	for g := range 4 {
		wg.Go(func() {
			for j := range queries {
				i := (j + 5*g) % len(queries)
				got, err := m.Search(ctx, queries[i])
				switch {
				case err != nil:
					errs <- err
				case !reflect.DeepEqual(got, want[i]):
					errs <- fmt.Errorf("query %d: a concurrent search answered differently", i)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
