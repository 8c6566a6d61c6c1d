package pipeline

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
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
	if c := cfgOf(DefaultStreams.Tasks); c.MaxAge != DefaultTasksMaxAge {
		t.Errorf("tasks max age %v", c.MaxAge)
	}
	if c := cfgOf(DefaultStreams.DeadLetters); c.MaxAge != DefaultDeadLettersMaxAge || c.MaxBytes != DefaultDeadLettersMaxBytes || c.Discard != jetstream.DiscardOld {
		t.Errorf("dead letters: max age %v, max bytes %d, discard %v", c.MaxAge, c.MaxBytes, c.Discard)
	}
	for _, name := range []string{DefaultStreams.Decisions, DefaultStreams.Outcomes} {
		if c := cfgOf(name); c.MaxAge != 0 || c.MaxBytes != -1 {
			t.Errorf("%s: max age %v, max bytes %d", name, c.MaxAge, c.MaxBytes)
		}
	}
	// Configured, on the existing streams: a short max age also shortens
	// the dedup window (the server refuses a longer one); negative = none.
	if err := SetupStreams(ctx, js, Config{TasksMaxAge: time.Minute, DeadLettersMaxAge: -1, DeadLettersMaxBytes: -1}); err != nil {
		t.Fatal(err)
	}
	if c := cfgOf(DefaultStreams.Tasks); c.MaxAge != time.Minute || c.Duplicates != time.Minute {
		t.Errorf("tasks: max age %v, duplicates %v", c.MaxAge, c.Duplicates)
	}
	if c := cfgOf(DefaultStreams.DeadLetters); c.MaxAge != 0 || c.MaxBytes != -1 {
		t.Errorf("dead letters unbounded: max age %v, max bytes %d", c.MaxAge, c.MaxBytes)
	}
}
