package task

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParsePartShapes(t *testing.T) {
	tests := []struct {
		name string
		part string
		want Part
	}{
		{"v1.0 text", `{"text":"hi"}`, Part{Text: "hi"}},
		{"v0.3 text", `{"kind":"text","text":"hi"}`, Part{Text: "hi"}},
		{"pre-0.3 type", `{"type":"text","text":"hi"}`, Part{Text: "hi"}},
		{"empty text keeps a text part", `{"text":""}`, Part{}},
		{"v1.0 draft file", `{"file":{"name":"a.pdf","mediaType":"application/pdf","uri":"https://x/a.pdf"}}`,
			Part{File: &File{Name: "a.pdf", MediaType: "application/pdf", URI: "https://x/a.pdf"}}},
		{"v0.3 file", `{"kind":"file","file":{"name":"a.csv","mimeType":"text/csv","bytes":"YQ=="}}`,
			Part{File: &File{Name: "a.csv", MediaType: "text/csv", Bytes: []byte("a")}}},
		{"fileWithBytes, URL-safe unpadded", `{"file":{"name":"b.bin","fileWithBytes":"-_8"}}`,
			Part{File: &File{Name: "b.bin", Bytes: []byte{0xfb, 0xff}}}},
		{"fileWithUri", `{"file":{"fileWithUri":"https://x/y","mediaType":"image/png"}}`,
			Part{File: &File{MediaType: "image/png", URI: "https://x/y"}}},
		{"v1.0 flat url", `{"url":"https://x/a.pdf","mediaType":"application/pdf","filename":"a.pdf"}`,
			Part{File: &File{Name: "a.pdf", MediaType: "application/pdf", URI: "https://x/a.pdf"}}},
		{"v1.0 flat raw", `{"raw":"YQ==","filename":"a.png"}`, Part{File: &File{Name: "a.png", Bytes: []byte("a")}}},
		{"name only", `{"file":{"name":"notes.md"}}`, Part{File: &File{Name: "notes.md"}}},
		{"v1.0 data", `{"data":{"k":1}}`, Part{Data: json.RawMessage(`{"k":1}`)}},
		{"v0.3 data", `{"kind":"data","data":[1,2]}`, Part{Data: json.RawMessage(`[1,2]`)}},
		{"metadata ignored", `{"text":"hi","metadata":{"a":1}}`, Part{Text: "hi"}},
		{"null alongside is absent", `{"text":"hi","data":null,"file":null}`, Part{Text: "hi"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := `{"id":"t-1","message":{"parts":[{"text":"context"},` + tt.part + `]}}`
			got, err := Parse([]byte(data))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if p := got.Message.Parts[1]; !reflect.DeepEqual(p, tt.want) {
				t.Errorf("part = %+v (file %+v), want %+v", p, p.File, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	long := strings.Repeat("a", 129)
	tests := []struct {
		name    string
		data    string
		tooBig  bool
		wantMsg string // the whole message, or a substring when it ends in "…"
	}{
		{"not JSON", `{"id":`, false, "task: invalid JSON at byte 6: unexpected end of JSON input"},
		{"not an object", `[1]`, false, "task: want a task object, got array"},
		{"wrong type names task and field", `{"id":"t-1","message":{"parts":[{"text":"a"}]},"caller":{"id":5}}`, false, `task "t-1": caller.id: want a string, got number`},
		{"scopes not a list", `{"id":"t-1","message":{"parts":[{"text":"a"}]},"caller":{"scopes":"a"}}`, false, `task "t-1": caller.scopes: want an array of strings, got string`},
		{"scope not a string", `{"id":"t-1","message":{"parts":[{"text":"a"}]},"caller":{"scopes":["a",1]}}`, false, `task "t-1": caller.scopes: want an array of strings, got number`},
		{"message not object", `{"id":"t-1","message":"hi"}`, false, `task "t-1": message: want an object, got string`},
		{"history turn not object", `{"id":"t-1","message":{"parts":[{"text":"a"}]},"history":[{"parts":[{"text":"a"}]},7]}`, false, `task "t-1": history[1]: want a message object, got number`},
		{"history role type", `{"id":"t-1","message":{"parts":[{"text":"a"}]},"history":[{"role":1,"parts":[{"text":"a"}]}]}`, false, `task "t-1": history[0].role: want a string, got number`},
		{"missing id", `{"message":{"parts":[{"text":"x"}]}}`, false, "task: id: missing; every task needs an id"},
		{"bad id", `{"id":"a b","message":{"parts":[{"text":"x"}]}}`, false, `task: id: "a b" must be 1 to 128 characters of A-Z a-z 0-9 . _ : -`},
		{"long id", `{"id":"` + long + `","message":{"parts":[{"text":"x"}]}}`, false, "task: id: …"},
		{"no message", `{"id":"t-1"}`, false, `task "t-1": message: missing; a task needs a message with at least one text or file part`},
		{"no parts", `{"id":"t-1","message":{"parts":[]}}`, false, `task "t-1": message.parts: missing or empty; a message has at least one part`},
		{"only data", `{"id":"t-1","message":{"parts":[{"data":{"a":1}}]}}`, false, `task "t-1": message.parts: no part with text or a file; say what the task is`},
		{"blank text", `{"id":"t-1","message":{"parts":[{"text":"  \n"}]}}`, false, `task "t-1": message.parts: no part with text or a file; say what the task is`},
		{"file needs type or name", `{"id":"t-1","message":{"parts":[{"text":"a"},{"text":"b"},{"file":{"uri":"https://x"}}]}}`, false,
			`task "t-1": message.parts[2]: file part needs a mediaType or a name`},
		{"two contents", `{"id":"t-1","message":{"parts":[{"text":"a","data":{}}]}}`, false,
			`task "t-1": message.parts[0]: part carries more than one of text, file and data; a part carries exactly one`},
		{"text and url", `{"id":"t-1","message":{"parts":[{"text":"a","url":"https://x"}]}}`, false, "more than one of text, file and data…"},
		{"empty part", `{"id":"t-1","message":{"parts":[{}]}}`, false, `task "t-1": message.parts[0]: part has no text, file or data`},
		{"file bytes and uri", `{"id":"t-1","message":{"parts":[{"text":"a"},{"file":{"name":"a.pdf","uri":"https://x/a.pdf","bytes":"YQ=="}}]}}`, false,
			`task "t-1": message.parts[1]: file part carries both bytes and a uri; give one`},
		{"file bytes not base64", `{"id":"t-1","message":{"parts":[{"text":"a"},{"raw":"%%%","filename":"a.png"}]}}`, false,
			`task "t-1": message.parts[1]: file bytes are not a base64 string`},
		{"null part", `{"id":"t-1","message":{"parts":[null]}}`, false, "part is null…"},
		{"part not object", `{"id":"t-1","message":{"parts":["hi"]}}`, false, `task "t-1": message.parts[0]: want a part object, got string`},
		{"text not string", `{"id":"t-1","message":{"parts":[{"text":5}]}}`, false, `task "t-1": message.parts[0]: text: want a string, got number`},
		{"kind mismatch", `{"id":"t-1","message":{"parts":[{"kind":"file","text":"a"}]}}`, false, `part kind "file" does not carry file…`},
		{"unknown kind", `{"id":"t-1","message":{"parts":[{"kind":"video","text":"a"}]}}`, false, `part kind "video" is not text, file or data…`},
		{"bad media type", `{"id":"t-1","message":{"parts":[{"file":{"mediaType":"banana"}}]}}`, false, `file mediaType "banana" is not a media type (type/subtype)…`},
		{"bad role", `{"id":"t-1","message":{"role":"boss","parts":[{"text":"a"}]}}`, false, `task "t-1": message.role: "boss" is not user or agent`},
		{"unknown data class", `{"id":"t-1","message":{"parts":[{"text":"a"}]},"caller":{"dataClass":"secret"}}`, false,
			`task "t-1": caller.dataClass: "secret" is not one of public, internal, confidential, restricted`},
		{"empty scope", `{"id":"t-1","message":{"parts":[{"text":"a"}]},"caller":{"scopes":["a",""]}}`, false, `task "t-1": caller.scopes[1]: empty scope`},
		{"control char", `{"id":"t-1","message":{"parts":[{"text":"a"}]},"caller":{"id":"a\u0000b"}}`, false, `task "t-1": caller.id: contains a control character`},
		{"wildcard output", `{"id":"t-1","message":{"parts":[{"text":"a"}]},"constraints":{"acceptedOutputTypes":["image/*"]}}`, false,
			`task "t-1": constraints.acceptedOutputTypes[0]: "image/*" is a wildcard; list concrete media types, or leave the field out to accept any`},
		{"bad output", `{"id":"t-1","message":{"parts":[{"text":"a"}]},"constraints":{"acceptedOutputTypes":["json"]}}`, false, `"json" is not a media type…`},
		{"history part error", `{"id":"t-1","message":{"parts":[{"text":"a"}]},"history":[{"parts":[{"text":"x"}]},{"parts":[{}]}]}`, false,
			`task "t-1": history[1].parts[0]: part has no text, file or data`},
		{"streaming not bool", `{"id":"t-1","message":{"parts":[{"text":"a"}]},"constraints":{"streaming":"yes"}}`, false, `task "t-1": constraints.streaming: want true or false, got string`},

		{"payload", `{"id":"t-1","message":{"parts":[{"text":"` + strings.Repeat("x", 256<<10) + `"}]}}`, true, "task: payload is 262190 bytes; the limit is 262144"},
		{"text", `{"id":"t-1","message":{"parts":[{"text":"` + strings.Repeat("x", 10<<10) + `"}]},"history":[{"parts":[{"text":"` + strings.Repeat("y", 7<<10) + `"}]}]}`, true,
			`task "t-1": text is 17408 bytes over the message and history; the limit is 16384`},
		{"parts", `{"id":"t-1","message":{"parts":[` + strings.Repeat(`{"text":"a"},`, 64) + `{"text":"a"}]}}`, true, `task "t-1": message.parts: 65 parts; the limit is 64`},
		{"history", `{"id":"t-1","message":{"parts":[{"text":"a"}]},"history":[` + strings.Repeat(`{"parts":[{"text":"a"}]},`, 32) + `{"parts":[{"text":"a"}]}]}`, true, `task "t-1": history: 33 turns; the limit is 32`},
		{"scopes", `{"id":"t-1","message":{"parts":[{"text":"a"}]},"caller":{"scopes":[` + strings.Repeat(`"s",`, 64) + `"s"]}}`, true, `task "t-1": caller.scopes: 65 scopes; the limit is 64`},
		{"scope length", `{"id":"t-1","message":{"parts":[{"text":"a"}]},"caller":{"scopes":["` + strings.Repeat("s", 257) + `"]}}`, true, `task "t-1": caller.scopes[0]: longer than 256 characters`},
		{"tenant length", `{"id":"t-1","message":{"parts":[{"text":"a"}]},"caller":{"tenant":"` + strings.Repeat("é", 257) + `"}}`, true, `task "t-1": caller.tenant: longer than 256 characters`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.data))
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			if !errors.Is(err, ErrInvalidTask) {
				t.Errorf("error %v does not wrap ErrInvalidTask", err)
			}
			if got := errors.Is(err, ErrTooLarge); got != tt.tooBig {
				t.Errorf("errors.Is(err, ErrTooLarge) = %v, want %v", got, tt.tooBig)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("error %T is not an *Error", err)
			}
			msg := err.Error()
			if sub, ok := strings.CutSuffix(tt.wantMsg, "…"); ok {
				if !strings.Contains(msg, sub) {
					t.Errorf("error %q does not contain %q", msg, sub)
				}
			} else if msg != tt.wantMsg {
				t.Errorf("error\n got %q\nwant %q", msg, tt.wantMsg)
			}
		})
	}
}

func TestParseTask(t *testing.T) {
	data := `{
	  "id": "t-0001",
	  "message": {"role": "ROLE_USER", "messageId": " m1 ", "parts": [
	    {"text": "reconcile these supplier PDFs"},
	    {"kind": "file", "file": {"name": "a.pdf", "mimeType": "Application/PDF; x=y"}}
	  ]},
	  "history": [{"role": "agent", "parts": [{"text": "which PO?"}]}],
	  "caller": {"id": "alice", "tenant": "acme", "scopes": ["finance.read"], "dataClass": " Confidential "},
	  "constraints": {"acceptedOutputTypes": ["application/json", "text"], "streaming": false},
	  "metadata": {"ignored": true}
	}`
	got, err := Parse([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	f := false
	want := &Task{
		ID: "t-0001",
		Message: Message{MessageID: "m1", Role: "user", Parts: []Part{
			{Text: "reconcile these supplier PDFs"},
			{File: &File{Name: "a.pdf", MediaType: "Application/PDF; x=y"}},
		}},
		History:     []Message{{Role: "agent", Parts: []Part{{Text: "which PO?"}}}},
		Caller:      Caller{ID: "alice", Tenant: "acme", Scopes: []string{"finance.read"}, DataClass: "confidential"},
		Constraints: Constraints{AcceptedOutputTypes: []string{"application/json", "text"}, Streaming: &f},
	}
	if !reflect.DeepEqual(got, want) {
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		t.Errorf("got  %s\nwant %s", gj, wj)
	}
}

func TestParseScopesNilVersusEmpty(t *testing.T) {
	for _, tt := range []struct {
		caller  string
		wantNil bool
	}{
		{`{}`, true},
		{`{"scopes":null}`, true},
		{`{"scopes":[]}`, false},
	} {
		got, err := Parse([]byte(`{"id":"t-1","message":{"parts":[{"text":"a"}]},"caller":` + tt.caller + `}`))
		if err != nil {
			t.Fatal(err)
		}
		if (got.Caller.Scopes == nil) != tt.wantNil {
			t.Errorf("caller %s: scopes nil = %v, want %v", tt.caller, got.Caller.Scopes == nil, tt.wantNil)
		}
		// The distinction must survive a round trip through JSON.
		again, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(again)
		if err != nil {
			t.Fatal(err)
		}
		if (back.Caller.Scopes == nil) != tt.wantNil {
			t.Errorf("caller %s: after round trip scopes nil = %v", tt.caller, back.Caller.Scopes == nil)
		}
	}
}

func TestParseWithLimits(t *testing.T) {
	data := []byte(`{"id":"t-1","message":{"parts":[{"text":"abc"},{"text":"def"}]}}`)
	if _, err := Parse(data, WithLimits(Limits{MaxText: 5})); !errors.Is(err, ErrTooLarge) {
		t.Errorf("MaxText 5: err = %v, want ErrTooLarge", err)
	}
	// Zero fields keep the defaults: only MaxParts changed here.
	if _, err := Parse(data, WithLimits(Limits{MaxParts: 1})); !errors.Is(err, ErrTooLarge) {
		t.Errorf("MaxParts 1: err = %v, want ErrTooLarge", err)
	}
	if _, err := Parse(data, WithLimits(Limits{MaxParts: 2})); err != nil {
		t.Errorf("MaxParts 2: %v", err)
	}
	// File bytes count over the task, decoded: two files of 3 bytes pass
	// a limit of 6 and fail one of 5, naming the part that went over.
	files := []byte(`{"id":"t-1","message":{"parts":[{"text":"x"},{"raw":"YWJj","filename":"a.txt"},{"file":{"name":"b.txt","bytes":"ZGVm"}}]}}`)
	if _, err := Parse(files, WithLimits(Limits{MaxFileBytes: 6})); err != nil {
		t.Errorf("MaxFileBytes 6: %v", err)
	}
	_, err := Parse(files, WithLimits(Limits{MaxFileBytes: 5}))
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "message.parts[2]") || !strings.Contains(err.Error(), "by uri") {
		t.Errorf("MaxFileBytes 5: err = %v, want ErrTooLarge at parts[2]", err)
	}
}

func TestPartJSONRoundTrip(t *testing.T) {
	parts := []Part{{}, {Text: "x"}, {File: &File{Name: "a.pdf"}}, {File: &File{Name: "a.pdf", MediaType: "application/pdf", Bytes: []byte("%PDF-1.7")}},
		{Data: json.RawMessage(`{"a":1}`)}}
	for _, p := range parts {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var back Part
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if !reflect.DeepEqual(back, p) {
			t.Errorf("%s read back as %+v", b, back)
		}
	}
	var p Part
	err := json.Unmarshal([]byte(`{"kind":"file","text":"x"}`), &p)
	if !errors.Is(err, ErrInvalidTask) || !strings.Contains(err.Error(), `part kind "file"`) {
		t.Errorf("json.Unmarshal of a bad part: %v", err)
	}
}
