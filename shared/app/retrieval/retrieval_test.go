package retrieval

import (
	"context"
	"flag"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
)

// The flags a command that shortlists registers build matchers that
// retrieve with GloVe; run's flags carry the same stack.
func TestMatcherFlagsRetrieve(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	mf := MatcherFlags(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	build, err := mf.Builder(nil)
	if err != nil {
		t.Fatal(err)
	}
	cat, errs := catalog.LoadDir(filepath.Join("..", "..", "..", "examples", "catalog"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	m, err := build(cat)
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Match(context.Background(), &task.Task{ID: "w", Message: task.Message{Parts: []task.Part{{Text: "what's the weather going to be in Lisbon tomorrow"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision.Action != decide.Delegate || res.Decision.Chosen.AgentID != "world-info" {
		t.Errorf("weather task: %s %+v (%s)", res.Decision.Action, res.Decision.Chosen, res.Decision.Reason)
	}
	if !strings.HasPrefix(mf.ID(), embed.BuiltinID) {
		t.Errorf("ID %q does not name the embedder", mf.ID())
	}
	if _, rf := NewRunFlags(io.Discard); rf.Matcher.Retrieval == nil {
		t.Error("run flags without the retrieval stack")
	}
}
