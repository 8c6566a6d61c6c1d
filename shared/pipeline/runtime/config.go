package runtime

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
)

// Config is how the runner consumes and settles deliveries.
type Config struct {
	// MaxDeliver is how often a message is delivered before it is given up
	// (and dead-lettered by the max-deliveries advisory). Default 5.
	MaxDeliver int
	// BackOff are the redelivery delays; BackOff[0] is also the ack wait
	// of the first delivery (JetStream replaces AckWait with it), so it
	// must exceed the time a message can wait in the client buffer plus
	// its processing. Must be shorter than MaxDeliver. Default 30s, 1m,
	// 2m, 5m.
	BackOff []time.Duration
	// MaxAckPending bounds the unacknowledged messages of one consumer
	// (default 1,000).
	MaxAckPending int
	// PullMaxMessages is how many messages a worker buffers (default 64).
	PullMaxMessages int
	// PullExpiry is how long a worker's pull request lives (default 5 s).
	// The client notices a pull request the server lost only when two of
	// its heartbeats (every PullExpiry/2) go missing, so this bounds how
	// long a stage can sit idle with messages waiting; the nats.go default
	// (30 s) let a loaded machine stall a stage for half a minute.
	PullExpiry time.Duration
	// MaxInFlight bounds, per stage, the handled messages whose outputs
	// wait to be published (default 256). A stage's workers only match;
	// a publisher per stage publishes the outputs and acks the input once
	// the stream has stored them, so a worker goes on to the next message
	// instead of waiting two round trips; a worker blocks when the bound
	// is reached. 1 or less (negative; 0 is the default): the workers
	// publish themselves.
	MaxInFlight int
	// Workers is how many concurrent workers each stage runs on its
	// durable consumer (default 1); replicas in other processes add more.
	Workers int
	// Retry is how long a delivery retries a transient error in process
	// (exponential backoff) before it is Nak'd. Default 2 s.
	Retry time.Duration
	// Duplicates is the streams' deduplication window (default 2 min): a
	// redelivery within it publishes no second output, which keeps two
	// deliveries of one message racing (one overtaking the other after
	// the ack wait) from doing the work twice. The runner does not set it
	// (the streams' owner does); it is here so that Validate can check it
	// against BackOff[0]. Exactly-once does not rest on it: a stage
	// stopped longer than the window is redelivered after it.
	Duplicates time.Duration
	// Remember is how long the stages' idempotency records last: one per
	// task, keyed by caller and task id (the pipeline's are the decisions
	// themselves, kept for good: negative). It is what makes exactly-once
	// hold across any outage, so Validate refuses 0 (no records) and a
	// record that expires while its task's messages may still be
	// delivered (MaxAge), for a runner whose stages keep records of their
	// own. The runner does not keep them (the stages do); it is here so
	// that Validate can check it.
	Remember time.Duration
	// MaxAge is how long the streams the stages consume keep a message
	// (0: forever).
	MaxAge time.Duration
	// Log receives one line per event, each with the task id.
	Log *zap.Logger
	// Observer, when set, is told about every delivery (Observe).
	Observer Observer
	// Tracer, when set, gives every delivery a span in the trace its
	// message's traceparent names (Trace).
	Tracer trace.TracerProvider
}

// DefaultConfig is the configuration a zero Config gets.
func DefaultConfig() Config { return Config{}.withDefaults() }

// defaultAckWait is JetStream's ack wait when BackOff is empty.
const defaultAckWait = 30 * time.Second

func (c Config) withDefaults() Config {
	if c.MaxDeliver <= 0 {
		c.MaxDeliver = 5
	}
	if c.BackOff == nil {
		c.BackOff = []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute}
	}
	if c.MaxAckPending <= 0 {
		c.MaxAckPending = 1000
	}
	if c.PullMaxMessages <= 0 {
		c.PullMaxMessages = 64
	}
	if c.PullExpiry <= 0 {
		c.PullExpiry = 5 * time.Second
	}
	if c.Workers <= 0 {
		c.Workers = 1
	}
	if c.MaxInFlight == 0 {
		c.MaxInFlight = 256
	}
	if c.Retry <= 0 {
		c.Retry = 2 * time.Second
	}
	if c.Duplicates <= 0 {
		c.Duplicates = 2 * time.Minute
	}
	if c.Log == nil {
		c.Log = zap.NewNop()
	}
	return c
}

// ErrInvalidConfig marks a configuration Validate refuses.
var ErrInvalidConfig = errors.New("invalid runtime config")

// Bounds of Validate: more workers or in-flight slots than this is a
// typo, not a tuning (each in-flight slot holds a handled message).
const (
	maxWorkers  = 1024
	maxInFlight = 1 << 16
)

// Validate checks, after the defaults, that the settings agree with each
// other; every problem is listed in one error wrapping ErrInvalidConfig.
func (c Config) Validate() error {
	c = c.withDefaults()
	var bad []string
	if len(c.BackOff) >= c.MaxDeliver {
		// JetStream refuses the consumer otherwise.
		bad = append(bad, fmt.Sprintf("%d backoff delays need MaxDeliver above %d, not %d", len(c.BackOff), len(c.BackOff), c.MaxDeliver))
	}
	for i, d := range c.BackOff {
		if d <= 0 {
			bad = append(bad, fmt.Sprintf("BackOff[%d] is %v, want > 0", i, d))
		}
	}
	if aw := c.ackWait(); aw <= c.Retry/2 {
		// The runner marks a delivery in progress before each new
		// attempt, which restarts its ack wait; an attempt and the wait
		// before the next are each bounded by Retry/4. An ack wait shorter
		// than that lets the server redeliver a delivery still being
		// retried, to another worker.
		bad = append(bad, fmt.Sprintf("ack wait (BackOff[0]) %v must exceed half the in-process Retry budget %v", aw, c.Retry))
	}
	if aw := c.ackWait(); c.Duplicates < aw {
		// Two deliveries of a message, the second after the ack wait,
		// would both publish their outputs.
		bad = append(bad, fmt.Sprintf("dedup window (Duplicates) %v is shorter than the ack wait (BackOff[0]) %v", c.Duplicates, aw))
	}
	switch {
	case c.Remember == 0:
		bad = append(bad, "no idempotency records (Remember is 0): exactly-once would rest on the dedup window, "+
			"which a stage stopped longer than it outlasts")
	case c.Remember > 0 && (c.MaxAge <= 0 || c.Remember < c.MaxAge):
		// A message still in the stream after its task's record expired
		// would be decided again.
		bad = append(bad, fmt.Sprintf("idempotency records kept %v, less than the streams keep a message (%s)", c.Remember, forever(c.MaxAge)))
	}
	if span := c.redeliverySpan(); c.MaxAge > 0 && span >= c.MaxAge {
		// The stream would drop a message before its last delivery: lost,
		// not even dead-lettered.
		bad = append(bad, fmt.Sprintf("the redelivery schedule spans %v, not less than the streams keep a message (%v)", span, c.MaxAge))
	}
	if c.Workers > maxWorkers || c.Workers > c.MaxAckPending {
		bad = append(bad, fmt.Sprintf("%d workers: want at most %d and at most MaxAckPending (%d)", c.Workers, maxWorkers, c.MaxAckPending))
	}
	if c.MaxInFlight > maxInFlight {
		bad = append(bad, fmt.Sprintf("MaxInFlight %d: want at most %d", c.MaxInFlight, maxInFlight))
	}
	if len(bad) > 0 {
		return fmt.Errorf("%w: %s", ErrInvalidConfig, strings.Join(bad, "; "))
	}
	return nil
}

// forever spells a retention, 0 being none.
func forever(d time.Duration) string {
	if d <= 0 {
		return "forever"
	}
	return d.String()
}

// redeliverySpan is the least time from a message's first delivery to its
// last when every delivery fails: the ack wait, then a delay per
// redelivery.
func (c Config) redeliverySpan() time.Duration {
	span := c.ackWait()
	for n := 1; n < c.MaxDeliver; n++ {
		span += c.delay(uint64(n))
	}
	return span
}

// ackWait is the first delivery's ack wait: BackOff[0], else JetStream's
// default.
func (c Config) ackWait() time.Duration {
	if len(c.BackOff) > 0 {
		return c.BackOff[0]
	}
	return defaultAckWait
}

// keepAliveEvery is how often a delivery kept waiting (held, or its ack
// deferred) is marked in progress: well inside the shortest ack wait.
func (c Config) keepAliveEvery() time.Duration {
	return max(c.ackWait()/4, 50*time.Millisecond)
}

// delay is the redelivery delay after the n-th delivery failed.
func (c Config) delay(n uint64) time.Duration {
	b := c.BackOff
	if len(b) == 0 {
		return time.Second
	}
	i := int(n) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(b) {
		i = len(b) - 1
	}
	return b[i]
}
