package mediatype

import (
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"text/plain", "text/plain", true},
		{"application/pdf", "application/pdf", true},
		{"image/svg+xml", "image/svg+xml", true},
		{"application/vnd.openxmlformats-officedocument.wordprocessingml.document", Docx, true},
		// Case and parameters do not count.
		{"TEXT/HTML;charset=utf-8", "text/html", true},
		{" Text/CSV; charset=utf-8 ", "text/csv", true},
		// Legacy A2A mode words, in any case.
		{"text", "text/plain", true},
		{"data", "application/json", true},
		{"DATA", "application/json", true},
		{"file", "*/*", true},
		{" File ; x=y", "*/*", true},
		// Wildcards are media types here; Concrete rejects them.
		{"*/*", "*/*", true},
		{"image/*", "image/*", true},
		{"*/json", "", false},
		{"*/png", "", false},
		// Not type/subtype, or not RFC 6838 restricted names.
		{"image", "", false},
		{"banana", "", false},
		{"task-status", "", false},
		{"image/", "", false},
		{"/png", "", false},
		{"/x", "", false},
		{"image/png/x", "", false},
		{"a/b/c", "", false},
		{"image png", "", false},
		{"a /b", "", false},
		{"-x/y", "", false},
		{"x/+y", "", false},
		{"a@b/c", "", false},
		{"appl\u212Ation/json", "", false}, // Kelvin sign lower-cases to ASCII k
		{"", "", false},
		// Length: 127 bytes for a name, 255 for the whole.
		{"a/" + strings.Repeat("b", 127), "a/" + strings.Repeat("b", 127), true},
		{"a/" + strings.Repeat("b", 128), "", false},
		{"a/" + strings.Repeat("b", 300), "", false},
		{"application/" + strings.Repeat("x", 244), "", false},
	}
	for _, tt := range tests {
		got, ok := Normalize(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Normalize(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		// Matching agrees with normalising on what a media type is.
		if Declared([]string{tt.in}) != tt.ok {
			t.Errorf("Declared([%q]) = %v, want %v", tt.in, !tt.ok, tt.ok)
		}
		if tt.ok && !IsWildcard(got) && !Matches(tt.in, got) {
			t.Errorf("Matches(%q, %q) = false, want true", tt.in, got)
		}
	}
}

func TestConcrete(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"Image/PNG", "image/png", true},
		{"text", "text/plain", true},
		{"image/*", "", false},
		{"*/*", "", false},
		{"file", "", false},
		{"banana", "", false},
	}
	for _, tt := range tests {
		if got, ok := Concrete(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("Concrete(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestMatches(t *testing.T) {
	tests := []struct {
		offered, wanted string
		want            bool
	}{
		{"application/pdf", "application/pdf", true},
		{"Application/PDF", "application/pdf", true},
		{"text/plain; charset=utf-8", "text/plain", true},
		{" text/plain ", "TEXT/PLAIN", true},
		{"image/*", "image/png", true},
		{"IMAGE/*", "image/png", true},
		{"image/*", "text/plain", false},
		{"image/*", "imagex/png", false},
		{"*/*", "application/pdf", true},
		{"*/*", "image/svg+xml", true},
		{"text", "text/plain", true},
		{"text", "text/csv", false},
		{"data", "application/json", true},
		{"file", "application/pdf", true},
		{"application/json", "text/plain", false},
		{"text/plain", "text/plain-x", false},
		// Not media types: ignored, match nothing.
		{"banana", "banana", false},
		{"*", "text/plain", false},
		{"*/png", "image/png", false},
		{"", "text/plain", false},
		{"a/b/c", "a/b/c", false},
		{"*/*", "banana", false},
		// Wanted wildcards are covered only by an equal or wider offer.
		{"image/*", "image/*", true},
		{"*/*", "image/*", true},
		{"image/png", "image/*", false},
		{"image/*", "*/*", false},
	}
	for _, tt := range tests {
		if got := Matches(tt.offered, tt.wanted); got != tt.want {
			t.Errorf("Matches(%q, %q) = %v, want %v", tt.offered, tt.wanted, got, tt.want)
		}
		if got := Covers([]string{"banana", tt.offered}, tt.wanted); got != tt.want {
			t.Errorf("Covers([banana %q], %q) = %v, want %v", tt.offered, tt.wanted, got, tt.want)
		}
	}
}

func TestDeclared(t *testing.T) {
	tests := []struct {
		modes []string
		want  bool
	}{
		{nil, false},
		{[]string{}, false},
		{[]string{"banana", "task-status"}, false},
		{[]string{"banana", "text"}, true},
		{[]string{"image/*"}, true},
	}
	for _, tt := range tests {
		if got := Declared(tt.modes); got != tt.want {
			t.Errorf("Declared(%q) = %v, want %v", tt.modes, got, tt.want)
		}
	}
}

func TestOfName(t *testing.T) {
	tests := []struct{ name, want string }{
		{"invoice.pdf", "application/pdf"},
		{"Invoice.PDF", "application/pdf"},
		{`C:\scans\page.TIFF`, "image/tiff"},
		{"archive.tar.gz", "application/gzip"},
		{"report.docx", Docx},
		{"dir.pdf/README", ""},
		{"README", ""},
		{"a.", ""},
		{"a.xyz", ""},
	}
	for _, tt := range tests {
		if got := OfName(tt.name); got != tt.want {
			t.Errorf("OfName(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	for _, ext := range []string{"pdf", ".pdf", "PDF"} {
		if got := OfExtension(ext); got != "application/pdf" {
			t.Errorf("OfExtension(%q) = %q", ext, got)
		}
	}
	// Every type in the table is itself a concrete media type, as stored.
	for ext, mt := range byExtension {
		if got, ok := Concrete(mt); !ok || got != mt {
			t.Errorf("byExtension[%q] = %q is not a normal concrete type", ext, mt)
		}
	}
}

// Matching runs for every skill of a large catalog: it must not allocate.
func TestMatchesDoesNotAllocate(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() {
		Matches(" Image/*; q=1", "image/PNG")
		Declared([]string{"text", "banana"})
	}); n != 0 {
		t.Errorf("%v allocations per run", n)
	}
}
