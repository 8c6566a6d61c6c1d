package task

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/mediatype"
)

// Limits bounds what Parse accepts. Tasks come from callers skillmatch does
// not control, and everything downstream (retrieval, reranking prompts) costs
// in proportion to their size, so the limits are checked before any of it.
type Limits struct {
	// MaxBytes caps the whole JSON payload; it is checked before decoding,
	// so it also bounds what decoding allocates.
	MaxBytes int
	// MaxText caps the bytes of text over all text parts of the message and
	// its history together.
	MaxText int
	// MaxParts caps the parts of one message.
	MaxParts int
	// MaxHistory caps the earlier turns.
	MaxHistory int
	// MaxScopes caps the caller's scopes; MaxTypes the accepted output types.
	MaxScopes int
	MaxTypes  int
	// MaxField caps, in characters, a scope, the caller id and tenant, a
	// message or context id and a media type.
	MaxField int
	// MaxFileBytes caps the file content carried as bytes over the whole
	// task (decoded); a larger file goes by URI. Base64 makes it a third
	// larger in the payload, which MaxBytes still caps.
	MaxFileBytes int
	// MaxMetadata caps the bytes of the message's metadata object, which
	// is passed on to the chosen agent.
	MaxMetadata int
}

// DefaultLimits are the limits Parse applies unless told otherwise.
var DefaultLimits = Limits{
	MaxBytes:     256 << 10,
	MaxText:      16 << 10,
	MaxParts:     64,
	MaxHistory:   32,
	MaxScopes:    64,
	MaxTypes:     32,
	MaxField:     256,
	MaxMetadata:  16 << 10,
	MaxFileBytes: 128 << 10,
}

// MaxIDLen is the longest task id Parse accepts.
const MaxIDLen = 128

// Option configures Parse.
type Option func(*parseOptions)

type parseOptions struct {
	limits Limits
}

// WithLimits replaces DefaultLimits; a zero field keeps its default, so a
// caller can change one limit without restating the others.
func WithLimits(l Limits) Option {
	return func(o *parseOptions) {
		d := &o.limits
		setIfPositive(&d.MaxBytes, l.MaxBytes)
		setIfPositive(&d.MaxText, l.MaxText)
		setIfPositive(&d.MaxParts, l.MaxParts)
		setIfPositive(&d.MaxHistory, l.MaxHistory)
		setIfPositive(&d.MaxScopes, l.MaxScopes)
		setIfPositive(&d.MaxTypes, l.MaxTypes)
		setIfPositive(&d.MaxField, l.MaxField)
		setIfPositive(&d.MaxMetadata, l.MaxMetadata)
		setIfPositive(&d.MaxFileBytes, l.MaxFileBytes)
	}
}

func setIfPositive(dst *int, v int) {
	if v > 0 {
		*dst = v
	}
}

// wireTask mirrors Task but keeps every list raw: Parse counts a list's
// elements before decoding it, so that a payload of many tiny elements
// ("[{},{},...]") cannot make decoding allocate a hundred times its size.
type wireTask struct {
	ID          string          `json:"id"`
	Message     *wireMessage    `json:"message"`
	History     json.RawMessage `json:"history"`
	Caller      wireCaller      `json:"caller"`
	Constraints wireConstraints `json:"constraints"`
}

type wireMessage struct {
	MessageID string          `json:"messageId"`
	ContextID string          `json:"contextId"`
	TaskID    string          `json:"taskId"`
	Role      string          `json:"role"`
	Parts     json.RawMessage `json:"parts"`
	Metadata  json.RawMessage `json:"metadata"`
}

type wireCaller struct {
	ID        string          `json:"id"`
	Tenant    string          `json:"tenant"`
	Scopes    json.RawMessage `json:"scopes"`
	DataClass string          `json:"dataClass"`
}

type wireConstraints struct {
	AcceptedOutputTypes json.RawMessage `json:"acceptedOutputTypes"`
	Streaming           *bool           `json:"streaming"`
	SkillID             string          `json:"skillId"`
}

// Parse reads a task from untrusted JSON and validates it. Every error wraps
// ErrInvalidTask (size limits: ErrTooLarge) and is an *Error naming the
// task and the field.
//
// Parse keeps what it was given: it trims surrounding space from ids and
// media types and lower-cases the data class and role, but it does not
// rewrite text or drop parts. Caller.Scopes stays nil when the task has no
// "scopes" (or null), and an empty list when it has [].
func Parse(data []byte, opts ...Option) (*Task, error) {
	o := parseOptions{limits: DefaultLimits}
	for _, opt := range opts {
		opt(&o)
	}
	lim := o.limits
	if len(data) > lim.MaxBytes {
		return nil, &Error{Reason: fmt.Sprintf("payload is %d bytes; the limit is %d", len(data), lim.MaxBytes), Err: ErrTooLarge}
	}

	var w wireTask
	if err := json.Unmarshal(data, &w); err != nil {
		field, reason := jsonReason(err, "a task object")
		e := &Error{Field: field, Reason: reason, Err: ErrInvalidTask}
		// A type error leaves the rest decoded: name the task if we can.
		if validID(w.ID) {
			e.TaskID = w.ID
		}
		return nil, e
	}

	p := parser{lim: lim, id: strings.TrimSpace(w.ID)}
	if p.id == "" {
		return nil, p.fail("id", "missing; every task needs an id")
	}
	if !validID(p.id) {
		id := p.id
		p.id = ""
		return nil, p.fail("id", fmt.Sprintf("%s must be 1 to %d characters of A-Z a-z 0-9 . _ : -", quote(id), MaxIDLen))
	}
	t := &Task{ID: p.id}

	if w.Message == nil {
		return nil, p.fail("message", "missing; a task needs a message with at least one text or file part")
	}
	msg, err := p.message("message", w.Message)
	if err != nil {
		return nil, err
	}
	if !hasContent(msg.Parts) {
		return nil, p.fail("message.parts", "no part with text or a file; say what the task is")
	}
	if err := p.continues(&msg, w.Message); err != nil {
		return nil, err
	}
	t.Message = msg

	var turns []json.RawMessage
	if err := p.list("history", w.History, p.lim.MaxHistory, "turns", "an array of messages", &turns); err != nil {
		return nil, err
	}
	if len(turns) > 0 {
		t.History = make([]Message, len(turns))
		for i, raw := range turns {
			field := fmt.Sprintf("history[%d]", i)
			var wm wireMessage
			if err := json.Unmarshal(raw, &wm); err != nil {
				f, reason := jsonReason(err, "a message object")
				return nil, p.fail(joinField(field, f), reason)
			}
			if t.History[i], err = p.message(field, &wm); err != nil {
				return nil, err
			}
		}
	}
	if p.text > lim.MaxText {
		return nil, p.tooLarge("", fmt.Sprintf("text is %d bytes over the message and history; the limit is %d", p.text, lim.MaxText))
	}

	if t.Caller, err = p.caller(&w.Caller); err != nil {
		return nil, err
	}
	if t.Constraints, err = p.constraints(&w.Constraints); err != nil {
		return nil, err
	}
	return t, nil
}

// parser carries the limits, the task id for error context and the running
// text total across messages.
type parser struct {
	lim   Limits
	id    string
	text  int
	files int // file bytes so far
}

func (p *parser) fail(field, reason string) error {
	return &Error{TaskID: p.id, Field: field, Reason: reason, Err: ErrInvalidTask}
}

func (p *parser) tooLarge(field, reason string) error {
	return &Error{TaskID: p.id, Field: field, Reason: reason, Err: ErrTooLarge}
}

func (p *parser) message(field string, w *wireMessage) (Message, error) {
	m := Message{
		MessageID: strings.TrimSpace(w.MessageID),
		ContextID: strings.TrimSpace(w.ContextID),
	}
	if err := p.short(field+".messageId", m.MessageID); err != nil {
		return m, err
	}
	if err := p.short(field+".contextId", m.ContextID); err != nil {
		return m, err
	}
	role, ok := normalizeRole(w.Role)
	if !ok {
		return m, p.fail(field+".role", quote(w.Role)+" is not user or agent")
	}
	m.Role = role

	var raws []json.RawMessage
	if err := p.list(field+".parts", w.Parts, p.lim.MaxParts, "parts", "an array of parts", &raws); err != nil {
		return m, err
	}
	if len(raws) == 0 {
		return m, p.fail(field+".parts", "missing or empty; a message has at least one part")
	}
	m.Parts = make([]Part, len(raws))
	for i, raw := range raws {
		pf := fmt.Sprintf("%s.parts[%d]", field, i)
		part, reason := decodePart(raw)
		if reason != "" {
			return m, p.fail(pf, reason)
		}
		if part.File != nil && utf8.RuneCountInString(part.File.MediaType) > p.lim.MaxField {
			return m, p.fail(pf, fmt.Sprintf("file mediaType is longer than %d characters", p.lim.MaxField))
		}
		p.text += len(part.Text)
		if part.File != nil && len(part.File.Bytes) > 0 {
			if p.files += len(part.File.Bytes); p.files > p.lim.MaxFileBytes {
				return m, p.tooLarge(pf, fmt.Sprintf("file bytes are %d over the task; the limit is %d: send a larger file by uri", p.files, p.lim.MaxFileBytes))
			}
		}
		m.Parts[i] = part
	}
	return m, nil
}

// continues reads what only the task's own message carries: the task it
// continues (message.taskId) and the metadata passed on to the agent.
// History turns keep neither.
func (p *parser) continues(m *Message, w *wireMessage) error {
	if id := strings.TrimSpace(w.TaskID); id != "" {
		switch {
		case !validID(id):
			return p.fail("message.taskId", fmt.Sprintf("%s must be the id of an earlier task: 1 to %d characters of A-Z a-z 0-9 . _ : -", quote(id), MaxIDLen))
		case id == p.id:
			return p.fail("message.taskId", "names this task itself; a follow-up continues an earlier task")
		}
		m.TaskID = id
	}
	if present(w.Metadata) {
		raw := bytes.TrimSpace(w.Metadata)
		if raw[0] != '{' {
			return p.fail("message.metadata", "want an object, got "+jsonKind(raw))
		}
		if len(raw) > p.lim.MaxMetadata {
			return p.tooLarge("message.metadata", fmt.Sprintf("%d bytes; the limit is %d", len(raw), p.lim.MaxMetadata))
		}
		m.Metadata = raw
	}
	return nil
}

// maxSkillIDLen is the longest skill id a card may declare.
const maxSkillIDLen = 128

// skillRef checks constraints.skillId: "<agentId>/<skillId>", an agent id
// as the catalog has them and a skill id as cards may declare them.
func (p *parser) skillRef(s string) (string, error) {
	const field = "constraints.skillId"
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	agent, skill, ok := strings.Cut(s, "/")
	switch {
	case !ok:
		return "", p.fail(field, quote(s)+` is not "<agentId>/<skillId>"`)
	case !card.ValidID(agent):
		return "", p.fail(field, fmt.Sprintf("agent id %s must be 1 to 128 characters of a-z 0-9 . _ -", quote(agent)))
	case skill == "" || len(skill) > maxSkillIDLen || strings.Contains(skill, "/"):
		return "", p.fail(field, fmt.Sprintf("skill id %s must be 1 to %d bytes without '/'", quote(skill), maxSkillIDLen))
	case !utf8.ValidString(skill) || strings.IndexFunc(skill, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsGraphic(r) }) >= 0:
		return "", p.fail(field, fmt.Sprintf("skill id %s contains spaces or invisible characters", quote(skill)))
	}
	return s, nil
}

func (p *parser) caller(w *wireCaller) (Caller, error) {
	c := Caller{ID: strings.TrimSpace(w.ID), Tenant: strings.TrimSpace(w.Tenant)}
	if err := p.short("caller.id", c.ID); err != nil {
		return c, err
	}
	if err := p.short("caller.tenant", c.Tenant); err != nil {
		return c, err
	}
	// Absent or null stays nil ("not filtered on security"); [] decodes to
	// an empty, non-nil slice ("a caller with no scopes").
	if err := p.list("caller.scopes", w.Scopes, p.lim.MaxScopes, "scopes", "an array of strings", &c.Scopes); err != nil {
		return c, err
	}
	for i, s := range c.Scopes {
		f := fmt.Sprintf("caller.scopes[%d]", i)
		if s == "" {
			return c, p.fail(f, "empty scope")
		}
		if err := p.short(f, s); err != nil {
			return c, err
		}
	}
	if w.DataClass != "" {
		class := strings.ToLower(strings.TrimSpace(w.DataClass))
		if _, ok := catalog.ClassRank(class); !ok {
			return c, p.fail("caller.dataClass", quote(w.DataClass)+" is not one of public, internal, confidential, restricted")
		}
		c.DataClass = class
	}
	return c, nil
}

func (p *parser) constraints(w *wireConstraints) (Constraints, error) {
	c := Constraints{Streaming: w.Streaming}
	var err error
	if c.SkillID, err = p.skillRef(w.SkillID); err != nil {
		return c, err
	}
	const field = "constraints.acceptedOutputTypes"
	if err := p.list(field, w.AcceptedOutputTypes, p.lim.MaxTypes, "types", "an array of strings", &c.AcceptedOutputTypes); err != nil {
		return c, err
	}
	for i, s := range c.AcceptedOutputTypes {
		f := fmt.Sprintf("%s[%d]", field, i)
		s = strings.TrimSpace(s)
		if err := p.short(f, s); err != nil {
			return c, err
		}
		mt, ok := mediatype.Normalize(s)
		if !ok {
			return c, p.fail(f, quote(s)+" is not a media type (type/subtype)")
		}
		// A wildcard would say "anything of this kind", which the filter's
		// "at least one of" rule cannot check against offered wildcards
		// without guessing; callers who accept anything omit the field.
		if mediatype.IsWildcard(mt) {
			return c, p.fail(f, quote(s)+" is a wildcard; list concrete media types, or leave the field out to accept any")
		}
		c.AcceptedOutputTypes[i] = s
	}
	return c, nil
}

// list decodes the JSON array raw into dst after checking that it has at
// most max elements (what names them in the error). Absent or null leaves
// dst alone.
func (p *parser) list(field string, raw json.RawMessage, max int, what, want string, dst any) error {
	if !present(raw) {
		return nil
	}
	n, ok := countElems(raw)
	if !ok {
		return p.fail(field, "want "+want+", got "+jsonKind(raw))
	}
	if n > max {
		return p.tooLarge(field, fmt.Sprintf("%d %s; the limit is %d", n, what, max))
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		f, reason := jsonReason(err, want)
		return p.fail(joinField(field, f), reason)
	}
	return nil
}

// countElems counts the top-level elements of a JSON array without
// decoding them. raw has already been checked to be valid JSON.
func countElems(raw []byte) (n int, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '[' {
		return 0, false
	}
	depth, inString, escaped, seen := 0, false, false, false
	for _, c := range raw[1 : len(raw)-1] {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			inString = true
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		case ',':
			if depth == 0 {
				n++
			}
		}
		seen = true
	}
	if seen {
		n++
	}
	return n, true
}

// jsonKind names the kind of a JSON value for an error message.
func jsonKind(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	}
	return "number"
}

func joinField(field, sub string) string {
	if sub == "" {
		return field
	}
	return field + "." + sub
}

// short checks an identifier-like field: bounded, no control characters
// (they would end up in logs and in reasons shown to users).
func (p *parser) short(field, s string) error {
	if utf8.RuneCountInString(s) > p.lim.MaxField {
		return p.tooLarge(field, fmt.Sprintf("longer than %d characters", p.lim.MaxField))
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return p.fail(field, "contains a control character")
		}
	}
	return nil
}

// ValidID reports whether id can be a task id: 1 to MaxIDLen characters
// of A-Z a-z 0-9 . _ : - (what Parse accepts).
func ValidID(id string) bool { return validID(id) }

func validID(id string) bool {
	if id == "" || len(id) > MaxIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '.' || c == '_' || c == ':' || c == '-':
		default:
			return false
		}
	}
	return true
}

// normalizeRole accepts the v0.3 ("user") and v1.0 protojson ("ROLE_USER")
// spellings; an absent role is left empty and read as the user's.
func normalizeRole(r string) (string, bool) {
	switch strings.ToLower(strings.TrimSpace(r)) {
	case "":
		return "", true
	case "user", "role_user":
		return "user", true
	case "agent", "role_agent":
		return "agent", true
	}
	return "", false
}

// hasContent reports whether some part has non-blank text or a file.
func hasContent(parts []Part) bool {
	for _, p := range parts {
		if p.File != nil || strings.TrimSpace(p.Text) != "" {
			return true
		}
	}
	return false
}
