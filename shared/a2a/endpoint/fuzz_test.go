package endpoint

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

// Card interface URLs are untrusted: whatever a card says, CheckURL's fast
// path never accepts what the full parse refuses, a URL it accepts names
// no refused address, and a refusal is always an *Error wrapping
// ErrRefused.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{
		"https://agents.example.com/a2a", "http://127.0.0.1/", "https://0x7f.1/", "http://[::ffff:127.0.0.1]/",
		"https://localhost./x", "https://2130706433/", "https://u@example.com/", "https://exa%6dple.com/",
		"grpc.example.com:443", "http://[fe80::1%25eth0]:80/", "https://example.com/%00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if plainName(raw) && checkParsed(raw, false) != nil {
			t.Fatalf("plainName(%q) accepts what checkParsed refuses: %v", raw, checkParsed(raw, false))
		}
		err := CheckURL(raw, false)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrRefused) {
				t.Fatalf("CheckURL(%q) = %v: not an *Error wrapping ErrRefused", raw, err)
			}
			return
		}
		u, perr := url.Parse(strings.TrimSpace(raw))
		if perr != nil {
			t.Fatalf("CheckURL(%q) accepted what url.Parse refuses: %v", raw, perr)
		}
		if c := HostClass(u.Hostname()); c != "" {
			t.Fatalf("CheckURL(%q) accepted a %s host %q", raw, c, u.Hostname())
		}
		for _, b := range []string{"GRPC", "JSONRPC"} {
			_ = CheckInterface(b, raw, false)
		}
	})
}
