package wire

import (
	"bytes"
	"encoding/json"
	"strings"
)

// StringsAt reads the string values at the given key paths ("taskId",
// "task.caller.id") of a JSON object, best effort: it walks the document's
// tokens instead of decoding it, so a payload nested deeper than the JSON
// decoder allows (say, to hide whose task it is from its dead letter)
// still yields its ids. A path that is absent, or not a string, is left
// out; the first value of a path repeated in the document wins.
func StringsAt(data []byte, paths ...string) map[string]string {
	want := make(map[string]bool, len(paths))
	for _, p := range paths {
		want[p] = true
	}
	out := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	// frames: one per open object or array; key is the object key whose
	// value is being read ("" in arrays, whose elements are never wanted).
	type frame struct {
		object bool
		key    string
		keyed  bool // the next string in this object is a value, not a key
	}
	var stack []frame
	path := func(last string) string {
		var parts []string
		for _, f := range stack {
			if !f.object {
				return "" // inside an array: no path names it
			}
			parts = append(parts, f.key)
		}
		parts[len(parts)-1] = last
		return strings.Join(parts, ".")
	}
	for len(out) < len(want) {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		top := len(stack) - 1
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if top >= 0 && stack[top].object {
					stack[top].keyed = false // the value is this container
				}
				stack = append(stack, frame{object: t == '{'})
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			if top < 0 {
				return out
			}
			f := &stack[top]
			if f.object && !f.keyed {
				f.key, f.keyed = t, true
				continue
			}
			if f.object {
				if p := path(f.key); p != "" && want[p] {
					if _, seen := out[p]; !seen {
						out[p] = t
					}
				}
				f.keyed = false
			}
		default:
			if top >= 0 && stack[top].object {
				stack[top].keyed = false
			}
		}
	}
	return out
}
