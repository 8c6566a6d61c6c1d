// Package wire is the contract between the pipeline stages: versioned JSON
// messages and the NATS subjects they travel on.
//
// Every message carries "v": Version. A stage that reads a message of
// another version rejects it (ErrVersion) rather than guessing, so a mixed
// deployment fails loudly on the dead letters instead of deciding wrongly.
// Fields may be added within a version; readers ignore unknown fields.
//
// The path of one task:
//
//	skillmatch.task.submitted   TaskSubmitted  (caller → extractor)
//	skillmatch.task.extracted   Extracted      (extractor → retriever)
//	skillmatch.task.shortlisted Shortlisted    (retriever → reranker)
//	skillmatch.task.ranked      Ranked         (reranker → decider)
//	skillmatch.decision.<action> Decision      (decider → caller)
//	skillmatch.outcome          Outcome        (caller → feedback)
//	skillmatch.deadletter.<stage> DeadLetter   (any stage)
package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
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
	// SubjectDecisionPrefix is followed by the action: delegate, clarify
	// or abstain.
	SubjectDecisionPrefix = Prefix + ".decision."
	SubjectOutcome        = Prefix + ".outcome"
	// SubjectDeadLetterPrefix is followed by the stage name.
	SubjectDeadLetterPrefix = Prefix + ".deadletter."

	// Wildcards the streams capture.
	SubjectTasks       = Prefix + ".task.>"
	SubjectDecisions   = Prefix + ".decision.>"
	SubjectDeadLetters = Prefix + ".deadletter.>"
)

// SubjectDecision is the subject of a decision with the given action.
func SubjectDecision(action string) string { return SubjectDecisionPrefix + action }

// SubjectDeadLetter is the dead-letter subject of a stage.
func SubjectDeadLetter(stage string) string { return SubjectDeadLetterPrefix + stage }

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
