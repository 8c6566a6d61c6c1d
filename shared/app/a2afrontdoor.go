package app

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/frontdoor/a2aserver"
	"github.com/skillmatch/skillmatch/shared/pipeline/client"
	"github.com/skillmatch/skillmatch/shared/pipeline/health"
)

// A2AFlags configure the A2A front door (shared/frontdoor/a2aserver).
type A2AFlags struct {
	Listen, URL, Tokens     string
	TLSCert, TLSKey, Client string
	Timeout                 time.Duration
	BodyTimeout             time.Duration
}

// Register defines the --a2a-* flags; listen is --a2a-listen's default.
func (a *A2AFlags) Register(fs *flag.FlagSet, listen string) {
	fs.StringVar(&a.Listen, "a2a-listen", listen, "serve skillmatch as an A2A agent on this host:port (Agent Card at /.well-known/agent-card.json,\n"+
		"SendMessage over JSON-RPC and HTTP+JSON); without --a2a-tokens or --a2a-client-ca only a loopback address is allowed")
	fs.StringVar(&a.URL, "a2a-url", "", "the A2A front door's public base URL, as its card names it (default: http(s)://<listen address>)")
	fs.StringVar(&a.Tokens, "a2a-tokens", "", `bearer tokens of the callers: {"tokens": {"<hex SHA-256 of the token>": "<caller>"}};`+
		"\nset, a request without a known token (or client certificate) gets 401")
	fs.StringVar(&a.TLSCert, "a2a-tls-cert", "", "serve the A2A front door over HTTPS with this certificate file")
	fs.StringVar(&a.TLSKey, "a2a-tls-key", "", "the key file of --a2a-tls-cert")
	fs.StringVar(&a.Client, "a2a-client-ca", "", "accept client certificates signed by this CA file (mTLS): the caller is the certificate's common name")
	fs.DurationVar(&a.Timeout, "a2a-timeout", 15*time.Second, "how long the A2A front door waits for one decision")
	fs.DurationVar(&a.BodyTimeout, "a2a-body-timeout", 30*time.Second, "how long an A2A client may take to send one request's body before its connection is closed")
}

// Files reads the files the flags name (bearer tokens, certificate and
// key, client CA) into the front door's config and checks the address
// against them: a command calls it before it starts anything, so a bad
// file or an open address stops it at once. The zero Config when
// --a2a-listen is empty.
func (a *A2AFlags) Files() (a2aserver.Config, error) {
	var cfg a2aserver.Config
	if a.Listen == "" {
		return cfg, nil
	}
	if err := firstError(positive("--a2a-timeout", a.Timeout), positive("--a2a-body-timeout", a.BodyTimeout)); err != nil {
		return cfg, err
	}
	if a.Tokens != "" {
		t, err := a2aserver.LoadTokens(a.Tokens)
		if err != nil {
			return cfg, BadInput(fmt.Errorf("--a2a-tokens: %w", err))
		}
		cfg.Tokens = t
	}
	if (a.TLSCert == "") != (a.TLSKey == "") {
		return cfg, fmt.Errorf("%w: --a2a-tls-cert and --a2a-tls-key go together", ErrUsage)
	}
	if a.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(a.TLSCert, a.TLSKey)
		if err != nil {
			return cfg, BadInput(fmt.Errorf("--a2a-tls-cert: %w", err))
		}
		cfg.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	if a.Client != "" {
		pem, err := os.ReadFile(a.Client)
		if err != nil {
			return cfg, BadInput(fmt.Errorf("--a2a-client-ca: %w", err))
		}
		cfg.ClientCAs = x509.NewCertPool()
		if !cfg.ClientCAs.AppendCertsFromPEM(pem) {
			return cfg, BadInput(fmt.Errorf("--a2a-client-ca: no certificate in %s", a.Client))
		}
	}
	if err := a2aserver.CheckAddr(a.Listen, cfg); err != nil {
		// The flags, not a file, are wrong: listening open off loopback,
		// or client certificates without TLS.
		return cfg, fmt.Errorf("%w: --a2a-listen: %w", ErrUsage, err)
	}
	return cfg, nil
}

// Serve starts the front door on the flags' address with what Files read,
// submitting through sub; nil when --a2a-listen is empty.
func (a *A2AFlags) Serve(files a2aserver.Config, sub *client.Client, obs a2aserver.Observer, log *zap.Logger) (*a2aserver.Server, error) {
	if a.Listen == "" {
		return nil, nil
	}
	cfg := files
	cfg.Submitter, cfg.URL, cfg.Timeout, cfg.BodyTimeout = sub, a.URL, a.Timeout, a.BodyTimeout
	cfg.Version, cfg.Log, cfg.Observer = semver(Version()), log, obs
	s, err := a2aserver.Listen(a.Listen, cfg)
	if errors.Is(err, a2aserver.ErrConfig) && cfg.Tokens == nil && cfg.ClientCAs == nil {
		err = fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if err != nil {
		return nil, err
	}
	log.Info("A2A front door", zap.String("url", s.URL()), zap.Bool("tokens", cfg.Tokens != nil), zap.Bool("mtls", cfg.ClientCAs != nil))
	return s, nil
}

// FrontDoorFlags are the flags of the front-door service: the A2A server
// and the NATS request-reply service, in front of an external pipeline.
type FrontDoorFlags struct {
	NATS         NATSFlags
	A2A          A2AFlags
	LogLevel     string
	HealthListen string
	GroupCommit  bool
	Version      bool
}

// NewFrontDoorFlags defines the front-door service's flags.
func NewFrontDoorFlags(out io.Writer) (*flag.FlagSet, *FrontDoorFlags) {
	f := &FrontDoorFlags{}
	fs := NewFlagSet("skillmatch-frontdoor", "Usage: skillmatch-frontdoor [flags]\n\n"+
		"Serves skillmatch's front doors in front of a running pipeline (the five stage services on an\n"+
		"external NATS JetStream): an A2A agent (--a2a-listen: Agent Card, SendMessage over JSON-RPC and\n"+
		"HTTP+JSON, callers authenticated by bearer token or client certificate) and the NATS micro\n"+
		"service skillmatch (`nats req skillmatch.match '<task>'`). Each request is submitted as its\n"+
		"authenticated caller and answered with exactly its own decision. Every flag can be set from\n"+
		"the environment as SKILLMATCH_<FLAG> (NATS_URL also sets --nats).\n", out)
	f.NATS.Register(fs)
	fs.DurationVar(&f.NATS.ConnectTimeout, "timeout", 5*time.Second, "connect timeout")
	f.A2A.Register(fs, "127.0.0.1:8080")
	fs.StringVar(&f.LogLevel, "log-level", "info", "log level: debug, info, warn, error")
	fs.StringVar(&f.HealthListen, "health-listen", "", "serve /healthz, /readyz (NATS connected) and Prometheus /metrics on this address (e.g. :8081); empty: off")
	fs.BoolVar(&f.GroupCommit, "group-commit", false, "submit the tasks of requests that arrive together as one atomic batch (one fsync for many):\n"+
		"for a server that syncs every write (sync_interval: always); a lone request is submitted at once")
	fs.BoolVar(&f.Version, "version", false, "print the version and exit")
	return fs, f
}

// FrontDoorMain runs the front-door service until SIGINT or SIGTERM and
// returns the exit code, as ServiceMain does.
func FrontDoorMain(args []string) int {
	return frontDoorMain(args, os.Stdout, os.Stderr, RunFrontDoor)
}

// frontDoorMain is FrontDoorMain with its streams and runner given, for
// tests: help, version and flag errors are answered before anything starts.
func frontDoorMain(args []string, stdout, stderr io.Writer, run func(context.Context, *FrontDoorFlags, io.Writer) error) int {
	fs, f := NewFrontDoorFlags(io.Discard)
	return binaryMain("skillmatch-frontdoor", fs, &f.Version, args, stdout, stderr, func(ctx context.Context) error {
		return run(ctx, f, stderr)
	})
}

// RunFrontDoor serves the front doors until ctx ends.
func RunFrontDoor(ctx context.Context, f *FrontDoorFlags, stderr io.Writer) error {
	log, err := NewLogger(f.LogLevel, stderr, LogJSON)
	if err != nil {
		return err
	}
	defer log.Sync() //nolint:errcheck
	log = log.With(zap.String("service", "frontdoor"))
	if err := firstError(checkListen("--health-listen", f.HealthListen),
		distinctListens(listenFlag{"--health-listen", f.HealthListen}, listenFlag{"--a2a-listen", f.A2A.Listen})); err != nil {
		return err
	}
	doorFiles, err := f.A2A.Files()
	if err != nil {
		return err
	}
	nc, js, err := f.NATS.Connect("skillmatch-frontdoor", log)
	if err != nil {
		return err
	}
	defer nc.Close()
	metrics := NewMetrics()
	sub := submitter(js, f.GroupCommit)
	door, err := ServeMatch(ctx, nc, sub, f.A2A.Timeout, metrics, log)
	if err != nil {
		return err
	}
	defer door.Stop() //nolint:errcheck
	s, err := f.A2A.Serve(doorFiles, sub, metrics, log)
	if err != nil {
		return err
	}
	if f.HealthListen != "" {
		connected := map[string]health.Check{"nats": func(context.Context) error {
			if !nc.IsConnected() {
				return errors.New("not connected to NATS")
			}
			return nil
		}}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", metrics.Handler())
		mux.Handle("/", health.Handler(connected, connected))
		addr, err := health.Serve(ctx, f.HealthListen, mux)
		if err != nil {
			return fmt.Errorf("--health-listen: %w", err)
		}
		log.Info("health probes and metrics", zap.String("addr", addr))
	}
	log.Info("ready", zap.String("nats", nc.ConnectedUrlRedacted()))
	<-ctx.Done()
	log.Info("stopping")
	if s != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return s.Stop(sctx)
	}
	return nil
}

// submitter is the one client both front doors submit through; grouped,
// concurrent requests share their submissions' fsync.
func submitter(js jetstream.JetStream, grouped bool) *client.Client {
	if grouped {
		return client.New(js, client.WithGroupCommit())
	}
	return client.New(js)
}
