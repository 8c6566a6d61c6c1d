package task

import "strings"

// NormalizeMediaType returns s lower-cased, without parameters and
// surrounding space, with the legacy A2A mode words mapped (text →
// text/plain, data → application/json, file → */*). ok is false when s is
// not a media type of the form type/subtype; wildcards are allowed, so a
// caller that needs a concrete type must check for "*" itself.
//
// It follows the same RFC 6838 rules as the card package applies to modes,
// so that a task's types and a card's modes agree on what a media type is.
func NormalizeMediaType(s string) (mt string, ok bool) {
	s, _, _ = strings.Cut(s, ";")
	s = strings.TrimSpace(s)
	if len(s) > maxMediaTypeLen {
		return "", false
	}
	switch strings.ToLower(s) {
	case "text":
		return "text/plain", true
	case "data":
		return "application/json", true
	case "file":
		return "*/*", true
	}
	typ, sub, found := strings.Cut(s, "/")
	if !found || !isToken(typ) || !isToken(sub) || (typ == "*" && sub != "*") {
		return "", false
	}
	return strings.ToLower(s), true
}

// maxMediaTypeLen bounds a media type: RFC 6838 allows 127 characters for
// the type and for the subtype.
const maxMediaTypeLen = 255

// isToken reports whether s is an RFC 6838 restricted-name (an alphanumeric,
// then alphanumerics and !#$&-^_.+), or a lone "*".
func isToken(s string) bool {
	if s == "*" {
		return true
	}
	if s == "" || len(s) > 127 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case i > 0 && strings.IndexByte("!#$&-^_.+", c) >= 0:
		default:
			return false
		}
	}
	return true
}
