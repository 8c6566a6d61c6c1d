package wire

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestStringsAt(t *testing.T) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	tests := []struct {
		name, data string
		paths      []string
		want       map[string]string
	}{
		{"flat", `{"taskId":"t-1","id":"x"}`, []string{"taskId", "id"}, map[string]string{"taskId": "t-1", "id": "x"}},
		{"nested", `{"v":1,"task":{"id":"t-2","caller":{"id":"bob"}}}`, []string{"task.id", "task.caller.id"},
			map[string]string{"task.id": "t-2", "task.caller.id": "bob"}},
		{"deeper than the decoder allows", `{"junk":` + deep + `,"taskId":"t-3"}`, []string{"taskId"}, map[string]string{"taskId": "t-3"}},
		{"ids inside arrays are not the message's", `{"parts":[{"id":"p"}],"id":"t-4"}`, []string{"id"}, map[string]string{"id": "t-4"}},
		{"not a string", `{"id":7,"taskId":{"x":"y"}}`, []string{"id", "taskId"}, map[string]string{}},
		{"values that look like keys", `{"a":"id","b":{"c":"id"},"id":"t-5"}`, []string{"id"}, map[string]string{"id": "t-5"}},
		{"first value wins", `{"id":"first","id":"second"}`, []string{"id"}, map[string]string{"id": "first"}},
		{"broken after the id", `{"id":"t-6",`, []string{"id"}, map[string]string{"id": "t-6"}},
		{"not an object", `"id"`, []string{"id"}, map[string]string{}},
	}
	for _, tt := range tests {
		got := StringsAt([]byte(tt.data), tt.paths...)
		if len(got) != len(tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
			continue
		}
		for k, v := range tt.want {
			if got[k] != v {
				t.Errorf("%s: %s = %q, want %q", tt.name, k, got[k], v)
			}
		}
	}
	// A deeply nested stage message still names its caller.
	if c := CallerOfMessage(SubjectRanked, []byte(`{"junk":`+deep+`,"task":{"caller":{"id":"bob"}}}`)); c != "bob" {
		t.Errorf("caller of a deep message: %q", c)
	}
}

// StringsAt reads untrusted payloads: it never panics or hangs, and on a
// document the JSON decoder reads, where the key stands once, it finds
// what the decoder finds.
func FuzzStringsAt(f *testing.F) {
	for _, s := range []string{`{"taskId":"t-1"}`, `{"task":{"id":"t"},"taskId":"\u00e9"}`, `{"a":[[[{"taskId":"x"}]]],"b":1}`, `{`, `[]`, `"x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := StringsAt(data, "taskId", "id", "task.id", "task.caller.id")
		var top map[string]json.RawMessage
		if json.Unmarshal(data, &top) != nil || bytes.Count(data, []byte(`"taskId"`)) != 1 {
			return
		}
		var want string
		if raw, ok := top["taskId"]; !ok || json.Unmarshal(raw, &want) != nil {
			return
		}
		if got["taskId"] != want {
			t.Errorf("taskId %q, the decoder reads %q", got["taskId"], want)
		}
	})
}
