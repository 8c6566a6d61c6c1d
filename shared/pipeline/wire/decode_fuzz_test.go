package wire

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzDecoders feeds every reader of this package the same bytes, as a
// client, a stage or a bucket could hold them: each answers a message or
// an error that is ErrBadMessage (the dead letter's reason), never a
// panic nor a nil message without an error. Seeds are the messages
// TestRoundTrips writes.
func FuzzDecoders(f *testing.F) {
	for _, seed := range []string{
		`{"v":1,"task":{"id":"t-1","message":{"parts":[{"text":"book a flight"}]}},"submittedAt":"2026-11-29T12:00:00Z"}`,
		`{"v":1,"taskId":"t-1","requirement":{"taskId":"t-1","need":"book a flight"},"task":{}}`,
		`{"v":1,"taskId":"t-1","requirement":{},"task":{},"catalog":"abc","shortlist":{"terms":["a"],"keys":["a/s"]}}`,
		`{"v":1,"taskId":"t-1","task":{},"catalog":"abc","candidates":[{"key":"a/s","agentId":"a","skillId":"s","score":7,"probability":0.8}]}`,
		`{"v":1,"decisionId":"d-1","taskId":"t-1","skill":"a/s","success":true,"latencyMs":12.5}`,
		`{"v":1,"stage":"extractor","reason":"bad","subject":"skillmatch.task.submitted","data":"e25vdA=="}`,
		`{"v":1,"card":{"name":"x","skills":[]},"status":"healthy"}`,
		`[1,2]`, `null`, `{"v":2}`, ``,
	} {
		f.Add([]byte(seed))
	}
	readers := map[string]func([]byte) (any, error){
		"submitted":   func(b []byte) (any, error) { return DecodeTaskSubmitted(b) },
		"extracted":   func(b []byte) (any, error) { return DecodeExtracted(b) },
		"shortlisted": func(b []byte) (any, error) { return DecodeShortlisted(b) },
		"ranked":      func(b []byte) (any, error) { return DecodeRanked(b) },
		"decision":    func(b []byte) (any, error) { return DecodeDecision(b) },
		"outcome":     func(b []byte) (any, error) { return DecodeOutcome(b) },
		"deadletter":  func(b []byte) (any, error) { return DecodeDeadLetter(b) },
		"task record": func(b []byte) (any, error) { return DecodeTaskRecord(b) },
		"task id":     func(b []byte) (any, error) { return DecodeTaskIDRecord(b) },
		"catalog":     func(b []byte) (any, error) { a, err := DecodeCatalogEntry("agent-1", b); return &a, err },
		"examples":    func(b []byte) (any, error) { return DecodeLearnedExamples("abc.agent-1.skill", b) },
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for name, read := range readers {
			m, err := read(data)
			switch {
			case err != nil && !errors.Is(err, ErrBadMessage):
				t.Fatalf("%s: error %v is no ErrBadMessage", name, err)
			case err == nil && m == nil:
				t.Fatalf("%s: no message and no error", name)
			case err == nil && !json.Valid(data):
				t.Fatalf("%s: accepted bytes that are not JSON", name)
			}
		}
	})
}
