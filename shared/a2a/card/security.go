package card

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// Security requirements come in three JSON shapes, all meaning the same
// "OR of ANDs" list:
//
//	v1.0 spec (protojson):   [{"schemes": {"oauth": {"list": ["read"]}}}]
//	a2a-go SDK json.Marshal: [{"schemes": {"oauth": ["read"]}}]
//	v0.3:                    [{"oauth": ["read"]}]
//
// The SDK reads only the second; fed the third, it yields an empty
// requirement, which reads as "no scheme needed": open. Hence a local
// decoder that accepts all three and rejects anything else, because a
// misread requirement fails open.

// requirements decodes a requirement list. present is false for an absent
// field or JSON null. An empty list is present and yields nil: an empty
// list means "no requirement", i.e. open, exactly like an absent one, but a
// skill's present-and-empty list still replaces the card's requirements.
func requirements(raw json.RawMessage, path string) (reqs []Requirement, present bool, err error) {
	if isNull(raw) {
		return nil, false, nil
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, true, fmt.Errorf("%s: want a list of requirement objects", path)
	}
	for i, e := range entries {
		req, err := requirement(e, fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return nil, true, err
		}
		reqs = append(reqs, req)
	}
	return reqs, true, nil
}

func requirement(raw json.RawMessage, path string) (Requirement, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, fmt.Errorf("%s: want an object", path)
	}
	// {"schemes": {...}} is the v1.0 wrapper. A v0.3 scheme may itself be
	// called "schemes", but its value is then a list, never an object.
	// The SDK marshals a nil requirement map as {"schemes": null}.
	if s, ok := fields["schemes"]; ok && len(fields) == 1 && (isObject(s) || isNull(s)) {
		path += ".schemes"
		fields = nil
		if err := json.Unmarshal(s, &fields); err != nil {
			return nil, fmt.Errorf("%s: want an object", path)
		}
	}
	req := make(Requirement, len(fields))
	for name, v := range fields {
		p := fmt.Sprintf("%s.%s", path, name)
		if name == "" {
			return nil, fmt.Errorf("%s: empty scheme name", path)
		}
		scopes, err := scopeList(v, p)
		if err != nil {
			return nil, err
		}
		req[name] = scopes
	}
	return req, nil
}

// scopeList reads ["a"], {"list": ["a"]} or null (the SDK marshals a nil
// scope list as null). Scopes are compared verbatim with caller scopes, so
// only surrounding space is trimmed; empty entries are dropped.
func scopeList(raw json.RawMessage, path string) ([]string, error) {
	if isObject(raw) {
		var wrapped map[string]json.RawMessage
		if err := json.Unmarshal(raw, &wrapped); err != nil {
			return nil, fmt.Errorf("%s: want a list of scopes", path)
		}
		list, ok := wrapped["list"]
		if len(wrapped) > 1 || (!ok && len(wrapped) == 1) {
			return nil, fmt.Errorf("%s: want {\"list\": [scopes]}", path)
		}
		raw = list
	}
	var scopes []string
	if !isNull(raw) {
		if err := json.Unmarshal(raw, &scopes); err != nil {
			return nil, fmt.Errorf("%s: want a list of scopes", path)
		}
	}
	out := make([]string, 0, len(scopes))
	for _, s := range scopes {
		if s = cleanPlain(s); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// equalRequirements compares two lists as written (order matters: it is
// only used to notice a card whose v1.0 and v0.3 fields disagree).
func equalRequirements(a, b []Requirement) bool {
	return slices.EqualFunc(a, b, func(x, y Requirement) bool {
		if len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !slices.Equal(v, w) {
				return false
			}
		}
		return true
	})
}
