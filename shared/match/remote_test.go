package match_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/calibrate"
	"github.com/skillmatch/skillmatch/shared/match/model"
	"github.com/skillmatch/skillmatch/shared/match/rerank"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// fakeRemote stands in for a remote reranker: it scores in shortlist
// order, or fails the way the remote ones can.
type fakeRemote struct {
	fail    error
	outside bool
	sleep   time.Duration
}

func (f *fakeRemote) Rerank(ctx context.Context, in *rerank.Input) ([]rerank.Scored, error) {
	if f.sleep > 0 {
		select {
		case <-time.After(f.sleep):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if f.fail != nil {
		return nil, f.fail
	}
	out := make([]rerank.Scored, len(in.Result.Candidates))
	for i, c := range in.Result.Candidates {
		out[i] = rerank.Scored{Candidate: c, Score: float64(10 - i%10)}
	}
	if f.outside {
		out[0].Candidate = index.Candidate{Doc: 999999, Entry: &index.Doc{Key: "evil/x"}}
	}
	return out, nil
}

type fixedProb float64

func (c fixedProb) Prob(float64) float64 { return float64(c) }

// A remote reranker's fits are calibrated with its own calibration (or
// the hot-reloaded one); when it fails, answers outside the shortlist or
// runs over budget, the learned reranker ranks with the model's own
// calibration, and the result says degraded.
func TestRemoteRerankerFallsBack(t *testing.T) {
	cat := exampleCatalog(t)
	f := &fakeRemote{}
	m, err := match.New(cat, match.WithEmbedder(embed.Default()), match.WithRemoteReranker(f, fixedProb(0.11), 50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tk := &task.Task{ID: "r-1", Message: task.Message{Parts: []task.Part{{Text: "what's the weather going to be in Lisbon tomorrow"}}}}
	req := m.Extract(tk)
	sl, err := m.Shortlist(ctx, &req)
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, hot float64, wantNote string, wantProb func(r match.Ranked) float64) {
		t.Helper()
		var cal fixedProb
		ranked, note, err := m.RankDegraded(ctx, &req, sl, nil)
		if hot > 0 {
			cal = fixedProb(hot)
			ranked, note, err = m.RankDegraded(ctx, &req, sl, cal)
		}
		if err != nil || note != wantNote || len(ranked) != len(sl.Retrieval.Candidates) {
			t.Fatalf("%s: note %q err %v, %d ranked of %d", name, note, err, len(ranked), len(sl.Retrieval.Candidates))
		}
		for _, r := range ranked {
			if r.Prob != wantProb(r) {
				t.Fatalf("%s: prob %v, want %v", name, r.Prob, wantProb(r))
			}
		}
	}
	check("remote", 0, "", func(match.Ranked) float64 { return 0.11 })
	check("remote, hot calibration", 0.22, "", func(match.Ranked) float64 { return 0.22 })
	own := func(r match.Ranked) float64 { return m.Calibrator().Prob(r.Score) }
	f.fail = errors.New("connection refused")
	check("remote failed", 0.22, match.DegradedReranker, own)
	f.fail, f.outside = nil, true
	check("answer outside the shortlist", 0.22, match.DegradedReranker, own)
	f.outside, f.sleep = false, time.Second
	start := time.Now()
	check("over budget", 0, match.DegradedReranker, own)
	if took := time.Since(start); took > 500*time.Millisecond {
		t.Errorf("a 50ms budget took %v", took)
	}
	// A caller that gave up is an error, not a degraded ranking.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := m.RankDegraded(cctx, &req, sl, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// A ranking is marked PairCalibrated only when the learned reranker's
// fits went through the model's own calibration and the model says that
// calibration already counts a sibling right: not under the built-in
// model, a caller's calibration, a hot-reloaded one or a remote
// reranker's; a remote reranker's fallback to the learned one is.
func TestPairCalibratedRankings(t *testing.T) {
	cat := exampleCatalog(t)
	fitted := model.Default()
	fitted.SiblingsCalibrated = true
	ctx := context.Background()
	tk := &task.Task{ID: "p-1", Message: task.Message{Parts: []task.Part{{Text: "what's the weather going to be in Lisbon tomorrow"}}}}
	tests := []struct {
		name string
		opts []match.Option
		hot  calibrate.Calibrator
		want bool
	}{
		{"built-in model", nil, nil, false},
		{"model fitted on siblings", []match.Option{match.WithModel(fitted)}, nil, true},
		{"its calibration replaced", []match.Option{match.WithModel(fitted), match.WithCalibrator(fixedProb(0.5))}, nil, false},
		{"a calibration hot-reloaded", []match.Option{match.WithModel(fitted)}, fixedProb(0.5), false},
		{"a remote reranker's fits", []match.Option{match.WithModel(fitted), match.WithRemoteReranker(&fakeRemote{}, fixedProb(0.5), time.Second)}, nil, false},
		{"the learned fallback of a failed remote reranker",
			[]match.Option{match.WithModel(fitted), match.WithRemoteReranker(&fakeRemote{fail: errors.New("down")}, fixedProb(0.5), time.Second)}, nil, true},
	}
	for _, tt := range tests {
		m, err := match.New(cat, append(tt.opts, match.WithEmbedder(embed.Default()))...)
		if err != nil {
			t.Fatal(err)
		}
		req := m.Extract(tk)
		sl, err := m.Shortlist(ctx, &req)
		if err != nil {
			t.Fatal(err)
		}
		ranked, _, err := m.RankDegraded(ctx, &req, sl, tt.hot)
		if err != nil || len(ranked) < 2 {
			t.Fatalf("%s: %d ranked, %v", tt.name, len(ranked), err)
		}
		for _, o := range match.Options(ranked) {
			if o.PairCalibrated != tt.want {
				t.Fatalf("%s: %s PairCalibrated %v, want %v", tt.name, o.Key, o.PairCalibrated, tt.want)
			}
		}
	}
}
