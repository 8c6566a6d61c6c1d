package rerank_test

import (
	"context"
	"hash/fnv"
	"math"
	"testing"

	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/match/model"
	"github.com/skillmatch/skillmatch/shared/match/rerank"
	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// bagOfWords is a deterministic embedder for a hand-made index: hashed
// term counts, normalised, so that sharing words means being similar.
type bagOfWords struct{}

func (bagOfWords) ID() string { return "test-bag-of-words" }
func (bagOfWords) Dim() int   { return 64 }
func (b bagOfWords) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = b.EmbedText(t)
	}
	return out, nil
}
func (bagOfWords) EmbedText(text string) []float32 {
	v := make([]float32, 64)
	for _, t := range analyze.Terms(text) {
		h := fnv.New32a()
		h.Write([]byte(t))
		v[h.Sum32()%64]++
	}
	var n float64
	for _, x := range v {
		n += float64(x * x)
	}
	if n > 0 {
		for i := range v {
			v[i] /= float32(math.Sqrt(n))
		}
	}
	return v
}

// The shipped model on a small index: a skill whose text shares more of
// the task's words does not score lower, and the fits stay in 0-10.
func TestDefaultModelIsMonotoneInSharedWords(t *testing.T) {
	const need = "reconcile supplier invoices against purchase orders"
	docs := []index.Doc{
		{Key: "a/w0", AgentID: "a", SkillID: "w0", Name: "Book leave", Description: "Book annual leave for an employee."},
		{Key: "a/w1", AgentID: "a", SkillID: "w1", Name: "Reconcile", Description: "Reconcile bank statements for an employee."},
		{Key: "a/w2", AgentID: "a", SkillID: "w2", Name: "Reconcile suppliers", Description: "Reconcile supplier statements."},
		{Key: "a/w3", AgentID: "a", SkillID: "w3", Name: "Reconcile supplier invoices", Description: "Reconcile supplier invoices."},
		{Key: "a/w5", AgentID: "a", SkillID: "w5", Name: "Reconcile supplier invoices", Description: "Reconcile supplier invoices against purchase orders."},
		{Key: "b/other", AgentID: "b", SkillID: "other", Name: "Weather", Description: "Forecast the weather in a city."},
	}
	for i := range docs {
		docs[i].Analyze()
	}
	emb := bagOfWords{}
	idx, err := index.NewMemory(docs, emb)
	if err != nil {
		t.Fatal(err)
	}
	q := index.Query{Text: need, Terms: analyze.Terms(need), Vector: emb.EmbedText(need)}
	res, err := idx.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	l, err := rerank.NewLearned(model.Default().Reranker)
	if err != nil {
		t.Fatal(err)
	}
	scored, err := l.Rerank(context.Background(), &rerank.Input{Req: &extract.Requirement{Need: need}, Terms: q.Terms, Vector: q.Vector, Result: res})
	if err != nil {
		t.Fatal(err)
	}
	score := map[string]float64{}
	for _, s := range scored {
		if s.Score < 0 || s.Score > 10 || math.IsNaN(s.Score) {
			t.Errorf("%s: fit %v outside 0-10", s.Entry.Key, s.Score)
		}
		score[s.Entry.Key] = s.Score
	}
	t.Logf("fits %v", score)
	order := []string{"a/w1", "a/w2", "a/w3", "a/w5"} // 1, 2, 3, 5 need terms shared
	for i := 1; i < len(order); i++ {
		lo, hi := order[i-1], order[i]
		if _, ok := score[hi]; !ok {
			t.Fatalf("%s not shortlisted: %v", hi, score)
		}
		if score[hi] < score[lo] {
			t.Errorf("%s (more shared words) scores %.3f, below %s at %.3f", hi, score[hi], lo, score[lo])
		}
	}
	if best := scored[0].Entry.Key; best != "a/w5" {
		t.Errorf("best %s, want a/w5 (all the task's words)", best)
	}
}
