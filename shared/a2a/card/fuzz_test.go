package card

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/skillmatch/skillmatch/shared/a2a/mediatype"
)

// FuzzParse feeds arbitrary bytes to Parse. Whatever the input: no panic;
// an error is non-empty, wraps a sentinel and comes without a card; a card
// respects every limit and holds only clean text; and memory stays within
// a small multiple of the input (the input itself is capped).
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	if data, err := json.Marshal(sdkCard()); err == nil {
		f.Add(data)
	}
	for _, s := range []string{
		``, `null`, `{}`, `[]`, `"card"`, `{"name": "A", "skills": [{"id": "a", "name": "B"}]}`,
		`{"name": "A", "skills": [{"id": "a/b", "name": "B"}, {"id": "a/b"}]}`,
		`{"name": "<b>A</b>", "security": [{"x": ["y"]}], "skills": [{"id": "a", "name": "\u202eB", "inputModes": ["text", "?"]}]}`,
		`{"name": "A", "securityRequirements": [{"schemes": {"o": {"list": ["s"]}}}], "skills": [{"id": "a", "name": "B", "securityRequirements": []}]}`,
	} {
		f.Add([]byte(s))
	}

	lim := Limits{MaxBytes: 64 << 10, MaxName: 20, MaxAgentDescription: 50, MaxDescription: 40,
		MaxTag: 8, MaxTags: 3, MaxExample: 30, MaxExamples: 2, MaxSkills: 4}
	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		c, err := ParseWith("fuzz", data, WithLimits(lim))
		runtime.ReadMemStats(&after)
		// Generous: JSON decoding of maps and RawMessage copies costs a
		// few times the input; anything quadratic blows far past this.
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64*uint64(len(data))+1<<20 {
			t.Errorf("%d bytes allocated for %d bytes of input", alloc, len(data))
		}
		if err != nil {
			if c != nil {
				t.Error("card returned with an error")
			}
			if err.Error() == "" {
				t.Error("empty error message")
			}
			if !errors.Is(err, ErrInvalidCard) && !errors.Is(err, ErrTooLarge) {
				t.Errorf("error wraps no sentinel: %v", err)
			}
			if !strings.Contains(err.Error(), `"fuzz"`) {
				t.Errorf("error does not name the card: %v", err)
			}
			return
		}
		checkCard(t, c, lim)
	})
}

func checkCard(t *testing.T, c *Card, lim Limits) {
	t.Helper()
	text := func(field, s string, max int, required bool) {
		if required && s == "" {
			t.Errorf("%s empty", field)
		}
		if n := utf8.RuneCountInString(s); n > max {
			t.Errorf("%s: %d runes, limit %d", field, n, max)
		}
		checkClean(t, s)
	}
	if c.ID != "fuzz" {
		t.Errorf("id %q", c.ID)
	}
	text("name", c.Name, lim.MaxName, true)
	text("description", c.Description, lim.MaxAgentDescription, false)
	if len(c.Skills) == 0 || len(c.Skills) > lim.MaxSkills {
		t.Errorf("%d skills", len(c.Skills))
	}
	for _, m := range append(c.DefaultInputModes, c.DefaultOutputModes...) {
		if got, ok := mediatype.Normalize(m); !ok || got != m {
			t.Errorf("mode %q not normal", m)
		}
	}
	seen := map[string]bool{}
	for _, s := range c.Skills {
		if s.ID == "" || strings.Contains(s.ID, "/") || seen[s.ID] {
			t.Errorf("skill id %q", s.ID)
		}
		seen[s.ID] = true
		text("skill name", s.Name, lim.MaxName, true)
		text("skill description", s.Description, lim.MaxDescription, false)
		if len(s.Tags) > lim.MaxTags || len(s.Examples) > lim.MaxExamples {
			t.Errorf("%d tags, %d examples", len(s.Tags), len(s.Examples))
		}
		lower := map[string]bool{}
		for _, tag := range s.Tags {
			text("tag", tag, lim.MaxTag, true)
			if lower[strings.ToLower(tag)] {
				t.Errorf("duplicate tag %q", tag)
			}
			lower[strings.ToLower(tag)] = true
		}
		for _, ex := range s.Examples {
			text("example", ex, lim.MaxExample, true)
		}
		for _, m := range append(append([]string{}, s.InputModes...), s.OutputModes...) {
			if got, ok := mediatype.Normalize(m); !ok || got != m {
				t.Errorf("mode %q not normal", m)
			}
		}
		if !s.HasSecurity && s.Security != nil {
			t.Error("skill security without HasSecurity")
		}
	}
}

// FuzzClean checks the sanitiser alone, where the fuzzer reaches odd markup
// faster than through JSON.
func FuzzClean(f *testing.F) {
	for _, s := range []string{
		"<script>x</script>ok", "<<b>a>", "**b** _i_ `c` [l](u)", "# h\n> q\n- l",
		"&lt;b&gt;", "a\u200bb\u202e", "<a title=\"x>y\">t</a>", "<!-- c", "<![CDATA[x]]>",
		"<https://x.test>", "x<y and y>z", "*/* image/* 5*3 snake_case",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, info := clean(s)
		checkClean(t, out)
		if len(out) > 3*len(s)+8 {
			t.Errorf("grew from %d to %d bytes", len(s), len(out))
		}
		if out == "" && info.invisible == 0 && !info.markup && strings.TrimSpace(s) != "" && utf8.ValidString(s) && !strings.ContainsRune(s, '&') {
			t.Errorf("%q cleaned to nothing without a reason", s)
		}
	})
}
