// Package wire is the contract between the pipeline stages: versioned JSON
// messages and the NATS subjects they travel on.
//
// Every message carries "v": Version. A stage that reads a message of
// another version rejects it (ErrVersion) rather than guessing, so a mixed
// deployment fails loudly on the dead letters instead of deciding wrongly.
// Fields may be added within a version; readers ignore unknown fields.
//
// The path of one task (<caller> is the caller's subject token, which
// server permissions tie to its connection; "_" is anonymous):
//
//	skillmatch.task.submitted.<caller>   TaskSubmitted (caller → extractor)
//	skillmatch.task.extracted            Extracted     (extractor → retriever)
//	skillmatch.task.shortlisted          Shortlisted   (retriever → reranker)
//	skillmatch.task.ranked               Ranked        (reranker → decider)
//	skillmatch.decision.<caller>.<action>.<task> Decision (decider → caller)
//	skillmatch.outcome.<caller>          Outcome       (caller → feedback)
//	skillmatch.deadletter.<stage>.<caller> DeadLetter  (any stage)
//
// skillmatch.task.submitted and skillmatch.outcome without a token are
// anonymous.
package wire

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/skillmatch/skillmatch/shared/a2a/identity"
)

// Version is the message version this package writes and reads.
const Version = 1

// Subjects. Every subject lives under Prefix.
const (
	Prefix = "skillmatch"

	SubjectSubmitted   = Prefix + ".task.submitted"
	SubjectExtracted   = Prefix + ".task.extracted"
	SubjectShortlisted = Prefix + ".task.shortlisted"
	SubjectRanked      = Prefix + ".task.ranked"
	// SubjectDecisionPrefix is followed by the caller, the action
	// (delegate, plan, clarify or abstain) and the task (SubjectDecision).
	SubjectDecisionPrefix = Prefix + ".decision."
	SubjectOutcome        = Prefix + ".outcome"
	// SubjectDeadLetterPrefix is followed by the stage name.
	SubjectDeadLetterPrefix = Prefix + ".deadletter."

	// Wildcards the streams capture.
	SubjectDecisions   = Prefix + ".decision.>"
	SubjectDeadLetters = Prefix + ".deadletter.>"
)

// SubjectDecision is the subject of the decision with the given action on
// caller's task (identity.Token: "" is anonymous; TaskToken), so that a
// client can await exactly its own (SubjectDecisionOf).
func SubjectDecision(caller, action, taskID string) string {
	return SubjectDecisionPrefix + identity.Token(caller) + "." + action + "." + TaskToken(taskID)
}

// SubjectDecisionOf is the filter of the decision on caller's task,
// whatever its action.
func SubjectDecisionOf(caller, taskID string) string {
	return SubjectDecisionPrefix + identity.Token(caller) + ".*." + TaskToken(taskID)
}

// TaskToken is a task id as one subject token: its base64url form
// without padding, so that any id the task reader accepts is one token.
func TaskToken(taskID string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(taskID))
}

// SubjectDecisionsOf is every decision subject of a caller.
func SubjectDecisionsOf(caller string) string {
	return SubjectDecisionPrefix + identity.Token(caller) + ".>"
}

// CallerOfDecision is the caller of a decision subject; ok is false for
// a subject that is not one.
func CallerOfDecision(subject string) (caller string, ok bool) {
	rest, ok := strings.CutPrefix(subject, SubjectDecisionPrefix)
	if !ok {
		return "", false
	}
	// <caller>.<action>.<task>; <caller>.<action> is accepted too: the
	// decisions stored before the task token was added.
	parts := strings.Split(rest, ".")
	if len(parts) < 2 || len(parts) > 3 || slices.Contains(parts[1:], "") {
		return "", false
	}
	tok := parts[0]
	if tok == identity.Anonymous {
		return "", true
	}
	return tok, identity.Valid(tok) == nil
}

// ActionOfDecision is the action a decision subject names; ok is false
// for a subject that is not one.
func ActionOfDecision(subject string) (action string, ok bool) {
	if _, ok := CallerOfDecision(subject); !ok {
		return "", false
	}
	return strings.Split(subject, ".")[3], true
}

// SubjectSubmittedBy is where caller submits tasks ("": anonymous).
func SubjectSubmittedBy(caller string) string {
	if caller == "" {
		return SubjectSubmitted
	}
	return SubjectSubmitted + "." + caller
}

// SubjectOutcomeBy is where caller reports outcomes ("": anonymous).
func SubjectOutcomeBy(caller string) string {
	if caller == "" {
		return SubjectOutcome
	}
	return SubjectOutcome + "." + caller
}

// Subject filters of the submissions and of the outcomes, anonymous and
// per caller.
var (
	SubjectsSubmitted = []string{SubjectSubmitted, SubjectSubmitted + ".*"}
	// SubjectsStages are the stages' messages about a task, which only
	// stages publish (a stream apart from the submissions).
	SubjectsStages  = []string{SubjectExtracted, SubjectShortlisted, SubjectRanked}
	SubjectsOutcome = []string{SubjectOutcome, SubjectOutcome + ".*"}
)

// ErrCallerSubject marks a subject whose caller token is not a caller id.
var ErrCallerSubject = errors.New("bad caller subject")

// CallerOf is the caller a message on base or base.<caller> comes from:
// "" for base itself (anonymous). The caller is whoever the server let
// publish there, so this, not the payload, says who is asking.
func CallerOf(base, subject string) (string, error) {
	if subject == base {
		return "", nil
	}
	tok, ok := strings.CutPrefix(subject, base+".")
	if !ok {
		return "", fmt.Errorf("%w: %q is not %s or %s.<caller>", ErrCallerSubject, subject, base, base)
	}
	if tok == identity.Anonymous {
		return "", nil
	}
	if err := identity.Valid(tok); err != nil {
		return "", fmt.Errorf("%w: %w", ErrCallerSubject, err)
	}
	return tok, nil
}

// SubjectDeadLetter is the subject of a stage's dead letter of a message
// from caller ("": anonymous or unknown) about a task (TaskToken), or
// about none when the stage could not read a task id:
// skillmatch.deadletter.<stage>.<caller>[.<task token>].
func SubjectDeadLetter(stage, caller, taskID string) string {
	s := SubjectDeadLetterPrefix + stage + "." + identity.Token(caller)
	if taskID != "" && taskIDChars(taskID) {
		s += "." + TaskToken(taskID)
	}
	return s
}

// SubjectDeadLetterOf is the filter of the dead letters of caller's task,
// whatever the stage.
func SubjectDeadLetterOf(caller, taskID string) string {
	return SubjectDeadLetterPrefix + "*." + identity.Token(caller) + "." + TaskToken(taskID)
}

// CallerOfMessage is whom a pipeline message comes from: the caller token
// of a submission or outcome subject (the server's word, not the
// payload's), or the caller the extractor stamped into a stage message's
// task (only stages may publish those). "" when there is none.
func CallerOfMessage(subject string, data []byte) string {
	for _, base := range []string{SubjectSubmitted, SubjectOutcome} {
		if subject == base || strings.HasPrefix(subject, base+".") {
			c, _ := CallerOf(base, subject)
			return c
		}
	}
	var m struct {
		Task struct {
			Caller struct {
				ID string `json:"id"`
			} `json:"caller"`
		} `json:"task"`
	}
	if json.Unmarshal(data, &m) != nil {
		m.Task.Caller.ID = StringsAt(data, "task.caller.id")["task.caller.id"]
	}
	if identity.Valid(m.Task.Caller.ID) != nil {
		return ""
	}
	return m.Task.Caller.ID
}

var (
	// ErrBadMessage is wrapped by every decoding error: the payload can
	// never be processed, so it belongs on the dead letters.
	ErrBadMessage = errors.New("bad message")
	// ErrVersion marks a message of a version this build does not read.
	ErrVersion = fmt.Errorf("%w: unsupported version", ErrBadMessage)
)

// missingV marks a V field the payload did not set.
const missingV = math.MinInt32

// header is what every message starts with.
type header struct {
	V *int `json:"v"`
}

// decode unmarshals data into dst after checking the version. what names
// the message kind in errors.
func decode(data []byte, what string, dst any) error {
	// One pass when dst has a V field (every message does): the version
	// is checked after the decode. A payload that does not decode takes
	// the two-pass path below, so that a message of another version is
	// still reported as such rather than as a shape mismatch.
	if v := reflect.ValueOf(dst).Elem().FieldByName("V"); v.IsValid() && v.CanInt() && v.CanSet() {
		v.SetInt(missingV)
		if err := json.Unmarshal(data, dst); err == nil {
			switch got := v.Int(); {
			case got == missingV:
				return fmt.Errorf("%w: %s: no \"v\" field (want %d)", ErrVersion, what, Version)
			case got != Version:
				return fmt.Errorf("%w: %s: v=%d (want %d)", ErrVersion, what, got, Version)
			}
			return nil
		}
	}
	var h header
	if err := json.Unmarshal(data, &h); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrBadMessage, what, err)
	}
	if h.V == nil {
		return fmt.Errorf("%w: %s: no \"v\" field (want %d)", ErrVersion, what, Version)
	}
	if *h.V != Version {
		return fmt.Errorf("%w: %s: v=%d (want %d)", ErrVersion, what, *h.V, Version)
	}
	if err := json.Unmarshal(data, dst); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrBadMessage, what, err)
	}
	return nil
}

// checkTaskID makes sure a decoded message names its task.
func checkTaskID(what, id string) error {
	if id == "" {
		return fmt.Errorf("%w: %s: no taskId", ErrBadMessage, what)
	}
	return nil
}
