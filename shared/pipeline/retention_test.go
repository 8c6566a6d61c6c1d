package pipeline

import (
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// The tasks and dead-letter streams are bounded (defaults, or as
// configured); decisions and outcomes are kept.
func TestRetention(t *testing.T) {
	_, js, ctx := serve(t, 10*time.Second)
	cfgOf := func(name string) jetstream.StreamConfig {
		t.Helper()
		s, err := js.Stream(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		info, err := s.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return info.Config
	}
	if err := SetupStreams(ctx, js, Config{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{DefaultStreams.Submissions, DefaultStreams.Tasks} {
		if c := cfgOf(name); c.MaxAge != DefaultTasksMaxAge {
			t.Errorf("%s max age %v", name, c.MaxAge)
		}
	}
	// The decisions are the tasks' idempotency records: kept as long as
	// any redelivery or retry of their tasks can come.
	if c := cfgOf(DefaultStreams.Decisions); c.MaxAge != 0 || c.Discard != jetstream.DiscardNew {
		t.Errorf("decisions: max age %v, discard %v", c.MaxAge, c.Discard)
	}
	if c := cfgOf(DefaultStreams.DeadLetters); c.MaxAge != DefaultDeadLettersMaxAge || c.MaxBytes != DefaultDeadLettersMaxBytes || c.Discard != jetstream.DiscardOld {
		t.Errorf("dead letters: max age %v, max bytes %d, discard %v", c.MaxAge, c.MaxBytes, c.Discard)
	}
	// Decisions and outcomes are kept as long as they fit; every stream
	// callers feed is capped in size, refusing new messages when full
	// (never dropping acknowledged ones), and per message.
	for _, tc := range []struct {
		name    string
		bytes   int64
		message int32
	}{
		{DefaultStreams.Submissions, DefaultTasksMaxBytes, MaxMessageBytes},
		{DefaultStreams.Tasks, DefaultTasksMaxBytes, MaxMessageBytes},
		{DefaultStreams.Decisions, DefaultDecisionsMaxBytes, MaxMessageBytes},
		{DefaultStreams.Outcomes, DefaultOutcomesMaxBytes, wire.MaxOutcomeBytes},
	} {
		c := cfgOf(tc.name)
		if tc.name != DefaultStreams.Tasks && tc.name != DefaultStreams.Submissions && c.MaxAge != 0 {
			t.Errorf("%s: max age %v", tc.name, c.MaxAge)
		}
		if c.MaxBytes != tc.bytes || c.Discard != jetstream.DiscardNew || c.MaxMsgSize != tc.message {
			t.Errorf("%s: max bytes %d, discard %v, max message %d", tc.name, c.MaxBytes, c.Discard, c.MaxMsgSize)
		}
	}
	// An outcome over its cap is refused to the publisher, not stored.
	if _, err := js.Publish(ctx, wire.SubjectOutcomeBy("bob"), make([]byte, wire.MaxOutcomeBytes+1)); err == nil {
		t.Error("an oversized outcome was stored")
	}
	// Configured, on the existing streams: a short max age also shortens
	// the dedup window (the server refuses a longer one); negative = none.
	if err := SetupStreams(ctx, js, Config{TasksMaxAge: time.Minute, DeadLettersMaxAge: -1, DeadLettersMaxBytes: -1}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{DefaultStreams.Submissions, DefaultStreams.Tasks} {
		if c := cfgOf(name); c.MaxAge != time.Minute || c.Duplicates != time.Minute {
			t.Errorf("%s: max age %v, duplicates %v", name, c.MaxAge, c.Duplicates)
		}
	}
	if c := cfgOf(DefaultStreams.DeadLetters); c.MaxAge != 0 || c.MaxBytes != -1 {
		t.Errorf("dead letters unbounded: max age %v, max bytes %d", c.MaxAge, c.MaxBytes)
	}
}

// The pipeline's config holds the exactly-once promise or is refused: the
// idempotency records, the decisions, are kept whatever the tasks' max
// age, and a tasks stream that would drop a task before its last
// redelivery is refused.
func TestConfigHoldsExactlyOnce(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, ""},
		{Config{TasksMaxAge: -1}, ""},
		{Config{TasksMaxAge: time.Hour}, ""},
		{Config{TasksMaxAge: 5 * time.Minute}, "redelivery schedule"},
	} {
		rc := c.cfg.RuntimeConfig()
		err := c.cfg.Validate()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("tasks max age %v: %v, want %q", c.cfg.TasksMaxAge, err, c.want)
		}
		if c.cfg.TasksMaxAge > 0 && (rc.Remember >= 0 || rc.MaxAge != c.cfg.TasksMaxAge) {
			t.Errorf("tasks max age %v: records kept %v, streams %v", c.cfg.TasksMaxAge, rc.Remember, rc.MaxAge)
		}
	}
}

// Streams of an earlier version, whose TASKS captured the submissions
// too (with the extractor's durable on it), are updated in place.
func TestSetupStreamsUpgrades(t *testing.T) {
	_, js, ctx := serve(t, 10*time.Second)
	s, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: DefaultStreams.Tasks, Subjects: []string{"skillmatch.task.>"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{Durable: StageExtractor, FilterSubjects: wire.SubjectsSubmitted,
		AckPolicy: jetstream.AckExplicitPolicy}); err != nil {
		t.Fatal(err)
	}
	if err := SetupStreams(ctx, js, Config{}); err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, wire.SubjectSubmittedBy("alice"), []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if n, err := streamCount(ctx, js, DefaultStreams.Submissions); err != nil || n != 1 {
		t.Errorf("submissions stream holds %d (%v)", n, err)
	}
}
