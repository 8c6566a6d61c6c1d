package pipeline

import (
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"
)

// ConnectConfig says how to reach an external NATS server.
type ConnectConfig struct {
	// URL is one or more comma-separated server URLs.
	URL string
	// Name is the connection name the server shows (default "skillmatch").
	Name string
	// Creds is a credentials file (JWT and NKey seed).
	Creds string
	// NKey is an NKey seed file (for servers configured with nkeys).
	NKey string
	// TLSCA, TLSCert and TLSKey are PEM files: the CA to trust, and a
	// client certificate and key for mutual TLS.
	TLSCA, TLSCert, TLSKey string
	// Timeout bounds the initial connect (default 5 s).
	Timeout time.Duration
	// InboxPrefix replaces "_INBOX" as the prefix of the connection's
	// reply subjects, so that server permissions can give each user its
	// own inboxes (deploy/nats: _INBOX_<user>.>) and nobody may listen to
	// another's replies.
	InboxPrefix string
	// User and Password, or Token, authenticate to a server configured
	// with them (a nats CLI context may hold either).
	User, Password, Token string
	// TLSFirst starts TLS before the server's INFO, for servers that
	// require it (handshake_first).
	TLSFirst bool
}

// AsyncErrors logs the errors the server sends a connection outside any
// call (a subscription's consumer gone, a slow consumer) as structured
// warnings, where nats.go would print them on stderr as a bare line.
func AsyncErrors(log *zap.Logger) nats.Option {
	return nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
		if sub != nil {
			log.Warn("nats async error", zap.String("subject", sub.Subject), zap.Error(err))
			return
		}
		log.Warn("nats async error", zap.Error(err))
	})
}

// Connect opens a connection that reconnects forever, and its JetStream
// context.
func Connect(cfg ConnectConfig, log *zap.Logger) (*nats.Conn, jetstream.JetStream, error) {
	if cfg.URL == "" {
		return nil, nil, errors.New("pipeline: no NATS URL")
	}
	if log == nil {
		log = zap.NewNop()
	}
	if cfg.Name == "" {
		cfg.Name = "skillmatch"
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	opts := []nats.Option{
		nats.Name(cfg.Name), nats.Timeout(cfg.Timeout),
		nats.MaxReconnects(-1), nats.ReconnectWait(250 * time.Millisecond),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("nats disconnected", zap.Error(err))
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			log.Info("nats reconnected", zap.String("url", nc.ConnectedUrlRedacted()))
		}),
		AsyncErrors(log),
	}
	if cfg.InboxPrefix != "" && cfg.InboxPrefix != nats.InboxPrefix[:len(nats.InboxPrefix)-1] {
		opts = append(opts, nats.CustomInboxPrefix(cfg.InboxPrefix))
	}
	if cfg.Creds != "" {
		opts = append(opts, nats.UserCredentials(cfg.Creds))
	}
	if cfg.NKey != "" {
		o, err := nats.NkeyOptionFromSeed(cfg.NKey)
		if err != nil {
			return nil, nil, fmt.Errorf("pipeline: nkey %s: %w", cfg.NKey, err)
		}
		opts = append(opts, o)
	}
	if cfg.User != "" || cfg.Password != "" {
		opts = append(opts, nats.UserInfo(cfg.User, cfg.Password))
	}
	if cfg.Token != "" {
		opts = append(opts, nats.Token(cfg.Token))
	}
	if cfg.TLSFirst {
		opts = append(opts, nats.TLSHandshakeFirst())
	}
	if cfg.TLSCA != "" {
		opts = append(opts, nats.RootCAs(cfg.TLSCA))
	}
	if cfg.TLSCert != "" || cfg.TLSKey != "" {
		opts = append(opts, nats.ClientCert(cfg.TLSCert, cfg.TLSKey))
	}
	nc, err := nats.Connect(cfg.URL, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("pipeline: connect %s: %w", cfg.URL, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("pipeline: jetstream: %w", err)
	}
	return nc, js, nil
}
