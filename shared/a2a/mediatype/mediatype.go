// Package mediatype holds the one set of media-type rules that card modes,
// task parts and the filter share, so that a card's modes and a task's
// types agree on what a media type is and when one covers another.
//
// A media type here is RFC 6838 type/subtype (restricted names, 127 bytes
// each), compared without case and without parameters, or a wildcard
// "type/*" or "*/*". The legacy A2A mode words read as FORMAT.md says:
// text = text/plain, data = application/json, file = */* (any file, hence
// the wildcard rather than a guess).
package mediatype

import (
	"path"
	"strings"
)

// Any is the wildcard that covers every media type.
const Any = "*/*"

// maxLen bounds a media type: RFC 6838 allows 127 characters for the type
// and for the subtype.
const maxLen = 255

// Normalize returns s lower-cased, without parameters and surrounding space
// ("Text/Plain; charset=utf-8" → "text/plain"), legacy words mapped
// ("text" → "text/plain"). ok is false when s is not a media type;
// wildcards are allowed (see Concrete).
func Normalize(s string) (mt string, ok bool) {
	mt, ok = parse(s)
	if !ok {
		return "", false
	}
	return strings.ToLower(mt), true // ASCII only: parse checked every byte
}

// Concrete is Normalize for callers that need one actual type: a wildcard
// is not ok.
func Concrete(s string) (mt string, ok bool) {
	mt, ok = Normalize(s)
	if !ok || IsWildcard(mt) {
		return "", false
	}
	return mt, true
}

// IsWildcard reports whether a normalised media type is a range ("*/*",
// "image/*") rather than one type.
func IsWildcard(mt string) bool { return strings.HasSuffix(mt, "/*") }

// Matches reports whether an offered mode covers a wanted media type:
// equal ignoring case and parameters, or a wildcard ("image/*", "*/*")
// whose range holds it. Anything that is not a media type matches nothing.
// A wildcard wanted is covered only by an equal or wider offer.
//
// It does not allocate: the filter runs it for every skill of the catalog.
func Matches(offered, wanted string) bool {
	o, ok := parse(offered)
	if !ok {
		return false
	}
	w, ok := parse(wanted)
	if !ok {
		return false
	}
	if o == Any || strings.EqualFold(o, w) {
		return true
	}
	if prefix, ok := strings.CutSuffix(o, "*"); ok { // "image/*" → "image/"
		return len(w) > len(prefix) && strings.EqualFold(w[:len(prefix)], prefix)
	}
	return false
}

// Covers reports whether some offered mode covers wanted.
func Covers(offered []string, wanted string) bool {
	for _, o := range offered {
		if Matches(o, wanted) {
			return true
		}
	}
	return false
}

// Declared reports whether any of the modes reads as a media type. An
// empty list, or one of words that are not media types, declares nothing.
func Declared(modes []string) bool {
	for _, m := range modes {
		if _, ok := parse(m); ok {
			return true
		}
	}
	return false
}

// parse returns s without parameters and surrounding space, legacy words
// mapped, and whether it is a media type. It keeps s's case, so that
// Matches can compare with EqualFold without allocating.
func parse(s string) (string, bool) {
	if i := strings.IndexByte(s, ';'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if len(s) > maxLen {
		return "", false
	}
	typ, sub, found := strings.Cut(s, "/")
	switch {
	case !found:
		return legacy(s)
	case typ == "*":
		return s, sub == "*"
	case !restrictedName(typ), sub != "*" && !restrictedName(sub):
		return "", false
	}
	return s, true
}

// legacy maps the A2A mode words; any other word is not a media type.
func legacy(s string) (string, bool) {
	switch {
	case strings.EqualFold(s, "text"):
		return "text/plain", true
	case strings.EqualFold(s, "data"):
		return "application/json", true
	case strings.EqualFold(s, "file"):
		return Any, true
	}
	return "", false
}

// restrictedName checks RFC 6838 restricted-name: an ASCII alphanumeric
// first, then alphanumerics and !#$&-^_.+, at most 127 bytes.
func restrictedName(s string) bool {
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

// OfName returns the media type a file name's extension implies
// ("Invoice.PDF" → "application/pdf"), or "" when the extension is not in
// the table. Windows separators count as separators.
func OfName(name string) string {
	return OfExtension(path.Ext(strings.ReplaceAll(name, `\`, "/")))
}

// OfExtension returns the media type of an extension, with or without its
// dot, in any case ("PDF", ".pdf"), or "" when it is not in the table.
func OfExtension(ext string) string {
	return byExtension[strings.ToLower(strings.TrimPrefix(ext, "."))]
}
