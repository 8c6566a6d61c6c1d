package wire

import (
	"errors"
	"strings"
	"testing"
)

func TestDecodeOutcomeTrust(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	tests := []struct {
		name string
		json string // fields after "v":1
		bad  string // "" for accepted, else in the error
	}{
		{"minimal", `"decisionId":"d-1","skill":"world-info/weather-forecast"`, ""},
		{"everything", `"decisionId":"d-0123456789abcdef0123","taskId":"t:1.A_b-2","skill":"a.b_c-d/Skill.Ä-1","success":true,"latencyMs":1234.5,"cost":0.02,"rightSkill":"world-info/time-zones"`, ""},
		{"right skill none", `"decisionId":"d","skill":"a/s","rightSkill":"none"`, ""},
		{"ids at the limit", `"decisionId":"` + long(128) + `","taskId":"` + long(128) + `","skill":"` + long(128) + `/` + long(128) + `"`, ""},
		{"bounds at the limit", `"decisionId":"d","skill":"a/s","latencyMs":604800000,"cost":1e9`, ""},

		{"no decisionId", `"skill":"a/s"`, "no decisionId"},
		{"decisionId too long", `"decisionId":"` + long(129) + `","skill":"a/s"`, "decisionId"},
		{"decisionId with space", `"decisionId":"d 1","skill":"a/s"`, "decisionId"},
		{"decisionId with control", `"decisionId":"d\u0000","skill":"a/s"`, "decisionId"},
		{"decisionId not ASCII", `"decisionId":"dé","skill":"a/s"`, "decisionId"},
		{"taskId too long", `"decisionId":"d","taskId":"` + long(129) + `","skill":"a/s"`, "taskId"},
		{"taskId bad char", `"decisionId":"d","taskId":"t/1","skill":"a/s"`, "taskId"},
		{"no skill", `"decisionId":"d"`, "no skill"},
		{"900 KB skill", `"decisionId":"d","skill":"a/` + long(900<<10) + `"`, "more than"},
		{"skill half too long", `"decisionId":"d","skill":"a/` + long(129) + `"`, "skill"},
		{"agent half too long", `"decisionId":"d","skill":"` + long(129) + `/s"`, "skill"},
		{"skill without slash", `"decisionId":"d","skill":"weather"`, "skill"},
		{"skill empty half", `"decisionId":"d","skill":"a/"`, "skill"},
		{"agent empty half", `"decisionId":"d","skill":"/s"`, "skill"},
		{"agent upper case", `"decisionId":"d","skill":"World/s"`, "skill"},
		{"skill second slash", `"decisionId":"d","skill":"a/s/t"`, "skill"},
		{"skill with space", `"decisionId":"d","skill":"a/s t"`, "skill"},
		{"skill with control", `"decisionId":"d","skill":"a/s\u0007"`, "skill"},
		{"skill with zero-width", `"decisionId":"d","skill":"a/s\u200b"`, "skill"},
		{"skill invalid UTF-8", `"decisionId":"d","skill":"a/s` + "\xff" + `"`, "skill"},
		{"rightSkill malformed", `"decisionId":"d","skill":"a/s","rightSkill":"nothing"`, "rightSkill"},
		{"rightSkill too long", `"decisionId":"d","skill":"a/s","rightSkill":"a/` + long(200) + `"`, "rightSkill"},
		{"negative latency", `"decisionId":"d","skill":"a/s","latencyMs":-1`, "latencyMs"},
		{"latency too large", `"decisionId":"d","skill":"a/s","latencyMs":1e12`, "latencyMs"},
		{"latency overflows", `"decisionId":"d","skill":"a/s","latencyMs":1e400`, "outcome"},
		{"negative cost", `"decisionId":"d","skill":"a/s","cost":-0.5`, "cost"},
		{"cost too large", `"decisionId":"d","skill":"a/s","cost":1e10`, "cost"},
		{"latency a string", `"decisionId":"d","skill":"a/s","latencyMs":"NaN"`, "outcome"},
		{"oversized message", `"decisionId":"d","skill":"a/s","padding":"` + long(MaxOutcomeBytes) + `"`, "more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := DecodeOutcome([]byte(`{"v":1,` + tt.json + `}`))
			if tt.bad == "" {
				if err != nil || o == nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrBadMessage) || o != nil {
				t.Fatalf("got %+v, %v; want ErrBadMessage", o, err)
			}
			if !strings.Contains(err.Error(), tt.bad) {
				t.Errorf("err %q, want it to mention %q", err, tt.bad)
			}
			if len(err.Error()) > 300 {
				t.Errorf("error is %d bytes long", len(err.Error()))
			}
		})
	}
}
