package console

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// Summary is what the live view shows of one decision; the whole message
// stays in the stream, read again by its sequence when opened.
type Summary struct {
	Seq        uint64    `json:"seq"`
	At         time.Time `json:"at"`
	Caller     string    `json:"caller"`
	Action     string    `json:"action"`
	TaskID     string    `json:"taskId"`
	DecisionID string    `json:"decisionId"`
	// Agent and Skill are the chosen skill's (a plan's first step's),
	// else the top candidate's.
	Agent string `json:"agent"`
	Skill string `json:"skill"`
	// Steps are a plan's skill keys, in order.
	Steps       []string `json:"steps,omitempty"`
	Probability float64  `json:"probability"`
	Reason      string   `json:"reason"`
	// TopKey, TopScore and TopProb are the top candidate after the
	// tie-break (empty when the decision has none): the reliability
	// diagram joins them with the outcomes.
	TopKey   string  `json:"-"`
	TopScore float64 `json:"-"`
	TopProb  float64 `json:"-"`
}

// maxReason caps the reason a summary keeps (the decision page shows it whole).
const maxReason = 240

// Filter selects decisions by caller, action and agent (empty: any), and
// for an older page, those before a stream sequence (0: none).
type Filter struct {
	Caller, Action, Agent string
	Before                uint64
}

// Match reports whether s passes the filter; a plan passes the agent
// filter when any of its steps goes to the agent.
func (f Filter) Match(s *Summary) bool {
	return (f.Caller == "" || f.Caller == s.Caller) && (f.Action == "" || f.Action == s.Action) &&
		(f.Agent == "" || f.Agent == s.Agent || s.hasStepAgent(f.Agent)) && (f.Before == 0 || s.Seq < f.Before)
}

func (s *Summary) hasStepAgent(agent string) bool {
	for _, k := range s.Steps {
		if a, _, _ := strings.Cut(k, "/"); a == agent {
			return true
		}
	}
	return false
}

// Tail follows the decisions stream with an ordered consumer (no state on
// the server, nothing acknowledged), keeps the latest decisions' summaries
// and passes each new one to the live views.
type Tail struct {
	keep int
	log  *zap.Logger
	cc   jetstream.ConsumeContext

	mu    sync.RWMutex
	items []Summary // oldest first, at most 2*keep
	subs  map[chan Summary]struct{}
	last  uint64 // the stream's sequence of the last one read
	total uint64 // decisions read since the start
	done  bool
}

// StartTail starts following stream from its last keep messages.
func StartTail(ctx context.Context, js jetstream.JetStream, stream string, keep int, log *zap.Logger) (*Tail, error) {
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return nil, fmt.Errorf("console: decisions stream %s: %w", stream, err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("console: decisions stream %s: %w", stream, err)
	}
	occ := jetstream.OrderedConsumerConfig{}
	if last := info.State.LastSeq; last > 0 {
		start := info.State.FirstSeq
		if last >= uint64(keep) && last-uint64(keep)+1 > start {
			start = last - uint64(keep) + 1
		}
		occ.DeliverPolicy, occ.OptStartSeq = jetstream.DeliverByStartSequencePolicy, start
	}
	cons, err := s.OrderedConsumer(ctx, occ)
	if err != nil {
		return nil, fmt.Errorf("console: follow %s: %w", stream, err)
	}
	t := &Tail{keep: keep, log: log, subs: map[chan Summary]struct{}{}}
	t.cc, err = cons.Consume(func(m jetstream.Msg) { t.add(m) })
	if err != nil {
		return nil, fmt.Errorf("console: follow %s: %w", stream, err)
	}
	return t, nil
}

// Summarize reads a decision message into its summary.
func Summarize(subject string, data []byte, seq uint64, at time.Time) (Summary, error) {
	d, err := wire.DecodeDecision(data)
	if err != nil {
		return Summary{}, err
	}
	caller, _ := wire.CallerOfDecision(subject)
	s := Summary{Seq: seq, At: at, Caller: caller, Action: string(d.Action), TaskID: d.TaskID, DecisionID: d.DecisionID,
		Probability: d.Probability, Reason: clipText(d.Reason, maxReason)}
	if !d.DecidedAt.IsZero() {
		s.At = d.DecidedAt
	}
	for _, st := range d.Steps {
		s.Steps = append(s.Steps, st.Chosen.Key)
	}
	switch {
	case d.Chosen != nil:
		s.Agent, s.Skill = d.Chosen.AgentID, d.Chosen.SkillID
	case len(d.Steps) > 0:
		s.Agent, s.Skill = d.Steps[0].Chosen.AgentID, d.Steps[0].Chosen.SkillID
	case d.Top != nil:
		s.Agent, s.Skill = d.Top.AgentID, d.Top.SkillID
	}
	if d.Top != nil {
		s.TopKey, s.TopScore, s.TopProb = d.Top.Key, d.Top.Score, d.Top.Prob
	}
	return s, nil
}

func (t *Tail) add(m jetstream.Msg) {
	md, err := m.Metadata()
	if err != nil {
		return
	}
	s, err := Summarize(m.Subject(), m.Data(), md.Sequence.Stream, md.Timestamp)
	if err != nil {
		t.log.Debug("console: decision skipped", zap.Uint64("seq", md.Sequence.Stream), zap.Error(err))
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.items = append(t.items, s)
	if len(t.items) >= 2*t.keep {
		t.items = append(t.items[:0:0], t.items[len(t.items)-t.keep:]...)
	}
	t.last, t.total = md.Sequence.Stream, t.total+1
	for ch := range t.subs {
		select {
		case ch <- s:
		default: // a slow viewer misses one rather than holding the tail
		}
	}
}

// Latest returns up to n of the latest decisions passing f, newest first,
// and how many of those kept pass f.
func (t *Tail) Latest(f Filter, n int) (out []Summary, matched int) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	lo := max(0, len(t.items)-t.keep)
	for i := len(t.items) - 1; i >= lo; i-- {
		if s := &t.items[i]; f.Match(s) {
			matched++
			if len(out) < n {
				out = append(out, *s)
			}
		}
	}
	return out, matched
}

// Kept returns the decisions kept, oldest first.
func (t *Tail) Kept() []Summary {
	t.mu.RLock()
	defer t.mu.RUnlock()
	lo := max(0, len(t.items)-t.keep)
	return append([]Summary(nil), t.items[lo:]...)
}

// LastSeq is the stream sequence of the last decision read.
func (t *Tail) LastSeq() uint64 {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.last
}

// Subscribe returns a channel of the decisions read from now on, and the
// function that ends the subscription.
func (t *Tail) Subscribe() (<-chan Summary, func()) {
	ch := make(chan Summary, 256)
	t.mu.Lock()
	if t.done {
		close(ch)
	} else {
		t.subs[ch] = struct{}{}
	}
	t.mu.Unlock()
	return ch, func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if _, ok := t.subs[ch]; ok {
			delete(t.subs, ch)
			close(ch)
		}
	}
}

// Stop ends the tail and every subscription.
func (t *Tail) Stop() {
	t.cc.Stop()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done = true
	for ch := range t.subs {
		delete(t.subs, ch)
		close(ch)
	}
}

// clipText cuts s to at most n bytes on a rune boundary, marking the cut.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return strings.TrimSpace(s[:cut]) + "…"
}
