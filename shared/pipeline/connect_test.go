package pipeline_test

import (
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/natsbox"
)

// An error the server sends outside any call (here a slow consumer) is
// a structured warning naming the subscription's subject, not a bare
// line on stderr.
func TestAsyncErrorsAreLogged(t *testing.T) {
	srv, err := natsbox.Start(natsbox.Config{DataDir: t.TempDir(), InProcess: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	core, logs := observer.New(zapcore.WarnLevel)
	nc, err := srv.Connect(pipeline.AsyncErrors(zap.New(core)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	sub, err := nc.SubscribeSync("slow.>")
	if err != nil {
		t.Fatal(err)
	}
	if err := sub.SetPendingLimits(1, 1<<20); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if err := nc.Publish("slow.x", []byte("m")); err != nil {
			t.Fatal(err)
		}
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for logs.FilterMessage("nats async error").Len() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	got := logs.FilterMessage("nats async error").All()
	if len(got) == 0 {
		t.Fatal("no warning for the slow consumer")
	}
	f := got[0].ContextMap()
	if f["subject"] != "slow.>" || f["error"] == nil {
		t.Errorf("warning fields %v, want the subject and the error", f)
	}
}
