package discover

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"

	"github.com/skillmatch/skillmatch/shared/a2a/endpoint"
)

// ErrAddressRefused is wrapped by the error for a connection refused
// because of where it would go (see AddrError).
var ErrAddressRefused = errors.New("address refused")

// AddrError is a connection refused by the address check.
type AddrError struct {
	Host  string         // the name asked for ("" when the URL held an IP)
	Addr  netip.AddrPort // the address it would have connected to
	Class string         // "loopback", "private", ...
}

func (e *AddrError) Error() string {
	name := ""
	if e.Host != "" && e.Host != e.Addr.Addr().String() {
		name = fmt.Sprintf(" (%s)", e.Host)
	}
	return fmt.Sprintf("refusing to connect to %s%s: %s address; private addresses must be allowed explicitly (--allow-private)",
		e.Addr, name, e.Class)
}

func (e *AddrError) Unwrap() error { return ErrAddressRefused }

// AddrClass says why ip may not be connected to without allowing private
// addresses ("" means it may be). It is endpoint.AddrClass, the one
// policy shared with the delegation check, kept here for callers of this
// package.
func AddrClass(ip netip.Addr) string { return endpoint.AddrClass(ip) }

// Resolver looks up a host's addresses. *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// DialFunc opens a connection to an address that has already been
// checked: always a literal "ip:port".
type DialFunc func(ctx context.Context, network, address string) (net.Conn, error)

// guard resolves names itself and connects only to addresses that pass
// the check, so the address checked is the address used.
type guard struct {
	resolver       Resolver
	dial           DialFunc // nil: a net.Dialer that checks again in Control
	allowPrivate   bool
	connectTimeout time.Duration
}

func (g *guard) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	var ips []netip.Addr
	name := host
	if ip, err := netip.ParseAddr(host); err == nil {
		ips, name = []netip.Addr{ip}, ""
	} else {
		lctx, cancel := context.WithTimeout(ctx, g.connectTimeout)
		ips, err = g.resolver.LookupNetIP(lctx, "ip", host)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("resolve %s: %w", host, err)
		}
		if len(ips) == 0 {
			return nil, fmt.Errorf("resolve %s: no addresses", host)
		}
	}
	pn, err := parsePort(port)
	if err != nil {
		return nil, err
	}
	var refused, dialErr error
	for _, ip := range ips {
		ap := netip.AddrPortFrom(ip.Unmap(), pn)
		if !g.allowPrivate {
			if class := endpoint.AddrClass(ip); class != "" {
				if refused == nil {
					refused = &AddrError{Host: name, Addr: ap, Class: class}
				}
				continue
			}
		}
		cctx, cancel := context.WithTimeout(ctx, g.connectTimeout)
		conn, err := g.dialer()(cctx, network, ap.String())
		cancel()
		if err == nil {
			return conn, nil
		}
		if dialErr == nil {
			dialErr = err
		}
	}
	if dialErr != nil {
		return nil, dialErr
	}
	return nil, refused
}

func (g *guard) dialer() DialFunc {
	if g.dial != nil {
		return g.dial
	}
	d := &net.Dialer{Timeout: g.connectTimeout}
	if !g.allowPrivate {
		// Belt and braces: check the socket's own address too.
		d.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return err
			}
			if class := endpoint.AddrClass(ap.Addr()); class != "" {
				return &AddrError{Addr: ap, Class: class}
			}
			return nil
		}
	}
	return d.DialContext
}

func parsePort(s string) (uint16, error) {
	var n uint32
	if s == "" || len(s) > 5 {
		return 0, fmt.Errorf("bad port %q", s)
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("bad port %q", s)
		}
		n = n*10 + uint32(c-'0')
	}
	if n == 0 || n > 65535 {
		return 0, fmt.Errorf("bad port %q", s)
	}
	return uint16(n), nil
}
