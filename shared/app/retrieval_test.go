package app

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
)

// memoryRetrieval is app/retrieval's stack with the in-memory index:
// that package imports this one, so this package's tests cannot use it.
type memoryRetrieval struct{}

func (memoryRetrieval) Options(*MatcherFlags, *zap.Logger) ([]match.Option, error) {
	return []match.Option{match.WithEmbedder(embed.Default())}, nil
}

func (memoryRetrieval) EmbedderID(*MatcherFlags) string { return embed.Default().ID() }

// retrievalFor is the retrieval each service's main gives RunService:
// only the retriever's shortlists.
func retrievalFor(stage string) Retrieval {
	if stage == pipeline.StageRetriever {
		return memoryRetrieval{}
	}
	return nil
}

// A retriever started without a retrieval fails at start, with a reason,
// rather than dead-lettering every task; `run` likewise.
func TestRetrieverNeedsRetrieval(t *testing.T) {
	var stderr bytes.Buffer
	err := RunService(context.Background(), pipeline.StageRetriever, []string{"--nats", "nats://127.0.0.1:1"}, &stderr, nil)
	if err == nil || !strings.Contains(err.Error(), "retrieval") {
		t.Errorf("retriever without retrieval: %v", err)
	}
	_, rf := NewRunFlags(&stderr)
	if _, err := StartRun(context.Background(), rf, zap.NewNop()); err == nil || !strings.Contains(err.Error(), "retrieval") {
		t.Errorf("run without retrieval: %v", err)
	}
}

// The matchers of the stages that do not shortlist are built without
// retrieval: they resolve the same doc numbers (one fingerprint across a
// deployment) but refuse to search.
func TestBuilderWithoutRetrieval(t *testing.T) {
	cat, errs := catalog.LoadDir(exampleDir())
	if len(errs) > 0 || cat == nil {
		t.Fatalf("example catalog: %v", errs)
	}
	tk := &task.Task{ID: "w-1", Message: task.Message{Parts: []task.Part{{Text: "what's the weather going to be in Lisbon tomorrow"}}}}
	lean := MatcherFlags{Index: "memory", Shortlist: 20, RRFK: 60, Threshold: 0.7, Margin: 0.15, ModelExamples: true}
	full := lean
	full.Retrieval = memoryRetrieval{}
	var fps []string
	for _, mf := range []MatcherFlags{lean, full} {
		build, err := mf.Builder(nil)
		if err != nil {
			t.Fatal(err)
		}
		m, err := build(cat)
		if err != nil {
			t.Fatal(err)
		}
		fps = append(fps, pipeline.SnapshotFingerprint(m))
		_, err = m.Match(context.Background(), tk)
		if wantErr := mf.Retrieval == nil; (err != nil) != wantErr {
			t.Errorf("retrieval %v: Match err %v", mf.Retrieval, err)
		}
	}
	if fps[0] != fps[1] {
		t.Errorf("fingerprints differ with and without retrieval: %v", fps)
	}
	if !strings.HasPrefix(full.ID(), embed.BuiltinID) || strings.HasPrefix(lean.ID(), embed.BuiltinID) {
		t.Errorf("ID: %q with retrieval, %q without", full.ID(), lean.ID())
	}
}
