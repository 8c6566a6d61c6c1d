package runtime

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestConfigValidate(t *testing.T) {
	s := time.Second
	week := 7 * 24 * time.Hour
	for _, c := range []struct {
		name string
		cfg  Config
		want string // a part of the error; "" = valid
	}{
		{name: "defaults", cfg: Config{}},
		// Exactly-once rests on the idempotency records, never on the
		// dedup window: without them, or with records that expire before
		// the streams drop the task, a late redelivery decides again.
		{name: "no records", cfg: Config{Remember: 0}, want: "no idempotency records"},
		{name: "records forever, tasks forever", cfg: Config{Remember: -1}},
		{name: "records as long as the tasks", cfg: Config{Remember: week, MaxAge: week}},
		{name: "records shorter than the tasks", cfg: Config{Remember: time.Hour, MaxAge: week}, want: "idempotency records kept 1h0m0s"},
		{name: "records expire, tasks kept forever", cfg: Config{Remember: week}, want: "forever"},
		// The default schedule spans 30s+30s+1m+2m+5m: a stream keeping
		// messages 5 minutes drops some before their last delivery.
		{name: "schedule outlasts the stream", cfg: Config{Remember: 5 * time.Minute, MaxAge: 5 * time.Minute}, want: "redelivery schedule spans 9m0s"},
		// The chaos test's compressed windows hold the promise.
		{name: "compressed windows", cfg: Config{MaxDeliver: 4, BackOff: []time.Duration{s, s, s}, Retry: s, Duplicates: s,
			Remember: time.Minute, MaxAge: time.Minute}},
		{name: "short test setup", cfg: Config{MaxDeliver: 3, BackOff: []time.Duration{150 * time.Millisecond, 150 * time.Millisecond},
			Retry: 30 * time.Millisecond}},
		{name: "no backoff: the ack wait is 30 s", cfg: Config{BackOff: []time.Duration{}}},
		{name: "backoff as long as max deliver", cfg: Config{MaxDeliver: 2, BackOff: []time.Duration{5 * s, 5 * s}}, want: "MaxDeliver"},
		{name: "zero backoff", cfg: Config{BackOff: []time.Duration{5 * s, 0}}, want: "BackOff[1]"},
		{name: "negative backoff", cfg: Config{BackOff: []time.Duration{-s}}, want: "BackOff[0]"},
		{name: "retry twice the ack wait", cfg: Config{BackOff: []time.Duration{2 * s}, Retry: 4 * s}, want: "Retry budget"},
		{name: "retry as long as the ack wait", cfg: Config{BackOff: []time.Duration{2 * s}, Retry: 2 * s}},
		{name: "retry past the default ack wait", cfg: Config{Retry: time.Minute}, want: "Retry budget"},
		{name: "dedup window shorter than the ack wait", cfg: Config{Duplicates: 10 * s}, want: "Duplicates"},
		{name: "too many workers", cfg: Config{Workers: 5000, MaxAckPending: 10000}, want: "workers"},
		{name: "workers beyond ack pending", cfg: Config{Workers: 20, MaxAckPending: 10}, want: "workers"},
		{name: "in flight too large", cfg: Config{MaxInFlight: 1 << 20}, want: "MaxInFlight"},
		{name: "workers publish themselves", cfg: Config{MaxInFlight: -1}},
		{name: "every problem at once", cfg: Config{MaxDeliver: 1, BackOff: []time.Duration{0}, Duplicates: 1},
			want: "MaxDeliver above 1, not 1; BackOff[0] is 0s, want > 0; ack wait"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			if cfg.Remember == 0 && c.name != "no records" {
				cfg.Remember = -1 // the other cases keep their records forever
			}
			err := cfg.Validate()
			switch {
			case c.want == "" && err != nil:
				t.Errorf("Validate = %v, want nil", err)
			case c.want != "" && (!errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), c.want)):
				t.Errorf("Validate = %v, want ErrInvalidConfig with %q", err, c.want)
			}
		})
	}
}

func TestConfigDelay(t *testing.T) {
	cfg := Config{BackOff: []time.Duration{time.Second, 2 * time.Second}}
	for n, want := range map[uint64]time.Duration{0: time.Second, 1: time.Second, 2: 2 * time.Second, 9: 2 * time.Second} {
		if got := cfg.delay(n); got != want {
			t.Errorf("delay(%d) = %v, want %v", n, got, want)
		}
	}
	if got := (Config{BackOff: []time.Duration{}}).delay(3); got != time.Second {
		t.Errorf("no backoff: delay %v", got)
	}
}
