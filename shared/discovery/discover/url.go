package discover

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
)

// Paths, relative to an agent's base URL (the extended card path is
// relative to its HTTP+JSON interface URL).
const (
	WellKnownPath       = "/.well-known/agent-card.json"
	LegacyWellKnownPath = "/.well-known/agent.json"
	ExtendedCardPath    = "/extendedAgentCard"
)

const maxURLLen = 2048

// ErrBadURL is wrapped by every error about an agent URL itself: a scheme
// other than http(s), credentials in it, no host, a query.
var ErrBadURL = errors.New("bad agent URL")

// NormalizeURL checks an agent's base URL and returns it in the form used
// as the agent's key: scheme and host lower-cased, the scheme's default
// port dropped, no trailing slash, no fragment. A URL that names the card
// itself (ending in one of the well-known paths) is cut back to its base.
// Errors never repeat credentials found in the URL.
func NormalizeURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, fmt.Errorf("%w: empty", ErrBadURL)
	}
	if len(raw) > maxURLLen {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrBadURL, maxURLLen)
	}
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error would quote the URL, credentials included.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("%w: %v", ErrBadURL, err)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%w: credentials in the URL (user:password@) are refused; configure them per agent instead", ErrBadURL)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		if u.Scheme == "" {
			return nil, fmt.Errorf("%w: %q has no scheme: want http:// or https://", ErrBadURL, raw)
		}
		return nil, fmt.Errorf("%w: scheme %q not allowed: want http or https", ErrBadURL, u.Scheme)
	}
	if u.Opaque != "" || u.Host == "" || u.Hostname() == "" {
		return nil, fmt.Errorf("%w: %q has no host", ErrBadURL, raw)
	}
	if u.RawQuery != "" || u.ForceQuery {
		return nil, fmt.Errorf("%w: %q has a query; give the agent's base URL", ErrBadURL, raw)
	}
	if !utf8.ValidString(u.Hostname()) {
		// strings.ToLower would turn each bad byte into U+FFFD: another
		// host than the one given.
		return nil, fmt.Errorf("%w: host is not valid UTF-8", ErrBadURL)
	}
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("%w: port %q out of range", ErrBadURL, port)
		}
		if port == defaultPort(u.Scheme) {
			port = ""
		}
	}
	u.Host = hostPort(host, port)
	u.Fragment, u.RawFragment = "", ""
	p := strings.TrimRight(u.Path, "/")
	for cut := true; cut; {
		cut = false
		for _, suffix := range []string{WellKnownPath, LegacyWellKnownPath} {
			if strings.HasSuffix(p, suffix) {
				p, cut = strings.TrimRight(strings.TrimSuffix(p, suffix), "/"), true
			}
		}
	}
	u.Path, u.RawPath = p, ""
	if n := len(u.String()); n > maxURLLen {
		// A non-ASCII host is percent-encoded in the URL's text, and
		// lowering can lengthen it: the key must read back as itself.
		return nil, fmt.Errorf("%w: longer than %d bytes once normalized (%d)", ErrBadURL, maxURLLen, n)
	}
	return u, nil
}

func defaultPort(scheme string) string {
	if scheme == "https" {
		return "443"
	}
	return "80"
}

func hostPort(host, port string) string {
	if port == "" {
		if strings.Contains(host, ":") {
			return "[" + host + "]"
		}
		return host
	}
	return net.JoinHostPort(host, port)
}

// origin is scheme, host and effective port: what redirects and extended
// card requests must stay on.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = defaultPort(strings.ToLower(u.Scheme))
	}
	return strings.ToLower(u.Scheme) + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// DeriveID makes a catalog id from a base URL: host, then port, then path
// segments, joined with '-', with every character outside [a-z0-9._-]
// replaced by '-'. https://Agents.Example.com:8443/billing becomes
// "agents.example.com-8443-billing".
func DeriveID(base *url.URL) (string, error) {
	parts := []string{strings.ToLower(base.Hostname())}
	if p := base.Port(); p != "" {
		parts = append(parts, p)
	}
	for _, seg := range strings.Split(base.Path, "/") {
		if seg != "" {
			parts = append(parts, strings.ToLower(seg))
		}
	}
	var b strings.Builder
	for _, r := range strings.Join(parts, "-") {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	id := b.String()
	if len(id) > 128 {
		id = id[:128]
	}
	id = strings.Trim(id, "-")
	if !card.ValidID(id) {
		return "", fmt.Errorf("%w: cannot derive an id from %q; give one", ErrBadURL, base.String())
	}
	return id, nil
}
