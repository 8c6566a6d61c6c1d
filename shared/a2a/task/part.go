package task

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/skillmatch/skillmatch/shared/a2a/mediatype"
)

// wirePart is every part shape skillmatch accepts, side by side:
//
//	A2A v1.0:  {"text": "..."}, {"url"|"raw": ..., "mediaType", "filename"}, {"data": ...}
//	v1.0 draft: {"file": {"name", "mediaType", "uri"|"fileWithUri"|"bytes"|"fileWithBytes"}}
//	A2A v0.3:  {"kind": "text"|"file"|"data", ...}, file {"name", "mimeType", "uri"|"bytes"}
//
// and "type" in place of "kind", as pre-0.3 clients sent it. Unknown fields
// (metadata, extensions) are ignored: they are the sender's business.
type wirePart struct {
	Kind      string          `json:"kind"`
	Type      string          `json:"type"`
	Text      *string         `json:"text"`
	File      *wireFile       `json:"file"`
	Data      json.RawMessage `json:"data"`
	URL       *string         `json:"url"`
	Raw       json.RawMessage `json:"raw"`
	Filename  string          `json:"filename"`
	MediaType string          `json:"mediaType"`
}

type wireFile struct {
	Name          string          `json:"name"`
	MediaType     string          `json:"mediaType"`
	MimeType      string          `json:"mimeType"`
	URI           string          `json:"uri"`
	FileWithURI   string          `json:"fileWithUri"`
	Bytes         json.RawMessage `json:"bytes"`
	FileWithBytes json.RawMessage `json:"fileWithBytes"`
}

// present reports whether a raw JSON value was given and is not null:
// encoding/json hands a RawMessage the literal null.
func present(raw json.RawMessage) bool {
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}

// UnmarshalJSON reads any of the part shapes above, so a Task can also be
// decoded with encoding/json directly; Parse adds the limits and the field
// path to errors.
func (p *Part) UnmarshalJSON(data []byte) error {
	part, reason := decodePart(data)
	if reason != "" {
		return &Error{Field: "part", Reason: reason, Err: ErrInvalidTask}
	}
	*p = part
	return nil
}

// MarshalJSON writes the A2A v1.0-style shape. An empty text part is
// written as {"text": ""} so that it reads back as a text part.
func (p Part) MarshalJSON() ([]byte, error) {
	switch {
	case p.File != nil:
		return json.Marshal(struct {
			File *File `json:"file"`
		}{p.File})
	case p.Data != nil:
		return json.Marshal(struct {
			Data json.RawMessage `json:"data"`
		}{p.Data})
	default:
		return json.Marshal(struct {
			Text string `json:"text"`
		}{p.Text})
	}
}

// decodePart returns the part or, when it cannot be read, a reason a user
// can act on.
func decodePart(data []byte) (Part, string) {
	if !present(data) {
		return Part{}, "part is null; want an object with text, file or data"
	}
	var w wirePart
	if err := json.Unmarshal(data, &w); err != nil {
		field, reason := jsonReason(err, "a part object")
		if field != "" {
			reason = field + ": " + reason
		}
		return Part{}, reason
	}

	hasText := w.Text != nil
	hasFile := w.File != nil || w.URL != nil || present(w.Raw)
	hasData := present(w.Data)
	n := 0
	for _, has := range []bool{hasText, hasFile, hasData} {
		if has {
			n++
		}
	}
	switch n {
	case 0:
		return Part{}, "part has no text, file or data"
	case 1:
	default:
		return Part{}, "part carries more than one of text, file and data; a part carries exactly one"
	}

	kind := w.Kind
	if kind == "" {
		kind = w.Type
	}
	if kind != "" {
		var want bool
		switch kind {
		case "text":
			want = hasText
		case "file":
			want = hasFile
		case "data":
			want = hasData
		default:
			return Part{}, "part kind " + quote(kind) + " is not text, file or data"
		}
		if !want {
			return Part{}, "part kind " + quote(kind) + " does not carry " + kind
		}
	}

	switch {
	case hasText:
		return Part{Text: *w.Text}, ""
	case hasData:
		return Part{Data: w.Data}, ""
	}

	// A file part: the nested object wins over the v1.0 flat fields when a
	// sender mixes them, since it is the more specific shape.
	f := File{Name: w.Filename, MediaType: w.MediaType}
	if w.URL != nil {
		f.URI = *w.URL
	}
	if wf := w.File; wf != nil {
		f.Name = firstNonEmpty(wf.Name, f.Name)
		f.MediaType = firstNonEmpty(wf.MediaType, wf.MimeType, f.MediaType)
		f.URI = firstNonEmpty(wf.URI, wf.FileWithURI, f.URI)
	}
	var content json.RawMessage
	for _, c := range []json.RawMessage{w.Raw, wirefileBytes(w.File)} {
		if present(c) {
			content = c
		}
	}
	if content != nil {
		b, ok := decodeBytes(content)
		if !ok {
			return Part{}, "file bytes are not a base64 string"
		}
		if len(b) > 0 { // empty content is no content, as when written out
			f.Bytes = b
		}
	}
	f.Name = strings.TrimSpace(f.Name)
	f.MediaType = strings.TrimSpace(f.MediaType)
	f.URI = strings.TrimSpace(f.URI)
	if f.Name == "" && f.MediaType == "" {
		return Part{}, "file part needs a mediaType or a name"
	}
	if f.URI != "" && f.Bytes != nil {
		return Part{}, "file part carries both bytes and a uri; give one"
	}
	if f.MediaType != "" {
		if _, ok := mediatype.Normalize(f.MediaType); !ok {
			return Part{}, "file mediaType " + quote(f.MediaType) + " is not a media type (type/subtype)"
		}
	}
	return Part{File: &f}, ""
}

// wirefileBytes is a nested file's bytes, under either name.
func wirefileBytes(wf *wireFile) json.RawMessage {
	switch {
	case wf == nil:
		return nil
	case present(wf.Bytes):
		return wf.Bytes
	}
	return wf.FileWithBytes
}

// decodeBytes reads file content: a JSON string of base64, standard or
// URL-safe, padded or not (protobuf's JSON mapping accepts all four).
func decodeBytes(raw json.RawMessage) ([]byte, bool) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, false
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, true
		}
	}
	return nil, false
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
