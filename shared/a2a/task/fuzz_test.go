package task

import (
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
)

// fuzzLimits are small so that the fuzzer reaches every limit quickly.
var fuzzLimits = Limits{MaxBytes: 8 << 10, MaxText: 1 << 10, MaxParts: 8, MaxHistory: 4, MaxScopes: 8, MaxTypes: 4, MaxField: 32, MaxFileBytes: 64}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"id":"t-1","message":{"parts":[{"text":"summarise this"}]}}`,
		`{"id":"t-1","message":{"role":"user","parts":[{"kind":"file","file":{"name":"a.pdf","mimeType":"application/pdf"}},{"text":"x"}]},"caller":{"scopes":[],"dataClass":"public"}}`,
		`{"id":"a:b","message":{"parts":[{"url":"https://x","mediaType":"image/png"},{"data":{"a":[1,2]}}]},"history":[{"parts":[{"text":"earlier"}]}],"constraints":{"acceptedOutputTypes":["text/csv"],"streaming":true}}`,
		`{"id":"x","message":{"parts":[{"kind":"data","text":"a"}]}}`,
		`{"id":"f-2","message":{"taskId":"f-1","metadata":{"k":[1]},"parts":[{"text":"and again"}]},"constraints":{"skillId":"a-b/c.d"}}`,
		`{"id":"f-3","message":{"taskId":"f 1","metadata":[],"parts":[{"text":"x"}]},"constraints":{"skillId":"A/b"}}`,
		`{"id":"b-1","message":{"parts":[{"text":"x"},{"raw":"YWJj","filename":"a.txt"},{"file":{"name":"b","mediaType":"text/csv","fileWithBytes":"-_8"}}]}}`,
		`{"id":"b-2","message":{"parts":[{"text":"x"},{"raw":"","mediaType":"image/png"},{"file":{"name":"c","uri":"https://x","bytes":"YQ=="}}]}}`,
		`[]`, `null`, `{"id":1}`, `{"id":"t","message":{"parts":[null]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got, err := Parse(data, WithLimits(fuzzLimits))
		runtime.ReadMemStats(&after)

		// Decoding is bounded by the payload cap, which is checked first:
		// allow a generous factor over the (capped) input size.
		n := min(len(data), fuzzLimits.MaxBytes+1)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(16*n+256<<10) {
			t.Errorf("Parse of %d bytes allocated %d bytes", len(data), alloc)
		}
		if len(data) > fuzzLimits.MaxBytes && !errors.Is(err, ErrTooLarge) {
			t.Errorf("Parse of %d bytes: err = %v, want ErrTooLarge", len(data), err)
		}

		if err != nil {
			if got != nil {
				t.Error("Parse returned a task and an error")
			}
			if err.Error() == "" || strings.HasSuffix(err.Error(), ": ") {
				t.Errorf("empty error message: %q", err.Error())
			}
			if !errors.Is(err, ErrInvalidTask) {
				t.Errorf("error %v does not wrap ErrInvalidTask", err)
			}
			return
		}

		if !validID(got.ID) {
			t.Errorf("accepted invalid id %q", got.ID)
		}
		if !hasContent(got.Message.Parts) {
			t.Error("accepted a message without text or file")
		}
		// What Parse accepts, it accepts again after writing it out.
		out, err := json.Marshal(got)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		big := fuzzLimits
		big.MaxBytes = 8 * len(out)
		back, err := Parse(out, WithLimits(big))
		if err != nil {
			t.Fatalf("re-Parse of %s: %v", out, err)
		}
		if (back.Caller.Scopes == nil) != (got.Caller.Scopes == nil) {
			t.Error("nil versus empty scopes lost in a round trip")
		}
	})
}

// TestParseAllocBounded feeds payloads at the default size cap that are
// built to make a decoder allocate: many tiny parts, scopes and turns, deep
// nesting. Parse must stay within a small factor of the payload: lists are counted
// before they are decoded.
func TestParseAllocBounded(t *testing.T) {
	fill := func(prefix, unit, suffix string) []byte {
		n := (DefaultLimits.MaxBytes - len(prefix) - len(suffix)) / len(unit)
		return []byte(prefix + strings.TrimSuffix(strings.Repeat(unit, n), ",") + suffix)
	}
	inputs := map[string][]byte{
		"tiny parts":   fill(`{"id":"t","message":{"parts":[`, `1,`, `]}}`),
		"text parts":   fill(`{"id":"t","message":{"parts":[`, `{"text":""},`, `]}}`),
		"scopes":       fill(`{"id":"t","message":{"parts":[{"text":"a"}]},"caller":{"scopes":[`, `"",`, `]}}`),
		"history":      fill(`{"id":"t","message":{"parts":[{"text":"a"}]},"history":[`, `{},`, `]}`),
		"deep data":    fill(`{"id":"t","message":{"parts":[{"text":"a"},{"data":`, `[`, ``),
		"data members": fill(`{"id":"t","message":{"parts":[{"text":"a"},{"data":{`, `"a":1,`, `}}]}}`),
	}
	for name, data := range inputs {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Parse(data)
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%-12s %d bytes in, %d bytes allocated (%.1fx): %v", name, len(data), alloc, float64(alloc)/float64(len(data)), err)
		if alloc > uint64(8*len(data)) {
			t.Errorf("%s: %d bytes allocated for %d bytes of input", name, alloc, len(data))
		}
	}
}
