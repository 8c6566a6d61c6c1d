package discover

import (
	"errors"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
)

func FuzzNormalizeURL(f *testing.F) {
	for _, s := range []string{
		"https://agent.example.com", "http://127.0.0.1:8080/a/.well-known/agent.json", "http://[::1]:9000/",
		"https://u:p@x", "ftp://x", "HTTPS://A.EXAMPLE:443/b/", "http://[fe80::1%25eth0]:80/", "http://x/%41",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := NormalizeURL(raw)
		if err != nil {
			if !errors.Is(err, ErrBadURL) {
				t.Fatalf("error %v does not wrap ErrBadURL", err)
			}
			return
		}
		if u.User != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
			t.Fatalf("NormalizeURL(%q) = %q", raw, u)
		}
		again, err := NormalizeURL(u.String())
		if err != nil || again.String() != u.String() {
			t.Fatalf("not idempotent: %q -> %q -> %v, %v", raw, u, again, err)
		}
		if id, err := DeriveID(u); err == nil && !card.ValidID(id) {
			t.Fatalf("DeriveID(%q) = invalid %q", u, id)
		}
	})
}

func FuzzParseRegistry(f *testing.F) {
	f.Add(`{"agents": [{"url": "https://a.example", "id": "a", "allowPrivate": true}]}`)
	f.Add(`{"agents": [{"url": "https://a.example"}, {"url": "https://A.example/"}]}`)
	f.Add(`{"agents": null}`)
	f.Fuzz(func(t *testing.T, data string) {
		r, err := ParseRegistry([]byte(data))
		if err != nil {
			if !errors.Is(err, ErrRegistry) || strings.TrimSpace(err.Error()) == "" {
				t.Fatalf("unclear error %v", err)
			}
			return
		}
		for _, a := range r.Agents {
			if _, err := resolveAgent(a); err != nil {
				t.Fatalf("accepted agent %+v fails: %v", a, err)
			}
		}
	})
}
