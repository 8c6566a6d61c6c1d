package match_test

import (
	"context"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// The shortlist stage retrieves the earlier turns over every skill the
// filters kept, so "yes, book it" can lean on what the conversation was
// about, and the skills they favour join the shortlist even when the
// current turn alone would not shortlist them; a task without earlier
// turns gets no history retrieval and the shortlist the current turn gives.
func TestShortlistHistory(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		history []string
		want    string // the skill the earlier turns favour; "" for no history
	}{
		{"no history", nil, ""},
		{"weather talk", []string{"is it going to snow in Oslo this weekend", "and the wind?"}, "atlas-weather/forecast"},
		{"meeting talk", []string{"I need a slot with the design team", "Thursday works best"}, "meet-maker/schedule-meeting"},
	}
	for _, short := range []int{20, 1} {
		m := newMatcher(t, buildCatalog(t, honest()...), match.WithShortlist(short))
		bare := m.Extract(textTask("h", "yes please, go ahead with that"))
		alone, err := m.Shortlist(ctx, &bare)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range tests {
			tk := withHistory(textTask("h", "yes please, go ahead with that"), tc.history...)
			req := m.Extract(tk)
			sl, err := m.Shortlist(ctx, &req)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if sl.History != nil {
					t.Errorf("%s: history retrieval %+v without earlier turns", tc.name, sl.History)
				}
				if !reflect.DeepEqual(keys(sl.Retrieval.Candidates), keys(alone.Retrieval.Candidates)) {
					t.Errorf("%s: shortlist %v, the current turn alone gives %v", tc.name, keys(sl.Retrieval.Candidates), keys(alone.Retrieval.Candidates))
				}
				continue
			}
			if sl.History == nil || len(sl.History.Candidates) == 0 {
				t.Fatalf("%s: no history retrieval", tc.name)
			}
			if got := sl.History.Candidates[0].Entry.Key; got != tc.want {
				t.Errorf("shortlist %d, %s: earlier turns favour %s, want %s", short, tc.name, got, tc.want)
			}
			got := keys(sl.Retrieval.Candidates)
			// The earlier turns' retrieval keeps only shortlisted skills:
			// it travels with the shortlist between stages.
			for _, c := range sl.History.Candidates {
				if !slices.Contains(got, c.Entry.Key) {
					t.Errorf("shortlist %d, %s: history holds %s, which is not shortlisted", short, tc.name, c.Entry.Key)
				}
			}
			if !slices.Contains(got, tc.want) {
				t.Errorf("shortlist %d, %s: %s is not shortlisted (%v)", short, tc.name, tc.want, got)
			}
			// Every shortlisted skill has the current turn's ranks, over
			// one list.
			for i, c := range sl.Retrieval.Candidates {
				if c.FusedRank != i+1 {
					t.Errorf("shortlist %d, %s: candidate %d has fused rank %d", short, tc.name, i, c.FusedRank)
				}
			}
			if n := len(got); n > max(short, len(alone.Retrieval.Candidates))+5 {
				t.Errorf("shortlist %d, %s: %d candidates", short, tc.name, n)
			}
		}
	}
}

func keys(cs []index.Candidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Entry.Key
	}
	return out
}

// fallingEmbedder is an embedder whose server goes down once down is set.
type fallingEmbedder struct {
	vector.Embedder
	down atomic.Bool
}

func (f *fallingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if f.down.Load() {
		return nil, vector.ErrUnavailable
	}
	return f.Embedder.Embed(ctx, texts)
}

// A follow-up whose current turn has no terms ("do it"), decided while the
// embedder is down, has nothing to score its earlier turns' skills by: it
// is abstained on, not failed (which the pipeline would retry and then
// dead-letter).
func TestShortlistHistoryEmptyTurn(t *testing.T) {
	emb := &fallingEmbedder{Embedder: embed.Default()}
	m, err := match.New(buildCatalog(t, honest()...), match.WithEmbedder(emb))
	if err != nil {
		t.Fatal(err)
	}
	emb.down.Store(true)
	tk := withHistory(textTask("h", "do it"), "is it going to snow in Oslo this weekend", "and then?")
	res, err := m.Match(context.Background(), tk)
	if err != nil {
		t.Fatalf("match: %v", err)
	}
	if res.Decision.Action == decide.Delegate {
		t.Errorf("a turn with no terms and no vector was delegated: %+v", res.Decision)
	}
}
