// Package natsbox runs a NATS server with JetStream inside the process:
// the embedded broker of `skillmatch run` and of the pipeline tests.
package natsbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"go.uber.org/zap"
)

// DefaultListen is where the embedded server listens unless told
// otherwise: loopback only, the standard NATS port.
const DefaultListen = "127.0.0.1:4222"

// Config configures the embedded server.
type Config struct {
	// DataDir holds the JetStream store (the server keeps it in
	// DataDir/jetstream). Required:
	// the store is what makes a restart keep streams and consumers.
	DataDir string
	// Listen is host:port for client connections; port -1 picks a free
	// port. Empty means DefaultListen. Ignored when InProcess is set.
	Listen string
	// InProcess opens no socket at all: only Connect reaches the server.
	InProcess bool
	// SyncAlways fsyncs every write. The default syncs the file store
	// every two minutes, so a machine crash (not a process crash) can
	// lose the last acknowledged writes.
	SyncAlways bool
	// Name is the server name (default "skillmatch-embedded").
	Name string
	// Log receives the server's log lines (default: none).
	Log *zap.Logger
	// ReadyTimeout bounds the wait for the server to accept clients
	// (default 10 s).
	ReadyTimeout time.Duration
	// AuthFile, when set, is a nats-server configuration file whose
	// accounts and users (deploy/nats/accounts.conf, say) the server
	// requires: a client must authenticate, and gets its user's
	// permissions. This process connects (Connect) as an extra user of
	// AuthAccount with a random password, allowed everything.
	AuthFile    string
	AuthAccount string
}

// Server is a running embedded server.
type Server struct {
	ns       *server.Server
	cfg      Config
	internal *server.User // this process's user when auth is on
	unlock   func()       // releases the data folder
}

// ErrDataDirInUse marks a data folder another running server holds.
var ErrDataDirInUse = errors.New("natsbox: data folder in use by another server")

// ErrListen marks a listen address the server cannot take: another
// process holds it, or it is no address of this machine.
var ErrListen = errors.New("natsbox: cannot listen")

// lockFile is the file in the data folder whose lock says a server runs
// on it.
const lockFile = "skillmatch.lock"

// Start starts the server and waits until it accepts clients.
func Start(cfg Config) (*Server, error) {
	if cfg.DataDir == "" {
		return nil, errors.New("natsbox: no data dir")
	}
	if cfg.Name == "" {
		cfg.Name = "skillmatch-embedded"
	}
	if cfg.ReadyTimeout <= 0 {
		cfg.ReadyTimeout = 10 * time.Second
	}
	opts := &server.Options{
		ServerName: cfg.Name,
		JetStream:  true,
		StoreDir:   cfg.DataDir,
		SyncAlways: cfg.SyncAlways,
		NoSigs:     true,
		NoLog:      cfg.Log == nil,
		DontListen: cfg.InProcess,
	}
	if !cfg.InProcess {
		listen := cfg.Listen
		if listen == "" {
			listen = DefaultListen
		}
		host, port, err := splitListen(listen)
		if err != nil {
			return nil, err
		}
		opts.Host, opts.Port = host, port
	} else {
		opts.Host, opts.Port = "127.0.0.1", -1
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("natsbox: %w", err)
	}
	unlock, err := lockDataDir(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	started := false
	defer func() {
		if !started {
			unlock()
		}
	}()
	if !cfg.InProcess && opts.Port != -1 {
		// Said at once, where the server would log it and wait out
		// ReadyTimeout.
		l, err := net.Listen("tcp", net.JoinHostPort(opts.Host, strconv.Itoa(opts.Port)))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrListen, err)
		}
		l.Close()
	}
	var internal *server.User
	if cfg.AuthFile != "" {
		var err error
		if internal, err = applyAuth(opts, cfg.AuthFile, cfg.AuthAccount); err != nil {
			return nil, err
		}
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("natsbox: %w", err)
	}
	if cfg.Log != nil {
		ns.SetLoggerV2(&zapLogger{l: cfg.Log.Named("nats").Sugar()}, false, false, false)
	}
	ns.Start()
	if !ns.ReadyForConnections(cfg.ReadyTimeout) {
		ns.Shutdown()
		ns.WaitForShutdown()
		return nil, fmt.Errorf("natsbox: server not ready after %s (is %s free?)", cfg.ReadyTimeout, cfg.Listen)
	}
	started = true
	return &Server{ns: ns, cfg: cfg, internal: internal, unlock: unlock}, nil
}

// ErrAuthFile marks an auth file (Config.AuthFile) the server cannot use.
var ErrAuthFile = errors.New("natsbox: bad auth file")

// applyAuth takes the accounts and users of a nats-server configuration
// file into opts, and adds this process's own user to account (default
// SKILLMATCH, else the only account the file defines).
func applyAuth(opts *server.Options, path, account string) (*server.User, error) {
	fo, err := server.ProcessConfigFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrAuthFile, path, err)
	}
	if len(fo.Users) == 0 && len(fo.Nkeys) == 0 {
		return nil, fmt.Errorf("%w %s: it defines no users", ErrAuthFile, path)
	}
	var acc *server.Account
	for _, a := range fo.Accounts {
		if a.Name == account || (account == "" && (a.Name == "SKILLMATCH" || len(fo.Accounts) == 1)) {
			acc = a
		}
	}
	if acc == nil {
		return nil, fmt.Errorf("%w %s: no account %q for this process", ErrAuthFile, path, account)
	}
	var pw [18]byte
	if _, err := rand.Read(pw[:]); err != nil {
		return nil, err
	}
	internal := &server.User{Username: "skillmatch-run-" + hex.EncodeToString(pw[:4]), Password: hex.EncodeToString(pw[4:]), Account: acc}
	opts.Accounts, opts.Users, opts.Nkeys = fo.Accounts, append(fo.Users, internal), fo.Nkeys
	opts.SystemAccount, opts.NoAuthUser = fo.SystemAccount, ""
	return internal, nil
}

func splitListen(listen string) (string, int, error) {
	host, p, err := net.SplitHostPort(listen)
	if err != nil {
		return "", 0, fmt.Errorf("natsbox: listen %q: %w", listen, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < -1 || port > 65535 {
		return "", 0, fmt.Errorf("natsbox: listen %q: bad port", listen)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return host, port, nil
}

// ClientURL is the nats:// URL clients use; empty for an in-process-only
// server.
func (s *Server) ClientURL() string {
	if s.cfg.InProcess {
		return ""
	}
	return s.ns.ClientURL()
}

// Connect opens a client connection to the server, in process (no socket)
// whatever the listen setting.
func (s *Server) Connect(opts ...nats.Option) (*nats.Conn, error) {
	opts = append([]nats.Option{nats.InProcessServer(s.ns), nats.Name("skillmatch")}, opts...)
	if s.internal != nil {
		opts = append(opts, nats.UserInfo(s.internal.Username, s.internal.Password))
	}
	nc, err := nats.Connect("", opts...)
	if err != nil {
		return nil, fmt.Errorf("natsbox: connect: %w", err)
	}
	return nc, nil
}

// NATS exposes the underlying server.
func (s *Server) NATS() *server.Server { return s.ns }

// Shutdown stops the server and waits until it has stopped; the store is
// flushed and can be reopened by Start with the same DataDir.
func (s *Server) Shutdown() {
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
	s.unlock()
}

// zapLogger adapts zap to the server's logger. Notices (the start-up
// banner, listening addresses) go to debug: the caller says what matters.
type zapLogger struct{ l *zap.SugaredLogger }

func (z *zapLogger) Noticef(format string, v ...any) { z.l.Debugf(format, v...) }
func (z *zapLogger) Warnf(format string, v ...any)   { z.l.Warnf(format, v...) }
func (z *zapLogger) Fatalf(format string, v ...any)  { z.l.Errorf(format, v...) }
func (z *zapLogger) Errorf(format string, v ...any)  { z.l.Errorf(format, v...) }
func (z *zapLogger) Debugf(format string, v ...any)  { z.l.Debugf(format, v...) }
func (z *zapLogger) Tracef(format string, v ...any)  { z.l.Debugf(format, v...) }
