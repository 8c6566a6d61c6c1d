package natsbox

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// TestDeployConfig starts a real server from deploy/nats/nats.conf (on
// free loopback ports, without its cluster peers) and checks that each
// service user may publish its own output and nothing else.
func TestDeployConfig(t *testing.T) {
	users := []string{"SKILLMATCH_ADMIN", "ALICE", "BOB", "EXTRACTOR", "RETRIEVER", "RERANKER", "DECIDER", "FEEDBACK", "CONSOLE", "FRONTDOOR"}
	for _, u := range users {
		t.Setenv(u+"_PASSWORD", strings.ToLower(u)+"-secret")
	}
	t.Setenv("SERVER_NAME", "nats-test")
	opts, err := server.ProcessConfigFile(filepath.Join("..", "..", "..", "deploy", "nats", "nats.conf"))
	if err != nil {
		t.Fatalf("deploy/nats/nats.conf: %v", err)
	}
	if !opts.SyncAlways {
		t.Error("the deployed file store must sync every write (sync_interval: always)")
	}
	if opts.Cluster.Name != "skillmatch" || len(opts.Routes) != 3 {
		t.Errorf("cluster %q with %d routes, want skillmatch with 3", opts.Cluster.Name, len(opts.Routes))
	}
	opts.Host, opts.Port, opts.HTTPPort = "127.0.0.1", -1, 0
	opts.Cluster.Port, opts.Routes = 0, nil
	opts.Cluster.Name = ""
	opts.StoreDir = t.TempDir()
	opts.NoLog, opts.NoSigs = true, true
	ns, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	ns.Start()
	defer ns.Shutdown()
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready")
	}
	tests := []struct {
		user    string
		allowed []string
		denied  []string
	}{
		{"alice", []string{"skillmatch.task.submitted.alice", "skillmatch.outcome.alice", "skillmatch.match.alice"},
			[]string{"skillmatch.task.submitted.bob", "skillmatch.task.submitted", "skillmatch.outcome.bob", "skillmatch.decision.alice.delegate", "skillmatch.task.ranked", "$JS.ACK.SUBMISSIONS.extractor.1.1.1.1.1.1.1",
				"skillmatch.match", "skillmatch.match.bob"}},
		{"bob", []string{"skillmatch.task.submitted.bob"}, []string{"skillmatch.task.submitted.alice", "skillmatch.outcome.alice"}},
		// The extractor reads the task-id records, the decisions; the
		// decider publishes them and, like any stage that ends a task,
		// acks its submission; the task-id bucket of earlier versions is
		// read, no longer written.
		{"extractor", []string{"skillmatch.task.extracted", "skillmatch.deadletter.extractor.alice", "$JS.API.STREAM.MSG.GET.DECISIONS"},
			[]string{"skillmatch.task.ranked", "skillmatch.decision.alice.delegate", "skillmatch.deadletter.decider.alice", "$KV.skillmatch_taskids.x"}},
		{"retriever", []string{"skillmatch.task.shortlisted"}, []string{"skillmatch.task.extracted", "skillmatch.decision.alice.abstain", "$KV.skillmatch_tasks.dGFzaw"}},
		{"reranker", []string{"skillmatch.task.ranked"}, []string{"skillmatch.task.shortlisted", "skillmatch.decision.bob.delegate"}},
		{"decider", []string{"skillmatch.decision.alice.delegate", "skillmatch.decision._.abstain", "$KV.skillmatch_tasks.dGFzaw", "$JS.ACK.SUBMISSIONS.extractor.1.1.1.1.1.1.1", "$JS.API.STREAM.MSG.GET.DECISIONS"},
			[]string{"skillmatch.task.submitted.alice", "skillmatch.outcome", "$KV.skillmatch_model.x", "$KV.skillmatch_taskids.x"}},
		{"frontdoor", []string{"skillmatch.task.submitted.alice", "skillmatch.task.submitted"},
			[]string{"skillmatch.decision.alice.delegate", "skillmatch.outcome.alice", "skillmatch.task.extracted", "skillmatch.deadletter.decider.alice", "$KV.skillmatch_tasks.dGFzaw"}},
		{"feedback", []string{"skillmatch.deadletter.retriever.bob"}, []string{"skillmatch.decision.alice.delegate", "skillmatch.task.submitted.bob"}},
		// The console reads: it may ask the JetStream API, never publish pipeline messages or bucket values.
		{"console", []string{"$JS.API.STREAM.INFO.DECISIONS"}, []string{"skillmatch.task.submitted.alice", "skillmatch.outcome.alice",
			"skillmatch.decision.alice.delegate", "skillmatch.deadletter.extractor.alice", "$KV.skillmatch_catalog.evil",
			"$KV.skillmatch_model.calibration", "$JS.API.STREAM.PURGE.DECISIONS", "$JS.API.STREAM.MSG.DELETE.DECISIONS"}},
	}
	for _, tt := range tests {
		t.Run(tt.user, func(t *testing.T) {
			denied := make(chan string, 16)
			nc, err := nats.Connect(ns.ClientURL(), nats.UserInfo(tt.user, tt.user+"-secret"),
				nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
					if errors.Is(err, nats.ErrPermissionViolation) || strings.Contains(err.Error(), "Permissions Violation") {
						denied <- err.Error()
					}
				}))
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			for _, subj := range tt.allowed {
				if err := nc.Publish(subj, []byte("{}")); err != nil {
					t.Fatal(err)
				}
				if err := nc.Flush(); err != nil {
					t.Fatal(err)
				}
				select {
				case e := <-denied:
					t.Errorf("%s may not publish %s, but should: %s", tt.user, subj, e)
				case <-time.After(50 * time.Millisecond):
				}
			}
			for _, subj := range tt.denied {
				_ = nc.Publish(subj, []byte("{}"))
				_ = nc.Flush()
				select {
				case e := <-denied:
					if !strings.Contains(e, subj) {
						t.Errorf("violation %q does not name %s", e, subj)
					}
				case <-time.After(2 * time.Second):
					t.Errorf("%s published %s: permissions must refuse it", tt.user, subj)
				}
			}
		})
	}
}
