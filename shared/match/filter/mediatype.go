package filter

import "strings"

// MediaTypeMatches reports whether an offered mode covers a wanted media
// type: equal ignoring case and parameters, or a wildcard ("image/*", "*/*")
// whose range holds it. Legacy mode words read as FORMAT.md says (text =
// text/plain, data = application/json, file = */*); anything else that is
// not type/subtype matches nothing. Wanted types are concrete; a wildcard
// wanted is covered only by an equal or wider offer.
//
// It does not allocate: it runs for every skill of the catalog.
func MediaTypeMatches(offered, wanted string) bool {
	o, ok := mode(offered)
	if !ok {
		return false
	}
	w, ok := mode(wanted)
	if !ok {
		return false
	}
	if o == "*/*" || strings.EqualFold(o, w) {
		return true
	}
	if prefix, ok := strings.CutSuffix(o, "*"); ok { // "image/*" → "image/"
		return len(w) > len(prefix) && strings.EqualFold(w[:len(prefix)], prefix)
	}
	return false
}

// mode returns s without parameters and surrounding space, legacy words
// mapped, and whether it reads as a media type. It is task.NormalizeMediaType
// without the allocation of lower-casing: callers compare with EqualFold.
func mode(s string) (string, bool) {
	// Fast path, one scan: the usual clean "type/subtype".
	slash := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '/':
			if slash >= 0 {
				return "", false
			}
			slash = i
		case ';', ' ', '\t', '\n', '\r':
			return modeSlow(s)
		}
	}
	if slash < 0 {
		return legacy(s)
	}
	return checkSlash(s, slash)
}

// modeSlow handles parameters and surrounding space.
func modeSlow(s string) (string, bool) {
	if i := strings.IndexByte(s, ';'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	slash := strings.IndexByte(s, '/')
	if slash < 0 {
		return legacy(s)
	}
	if strings.IndexByte(s[slash+1:], '/') >= 0 || strings.ContainsAny(s, " \t\n\r") {
		return "", false
	}
	return checkSlash(s, slash)
}

func checkSlash(s string, slash int) (string, bool) {
	if slash == 0 || slash == len(s)-1 || (s[:slash] == "*" && s[slash+1:] != "*") {
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
		return "*/*", true
	}
	return "", false
}

// declared reports whether any of the modes reads as a media type. An
// empty list, or one of words that are not media types, declares nothing.
func declared(modes []string) bool {
	for _, m := range modes {
		if _, ok := mode(m); ok {
			return true
		}
	}
	return false
}

// covered reports whether some offered mode covers wanted.
func covered(offered []string, wanted string) bool {
	for _, o := range offered {
		if MediaTypeMatches(o, wanted) {
			return true
		}
	}
	return false
}
