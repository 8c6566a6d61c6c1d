package task

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParseFollowupFields(t *testing.T) {
	data := `{"id":"t-2","message":{"taskId":" t-1 ","metadata":{"trace":"x"},"parts":[{"text":"and in euros?"}]},` +
		`"history":[{"taskId":"ignored","metadata":{"a":1},"parts":[{"text":"earlier"}]}],` +
		`"constraints":{"skillId":"world-info/convert-currency"}}`
	got, err := Parse([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if got.Message.TaskID != "t-1" || string(got.Message.Metadata) != `{"trace":"x"}` {
		t.Errorf("message %+v", got.Message)
	}
	if h := got.History[0]; h.TaskID != "" || h.Metadata != nil {
		t.Errorf("history turn kept taskId or metadata: %+v", h)
	}
	agent, skill, ok := got.Constraints.Skill()
	if !ok || agent != "world-info" || skill != "convert-currency" {
		t.Errorf("Skill() = %q, %q, %v", agent, skill, ok)
	}
	if _, _, ok := (Constraints{}).Skill(); ok {
		t.Error("no skillId reads as a skill")
	}
	// What Parse keeps, it reads again.
	out, _ := json.Marshal(got)
	back, err := Parse(out)
	if err != nil || back.Message.TaskID != "t-1" || back.Constraints.SkillID != "world-info/convert-currency" ||
		string(back.Message.Metadata) != `{"trace":"x"}` {
		t.Errorf("round trip: %+v, %v", back, err)
	}
}

func TestParseFollowupErrors(t *testing.T) {
	long := strings.Repeat("s", 129)
	tests := []struct {
		name, message, constraints string
		tooBig                     bool
		want                       string
	}{
		{"taskId charset", `"taskId":"t 1"`, ``, false, `task "t-2": message.taskId: "t 1" must be the id of an earlier task`},
		{"taskId itself", `"taskId":"t-2"`, ``, false, `task "t-2": message.taskId: names this task itself`},
		{"metadata not object", `"metadata":[1]`, ``, false, `task "t-2": message.metadata: want an object, got array`},
		{"metadata too big", `"metadata":{"a":"` + strings.Repeat("x", 17<<10) + `"}`, ``, true, `task "t-2": message.metadata: 17416 bytes; the limit is 16384`},
		{"skill without agent", ``, `"skillId":"convert-currency"`, false, `task "t-2": constraints.skillId: "convert-currency" is not "<agentId>/<skillId>"`},
		{"bad agent id", ``, `"skillId":"World Info/x"`, false, `task "t-2": constraints.skillId: agent id "World Info" must be`},
		{"empty skill", ``, `"skillId":"world-info/"`, false, `task "t-2": constraints.skillId: skill id "" must be 1 to 128 bytes`},
		{"long skill", ``, `"skillId":"a/` + long + `"`, false, `task "t-2": constraints.skillId: skill id "sssss`},
		{"two slashes", ``, `"skillId":"a/b/c"`, false, `task "t-2": constraints.skillId: skill id "b/c" must be`},
		{"space in skill", ``, `"skillId":"a/b c"`, false, `task "t-2": constraints.skillId: skill id "b c" contains spaces`},
		{"control in skill", ``, `"skillId":"a/b\u0007"`, false, `contains spaces or invisible characters`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := `{"parts":[{"text":"x"}]`
			if tt.message != "" {
				msg = `{` + tt.message + `,"parts":[{"text":"x"}]`
			}
			data := `{"id":"t-2","message":` + msg + `},"constraints":{` + tt.constraints + `}}`
			_, err := Parse([]byte(data))
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to contain %q", err, tt.want)
			}
			if !errors.Is(err, ErrInvalidTask) || errors.Is(err, ErrTooLarge) != tt.tooBig {
				t.Errorf("error %v: tooBig %v, want %v", err, errors.Is(err, ErrTooLarge), tt.tooBig)
			}
		})
	}
}
