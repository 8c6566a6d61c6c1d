package wire

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// BucketExamples is the JetStream KV bucket of the examples catalogs
// learned from trusted callers' verified successes.
const BucketExamples = "skillmatch_examples"

// LearnedExamples is one skill's learned examples, oldest first.
type LearnedExamples struct {
	V        int      `json:"v"`
	Skill    string   `json:"skill"`
	Examples []string `json:"examples"`
}

// ExamplesKey is the key of a skill's learned examples in a catalog:
// "<catalog bucket>.<skill key in unpadded base64url>", so one bucket
// holds every catalog's, apart, and any skill key is a valid key.
func ExamplesKey(catalog, skill string) string {
	return catalog + "." + base64.RawURLEncoding.EncodeToString([]byte(skill))
}

// ExamplesPrefix is the key filter of a catalog's learned examples.
func ExamplesPrefix(catalog string) string { return catalog + ".*" }

// DecodeLearnedExamples reads a bucket value and checks that it is the
// one its key names.
func DecodeLearnedExamples(key string, data []byte) (*LearnedExamples, error) {
	var le LearnedExamples
	if err := decode(data, "learned examples", &le); err != nil {
		return nil, err
	}
	if i := strings.LastIndexByte(key, '.'); i < 0 || ExamplesKey(key[:i], le.Skill) != key {
		return nil, fmt.Errorf("%w: learned examples of %q under key %q", ErrBadMessage, le.Skill, key)
	}
	return &le, nil
}

// ExamplesSkill is the skill key a catalog's examples key names; false
// for a key of another catalog or one that does not decode.
func ExamplesSkill(catalog, key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, catalog+".")
	if !ok || strings.Contains(rest, ".") {
		return "", false
	}
	b, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil {
		return "", false
	}
	return string(b), true
}
