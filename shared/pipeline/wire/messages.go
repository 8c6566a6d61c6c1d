package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/match/plan"
)

// TaskSubmitted is what a caller publishes on SubjectSubmitted. Task is the
// task's JSON exactly as the caller wrote it: it is untrusted, and the
// extractor validates it with task.Parse (limits included), which decoding
// it here would bypass.
//
// A bare task (a task object without the envelope, as one would publish
// from the nats CLI) is accepted too: see DecodeTaskSubmitted.
type TaskSubmitted struct {
	V           int             `json:"v"`
	Task        json.RawMessage `json:"task"`
	SubmittedAt time.Time       `json:"submittedAt,omitzero"`
}

// NewTaskSubmitted wraps a task.
func NewTaskSubmitted(t *task.Task, at time.Time) (*TaskSubmitted, error) {
	raw, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("wire: encode task %s: %w", t.ID, err)
	}
	return &TaskSubmitted{V: Version, Task: raw, SubmittedAt: at}, nil
}

// DecodeTaskSubmitted returns the envelope of a submitted task. A payload
// with neither "v" nor "task" is read as a bare task object and wrapped.
// It does not validate the task itself: call task.Parse on Task.
func DecodeTaskSubmitted(data []byte) (*TaskSubmitted, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return nil, fmt.Errorf("%w: task submitted: %v", ErrBadMessage, err)
	}
	_, hasV := keys["v"]
	_, hasTask := keys["task"]
	if !hasV && !hasTask {
		return &TaskSubmitted{V: Version, Task: bytes.Clone(data)}, nil
	}
	var m TaskSubmitted
	if err := decode(data, "task submitted", &m); err != nil {
		return nil, err
	}
	if !present(m.Task) {
		return nil, fmt.Errorf("%w: task submitted: no task", ErrBadMessage)
	}
	return &m, nil
}

// Extracted is the extractor's output: the validated task and the
// requirement drawn from it.
type Extracted struct {
	V      int    `json:"v"`
	TaskID string `json:"taskId"`
	// Caller is the task's caller, as the extractor stamped it.
	Caller      string              `json:"caller,omitempty"`
	Requirement extract.Requirement `json:"requirement"`
	// Task is the validated task (task.Task JSON), carried along so that
	// the decider can build the A2A request.
	Task json.RawMessage `json:"task"`
}

// DecodeExtracted reads and checks an Extracted message.
func DecodeExtracted(data []byte) (*Extracted, error) {
	var m Extracted
	if err := decode(data, "extracted", &m); err != nil {
		return nil, err
	}
	return &m, checkTaskID("extracted", m.TaskID)
}

// Shortlisted is the retriever's output: the filter and retrieval answer,
// with everything the reranker reads. Doc numbers refer to the catalog
// snapshot named by Catalog; a reranker with another snapshot must not
// rank it.
type Shortlisted struct {
	V      int    `json:"v"`
	TaskID string `json:"taskId"`
	// Caller is the task's caller, as the extractor stamped it.
	Caller      string              `json:"caller,omitempty"`
	Requirement extract.Requirement `json:"requirement"`
	Task        json.RawMessage     `json:"task"`
	Catalog     string              `json:"catalog"`
	Shortlist   Shortlist           `json:"shortlist"`
	// Parts are, for a request with several intents, the shortlist of
	// each part (match.Matcher.PlanParts), in the request's order; absent
	// for a request kept whole and in messages of builds without plans.
	Parts []PartShortlist `json:"parts,omitempty"`
}

// PartShortlist is the shortlist of one part of a request, retrieved with
// the part's words and the whole request's constraints
// (match.PartRequirement).
type PartShortlist struct {
	Part      string    `json:"part"`
	Shortlist Shortlist `json:"shortlist"`
}

// DecodeShortlisted reads and checks a Shortlisted message.
func DecodeShortlisted(data []byte) (*Shortlisted, error) {
	m, ok := scanShortlisted(data)
	if !ok {
		m = Shortlisted{}
		if err := decode(data, "shortlisted", &m); err != nil {
			return nil, err
		}
	}
	if err := checkTaskID("shortlisted", m.TaskID); err != nil {
		return nil, err
	}
	parts := make([]string, len(m.Parts))
	for i, p := range m.Parts {
		parts[i] = p.Part
	}
	return &m, checkParts("shortlisted", parts)
}

// Ranked is the reranker's output: every shortlisted candidate with its fit
// score, calibrated probability and reason, in the reranker's order. The
// decider decides from these alone (decide.Policy.Order, then Decide).
type Ranked struct {
	V      int    `json:"v"`
	TaskID string `json:"taskId"`
	// Caller is the task's caller, as the extractor stamped it.
	Caller     string          `json:"caller,omitempty"`
	Task       json.RawMessage `json:"task"`
	Catalog    string          `json:"catalog"`
	Candidates []decide.Option `json:"candidates"`
	// Degraded lists the stages so far that did without their remote
	// model (match.JoinDegraded), carried on to the decision.
	Degraded string `json:"degraded,omitempty"`
	// Parts are, for a request with several intents, each part's ranked
	// candidates, in the request's order (see Shortlisted.Parts).
	Parts []PartRanked `json:"parts,omitempty"`
}

// PartRanked is the ranked candidates of one part of a request.
type PartRanked struct {
	Part       string          `json:"part"`
	Candidates []decide.Option `json:"candidates"`
}

// DecodeRanked reads and checks a Ranked message.
func DecodeRanked(data []byte) (*Ranked, error) {
	m, ok := scanRanked(data)
	if !ok {
		m = Ranked{}
		if err := decode(data, "ranked", &m); err != nil {
			return nil, err
		}
	}
	if err := checkTaskID("ranked", m.TaskID); err != nil {
		return nil, err
	}
	parts := make([]string, len(m.Parts))
	for i, p := range m.Parts {
		parts[i] = p.Part
	}
	return &m, checkParts("ranked", parts)
}

// checkParts checks the parts of a request: none (kept whole), or 2 to
// plan.MaxParts non-empty texts, as plan.Split makes them.
func checkParts(what string, parts []string) error {
	if len(parts) == 0 {
		return nil
	}
	if len(parts) < 2 || len(parts) > plan.MaxParts {
		return fmt.Errorf("%w: %s: %d parts, want 2 to %d", ErrBadMessage, what, len(parts), plan.MaxParts)
	}
	for i, p := range parts {
		if strings.TrimSpace(p) == "" || !utf8.ValidString(p) {
			return fmt.Errorf("%w: %s: part %d is empty or not UTF-8", ErrBadMessage, what, i+1)
		}
	}
	return nil
}

// Decision is the decider's answer, published on
// SubjectDecision(string(Action)). The decide.Decision fields (action,
// chosen, fallbacks, probability, candidates, question, reason) are inlined.
type Decision struct {
	V          int    `json:"v"`
	TaskID     string `json:"taskId"`
	DecisionID string `json:"decisionId"`
	decide.Decision
	// Request is, for a delegation, the A2A SendMessage request to send
	// to the chosen agent.
	Request *A2ARequest `json:"request,omitempty"`
	// StepRequests are, for a plan, one A2A request per step, in order
	// (StepRequests), each with its own decision id (DecisionID-s<n>).
	StepRequests []*A2ARequest `json:"stepRequests,omitempty"`
	Catalog      string        `json:"catalog,omitempty"`
	// Top is the first candidate after the tie-break, set whatever the
	// action (also on a clarify or an abstain), so that a calibration
	// refit can join the decision with the outcomes reported for it.
	Top *decide.Option `json:"top,omitempty"`
	// Tie is what the near-tie break did (decide.Policy.BreakTies), set
	// when there were candidates within its epsilon of the best.
	Tie *decide.TieNote `json:"tie,omitempty"`
	// DecidedAt is informative only: a redelivered task gets the same
	// decision id, and the duplicate publish is dropped by the stream.
	DecidedAt time.Time `json:"decidedAt,omitzero"`
}

// MaxPlanSteps is the most steps a plan decision may have: a step per
// part of the request at most, whatever the decider's cap.
const MaxPlanSteps = plan.MaxParts

// DecisionCheck is a check DecodeDecision makes besides the message's own
// consistency.
type DecisionCheck func(*Decision) error

// InCatalog checks that every skill a decision names (the chosen one,
// fallbacks, candidates, plan steps) is in cat: for a reader that holds
// the catalog the decision was made over.
func InCatalog(cat *catalog.Catalog) DecisionCheck {
	return func(d *Decision) error {
		var opts []decide.Option
		if d.Chosen != nil {
			opts = append(opts, *d.Chosen)
		}
		opts = append(append(opts, d.Fallbacks...), d.Candidates...)
		for _, s := range d.Steps {
			opts = append(opts, s.Chosen)
		}
		for _, o := range opts {
			a, ok := cat.Agent(o.AgentID)
			if !ok {
				return fmt.Errorf("skill %s: agent %q is not in the catalog", clip(o.Key), o.AgentID)
			}
			if _, ok := a.Card.Skill(o.SkillID); !ok {
				return fmt.Errorf("skill %s: agent %q lists no skill %q", clip(o.Key), o.AgentID, o.SkillID)
			}
		}
		return nil
	}
}

// MaxSteps checks that a plan has at most n steps (the decider's
// --plan-steps).
func MaxSteps(n int) DecisionCheck {
	return func(d *Decision) error {
		if len(d.Steps) > n {
			return fmt.Errorf("plan of %d steps, more than %d", len(d.Steps), n)
		}
		return nil
	}
}

// DecodeDecision reads and checks a Decision message: a known action, a
// plan with 2 to MaxPlanSteps well-formed steps (and a step request per
// step when it carries any), no steps on any other action; then checks.
func DecodeDecision(data []byte, checks ...DecisionCheck) (*Decision, error) {
	var m Decision
	if err := decode(data, "decision", &m); err != nil {
		return nil, err
	}
	if err := checkTaskID("decision", m.TaskID); err != nil {
		return nil, err
	}
	switch m.Action {
	case decide.Delegate, decide.Clarify, decide.Abstain:
		if len(m.Steps) > 0 || len(m.StepRequests) > 0 {
			return nil, fmt.Errorf("%w: decision: a %s decision with plan steps", ErrBadMessage, m.Action)
		}
	case decide.Plan:
		if err := m.checkPlan(); err != nil {
			return nil, fmt.Errorf("%w: decision: %s", ErrBadMessage, err)
		}
	default:
		return nil, fmt.Errorf("%w: decision: unknown action %s", ErrBadMessage, clip(string(m.Action)))
	}
	for _, c := range checks {
		if err := c(&m); err != nil {
			return nil, fmt.Errorf("%w: decision: %s", ErrBadMessage, err)
		}
	}
	return &m, nil
}

// checkPlan returns what is wrong with a plan decision, or nil.
func (m *Decision) checkPlan() error {
	switch {
	case len(m.Steps) < 2 || len(m.Steps) > MaxPlanSteps:
		return fmt.Errorf("plan of %d steps, want 2 to %d", len(m.Steps), MaxPlanSteps)
	case m.Chosen != nil || m.Request != nil:
		return errors.New("a plan with a single chosen skill or request")
	case len(m.StepRequests) > 0 && len(m.StepRequests) != len(m.Steps):
		return fmt.Errorf("plan of %d steps with %d step requests", len(m.Steps), len(m.StepRequests))
	case !probability(m.Probability):
		return fmt.Errorf("plan probability %g: want 0 to 1", m.Probability)
	}
	seen := make(map[string]bool, len(m.Steps))
	for i, s := range m.Steps {
		k := s.Chosen.Key
		switch {
		case strings.TrimSpace(s.Part) == "":
			return fmt.Errorf("step %d: no part", i+1)
		case !skillKey(k) || k != s.Chosen.AgentID+"/"+s.Chosen.SkillID:
			return fmt.Errorf("step %d: skill %s: want \"<agent>/<skill>\" of its agentId and skillId", i+1, clip(k))
		case seen[k]:
			return fmt.Errorf("step %d: skill %s twice (one skill doing several parts is one step)", i+1, clip(k))
		case !probability(s.Probability):
			return fmt.Errorf("step %d: probability %g: want 0 to 1", i+1, s.Probability)
		case len(m.StepRequests) > 0 && m.StepRequests[i] == nil:
			return fmt.Errorf("step %d: no request", i+1)
		}
		seen[k] = true
	}
	return nil
}

func probability(p float64) bool { return p >= 0 && p <= 1 } // false for NaN

// Outcome is what a caller reports after acting on a decision.
type Outcome struct {
	V          int    `json:"v"`
	DecisionID string `json:"decisionId"`
	TaskID     string `json:"taskId,omitempty"`
	// Skill is the key ("agent/skill") of the skill that was tried.
	Skill     string  `json:"skill"`
	Success   bool    `json:"success"`
	LatencyMS float64 `json:"latencyMs,omitempty"`
	Cost      float64 `json:"cost,omitempty"`
	// RightSkill is, when known, the key of the skill that should have
	// been chosen ("" = unknown; "none" = no skill fits).
	RightSkill string    `json:"rightSkill,omitempty"`
	At         time.Time `json:"at,omitzero"`
}

// Limits of an Outcome. Outcomes come from callers and their fields end
// up in the feedback snapshot, which must stay under the server's max
// payload: an oversized or malformed one is refused (and dead-lettered)
// rather than counted, so that it cannot wedge feedback.
const (
	MaxOutcomeBytes     = 64 << 10
	MaxOutcomeIDLen     = 128                  // decisionId, taskId
	MaxOutcomeLatencyMS = 7 * 24 * 3600 * 1000 // a week, TASKS' retention
	MaxOutcomeCost      = 1e9                  // any currency unit
	maxOutcomeKeyHalf   = 128                  // agent and skill id, as the card parser allows
	outcomeNoSkill      = "none"               // RightSkill: no skill fits (feedback.NoSkill)
)

// DecodeOutcome reads and checks an Outcome message: decisionId 1-128
// printable ASCII characters, taskId (optional) a task id, skill and
// rightSkill (optional, or "none") "<agent>/<skill>" keys with ids the
// card parser accepts, latency and cost finite, non-negative and bounded.
// Anything else is ErrBadMessage.
func DecodeOutcome(data []byte) (*Outcome, error) {
	if len(data) > MaxOutcomeBytes {
		return nil, fmt.Errorf("%w: outcome: %d bytes, more than %d", ErrBadMessage, len(data), MaxOutcomeBytes)
	}
	var m Outcome
	if err := decode(data, "outcome", &m); err != nil {
		return nil, err
	}
	if err := m.check(); err != nil {
		// "bad outcome", as the feedback package words what it refuses.
		return nil, fmt.Errorf("%w: bad outcome: %s", ErrBadMessage, err)
	}
	return &m, nil
}

// check returns what is wrong with the outcome's fields, or nil. Messages
// quote at most a prefix of a bad value.
func (m *Outcome) check() error {
	switch {
	case m.DecisionID == "":
		return errors.New("no decisionId")
	case !printableID(m.DecisionID, MaxOutcomeIDLen):
		return fmt.Errorf("decisionId %s: want 1-%d printable ASCII characters", clip(m.DecisionID), MaxOutcomeIDLen)
	case m.TaskID != "" && !taskIDChars(m.TaskID):
		return fmt.Errorf("taskId %s: want 1-%d characters of A-Z a-z 0-9 . _ : -", clip(m.TaskID), task.MaxIDLen)
	case m.Skill == "":
		return errors.New("no skill")
	case !skillKey(m.Skill):
		return fmt.Errorf("skill %s: want \"<agent>/<skill>\", each 1-%d bytes of a card id", clip(m.Skill), maxOutcomeKeyHalf)
	case m.RightSkill != "" && m.RightSkill != outcomeNoSkill && !skillKey(m.RightSkill):
		return fmt.Errorf("rightSkill %s: want \"<agent>/<skill>\" or %q", clip(m.RightSkill), outcomeNoSkill)
	}
	if err := bounded("latencyMs", m.LatencyMS, MaxOutcomeLatencyMS); err != nil {
		return err
	}
	return bounded("cost", m.Cost, MaxOutcomeCost)
}

func bounded(field string, v, max float64) error {
	if math.IsNaN(v) || v < 0 || v > max { // also ±Inf
		return fmt.Errorf("%s %g: want 0 to %g", field, v, max)
	}
	return nil
}

// printableID: 1-max bytes of visible ASCII, no spaces.
func printableID(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// taskIDChars mirrors task.Parse's id rule.
func taskIDChars(s string) bool {
	if len(s) > task.MaxIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}

// skillKey checks "<agent>/<skill>": the agent a card id (card.ValidID),
// the skill 1-128 bytes of visible characters without '/' or spaces, as
// the card parser requires of skill ids.
func skillKey(k string) bool {
	agent, skill, ok := strings.Cut(k, "/")
	if !ok || !card.ValidID(agent) || skill == "" || len(skill) > maxOutcomeKeyHalf || !utf8.ValidString(skill) {
		return false
	}
	for _, r := range skill {
		if r == '/' || r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsGraphic(r) {
			return false
		}
	}
	return true
}

// clip quotes s cut to 40 bytes, so that an error about a 900 KB field
// is not itself 900 KB.
func clip(s string) string {
	const n = 40
	if len(s) <= n {
		return strconv.Quote(s)
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + fmt.Sprintf("… (%d bytes)", len(s))
}

// MaxDeadLetterPayload caps the original payload a dead letter carries;
// a longer one is cut and Truncated set (PayloadSize keeps the full size).
const MaxDeadLetterPayload = 512 << 10

// DeadLetter records a message a stage could not process. Payload is the
// original bytes (base64 in JSON).
type DeadLetter struct {
	V      int    `json:"v"`
	Stage  string `json:"stage"`
	Reason string `json:"reason"`
	// Subject is where the original was published.
	Subject string `json:"subject"`
	// TaskID is set when the stage could read it.
	TaskID string `json:"taskId,omitempty"`
	// Caller is whom the original came from (CallerOfMessage; "" for an
	// anonymous or unreadable one): the dead letter is published on that
	// caller's subject, so each caller reads only its own.
	Caller      string `json:"caller,omitempty"`
	Payload     []byte `json:"payload"`
	PayloadSize int    `json:"payloadSize"`
	Truncated   bool   `json:"truncated,omitempty"`
	// Stream and StreamSeq locate the original in JetStream.
	Stream     string    `json:"stream,omitempty"`
	StreamSeq  uint64    `json:"streamSeq,omitempty"`
	Deliveries uint64    `json:"deliveries,omitempty"`
	At         time.Time `json:"at"`
	// Decision is, for a task submitted again after it was decided, the
	// decision of the identical task submitted first: the only answer an
	// identical retry gets (never a second decision).
	Decision json.RawMessage `json:"decision,omitempty"`
}

// NewDeadLetter builds a dead letter, cutting the payload to
// MaxDeadLetterPayload.
func NewDeadLetter(stage, reason, subject string, payload []byte, at time.Time) *DeadLetter {
	d := &DeadLetter{V: Version, Stage: stage, Reason: reason, Subject: subject, Caller: CallerOfMessage(subject, payload),
		PayloadSize: len(payload), At: at}
	if len(payload) > MaxDeadLetterPayload {
		payload, d.Truncated = payload[:MaxDeadLetterPayload], true
	}
	d.Payload = bytes.Clone(payload)
	if d.Payload == nil {
		d.Payload = []byte{}
	}
	return d
}

// DecodeDeadLetter reads and checks a DeadLetter message.
func DecodeDeadLetter(data []byte) (*DeadLetter, error) {
	var m DeadLetter
	if err := decode(data, "dead letter", &m); err != nil {
		return nil, err
	}
	if m.Stage == "" || m.Reason == "" {
		return nil, fmt.Errorf("%w: dead letter: no stage or reason", ErrBadMessage)
	}
	return &m, nil
}

// present reports whether a raw JSON value was given and is not null.
func present(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}
