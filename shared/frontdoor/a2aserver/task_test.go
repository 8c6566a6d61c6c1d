package a2aserver

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
)

func TestTaskOf(t *testing.T) {
	file := a2a.NewRawPart([]byte("%PDF-1.7"))
	file.Filename, file.MediaType = "contract.pdf", "application/pdf"
	msg := &a2a.Message{ID: "m-1", ContextID: "ctx-1", Role: a2a.MessageRoleUser,
		Parts:    a2a.ContentParts{a2a.NewTextPart("translate this contract to German"), file},
		Metadata: map[string]any{"caller": map[string]any{"id": "mallory"}}}
	tk, err := TaskOf(msg, map[string]any{MetadataKey: map[string]any{"scopes": []string{"docs.translate"},
		"dataClass": "confidential", "skillId": "lingo/translate", "continue": "t-0"}}, []string{"application/pdf"})
	if err != nil {
		t.Fatal(err)
	}
	if tk.ID != "m-1" || tk.Message.ContextID != "ctx-1" || len(tk.Message.Parts) != 2 ||
		!strings.Contains(tk.Message.Parts[0].Text, "German") || tk.Message.Parts[1].File == nil ||
		tk.Message.Parts[1].File.Name != "contract.pdf" || tk.Message.TaskID != "t-0" {
		t.Errorf("task %+v", tk)
	}
	if tk.Caller.ID != "" || !slices.Equal(tk.Caller.Scopes, []string{"docs.translate"}) || tk.Caller.DataClass != "confidential" {
		t.Errorf("caller %+v: the id is never the message's, the claims are the metadata's", tk.Caller)
	}
	if !slices.Equal(tk.Constraints.AcceptedOutputTypes, []string{"application/pdf"}) || tk.Constraints.SkillID != "lingo/translate" {
		t.Errorf("constraints %+v", tk.Constraints)
	}

	for name, tc := range map[string]struct {
		msg  *a2a.Message
		meta map[string]any
		want string
	}{
		"no message":     {nil, nil, "no message"},
		"bad id":         {&a2a.Message{ID: "a b", Parts: a2a.ContentParts{a2a.NewTextPart("x")}}, nil, "id"},
		"no content":     {&a2a.Message{ID: "m", Parts: a2a.ContentParts{a2a.NewTextPart(" ")}}, nil, ""},
		"unknown claim":  {&a2a.Message{ID: "m", Parts: a2a.ContentParts{a2a.NewTextPart("x")}}, map[string]any{MetadataKey: map[string]any{"caller": "bob"}}, "caller"},
		"claims not obj": {&a2a.Message{ID: "m", Parts: a2a.ContentParts{a2a.NewTextPart("x")}}, map[string]any{MetadataKey: "bob"}, MetadataKey},
		"bad data class": {&a2a.Message{ID: "m", Parts: a2a.ContentParts{a2a.NewTextPart("x")}}, map[string]any{MetadataKey: map[string]any{"dataClass": "cosmic"}}, "dataClass"},
	} {
		if _, err := TaskOf(tc.msg, tc.meta, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error about %q", name, err, tc.want)
		}
	}
}

// FuzzTaskOf feeds TaskOf requests as a client could send them (decoded
// by the SDK's types): it never panics, and what it accepts is a task the
// pipeline's reader accepts too, without a caller id.
func FuzzTaskOf(f *testing.F) {
	for _, seed := range []string{
		`{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"book a hotel"}]}}`,
		`{"message":{"messageId":"m-2","parts":[{"raw":"JVBERg==","filename":"a.pdf","mediaType":"application/pdf"},{"data":{"a":1}}]},"metadata":{"skillmatch":{"scopes":["x"],"continue":"m-1"}}}`,
		`{"message":{"messageId":"m 3","parts":[{"url":"https://x.example/f","mediaType":"image/png"}]},"configuration":{"acceptedOutputModes":["text/plain"]}}`,
		`{"message":{"messageId":"m-4","parts":[{"text":"x"}],"metadata":{"caller":{"id":"bob"}}},"metadata":{"skillmatch":{"history":[{"parts":[{"text":"earlier"}]}]}}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var req a2a.SendMessageRequest
		if json.Unmarshal(data, &req) != nil {
			return
		}
		var accept []string
		if req.Config != nil {
			accept = req.Config.AcceptedOutputModes
		}
		tk, err := TaskOf(req.Message, req.Metadata, accept)
		if err != nil {
			return
		}
		if tk.Caller.ID != "" {
			t.Fatalf("caller %q from the payload", tk.Caller.ID)
		}
		raw, _ := json.Marshal(tk)
		if _, err := task.Parse(raw); err != nil {
			t.Fatalf("accepted %s, which the pipeline refuses: %v", raw, err)
		}
	})
}
