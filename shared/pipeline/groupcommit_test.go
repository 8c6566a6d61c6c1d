package pipeline

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/pipeline/client"
	"github.com/skillmatch/skillmatch/shared/pipeline/natsbox"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// With group commit on a server that syncs every write, 1,000 tasks
// submitted by 32 concurrent submitters through a group-committing client,
// then all of them again past the dedup window (identical retries, which
// the stored decisions turn away), are each decided once, as the
// in-process core decides them, each decision carrying its task's
// fingerprint and submission, with one follow-up record per delegation:
// the batches lose nothing and double nothing.
func TestPipelineGroupCommit(t *testing.T) {
	m := testMatcher(t)
	tasks := genTasks(m, 1000, 5)
	want := expected(t, m, tasks)
	srv, err := natsbox.Start(natsbox.Config{DataDir: t.TempDir(), InProcess: true, SyncAlways: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	nc, js := connectJS(t, srv)
	t.Cleanup(nc.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := shortWindow(t)
	cfg.GroupCommit = true
	if err := SetupStreams(ctx, js, cfg); err != nil {
		t.Fatal(err)
	}
	g, err := StartAll(ctx, js, NewSnapshots(m), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()
	c := client.New(js, client.WithGroupCommit())
	submitAll := func() {
		var wg sync.WaitGroup
		const submitters = 32
		for s := range submitters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := s; i < len(tasks); i += submitters {
					if _, err := c.Publish(ctx, tasks[i]); err != nil {
						t.Errorf("publish %s: %v", tasks[i].ID, err)
						return
					}
				}
			}()
		}
		wg.Wait()
	}
	submitAll()
	waitCount(t, js, DefaultStreams.Decisions, uint64(len(tasks)), time.Minute)
	pastWindow()
	submitAll()
	// Every retry is turned away with a dead letter.
	waitCount(t, js, DefaultStreams.DeadLetters, uint64(len(tasks)), time.Minute)
	time.Sleep(200 * time.Millisecond) // room for a stray second decision
	checkDecisions(t, js, want)
	for _, msg := range readAll(t, js, DefaultStreams.Decisions) {
		if msg.Headers().Get(HeaderFingerprint) == "" || msg.Headers().Get(HeaderSubmission) == "" {
			t.Errorf("decision %s without its task's record: %v", msg.Subject(), msg.Headers())
		}
	}
	delegations := 0
	for _, d := range want {
		var dec decide.Decision
		if err := json.Unmarshal([]byte(d), &dec); err != nil {
			t.Fatal(err)
		}
		if dec.Action == decide.Delegate {
			delegations++
		}
	}
	followups, err := js.KeyValue(ctx, wire.BucketTasks)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := followups.Status(ctx); err != nil || st.Values() != uint64(delegations) || delegations == 0 {
		t.Errorf("follow-up records: %v (%v), want one per delegation (%d)", st, err, delegations)
	}
	for _, name := range []string{DefaultStreams.Submissions, DefaultStreams.Decisions, "KV_" + wire.BucketTasks} {
		s, err := js.Stream(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if info, err := s.Info(ctx); err != nil || !info.Config.AllowAtomicPublish {
			t.Errorf("stream %s: allow_atomic %v (%v)", name, info != nil && info.Config.AllowAtomicPublish, err)
		}
	}
	ids := g.Decider.cfg.Decided.(*TaskIDs)
	t.Logf("decisions: %+v", ids.group.Stats())
	t.Logf("follow-up records: %+v", g.Decider.cfg.Followups.(*KVFollowups).group.Stats())
}
