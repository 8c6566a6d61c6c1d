package wire

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/skillmatch/skillmatch/shared/match/decide"
)

// The reranker and the decider read the two largest stage messages
// (Shortlisted, about 6 KB at 1,000 skills, and Ranked), and through
// encoding/json each was read three times over: checked whole, decoded
// by reflection, and, for the shortlist's packed retrieval, skipped once
// more before its own reader ran; decoding was a quarter of the stage
// handlers' CPU. The readers below take the shape this package writes
// (its keys, once each, in any order; strings, numbers, booleans and the
// packed fields) in one pass, and answer ok=false for anything else (an
// unknown, escaped or repeated key, a null, a malformed value), which
// the caller leaves to encoding/json, its errors included. What they
// return equals what encoding/json returns for the same bytes (a test
// and a fuzz test hold them to that).

// scanner reads JSON this package wrote; ok turns false at the first
// thing it does not read, and stays false.
type scanner struct {
	data []byte
	i    int
	ok   bool
}

func newScanner(data []byte) *scanner { return &scanner{data: data, ok: true} }

func (s *scanner) fail() { s.ok = false }

func (s *scanner) space() { s.i = skipSpace(s.data, s.i) }

// peek is the next byte after white space (0 at the end or after a
// failure).
func (s *scanner) peek() byte {
	s.space()
	if !s.ok || s.i >= len(s.data) {
		return 0
	}
	return s.data[s.i]
}

// expect consumes c, after white space.
func (s *scanner) expect(c byte) {
	if s.peek() != c {
		s.fail()
		return
	}
	s.i++
}

// end checks that nothing but white space follows.
func (s *scanner) end() bool {
	s.space()
	return s.ok && s.i == len(s.data)
}

// object reads an object, calling field for each key (its value is next).
// A key repeated is refused: encoding/json would keep the last, and
// nothing this package writes repeats one.
func (s *scanner) object(field func(key []byte)) {
	s.expect('{')
	if s.peek() == '}' {
		s.i++
		return
	}
	var buf [16][]byte
	seen := buf[:0]
	for s.ok {
		key, j, ok := scanPlainString(s.data, s.i)
		if !ok {
			s.fail()
			return
		}
		for _, o := range seen {
			if bytes.Equal(o, key) {
				s.fail()
				return
			}
		}
		seen = append(seen, key)
		s.i = j
		s.expect(':')
		if !s.ok {
			return
		}
		s.space()
		field(key)
		switch s.peek() {
		case ',':
			s.i++
			s.space()
		case '}':
			s.i++
			return
		default:
			s.fail()
		}
	}
}

// array reads an array (not null), calling elem for each element.
func (s *scanner) array(elem func()) {
	s.expect('[')
	if s.peek() == ']' {
		s.i++
		return
	}
	for s.ok {
		s.space()
		elem()
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return
		default:
			s.fail()
		}
	}
}

// str reads a string as encoding/json decodes it: one without escapes,
// control characters or invalid UTF-8 as it is, any other through
// encoding/json.
func (s *scanner) str() string {
	if s.peek() != '"' {
		s.fail()
		return ""
	}
	start := s.i
	j := start + 1
	plain := true
	for ; j < len(s.data); j++ {
		c := s.data[j]
		if c == '"' {
			break
		}
		if c == '\\' {
			plain = false
			j++ // the escaped byte
			continue
		}
		if c < 0x20 || c >= utf8.RuneSelf {
			plain = false
		}
	}
	if j >= len(s.data) {
		s.fail()
		return ""
	}
	s.i = j + 1
	body := s.data[start+1 : j]
	if plain || (bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) && !hasControl(body)) {
		return string(body)
	}
	out, ok := unquote(body)
	if !ok {
		s.fail()
	}
	return out
}

// unquote is a JSON string's body (between its quotes) as encoding/json
// decodes it: escapes resolved, a \u escape of half a surrogate pair
// and invalid UTF-8 as U+FFFD; false when it is not valid JSON (a
// control character, an unknown or short escape).
func unquote(body []byte) (string, bool) {
	out := make([]byte, 0, len(body))
	for r := 0; r < len(body); {
		c := body[r]
		switch {
		case c == '\\':
			if r+1 >= len(body) {
				return "", false
			}
			switch e := body[r+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				rr, ok := hex4(body[r+2:])
				if !ok {
					return "", false
				}
				r += 6
				if utf16.IsSurrogate(rr) {
					if r+1 < len(body) && body[r] == '\\' && body[r+1] == 'u' {
						if rr1, ok := hex4(body[r+2:]); ok {
							if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
								out = utf8.AppendRune(out, dec)
								r += 6
								continue
							}
						}
					}
					rr = unicode.ReplacementChar
				}
				out = utf8.AppendRune(out, rr)
				continue
			default:
				return "", false
			}
			r += 2
		case c < ' ':
			return "", false
		case c < utf8.RuneSelf:
			out = append(out, c)
			r++
		default:
			rr, size := utf8.DecodeRune(body[r:])
			out = utf8.AppendRune(out, rr)
			r += size
		}
	}
	return string(out), true
}

// hex4 reads the four hex digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}

func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}

// number is the JSON number at the cursor, checked against JSON's
// grammar (strconv alone takes more: hex, underscores, "Inf").
func (s *scanner) number() []byte {
	s.space()
	d, i := s.data, s.i
	start := i
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		s.fail()
		return nil
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.fail()
			return nil
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.fail()
			return nil
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	s.i = i
	return d[start:i]
}

// float reads a number into a float64 as encoding/json does.
func (s *scanner) float() float64 {
	n := s.number()
	if !s.ok {
		return 0
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		s.fail()
	}
	return f
}

// int reads a number into an int as encoding/json does (an integer
// literal that fits).
func (s *scanner) int() int {
	n := s.number()
	if !s.ok {
		return 0
	}
	v, err := strconv.ParseInt(string(n), 10, strconv.IntSize)
	if err != nil {
		s.fail()
	}
	return int(v)
}

// null consumes a null, if that is what follows.
func (s *scanner) null() bool {
	if s.peek() == 'n' && bytes.HasPrefix(s.data[s.i:], []byte("null")) {
		s.i += 4
		return true
	}
	return false
}

func (s *scanner) bool() bool {
	s.space()
	switch {
	case bytes.HasPrefix(s.data[s.i:], []byte("true")):
		s.i += 4
		return true
	case bytes.HasPrefix(s.data[s.i:], []byte("false")):
		s.i += 5
		return false
	}
	s.fail()
	return false
}

// raw is the value at the cursor, as encoding/json hands it to a
// json.RawMessage (its bytes, copied), once it is checked valid.
func (s *scanner) raw() json.RawMessage {
	s.space()
	start := s.i
	s.skip()
	if !s.ok {
		return nil
	}
	v := s.data[start:s.i]
	if !json.Valid(v) {
		s.fail()
		return nil
	}
	return bytes.Clone(v)
}

// skip moves past the value at the cursor (an object or array by its
// brackets, outside strings; raw checks what it spans).
func (s *scanner) skip() {
	d := s.data
	depth := 0
	for s.i < len(d) {
		switch c := d[s.i]; c {
		case '"':
			_ = s.str()
			if !s.ok {
				return
			}
			if depth == 0 {
				return
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth < 0 {
				s.fail()
				return
			}
			if depth == 0 {
				s.i++
				return
			}
		case ',', ' ', '\t', '\n', '\r', ':':
			if depth == 0 {
				return
			}
		default:
			if depth == 0 {
				// A literal: up to the next delimiter.
				for s.i < len(d) && strings.IndexByte(",}] \t\n\r", d[s.i]) < 0 {
					s.i++
				}
				return
			}
		}
		s.i++
	}
	if depth != 0 {
		s.fail()
	}
}

// strings reads an array of strings.
func (s *scanner) strings() []string {
	if s.null() {
		return nil
	}
	out := []string{}
	s.array(func() { out = append(out, s.str()) })
	return out
}

// option reads a decide.Option.
func (s *scanner) option() decide.Option {
	var o decide.Option
	s.object(func(key []byte) {
		switch string(key) {
		case "key":
			o.Key = s.str()
		case "agentId":
			o.AgentID = s.str()
		case "skillId":
			o.SkillID = s.str()
		case "agentName":
			o.AgentName = s.str()
		case "skillName":
			o.SkillName = s.str()
		case "score":
			o.Score = s.float()
		case "probability":
			o.Prob = s.float()
		case "demoted":
			o.Demoted = s.bool()
		case "reason":
			o.Reason = s.str()
		case "alikeOf":
			o.AlikeOf = s.str()
		case "alike":
			o.Alike = decide.Alike(s.str())
		case "sibling":
			o.Sibling = s.bool()
		case "pairCalibrated":
			o.PairCalibrated = s.bool()
		case "unnamed":
			o.Unnamed = s.bool()
		default:
			s.fail()
		}
	})
	return o
}

func (s *scanner) options() []decide.Option {
	if s.null() {
		return nil
	}
	// A shortlist's worth (20 by default), so that most lists are made
	// once.
	out := make([]decide.Option, 0, 24)
	s.array(func() { out = append(out, s.option()) })
	return out
}

// version reads the "v" field: only this package's version goes on, so
// that the other cases get decode's errors.
func (s *scanner) version() int {
	v := s.int()
	if v != Version {
		s.fail()
	}
	return v
}

// scanRanked reads a Ranked message as encoding/json would, or answers
// false.
func scanRanked(data []byte) (m Ranked, ok bool) {
	s := newScanner(data)
	hasV := false
	s.object(func(key []byte) {
		switch string(key) {
		case "v":
			m.V, hasV = s.version(), true
		case "taskId":
			m.TaskID = s.str()
		case "caller":
			m.Caller = s.str()
		case "task":
			m.Task = s.raw()
		case "catalog":
			m.Catalog = s.str()
		case "candidates":
			m.Candidates = s.options()
		case "degraded":
			m.Degraded = s.str()
		case "parts":
			if s.null() {
				m.Parts = nil
				return
			}
			m.Parts = []PartRanked{}
			s.array(func() {
				var p PartRanked
				s.object(func(key []byte) {
					switch string(key) {
					case "part":
						p.Part = s.str()
					case "candidates":
						p.Candidates = s.options()
					default:
						s.fail()
					}
				})
				m.Parts = append(m.Parts, p)
			})
		default:
			s.fail()
		}
	})
	return m, hasV && s.end()
}

// scanShortlisted reads a Shortlisted message as encoding/json would, or
// answers false.
func scanShortlisted(data []byte) (m Shortlisted, ok bool) {
	s := newScanner(data)
	hasV := false
	s.object(func(key []byte) {
		switch string(key) {
		case "v":
			m.V, hasV = s.version(), true
		case "taskId":
			m.TaskID = s.str()
		case "caller":
			m.Caller = s.str()
		case "requirement":
			// Small and many-fielded: encoding/json reads it.
			if raw := s.raw(); s.ok && json.Unmarshal(raw, &m.Requirement) != nil {
				s.fail()
			}
		case "task":
			m.Task = s.raw()
		case "catalog":
			m.Catalog = s.str()
		case "shortlist":
			s.shortlist(&m.Shortlist)
		case "parts":
			if s.null() {
				m.Parts = nil
				return
			}
			m.Parts = []PartShortlist{}
			s.array(func() {
				var p PartShortlist
				s.object(func(key []byte) {
					switch string(key) {
					case "part":
						p.Part = s.str()
					case "shortlist":
						s.shortlist(&p.Shortlist)
					default:
						s.fail()
					}
				})
				m.Parts = append(m.Parts, p)
			})
		default:
			s.fail()
		}
	})
	return m, hasV && s.end()
}

// shortlist reads a Shortlist object into sl.
func (s *scanner) shortlist(sl *Shortlist) {
	s.object(func(key []byte) {
		switch string(key) {
		case "terms":
			sl.Terms = s.strings()
		case "vector":
			if s.null() {
				sl.Vector = nil // as Floats.UnmarshalJSON reads it
				return
			}
			if raw := s.base64(); s.ok {
				var err error
				if sl.Vector, err = unpackFloats(raw); err != nil {
					s.fail()
				}
			}
		case "demoted":
			if s.null() {
				sl.Demoted = nil
				return
			}
			sl.Demoted = []int{}
			s.array(func() { sl.Demoted = append(sl.Demoted, s.int()) })
		case "rejected":
			sl.Rejected = s.int()
		case "keys":
			sl.Keys = s.strings()
		case "retrieval":
			sl.Retrieval = s.retrieval()
		case "degraded":
			sl.Degraded = s.str()
		case "history":
			sl.History = s.retrieval()
		default:
			s.fail()
		}
	})
}

// retrieval reads a Retrieval object.
func (s *scanner) retrieval() *Retrieval {
	if s.null() {
		return nil
	}
	var in retrievalJSON
	s.object(func(key []byte) {
		switch string(key) {
		case "candidates", "neighbors", "lexNeighbors":
			raw := s.base64()
			if !s.ok {
				return
			}
			p, err := unpack(raw)
			if err != nil {
				s.fail()
				return
			}
			switch string(key) {
			case "candidates":
				in.Candidates = p
			case "neighbors":
				in.Neighbors = p
			default:
				in.LexNeighbors = p
			}
		case "allowed":
			in.Allowed = s.int()
		case "termWeights":
			if s.null() {
				in.TermWeights = nil
				return
			}
			in.TermWeights = []float64{}
			s.array(func() { in.TermWeights = append(in.TermWeights, s.float()) })
		default:
			s.fail()
		}
	})
	if !s.ok {
		return nil
	}
	r, err := in.result()
	if err != nil {
		s.fail()
		return nil
	}
	return &r
}

// base64 reads a string of standard base64 and decodes it, as
// unquoteBase64 does once encoding/json has checked the string.
func (s *scanner) base64() []byte {
	if s.peek() != '"' {
		s.fail()
		return nil
	}
	if body, j, ok := scanPlainString(s.data, s.i); ok && !hasControl(body) {
		s.i = j
		raw := make([]byte, base64.StdEncoding.DecodedLen(len(body)))
		k, err := base64.StdEncoding.Decode(raw, body)
		if err != nil {
			s.fail()
			return nil
		}
		return raw[:k]
	}
	raw, err := base64.StdEncoding.DecodeString(s.str())
	if err != nil {
		s.fail()
		return nil
	}
	if raw == nil {
		raw = []byte{}
	}
	return raw
}
