// Package pipeline runs the matcher as the event-driven pipeline: each stage
// is a type whose Handle is a plain function from one message to the
// messages it publishes (extractor.go, retriever.go, reranker.go,
// decider.go, modelkv.go for feedback), and run.go wires those functions to
// NATS JetStream durable pull consumers with explicit acks, retries and
// dead letters.
package pipeline

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skillmatch/skillmatch/shared/a2a/identity"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// Stage names: durable consumer names, dead-letter subject suffixes and
// the step part of message ids.
const (
	StageExtractor = "extractor"
	StageRetriever = "retriever"
	StageReranker  = "reranker"
	StageDecider   = "decider"
	StageFeedback  = "feedback"
)

// StageNames lists the stages in pipeline order.
var StageNames = []string{StageExtractor, StageRetriever, StageReranker, StageDecider, StageFeedback}

// MatchingStages are the stages that match against the catalog.
var MatchingStages = map[string]bool{StageRetriever: true, StageReranker: true, StageDecider: true}

// ErrCatalogMismatch is returned (as a transient error) when a message was
// made over another catalog snapshot than the stage's: retried, in case
// the stage is about to load the same catalog, then dead-lettered.
var ErrCatalogMismatch = errors.New("catalog mismatch")

// stageSpec is where the named stage reads: its stream and filter.
func stageSpec(name string, streams Streams, h Handler) Stage {
	streams = streams.withDefaults()
	st := Stage{Name: name, Stream: streams.Tasks, Handle: h}
	switch name {
	case StageExtractor:
		// A submission is each task's durable origin: left unacked until
		// the decider (or a dead letter) ends the task, redelivered until
		// then however long a later stage is down (runtime.HeaderOrigin).
		st.Stream, st.Filters = streams.Submissions, wire.SubjectsSubmitted
		st.Origin, st.MaxDeliver = true, -1
	case StageRetriever:
		st.Filter = wire.SubjectExtracted
	case StageReranker:
		st.Filter = wire.SubjectShortlisted
	case StageDecider:
		st.Filter, st.Final = wire.SubjectRanked, true
	case StageFeedback:
		st.Stream, st.Filters, st.CallerInput = streams.Outcomes, wire.SubjectsOutcome, true
	}
	return st
}

// MsgID is the Nats-Msg-Id of a stage's output for a caller's task: task
// ids are the callers' own, so one caller's id never collides with
// another's.
func MsgID(caller, taskID, step string) string {
	return identity.Token(caller) + "/" + taskID + "/" + step
}

// printable returns s if it is valid UTF-8 without control characters,
// else "".
func printable(s string) string {
	if !utf8.ValidString(s) || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return ""
	}
	return s
}
