// Package console is the operator's web console: the catalog with each
// agent's state, the live decisions with their explain traces, the dead
// letters, and the calibration with the outcomes it is judged on. It only
// reads: streams through ordered consumers, buckets through gets and
// watches. Pages are html/template (every card and task text escaped) with
// a little plain JavaScript for the live view; every asset is embedded, so
// it works offline.
package console

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/a2a/grants"
	"github.com/skillmatch/skillmatch/shared/a2a/identity"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// assetVersion is a hash of the embedded assets, which the pages put in
// their URLs so that a changed asset is a new URL.
var assetVersion = func() string {
	h := sha256.New()
	_ = fs.WalkDir(staticFS, "static", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := staticFS.ReadFile(path)
			h.Write([]byte(path))
			h.Write(data)
		}
		return nil
	})
	return hex.EncodeToString(h.Sum(nil)[:6])
}()

// Defaults of Config.
const (
	DefaultRecent       = 2000
	DefaultPageSize     = 100
	DefaultDeadLetters  = 500
	DefaultOutcomes     = 5000
	DefaultPayloadBytes = 4 << 10
)

// Config says what the console reads and how much of it.
type Config struct {
	JS jetstream.JetStream
	// Streams and buckets (zero: the defaults).
	Streams       pipeline.Streams
	CatalogBucket string
	ModelBucket   string
	// Matcher returns the current matcher (nil while none is built): the
	// "why excluded" view and the explain traces recompute with it.
	Matcher func() *match.Matcher
	// Grants are the grants the matchers filter with, for the catalog's
	// "as caller X" view (nil: no restriction).
	Grants *grants.Grants
	// Callers is the extractor's directory of callers: a "why excluded"
	// task is narrowed by it as the extractor narrows a submitted one
	// (nil: only the caller id is taken).
	Callers *identity.Directory
	// Auth says who may look; nil lets anyone who reaches the address
	// (refused by Serve unless it is a loopback address).
	Auth *Auth
	Log  *zap.Logger
	// Recent is how many of the latest decisions are kept in memory for
	// the live view, the rates and the reliability diagram; PageSize how
	// many a page shows at most.
	Recent   int
	PageSize int
	// DeadLetters and Outcomes are how many of the latest of each a page
	// reads; PayloadBytes caps the original payload a dead letter shows.
	DeadLetters  int
	Outcomes     int
	PayloadBytes int
}

func (c *Config) defaults() error {
	if c.JS == nil {
		return errors.New("console: no JetStream")
	}
	if c.Streams == (pipeline.Streams{}) {
		c.Streams = pipeline.DefaultStreams
	}
	if c.CatalogBucket == "" {
		c.CatalogBucket = wire.BucketCatalog
	}
	if c.ModelBucket == "" {
		c.ModelBucket = wire.BucketModel
	}
	if c.Matcher == nil {
		c.Matcher = func() *match.Matcher { return nil }
	}
	if c.Log == nil {
		c.Log = zap.NewNop()
	}
	for _, d := range []struct {
		v   *int
		def int
	}{{&c.Recent, DefaultRecent}, {&c.PageSize, DefaultPageSize}, {&c.DeadLetters, DefaultDeadLetters},
		{&c.Outcomes, DefaultOutcomes}, {&c.PayloadBytes, DefaultPayloadBytes}} {
		if *d.v <= 0 {
			*d.v = d.def
		}
	}
	return nil
}

// Server is the console: an http.Handler and the decisions tail that
// feeds its live view.
type Server struct {
	cfg  Config
	tmpl map[string]*template.Template
	tail *Tail
	mux  *http.ServeMux

	mu      sync.Mutex
	servers []*http.Server
}

// New starts the decisions tail and returns the console. Stop ends the tail.
func New(ctx context.Context, cfg Config) (*Server, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	tmpl, err := parseTemplates()
	if err != nil {
		return nil, err
	}
	tail, err := StartTail(ctx, cfg.JS, cfg.Streams.Decisions, cfg.Recent, cfg.Log)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, tmpl: tmpl, tail: tail}
	s.routes()
	return s, nil
}

// Stop closes the listeners Serve opened, the live views' streams and the
// decisions tail.
func (s *Server) Stop() {
	s.mu.Lock()
	srvs := s.servers
	s.servers = nil
	s.mu.Unlock()
	if s.tail != nil {
		s.tail.Stop() // ends the event streams, so that shutdown need not wait for them
	}
	for _, h := range srvs {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = h.Shutdown(ctx)
		cancel()
	}
}

func (s *Server) routes() {
	m := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	files := http.StripPrefix("/static/", http.FileServer(http.FS(static)))
	m.HandleFunc("GET /static/", func(w http.ResponseWriter, r *http.Request) {
		// Pages name the assets with their content's hash: a browser keeps
		// them, and a page load is one request.
		if r.URL.Query().Get("v") == assetVersion {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		}
		files.ServeHTTP(w, r)
	})
	m.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/catalog", http.StatusSeeOther) })
	m.HandleFunc("GET /catalog", s.catalogPage)
	m.HandleFunc("GET /decisions", s.decisionsPage)
	m.HandleFunc("GET /decisions/events", s.decisionEvents)
	m.HandleFunc("GET /decisions/{seq}", s.decisionPage)
	m.HandleFunc("GET /deadletters", s.deadLettersPage)
	m.HandleFunc("GET /calibration", s.calibrationPage)
	s.mux = m
}

// ServeHTTP checks the operator, refuses anything but reads, and serves
// the pages.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "the console is read-only", http.StatusMethodNotAllowed)
		return
	}
	op, ok := s.cfg.Auth.Check(r)
	if !ok {
		w.Header().Set("WWW-Authenticate", `Basic realm="skillmatch console", charset="UTF-8"`)
		http.Error(w, "unauthorized: the console needs an operator's credentials", http.StatusUnauthorized)
		return
	}
	// Pages never load anything from elsewhere, nor run inline script.
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	s.cfg.Log.Debug("console request", zap.String("operator", op), zap.String("path", r.URL.Path))
	s.mux.ServeHTTP(w, r.WithContext(withOperator(r.Context(), op)))
}

type operatorKey struct{}

func withOperator(ctx context.Context, op string) context.Context {
	return context.WithValue(ctx, operatorKey{}, op)
}

func operatorOf(ctx context.Context) string {
	op, _ := ctx.Value(operatorKey{}).(string)
	return op
}

// ErrOpenNonLoopback is Serve's refusal to serve without authentication
// anywhere but on a loopback address.
var ErrOpenNonLoopback = errors.New("console: without an auth file the console listens on loopback only")

// ListenAddr completes a listen address: a bare port or ":port" gets the
// loopback host, so that turning the console on never exposes it by
// accident.
func ListenAddr(addr string) string {
	if _, err := strconv.Atoi(addr); err == nil {
		return "127.0.0.1:" + addr
	}
	if strings.HasPrefix(addr, ":") {
		return "127.0.0.1" + addr
	}
	return addr
}

// CheckAddr says whether Serve would refuse addr (ListenAddr) with auth,
// without listening: a caller checks it before it starts anything else.
func CheckAddr(addr string, auth *Auth) error {
	addr = ListenAddr(addr)
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("console: listen %q: %w", addr, err)
	}
	if auth == nil && !isLoopback(host) {
		return fmt.Errorf("%w: %s", ErrOpenNonLoopback, addr)
	}
	return nil
}

// ServeOption configures Serve.
type ServeOption func(*serveConfig)

type serveConfig struct {
	certFile, keyFile string
	cert              *tls.Certificate
}

// WithTLS serves HTTPS with the certificate and key files (PEM), so that
// operators' passwords and tokens do not cross the network in clear.
func WithTLS(certFile, keyFile string) ServeOption {
	return func(c *serveConfig) { c.certFile, c.keyFile = certFile, keyFile }
}

// WithCertificate serves HTTPS with a certificate its caller has loaded
// (checked before anything started, not read again here).
func WithCertificate(cert tls.Certificate) ServeOption {
	return func(c *serveConfig) { c.cert = &cert }
}

// Serve listens on addr (ListenAddr) and serves the console until ctx
// ends; it returns the address it listens on.
func (s *Server) Serve(ctx context.Context, addr string, opts ...ServeOption) (string, error) {
	var sc serveConfig
	for _, o := range opts {
		o(&sc)
	}
	if sc.cert == nil && (sc.certFile != "" || sc.keyFile != "") {
		cert, err := tls.LoadX509KeyPair(sc.certFile, sc.keyFile)
		if err != nil {
			return "", fmt.Errorf("console: TLS: %w", err)
		}
		sc.cert = &cert
	}
	var tlsCfg *tls.Config
	if sc.cert != nil {
		tlsCfg = &tls.Config{Certificates: []tls.Certificate{*sc.cert}, MinVersion: tls.VersionTLS12}
	}
	addr = ListenAddr(addr)
	if err := CheckAddr(addr, s.cfg.Auth); err != nil {
		return "", err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("console: %w", err)
	}
	if tlsCfg != nil {
		ln = tls.NewListener(ln, tlsCfg)
	}
	// Requests live in ctx: the live views' event streams end with it.
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	s.mu.Lock()
	s.servers = append(s.servers, srv)
	s.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	return ln.Addr().String(), nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
