package discover

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"time"

	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
)

// Defaults.
const (
	DefaultMaxBytes       = 512 << 10
	DefaultConnectTimeout = 3 * time.Second
	DefaultTimeout        = 10 * time.Second
	DefaultMaxRedirects   = 3
	DefaultMaxAge         = 24 * time.Hour
	DefaultUserAgent      = "skillmatch-discover/1"
)

// Option configures a Fetcher.
type Option func(*config)

type config struct {
	allowPrivate   bool
	maxBytes       int64
	connectTimeout time.Duration
	timeout        time.Duration
	maxRedirects   int
	maxAge         time.Duration
	resolver       Resolver
	dial           DialFunc
	tls            *tls.Config
	now            func() time.Time
	creds          map[string]Credentials
	limits         card.Limits
	userAgent      string
	log            *zap.Logger
}

func newConfig(opts []Option) config {
	c := config{
		maxBytes:       DefaultMaxBytes,
		connectTimeout: DefaultConnectTimeout,
		timeout:        DefaultTimeout,
		maxRedirects:   DefaultMaxRedirects,
		maxAge:         DefaultMaxAge,
		resolver:       net.DefaultResolver,
		now:            time.Now,
		userAgent:      DefaultUserAgent,
		log:            zap.NewNop(),
	}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithAllowPrivate allows (true) or refuses (false, the default)
// connections to private, loopback, link-local and similar addresses for
// every agent. Agent.AllowPrivate allows them for one agent.
func WithAllowPrivate(allow bool) Option { return func(c *config) { c.allowPrivate = allow } }

// WithMaxBytes caps a response body (default 512 KiB). n <= 0 keeps the
// default.
func WithMaxBytes(n int64) Option {
	return func(c *config) {
		if n > 0 {
			c.maxBytes = n
		}
	}
}

// WithConnectTimeout bounds name resolution and each connection attempt
// (default 3 s).
func WithConnectTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.connectTimeout = d
		}
	}
}

// WithTimeout bounds one Fetch from start to the last byte, fallback and
// extended card included (default 10 s).
func WithTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.timeout = d
		}
	}
}

// WithMaxRedirects sets how many same-host redirects are followed
// (default 3; 0 follows none).
func WithMaxRedirects(n int) Option {
	return func(c *config) {
		if n >= 0 {
			c.maxRedirects = n
		}
	}
}

// WithMaxAge caps how long a Cache-Control max-age may keep a card from
// being refetched (default 24 h), so a vanished agent is noticed.
func WithMaxAge(d time.Duration) Option {
	return func(c *config) {
		if d >= 0 {
			c.maxAge = d
		}
	}
}

// WithResolver replaces the resolver used for host names (tests).
func WithResolver(r Resolver) Option {
	return func(c *config) {
		if r != nil {
			c.resolver = r
		}
	}
}

// WithDialer replaces the function that connects to an address that has
// passed the check (tests). The address check still runs before it.
func WithDialer(d DialFunc) Option { return func(c *config) { c.dial = d } }

// WithTLSConfig sets the TLS client configuration (e.g. extra roots).
func WithTLSConfig(t *tls.Config) Option { return func(c *config) { c.tls = t } }

// WithClock replaces time.Now: for cache expiry here and for the failure
// grace period of a Tracker built on this Fetcher.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.now = now
		}
	}
}

// Credentials authenticate the extended card request of one agent. They
// are sent only to the agent's own origin and never logged.
type Credentials struct {
	// Bearer is sent as "Authorization: Bearer <token>".
	Bearer string `json:"bearer,omitempty"`
	// Header holds further headers (e.g. an API key header).
	Header map[string]string `json:"header,omitempty"`
}

func (c Credentials) empty() bool { return c.Bearer == "" && len(c.Header) == 0 }

// WithCredentials sets extended card credentials per agent base URL (as
// given to NormalizeURL; keys that do not normalise are ignored). Later
// calls add to earlier ones.
func WithCredentials(byURL map[string]Credentials) Option {
	return func(c *config) {
		if c.creds == nil {
			c.creds = make(map[string]Credentials, len(byURL))
		}
		for raw, cr := range byURL {
			if u, err := NormalizeURL(raw); err == nil && !cr.empty() {
				c.creds[u.String()] = cr
			}
		}
	}
}

// WithCardLimits sets the card limits used when parsing; MaxBytes is
// always the Fetcher's response cap.
func WithCardLimits(l card.Limits) Option { return func(c *config) { c.limits = l } }

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option {
	return func(c *config) {
		if ua != "" {
			c.userAgent = ua
		}
	}
}

// WithLogger sets the logger (default: none).
func WithLogger(l *zap.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.log = l
		}
	}
}

// LoadCredentials reads extended card credentials from a JSON file that
// maps agent base URLs to credentials:
//
//	{"https://agent.example.com": {"bearer": "TOKEN"},
//	 "https://other.example.com": {"header": {"X-Api-Key": "KEY"}}}
//
// A URL that does not normalise is an error naming it. The file holds
// secrets: keep it readable by the service only.
func LoadCredentials(path string) (map[string]Credentials, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("discover: credentials: %w", err)
	}
	var byURL map[string]Credentials
	if err := json.Unmarshal(data, &byURL); err != nil {
		return nil, fmt.Errorf("discover: credentials %s: %w", path, err)
	}
	for raw, cr := range byURL {
		if _, err := NormalizeURL(raw); err != nil {
			return nil, fmt.Errorf("discover: credentials %s: %q: %w", path, raw, err)
		}
		if cr.empty() {
			return nil, fmt.Errorf("discover: credentials %s: %q: neither bearer nor header", path, raw)
		}
	}
	return byURL, nil
}
