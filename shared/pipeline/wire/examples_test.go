package wire

import (
	"errors"
	"testing"
)

func TestLearnedExamplesKeys(t *testing.T) {
	key := ExamplesKey("skillmatch_catalog", "agent.one/skill:x")
	if skill, ok := ExamplesSkill("skillmatch_catalog", key); !ok || skill != "agent.one/skill:x" {
		t.Errorf("ExamplesSkill(%q) = %q %v", key, skill, ok)
	}
	if _, ok := ExamplesSkill("other", key); ok {
		t.Error("a key of another catalog was read as this one's")
	}
	good := `{"v":1,"skill":"agent.one/skill:x","examples":["a"]}`
	if le, err := DecodeLearnedExamples(key, []byte(good)); err != nil || le.Examples[0] != "a" {
		t.Errorf("decode: %+v %v", le, err)
	}
	for name, tc := range map[string]struct{ key, value string }{
		"another skill under the key": {key, `{"v":1,"skill":"agent/other","examples":["a"]}`},
		"no version":                  {key, `{"skill":"agent.one/skill:x","examples":["a"]}`},
		"not JSON":                    {key, `[`},
		"key without catalog":         {"abc", `{"v":1,"skill":"abc","examples":[]}`},
	} {
		if _, err := DecodeLearnedExamples(tc.key, []byte(tc.value)); !errors.Is(err, ErrBadMessage) {
			t.Errorf("%s: %v, want ErrBadMessage", name, err)
		}
	}
}
