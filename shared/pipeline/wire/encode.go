package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/skillmatch/skillmatch/shared/match/decide"
)

// EncodeShortlisted and EncodeRanked write the bytes json.Marshal writes
// for the two largest stage messages (a test holds them to it), by hand:
// encoding/json checked and copied every packed field's output once more
// (each Marshaler's output is compacted) and wrote the ranked options by
// reflection, a seventh of the stage handlers' CPU.

// EncodeShortlisted is json.Marshal(m).
func EncodeShortlisted(m *Shortlisted) ([]byte, error) {
	n := 512 + 2*len(m.Requirement.Need) + len(m.Task) + shortlistLen(&m.Shortlist)
	for i := range m.Parts {
		n += len(m.Parts[i].Part) + shortlistLen(&m.Parts[i].Shortlist)
	}
	b := make([]byte, 0, n)
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(m.V), 10)
	b = append(b, `,"taskId":`...)
	b = appendString(b, m.TaskID)
	if m.Caller != "" {
		b = append(b, `,"caller":`...)
		b = appendString(b, m.Caller)
	}
	req, err := json.Marshal(&m.Requirement)
	if err != nil {
		return nil, fmt.Errorf("shortlisted: requirement: %w", err)
	}
	b = append(b, `,"requirement":`...)
	b = append(b, req...)
	b = append(b, `,"task":`...)
	if b, err = appendRaw(b, m.Task); err != nil {
		return nil, fmt.Errorf("shortlisted: task: %w", err)
	}
	b = append(b, `,"catalog":`...)
	b = appendString(b, m.Catalog)
	b = append(b, `,"shortlist":`...)
	if b, err = appendShortlist(b, &m.Shortlist); err != nil {
		return nil, err
	}
	if len(m.Parts) > 0 {
		b = append(b, `,"parts":[`...)
		for i := range m.Parts {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"part":`...)
			b = appendString(b, m.Parts[i].Part)
			b = append(b, `,"shortlist":`...)
			if b, err = appendShortlist(b, &m.Parts[i].Shortlist); err != nil {
				return nil, err
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

func appendShortlist(b []byte, sl *Shortlist) ([]byte, error) {
	b = append(b, `{"terms":`...)
	b = appendStrings(b, sl.Terms)
	b = append(b, `,"vector":`...)
	vec, _ := sl.Vector.MarshalJSON() // never fails
	b = append(b, vec...)
	if len(sl.Demoted) > 0 {
		b = append(b, `,"demoted":[`...)
		for i, d := range sl.Demoted {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(d), 10)
		}
		b = append(b, ']')
	}
	b = append(b, `,"rejected":`...)
	b = strconv.AppendInt(b, int64(sl.Rejected), 10)
	b = append(b, `,"keys":`...)
	b = appendStrings(b, sl.Keys)
	b = append(b, `,"retrieval":`...)
	var err error
	if b, err = appendRetrieval(b, sl.Retrieval); err != nil {
		return nil, fmt.Errorf("shortlisted: retrieval: %w", err)
	}
	if sl.Degraded != "" {
		b = append(b, `,"degraded":`...)
		b = appendString(b, sl.Degraded)
	}
	if sl.History != nil {
		b = append(b, `,"history":`...)
		if b, err = appendRetrieval(b, sl.History); err != nil {
			return nil, fmt.Errorf("shortlisted: history: %w", err)
		}
	}
	return append(b, '}'), nil
}

func appendRetrieval(b []byte, r *Retrieval) ([]byte, error) {
	if r == nil {
		return append(b, "null"...), nil
	}
	return r.appendJSON(b)
}

// shortlistLen is about the length a shortlist's JSON takes, so that the
// writers' buffers are made once.
func shortlistLen(sl *Shortlist) int {
	n := 256 + 8*len(sl.Vector) + 12*len(sl.Demoted)
	for _, s := range sl.Terms {
		n += len(s) + 3
	}
	for _, s := range sl.Keys {
		n += len(s) + 3
	}
	for _, r := range []*Retrieval{sl.Retrieval, sl.History} {
		if r != nil {
			n += r.encodedLen()
		}
	}
	return n
}

// optionsLen is about the length options' JSON takes.
func optionsLen(opts []decide.Option) int {
	n := 2
	for i := range opts {
		o := &opts[i]
		n += 160 + len(o.Key) + len(o.AgentID) + len(o.SkillID) + len(o.AgentName) + len(o.SkillName) + len(o.Reason) + len(o.AlikeOf)
	}
	return n
}

// EncodeRanked is json.Marshal(m).
func EncodeRanked(m *Ranked) ([]byte, error) {
	n := 256 + len(m.Task) + optionsLen(m.Candidates)
	for i := range m.Parts {
		n += len(m.Parts[i].Part) + optionsLen(m.Parts[i].Candidates)
	}
	b := make([]byte, 0, n)
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(m.V), 10)
	b = append(b, `,"taskId":`...)
	b = appendString(b, m.TaskID)
	if m.Caller != "" {
		b = append(b, `,"caller":`...)
		b = appendString(b, m.Caller)
	}
	b = append(b, `,"task":`...)
	var err error
	if b, err = appendRaw(b, m.Task); err != nil {
		return nil, fmt.Errorf("ranked: task: %w", err)
	}
	b = append(b, `,"catalog":`...)
	b = appendString(b, m.Catalog)
	b = append(b, `,"candidates":`...)
	if b, err = appendOptions(b, m.Candidates); err != nil {
		return nil, fmt.Errorf("ranked: %w", err)
	}
	if m.Degraded != "" {
		b = append(b, `,"degraded":`...)
		b = appendString(b, m.Degraded)
	}
	if len(m.Parts) > 0 {
		b = append(b, `,"parts":[`...)
		for i := range m.Parts {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"part":`...)
			b = appendString(b, m.Parts[i].Part)
			b = append(b, `,"candidates":`...)
			if b, err = appendOptions(b, m.Parts[i].Candidates); err != nil {
				return nil, fmt.Errorf("ranked: part %d: %w", i+1, err)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

// appendOptions writes options as encoding/json writes []decide.Option.
func appendOptions(b []byte, opts []decide.Option) ([]byte, error) {
	if opts == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	var err error
	for i := range opts {
		o := &opts[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"key":`...)
		b = appendString(b, o.Key)
		b = append(b, `,"agentId":`...)
		b = appendString(b, o.AgentID)
		b = append(b, `,"skillId":`...)
		b = appendString(b, o.SkillID)
		if o.AgentName != "" {
			b = append(b, `,"agentName":`...)
			b = appendString(b, o.AgentName)
		}
		if o.SkillName != "" {
			b = append(b, `,"skillName":`...)
			b = appendString(b, o.SkillName)
		}
		b = append(b, `,"score":`...)
		if b, err = appendJSONFloat(b, o.Score); err != nil {
			return nil, fmt.Errorf("candidate %s: score: %w", o.Key, err)
		}
		b = append(b, `,"probability":`...)
		if b, err = appendJSONFloat(b, o.Prob); err != nil {
			return nil, fmt.Errorf("candidate %s: probability: %w", o.Key, err)
		}
		if o.Demoted {
			b = append(b, `,"demoted":true`...)
		}
		if o.Reason != "" {
			b = append(b, `,"reason":`...)
			b = appendString(b, o.Reason)
		}
		if o.AlikeOf != "" {
			b = append(b, `,"alikeOf":`...)
			b = appendString(b, o.AlikeOf)
		}
		if o.Alike != "" {
			b = append(b, `,"alike":`...)
			b = appendString(b, string(o.Alike))
		}
		if o.Sibling {
			b = append(b, `,"sibling":true`...)
		}
		if o.PairCalibrated {
			b = append(b, `,"pairCalibrated":true`...)
		}
		if o.Unnamed {
			b = append(b, `,"unnamed":true`...)
		}
		b = append(b, '}')
	}
	return append(b, ']'), nil
}

// appendRaw writes a json.RawMessage as encoding/json does: null when
// empty, else compacted with <, >, &, U+2028 and U+2029 escaped, refused
// when invalid.
func appendRaw(b []byte, raw json.RawMessage) ([]byte, error) {
	if len(raw) == 0 {
		return append(b, "null"...), nil
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, err
	}
	if !bytes.ContainsAny(compact.Bytes(), "<>&\u2028\u2029") {
		return append(b, compact.Bytes()...), nil
	}
	buf := bytes.NewBuffer(b)
	json.HTMLEscape(buf, compact.Bytes())
	return buf.Bytes(), nil
}

func appendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

// appendString writes s as encoding/json does: quoted, with <, > and &
// escaped, invalid UTF-8 as U+FFFD, and U+2028 and U+2029 escaped.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
