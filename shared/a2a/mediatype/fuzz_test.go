package mediatype

import (
	"strings"
	"testing"
)

// Card modes and task part types are untrusted: Normalize is idempotent
// and yields lower-case type/subtype, a normalised type matches itself,
// a wildcard covers what it ranges over, and Matches agrees with
// matching the normalised forms.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"Text/Plain; charset=utf-8", "text", "data", "file", "image/*", "*/*", "application/vnd.a+json", " x/y ", "a/b/c", "*/json"} {
		f.Add(s, "image/png")
	}
	f.Fuzz(func(t *testing.T, s, other string) {
		mt, ok := Normalize(s)
		if !ok {
			if Matches(s, other) || Matches(other, s) || Declared([]string{s}) {
				t.Fatalf("%q is no media type, yet it matches or declares", s)
			}
			return
		}
		if again, ok := Normalize(mt); !ok || again != mt {
			t.Fatalf("Normalize(%q) = %q, then %q, %v", s, mt, again, ok)
		}
		if mt != strings.ToLower(mt) || strings.Count(mt, "/") != 1 {
			t.Fatalf("Normalize(%q) = %q", s, mt)
		}
		if !Matches(s, s) || !Matches(mt, s) || !Matches(s, mt) {
			t.Fatalf("%q (%q) does not match itself", s, mt)
		}
		if c, ok := Concrete(s); ok == IsWildcard(mt) || ok && c != mt {
			t.Fatalf("Concrete(%q) = %q, %v for %q", s, c, ok, mt)
		}
		if o, ok := Normalize(other); ok && Matches(s, other) != Matches(mt, o) {
			t.Fatalf("Matches(%q, %q) differs from its normalised forms %q, %q", s, other, mt, o)
		}
		if !Matches(Any, s) {
			t.Fatalf("*/* does not cover %q", s)
		}
	})
}
