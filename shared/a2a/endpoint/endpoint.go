// Package endpoint is the one address policy for where skillmatch sends
// requests: the fetcher of agent cards (package discover) and the A2A
// request a delegation carries (package wire, checked first by the hard
// filter) refuse the same addresses, so that a card cannot point a
// delegation, with the caller's data in it, at an address its own fetch
// would have been refused.
//
// The policy: http and https only, no credentials in the URL, and no
// private, loopback, link-local, unspecified, multicast, carrier-grade NAT
// or reserved address unless private addresses are allowed. IPv4
// addresses embedded in IPv6 ones (IPv4-mapped ::ffff:0:0/96,
// IPv4-compatible ::/96, IPv4-translated ::ffff:0:0:0/96, NAT64
// 64:ff9b::/96, 6to4 2002::/16) are judged as the IPv4 address.
//
// CheckURL classifies literal addresses only and never resolves a name:
// it runs at decision time, where a lookup would be slow and would prove
// nothing (the name can resolve elsewhere when it is used). Whoever
// connects must check the resolved address again, as discover does at
// dial time.
package endpoint

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// ErrRefused is wrapped by every error of CheckURL: the URL may not be
// sent to (bad scheme, credentials, no host, or a refused address).
var ErrRefused = errors.New("endpoint refused")

// Error is a URL refused by CheckURL. Its message never repeats the URL's
// credentials.
type Error struct {
	URL    string // the URL, redacted
	Class  string // address class ("loopback", ...), "" for a URL problem
	Reason string // the sentence a user reads
}

func (e *Error) Error() string { return e.URL + ": " + e.Reason }

func (e *Error) Unwrap() error { return ErrRefused }

var (
	thisNet   = netip.MustParsePrefix("0.0.0.0/8")
	cgnat     = netip.MustParsePrefix("100.64.0.0/10")
	reserved  = netip.MustParsePrefix("240.0.0.0/4") // includes broadcast
	siteLocal = netip.MustParsePrefix("fec0::/10")
	compat    = netip.MustParsePrefix("::/96")           // IPv4-compatible (deprecated)
	xlated    = netip.MustParsePrefix("::ffff:0:0:0/96") // IPv4-translated (SIIT)
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
)

// AddrClass says why ip may not be connected to without allowing private
// addresses: "loopback", "private", "link-local", "unspecified",
// "multicast", "carrier-grade NAT", "reserved" or "invalid"; "" means it
// may be.
func AddrClass(ip netip.Addr) string {
	ip = ip.WithZone("").Unmap() // Unmap covers ::ffff:0:0/96
	switch {
	case !ip.IsValid():
		return "invalid"
	case ip.IsUnspecified() || thisNet.Contains(ip):
		return "unspecified"
	case ip.IsLoopback():
		return "loopback"
	case ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast():
		return "link-local"
	case ip.IsMulticast() || ip.IsInterfaceLocalMulticast():
		return "multicast"
	case ip.IsPrivate() || siteLocal.Contains(ip):
		return "private"
	case cgnat.Contains(ip):
		return "carrier-grade NAT"
	case reserved.Contains(ip):
		return "reserved"
	case compat.Contains(ip), xlated.Contains(ip), nat64.Contains(ip):
		// ::127.0.0.1 and friends reach the IPv4 address on stacks that
		// still honour them; :: and ::1 were caught above.
		b := ip.As16()
		return AddrClass(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
	case sixToFour.Contains(ip):
		b := ip.As16()
		return AddrClass(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
	}
	return ""
}

// HostClass classifies a URL's host without resolving it: a literal IP
// address (IPv6 with or without brackets or zone, IPv4 also in the
// shorthand, octal, hex and integer forms that inet_aton and therefore
// some resolvers accept), and "localhost" and names under it, which
// resolve to loopback by definition (RFC 6761). Any other name is "".
func HostClass(host string) string {
	h := strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if h == "" {
		return "invalid"
	}
	if ip, err := netip.ParseAddr(h); err == nil {
		return AddrClass(ip)
	}
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return "loopback"
	}
	if ip, ok := parseInetAton(h); ok {
		return AddrClass(ip)
	}
	return ""
}

// parseInetAton reads the IPv4 forms inet_aton accepts beyond the dotted
// quad: 1 to 4 parts, each decimal, octal (leading 0) or hex (0x), the
// last filling the remaining bytes ("127.1", "0x7f000001", "2130706433").
// A name made only of such parts is an address to a resolver, so it is
// judged as one.
func parseInetAton(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		base, digits := 10, p
		switch {
		case len(p) > 2 && (p[:2] == "0x"):
			base, digits = 16, p[2:]
		case p == "0x":
			base, digits = 16, "0"
		case len(p) > 1 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		v, err := strconv.ParseUint(digits, base, 32)
		if err != nil || p == "" {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var n uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 0xff {
			return netip.Addr{}, false
		}
		n |= v << (24 - 8*uint(i))
	}
	last := vals[len(vals)-1]
	if last >= 1<<(32-8*uint(len(vals)-1)) {
		return netip.Addr{}, false
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

// CheckURL returns nil when a request may be sent to raw: an absolute
// http or https URL with a host and no credentials, whose host is not a
// refused address (HostClass), unless allowPrivate. The error wraps
// ErrRefused and is an *Error.
func CheckURL(raw string, allowPrivate bool) error {
	if plainName(raw) {
		return nil // the common case, without parsing or allocating
	}
	return checkParsed(raw, allowPrivate)
}

// plainName reports, without allocating, whether raw is "http://" or
// "https://" followed by a host name that cannot be an address: only
// [a-z0-9.-], a letter no IPv4 or IPv6 form uses (g-w, y, z), not
// localhost, and then nothing or "/", "?", "#" and no control characters
// or spaces. Anything else takes the full parse, so this only ever
// accepts what checkParsed accepts (TestPlainNameAgrees).
func plainName(raw string) bool {
	rest, ok := strings.CutPrefix(raw, "https://")
	if !ok {
		if rest, ok = strings.CutPrefix(raw, "http://"); !ok {
			return false
		}
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	host := rest[:end]
	name := false
	for i := 0; i < len(host); i++ {
		switch c := host[i]; {
		case c >= 'g' && c <= 'z' && c != 'x':
			name = true
		case c >= 'a' && c <= 'f', c == 'x', c >= '0' && c <= '9', c == '.', c == '-':
		default:
			return false
		}
	}
	h := strings.TrimSuffix(host, ".")
	if !name || h == "localhost" || strings.HasSuffix(h, ".localhost") || strings.HasPrefix(h, ".") {
		return false
	}
	for i := end; i < len(rest); i++ {
		if rest[i] <= ' ' || rest[i] == 0x7f || rest[i] == '%' {
			return false
		}
	}
	return true
}

func checkParsed(raw string, allowPrivate bool) error {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return &Error{URL: "URL", Reason: "not a URL"}
	}
	shown := u.Redacted()
	if len(shown) > 200 {
		shown = shown[:200] + "…"
	}
	refuse := func(class, format string, args ...any) error {
		return &Error{URL: shown, Class: class, Reason: fmt.Sprintf(format, args...)}
	}
	switch s := strings.ToLower(u.Scheme); {
	case s == "":
		return refuse("", "no scheme: want http or https")
	case s != "http" && s != "https":
		return refuse("", "scheme %q not allowed: want http or https", s)
	}
	if u.User != nil {
		return refuse("", "credentials in the URL are refused")
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return refuse("", "no host")
	}
	if allowPrivate {
		return nil
	}
	if class := HostClass(u.Hostname()); class != "" {
		return refuse(class, "%s address; private addresses must be allowed for the agent (allowPrivate)", class)
	}
	return nil
}

// CheckInterface checks a card interface's URL for its protocol binding:
// a gRPC target is host:port (no scheme), whose host must pass the same
// address policy; every other binding takes CheckURL.
func CheckInterface(binding, raw string, allowPrivate bool) error {
	if !strings.EqualFold(binding, "GRPC") || strings.Contains(raw, "://") {
		return CheckURL(raw, allowPrivate)
	}
	host, _, err := net.SplitHostPort(strings.TrimSpace(raw))
	if err != nil || host == "" {
		return &Error{URL: raw, Reason: "gRPC target is not host:port"}
	}
	if allowPrivate {
		return nil
	}
	if class := HostClass(host); class != "" {
		return &Error{URL: raw, Class: class, Reason: fmt.Sprintf("%s address; private addresses must be allowed for the agent (allowPrivate)", class)}
	}
	return nil
}
