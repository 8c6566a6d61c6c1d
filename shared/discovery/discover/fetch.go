package discover

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
)

// Errors a fetch can wrap besides ErrBadURL, ErrAddressRefused and the
// card package's ErrInvalidCard.
var (
	ErrTooLarge = errors.New("response too large")
	ErrTimeout  = errors.New("timed out")
	ErrRedirect = errors.New("redirect refused")
	ErrStatus   = errors.New("unexpected HTTP status")
)

// Agent is one agent to fetch.
type Agent struct {
	// URL is the agent's base URL; the card is under /.well-known/.
	URL string `json:"url"`
	// ID is the agent's catalog id; empty derives it from the URL.
	ID string `json:"id,omitempty"`
	// AllowPrivate allows private and loopback addresses for this agent.
	AllowPrivate bool `json:"allowPrivate,omitempty"`
}

// Cached is what an earlier fetch left to revalidate against.
type Cached struct {
	Card     *card.Card
	Source   string    // the URL the card was read from
	ETag     string    // "" when none, or the response said no-store
	Expires  time.Time // no request before this; zero: revalidate
	Extended bool      // Card is the authenticated extended card
}

// Fetched is the outcome of a successful Fetch.
type Fetched struct {
	Cached
	ID string
	// Hash is the hex sha256 of the card's canonical JSON (see Hash).
	Hash string
	// NotModified: the card is the cached one, revalidated by a 304 or
	// still fresh.
	NotModified bool
	// Fresh: no request was made, the cached card had not expired.
	Fresh bool
	// Legacy: the card came from the legacy /.well-known/agent.json.
	Legacy bool
	// Raw is the card's JSON as the agent served it (the extended card's
	// when Extended); nil when NotModified. card.ParseFile reads it back.
	Raw []byte
	// ExtendedErr says why an extended card that was wanted (the card
	// advertises one and credentials are configured) is not used.
	ExtendedErr error
}

// Hash returns the hex sha256 of the card's canonical JSON: the
// normalised card as encoding/json writes it, fields in a fixed order.
// It covers exactly what is indexed, so equal hashes need no re-indexing.
func Hash(c *card.Card) string {
	b, err := json.Marshal(c)
	if err != nil { // a Card always marshals
		panic(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Fetcher fetches agent cards. It is safe for concurrent use.
type Fetcher struct {
	cfg     config
	mu      sync.Mutex
	clients map[bool]*http.Client // by allowPrivate
}

// NewFetcher returns a Fetcher.
func NewFetcher(opts ...Option) *Fetcher {
	return &Fetcher{cfg: newConfig(opts), clients: map[bool]*http.Client{}}
}

func (f *Fetcher) now() time.Time { return f.cfg.now() }

// client returns the client for one address policy. The two policies use
// separate transports so a connection opened for an agent allowed to be
// private is never reused for one that is not.
func (f *Fetcher) client(allowPrivate bool) *http.Client {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.clients[allowPrivate]; c != nil {
		return c
	}
	g := &guard{
		resolver:       f.cfg.resolver,
		dial:           f.cfg.dial,
		allowPrivate:   allowPrivate,
		connectTimeout: f.cfg.connectTimeout,
	}
	tr := &http.Transport{
		Proxy:                  nil, // a proxy would hide the address from the check
		DialContext:            g.DialContext,
		TLSHandshakeTimeout:    f.cfg.connectTimeout,
		ResponseHeaderTimeout:  f.cfg.timeout,
		MaxIdleConns:           16,
		MaxIdleConnsPerHost:    2,
		IdleConnTimeout:        30 * time.Second,
		ForceAttemptHTTP2:      true,
		MaxResponseHeaderBytes: 64 << 10,
	}
	if f.cfg.tls != nil {
		tr.TLSClientConfig = f.cfg.tls.Clone()
	}
	c := &http.Client{Transport: tr, CheckRedirect: f.checkRedirect, Timeout: f.cfg.timeout}
	f.clients[allowPrivate] = c
	return c
}

// CloseIdleConnections closes idle connections of every client.
func (f *Fetcher) CloseIdleConnections() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.clients {
		c.CloseIdleConnections()
	}
}

func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	first := via[0].URL
	switch {
	case len(via) > f.cfg.maxRedirects:
		return fmt.Errorf("%w: more than %d redirects from %s", ErrRedirect, f.cfg.maxRedirects, first.Redacted())
	case req.URL.User != nil:
		return fmt.Errorf("%w: %s redirects to a URL with credentials", ErrRedirect, first.Redacted())
	case req.URL.Scheme != "http" && req.URL.Scheme != "https":
		return fmt.Errorf("%w: %s redirects to scheme %q", ErrRedirect, first.Redacted(), req.URL.Scheme)
	case first.Scheme == "https" && req.URL.Scheme == "http":
		return fmt.Errorf("%w: %s redirects from https to http", ErrRedirect, first.Redacted())
	case hostPortOf(first) != hostPortOf(req.URL):
		return fmt.Errorf("%w: %s redirects to another host (%s, not %s)", ErrRedirect, first.Redacted(), hostPortOf(req.URL), hostPortOf(first))
	}
	return nil
}

// hostPortOf is the lower-cased host and effective port.
func hostPortOf(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = defaultPort(strings.ToLower(u.Scheme))
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// Fetch reads one agent's card. prev, when not nil, is what the last
// fetch of the same agent returned: before prev.Expires no request is
// made, and its ETag is sent as If-None-Match to the URL it came from.
func (f *Fetcher) Fetch(ctx context.Context, a Agent, prev *Cached) (*Fetched, error) {
	base, err := NormalizeURL(a.URL)
	if err != nil {
		return nil, err
	}
	id := a.ID
	if id == "" {
		if id, err = DeriveID(base); err != nil {
			return nil, err
		}
	} else if !card.ValidID(id) {
		return nil, errBadID(id)
	}
	if prev != nil && prev.Card == nil {
		prev = nil
	}
	now := f.now()
	if prev != nil && now.Before(prev.Expires) {
		return &Fetched{Cached: *prev, ID: id, Hash: Hash(prev.Card), NotModified: true, Fresh: true}, nil
	}

	ctx, cancel := context.WithTimeout(ctx, f.cfg.timeout)
	defer cancel()
	client := f.client(a.AllowPrivate || f.cfg.allowPrivate)
	log := f.cfg.log.With(zap.String("agent", id))

	out := &Fetched{ID: id}
	var resp *response
	for i, p := range []string{WellKnownPath, LegacyWellKnownPath} {
		src := base.JoinPath(p).String()
		etag := ""
		if prev != nil && prev.Source == src {
			etag = prev.ETag
		}
		resp, err = f.get(ctx, client, src, etag, nil)
		if err != nil {
			return nil, err
		}
		if resp.status == http.StatusNotFound && i == 0 {
			log.Debug("no agent-card.json, trying the legacy agent.json", zap.String("url", src))
			continue
		}
		out.Source, out.Legacy = src, i == 1
		break
	}

	switch {
	case resp.status == http.StatusNotModified && resp.sentETag:
		out.Cached = *prev
		out.NotModified = true
		out.Hash = Hash(prev.Card)
		if resp.etag != "" {
			out.ETag = resp.etag
		}
		out.Expires, out.ETag = resp.freshness(now, f.cfg.maxAge, out.ETag)
		log.Debug("card not modified", zap.String("url", out.Source))
		return out, nil
	case resp.status != http.StatusOK:
		return nil, fmt.Errorf("%w: %s answered %d %s", ErrStatus, out.Source, resp.status, http.StatusText(resp.status))
	}

	c, err := card.ParseWith(id, resp.body, card.WithLimits(f.limits()))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", out.Source, err)
	}
	out.Card, out.Raw = c, resp.body
	out.Expires, out.ETag = resp.freshness(now, f.cfg.maxAge, resp.etag)

	if c.ExtendedCard {
		if cr, ok := f.cfg.creds[base.String()]; ok {
			ext, raw, err := f.extended(ctx, client, base, id, c, cr)
			if err != nil {
				out.ExtendedErr = err
				log.Warn("extended card not used", zap.Error(err))
			} else {
				out.Card, out.Raw, out.Extended = ext, raw, true
			}
		}
	}
	out.Hash = Hash(out.Card)
	return out, nil
}

func (f *Fetcher) limits() card.Limits {
	l := f.cfg.limits
	l.MaxBytes = int(f.cfg.maxBytes)
	return l
}

// extended fetches the authenticated extended card (see the package doc).
func (f *Fetcher) extended(ctx context.Context, client *http.Client, base *url.URL, id string, pub *card.Card, cr Credentials) (*card.Card, []byte, error) {
	var iface *card.Interface
	for i := range pub.Interfaces {
		if strings.EqualFold(pub.Interfaces[i].Binding, "HTTP+JSON") {
			iface = &pub.Interfaces[i]
			break
		}
	}
	if iface == nil {
		return nil, nil, errors.New("extended card: the card has no HTTP+JSON interface to ask")
	}
	u, err := url.Parse(iface.URL)
	if err != nil || u.User != nil || u.RawQuery != "" {
		return nil, nil, errors.New("extended card: the HTTP+JSON interface URL is not usable")
	}
	if origin(u) != origin(base) {
		return nil, nil, fmt.Errorf("extended card: interface %s is not on the agent's origin %s; credentials are not sent there",
			origin(u), origin(base))
	}
	src := u.JoinPath(ExtendedCardPath).String()
	h := make(http.Header, len(cr.Header)+1)
	for k, v := range cr.Header {
		h.Set(k, v)
	}
	if cr.Bearer != "" {
		h.Set("Authorization", "Bearer "+cr.Bearer)
	}
	resp, err := f.get(ctx, client, src, "", h)
	if err != nil {
		return nil, nil, fmt.Errorf("extended card: %w", err)
	}
	if resp.status != http.StatusOK {
		return nil, nil, fmt.Errorf("extended card: %w: %s answered %d %s", ErrStatus, src, resp.status, http.StatusText(resp.status))
	}
	c, err := card.ParseWith(id, resp.body, card.WithLimits(f.limits()))
	if err != nil {
		return nil, nil, fmt.Errorf("extended card: %s: %w", src, err)
	}
	return c, resp.body, nil
}

type response struct {
	status   int
	body     []byte
	etag     string
	sentETag bool
	header   http.Header
}

const maxETag = 256

// get makes one GET and reads at most maxBytes of a 200 body.
func (f *Fetcher) get(ctx context.Context, client *http.Client, src, etag string, extra http.Header) (*response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadURL, err)
	}
	for k, v := range extra {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", f.cfg.userAgent)
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, f.fetchErr(ctx, src, err)
	}
	defer resp.Body.Close()
	out := &response{status: resp.StatusCode, sentETag: etag != "", header: resp.Header}
	if e := resp.Header.Get("ETag"); len(e) <= maxETag {
		out.etag = e
	}
	if resp.StatusCode != http.StatusOK {
		_, _ = io.CopyN(io.Discard, resp.Body, 4<<10) // let the connection be reused
		return out, nil
	}
	max := f.cfg.maxBytes
	if resp.ContentLength > max {
		return nil, fmt.Errorf("%w: %s: Content-Length %d bytes, limit %d", ErrTooLarge, src, resp.ContentLength, max)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, f.fetchErr(ctx, src, err)
	}
	if int64(len(body)) > max {
		return nil, fmt.Errorf("%w: %s: more than %d bytes, limit %d", ErrTooLarge, src, max, max)
	}
	out.body = body
	return out, nil
}

// fetchErr gives a transport error a clear, credential-free message.
func (f *Fetcher) fetchErr(ctx context.Context, src string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // drop the "Get <url>:" prefix, src is given below
	}
	var ae *AddrError
	var ne net.Error
	switch {
	case errors.As(err, &ae), errors.Is(err, ErrRedirect):
		return fmt.Errorf("%s: %w", src, err)
	case errors.Is(ctx.Err(), context.DeadlineExceeded), errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("%w: %s: no complete answer within %s (connect timeout %s)", ErrTimeout, src, f.cfg.timeout, f.cfg.connectTimeout)
	case ctx.Err() != nil:
		return fmt.Errorf("%s: %w", src, ctx.Err())
	}
	return fmt.Errorf("%s: %w", src, err)
}

// freshness reads Cache-Control (and Age) into an expiry and the ETag to
// keep: no-store keeps neither, no-cache keeps the ETag but no expiry.
func (r *response) freshness(now time.Time, capAge time.Duration, etag string) (time.Time, string) {
	var (
		maxAge           = -1
		noStore, noCache bool
	)
	for _, part := range strings.Split(strings.Join(r.header.Values("Cache-Control"), ","), ",") {
		name, val, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "no-store":
			noStore = true
		case "no-cache":
			noCache = true
		case "max-age":
			n, err := strconv.Atoi(strings.Trim(strings.TrimSpace(val), `"`))
			if err == nil && n >= 0 && (maxAge < 0 || n < maxAge) {
				maxAge = n
			}
		}
	}
	if noStore {
		return time.Time{}, ""
	}
	if noCache || maxAge <= 0 {
		return time.Time{}, etag
	}
	age := time.Duration(maxAge) * time.Second
	if a, err := strconv.Atoi(strings.TrimSpace(r.header.Get("Age"))); err == nil && a > 0 {
		age -= time.Duration(a) * time.Second
	}
	age = min(age, capAge)
	if age <= 0 {
		return time.Time{}, etag
	}
	return now.Add(age), etag
}
