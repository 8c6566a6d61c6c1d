package card

import (
	"slices"
	"strings"
)

// legacyModes maps the mode words older cards use to media types.
// "file" means any file, hence the wildcard rather than a guess.
var legacyModes = map[string]string{
	"text": "text/plain",
	"data": "application/json",
	"file": "*/*",
}

// maxModeLen bounds a media type: RFC 6838 allows 127 characters for the
// type and for the subtype.
const maxModeLen = 255

// NormalizeMode returns the media type a mode stands for: lower-cased,
// parameters stripped ("text/plain; charset=utf-8" → "text/plain"), legacy
// words mapped ("text" → "text/plain"). ok is false when m is neither a
// media type (type/subtype, or a wildcard "type/*", "*/*") nor a legacy word.
// It is exported so that task types can be read the same way as card modes.
func NormalizeMode(m string) (mode string, ok bool) {
	m = strings.ToLower(strings.TrimSpace(m))
	if i := strings.IndexByte(m, ';'); i >= 0 {
		m = strings.TrimSpace(m[:i])
	}
	if mt, ok := legacyModes[m]; ok {
		return mt, true
	}
	if len(m) > maxModeLen {
		return "", false
	}
	typ, sub, found := strings.Cut(m, "/")
	if !found {
		return "", false
	}
	switch {
	case typ == "*":
		if sub != "*" {
			return "", false
		}
		return m, true
	case !isRestrictedName(typ):
		return "", false
	case sub == "*" || isRestrictedName(sub):
		return m, true
	}
	return "", false
}

// isRestrictedName checks RFC 6838 restricted-name: an alphanumeric first
// character, then alphanumerics and !#$&-^_.+ (input is lower-cased).
func isRestrictedName(s string) bool {
	if s == "" || len(s) > 127 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case i > 0 && strings.IndexByte("!#$&-^_.+", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// modes normalises a mode list, keeping order, dropping duplicates and
// words that are not media types (each drop is noted). A nil list stays
// nil and a present list stays non-nil even when nothing survives: for a
// skill, present modes replace the card's defaults.
func modes(raw []string, path string, n *notes) []string {
	if raw == nil {
		return nil
	}
	out := make([]string, 0, len(raw))
	var dropped []string
	for _, m := range raw {
		mt, ok := NormalizeMode(m)
		if !ok {
			dropped = append(dropped, m)
			continue
		}
		if !slices.Contains(out, mt) {
			out = append(out, mt)
		}
	}
	for i, d := range dropped {
		if i == 5 {
			n.add(path, "and %d more dropped", len(dropped)-i)
			break
		}
		d, _, _ = truncate(cleanPlain(d), 40)
		n.add(path, "dropped %q (not a media type)", d)
	}
	if len(raw) > 0 && len(out) == 0 {
		n.add(path, "no media type left")
	}
	return out
}
