package signature

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Bounds on untrusted JSON. The input size bounds everything else: the
// parser keeps no more than a few times the input in memory.
const (
	// MaxBytes is the largest card Verify reads (card.DefaultLimits.MaxBytes).
	MaxBytes = 1 << 20
	// MaxDepth is the deepest nesting of arrays and objects accepted.
	MaxDepth = 100
)

var (
	// ErrSyntax is wrapped when the input is not JSON at all (RFC 8259).
	ErrSyntax = errors.New("invalid JSON")
	// ErrNotIJSON is wrapped when the input is JSON but not I-JSON (RFC
	// 7493), which RFC 8785 requires: a duplicate member name, a string
	// that is not valid Unicode (invalid UTF-8, a lone surrogate), or a
	// number outside the IEEE 754 double range. Such a document has no
	// canonical form, because different parsers read it differently.
	ErrNotIJSON = errors.New("JSON is not I-JSON")
	// ErrLimit is wrapped when the input is over MaxBytes or MaxDepth.
	ErrLimit = errors.New("JSON over limits")
)

// Canonicalize returns the RFC 8785 (JCS) canonical form of a JSON text:
// no whitespace, object members sorted by the UTF-16 code units of their
// names, numbers in ECMAScript (ES6) Number-to-String form, strings with
// the minimal escaping of ECMAScript's JSON.stringify. The input must be
// I-JSON and within MaxBytes and MaxDepth.
func Canonicalize(data []byte) ([]byte, error) {
	out, _, err := canonicalize(data, "")
	return out, err
}

// Payload returns the bytes a card's signatures sign: the canonical form of
// the card (a JSON object) with its top-level "signatures" member removed.
func Payload(card []byte) ([]byte, error) {
	out, _, err := canonicalize(card, "signatures")
	return out, err
}

// canonicalize parses data and returns its canonical form. When omit is
// not empty, data must be an object and its top-level member of that name
// is left out of the canonical form and returned raw (nil when absent).
func canonicalize(data []byte, omit string) (canon, omitted []byte, err error) {
	if len(data) > MaxBytes {
		return nil, nil, fmt.Errorf("%w: %d bytes, limit %d", ErrLimit, len(data), MaxBytes)
	}
	p := &parser{data: data, omit: omit}
	p.ws()
	if omit != "" && (p.pos >= len(data) || data[p.pos] != '{') {
		if p.pos >= len(data) {
			return nil, nil, fmt.Errorf("%w: empty input", ErrSyntax)
		}
		return nil, nil, fmt.Errorf("%w: want a JSON object", ErrSyntax)
	}
	out, err := p.value(make([]byte, 0, len(data)), 0)
	if err != nil {
		return nil, nil, err
	}
	p.ws()
	if p.pos != len(data) {
		return nil, nil, p.syntax("data after the JSON value")
	}
	if p.soft != nil {
		return nil, p.omitted, p.soft
	}
	return out, p.omitted, nil
}

type parser struct {
	data    []byte
	pos     int
	omit    string // top-level member to leave out
	omitted []byte // its raw value
	soft    error  // first I-JSON violation; parsing goes on for syntax errors
}

func (p *parser) syntax(what string) error {
	return fmt.Errorf("%w at offset %d: %s", ErrSyntax, p.pos, what)
}

func (p *parser) notIJSON(format string, args ...any) {
	if p.soft == nil {
		p.soft = fmt.Errorf("%w at offset %d: %s", ErrNotIJSON, p.pos, fmt.Sprintf(format, args...))
	}
}

func (p *parser) ws() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// value appends the canonical form of the value at p.pos to dst.
func (p *parser) value(dst []byte, depth int) ([]byte, error) {
	if p.pos >= len(p.data) {
		return nil, p.syntax("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(dst, depth+1)
	case c == '[':
		return p.array(dst, depth+1)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return appendString(dst, s), nil
	case c == 't':
		return p.literal(dst, "true")
	case c == 'f':
		return p.literal(dst, "false")
	case c == 'n':
		return p.literal(dst, "null")
	case c == '-' || c >= '0' && c <= '9':
		return p.number(dst)
	}
	return nil, p.syntax(fmt.Sprintf("unexpected character %q", p.data[p.pos]))
}

func (p *parser) literal(dst []byte, lit string) ([]byte, error) {
	if len(p.data)-p.pos < len(lit) || string(p.data[p.pos:p.pos+len(lit)]) != lit {
		return nil, p.syntax("invalid literal")
	}
	p.pos += len(lit)
	return append(dst, lit...), nil
}

type member struct {
	key   []uint16 // UTF-16 code units, the sort key
	name  string
	value []byte // canonical form
}

func (p *parser) object(dst []byte, depth int) ([]byte, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("%w: nesting deeper than %d", ErrLimit, MaxDepth)
	}
	top := depth == 1 && p.omit != ""
	p.pos++ // '{'
	var members []member
	seen := map[string]bool{}
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return append(dst, "{}"...), nil
	}
	for {
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.syntax("want a member name")
		}
		name, err := p.str()
		if err != nil {
			return nil, err
		}
		if seen[name] {
			p.notIJSON("duplicate member name %q", name)
		}
		seen[name] = true
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.syntax("want ':'")
		}
		p.pos++
		p.ws()
		start := p.pos
		v, err := p.value(nil, depth)
		if err != nil {
			return nil, err
		}
		if top && name == p.omit {
			p.omitted = p.data[start:p.pos]
		} else {
			members = append(members, member{key: utf16.Encode([]rune(name)), name: name, value: v})
		}
		p.ws()
		if p.pos >= len(p.data) {
			return nil, p.syntax("unexpected end of input in object")
		}
		if p.data[p.pos] == '}' {
			p.pos++
			break
		}
		if p.data[p.pos] != ',' {
			return nil, p.syntax("want ',' or '}'")
		}
		p.pos++
	}
	// Names are unique unless the input is not I-JSON, so the order of
	// equal keys does not matter.
	slices.SortFunc(members, func(a, b member) int { return slices.Compare(a.key, b.key) })
	dst = append(dst, '{')
	for i, m := range members {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, m.name)
		dst = append(dst, ':')
		dst = append(dst, m.value...)
	}
	return append(dst, '}'), nil
}

func (p *parser) array(dst []byte, depth int) ([]byte, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("%w: nesting deeper than %d", ErrLimit, MaxDepth)
	}
	p.pos++ // '['
	dst = append(dst, '[')
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return append(dst, ']'), nil
	}
	for first := true; ; first = false {
		if !first {
			dst = append(dst, ',')
		}
		p.ws()
		var err error
		if dst, err = p.value(dst, depth); err != nil {
			return nil, err
		}
		p.ws()
		if p.pos >= len(p.data) {
			return nil, p.syntax("unexpected end of input in array")
		}
		if p.data[p.pos] == ']' {
			p.pos++
			return append(dst, ']'), nil
		}
		if p.data[p.pos] != ',' {
			return nil, p.syntax("want ',' or ']'")
		}
		p.pos++
	}
}

// str reads a string at p.pos (the opening quote) and returns its value.
// Invalid UTF-8 and lone surrogates are I-JSON violations; they are
// replaced by U+FFFD so that parsing can go on.
func (p *parser) str() (string, error) {
	p.pos++ // '"'
	start := p.pos
	// Fast path: no escapes, all ASCII printable.
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			s := string(p.data[start:p.pos])
			p.pos++
			return s, nil
		}
		if c == '\\' || c < 0x20 || c >= 0x80 {
			break
		}
		p.pos++
	}
	buf := append([]byte(nil), p.data[start:p.pos]...)
	for {
		if p.pos >= len(p.data) {
			return "", p.syntax("unterminated string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(buf), nil
		case c < 0x20:
			return "", p.syntax("control character in string")
		case c == '\\':
			if p.pos+1 >= len(p.data) {
				return "", p.syntax("unterminated escape")
			}
			e := p.data[p.pos+1]
			p.pos += 2
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, err := p.hex4()
				if err != nil {
					return "", err
				}
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if r < 0xDC00 && p.pos+1 < len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
						save := p.pos
						p.pos += 2
						if r2, err = p.hex4(); err != nil {
							return "", err
						}
						if r2 < 0xDC00 || r2 > 0xDFFF {
							p.pos = save // not a pair: read it on its own
							r2 = -1
						}
					}
					if r2 < 0 {
						p.notIJSON("lone surrogate \\u%04x in string", r)
						r = utf8.RuneError
					} else {
						r = utf16.DecodeRune(r, r2)
					}
				}
				buf = utf8.AppendRune(buf, r)
			default:
				return "", p.syntax(fmt.Sprintf("invalid escape \\%c", e))
			}
		case c < 0x80:
			buf = append(buf, c)
			p.pos++
		default:
			r, size := utf8.DecodeRune(p.data[p.pos:])
			if r == utf8.RuneError && size <= 1 {
				p.notIJSON("invalid UTF-8 in string")
			}
			buf = utf8.AppendRune(buf, r)
			p.pos += size
		}
	}
}

func (p *parser) hex4() (rune, error) {
	if len(p.data)-p.pos < 4 {
		return 0, p.syntax("short \\u escape")
	}
	var r rune
	for _, c := range p.data[p.pos : p.pos+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, p.syntax("invalid \\u escape")
		}
	}
	p.pos += 4
	return r, nil
}

// number reads a number with the RFC 8259 grammar, as an IEEE 754 double.
func (p *parser) number(dst []byte) ([]byte, error) {
	start := p.pos
	d := p.data
	if p.pos < len(d) && d[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(d) && d[p.pos] == '0':
		p.pos++
	case p.pos < len(d) && d[p.pos] >= '1' && d[p.pos] <= '9':
		for p.pos < len(d) && d[p.pos] >= '0' && d[p.pos] <= '9' {
			p.pos++
		}
	default:
		return nil, p.syntax("invalid number")
	}
	if p.pos < len(d) && d[p.pos] == '.' {
		p.pos++
		if p.pos >= len(d) || d[p.pos] < '0' || d[p.pos] > '9' {
			return nil, p.syntax("invalid number: want a digit after '.'")
		}
		for p.pos < len(d) && d[p.pos] >= '0' && d[p.pos] <= '9' {
			p.pos++
		}
	}
	if p.pos < len(d) && (d[p.pos] == 'e' || d[p.pos] == 'E') {
		p.pos++
		if p.pos < len(d) && (d[p.pos] == '+' || d[p.pos] == '-') {
			p.pos++
		}
		if p.pos >= len(d) || d[p.pos] < '0' || d[p.pos] > '9' {
			return nil, p.syntax("invalid number: want a digit in the exponent")
		}
		for p.pos < len(d) && d[p.pos] >= '0' && d[p.pos] <= '9' {
			p.pos++
		}
	}
	f, err := strconv.ParseFloat(string(d[start:p.pos]), 64)
	if err != nil || math.IsInf(f, 0) {
		p.notIJSON("number %.40s is outside the IEEE 754 double range", d[start:p.pos])
		return append(dst, '0'), nil
	}
	return AppendNumber(dst, f)
}

// AppendNumber appends f in the form ECMAScript's Number.prototype.toString
// gives it (ES6 7.1.12.1), which RFC 8785 prescribes: the shortest digits
// that read back as f, in plain notation for decimal exponents -7 < e < 21
// and in exponent notation otherwise. Minus zero is "0". NaN and the
// infinities have no JSON form and are an error.
func AppendNumber(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%w: %v has no JSON form", ErrNotIJSON, f)
	}
	if f == 0 {
		return append(dst, '0'), nil
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	// Shortest round-trip digits; among equally short ones, the closest to
	// f, as ES6 requires. The form is "d.ddde±xx" or "de±xx".
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64)
	mark := slices.Index(e, 'e')
	exp, _ := strconv.Atoi(string(e[mark+1:]))
	digits := make([]byte, 0, mark)
	for _, c := range e[:mark] {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	// In ES6 terms f = 0.digits × 10^n, with k digits.
	k, n := len(digits), exp+1
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		for range n - k {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, "0."...)
		for range -n {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst, nil
}

// appendString appends s as a JSON string with the escaping of ES6
// JSON.stringify: '"', '\\' and the control characters below U+0020 are
// escaped (\b \t \n \f \r by name, others as \u00xx in lower case);
// everything else, non-ASCII included, is written as UTF-8.
func appendString(dst []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			dst = append(dst, '\\', '"')
		case c == '\\':
			dst = append(dst, '\\', '\\')
		case c >= 0x20:
			dst = append(dst, c)
		case c == '\b':
			dst = append(dst, '\\', 'b')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\f':
			dst = append(dst, '\\', 'f')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
	}
	return append(dst, '"')
}
