package app

import (
	"flag"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/natsbox"
)

// natsAliases are --nats's other names, the nats CLI's.
var natsAliases = []string{"s", "server"}

// NATSFlags say how to reach an external NATS server.
type NATSFlags struct {
	URL, Creds, NKey, TLSCA, TLSCert, TLSKey string
	InboxPrefix                              string
	// Context names a nats CLI context whose settings fill in the
	// connection flags not given (loadNATSContext).
	Context string
	fs      *flag.FlagSet // to tell given flags from defaults
	// ConnectTimeout bounds the first connect (a flag only where
	// RegisterTimeout is called: services call it --timeout).
	ConnectTimeout time.Duration
}

// Register defines --nats (NATS_URL also sets it; -s and --server are
// its other names), --creds, --nkey and the TLS files.
func (n *NATSFlags) Register(fs *flag.FlagSet) {
	fs.StringVar(&n.URL, "nats", "nats://"+natsbox.DefaultListen, "NATS server URL(s), comma-separated (environment NATS_URL too)")
	// The nats CLI's names for it, so that its users' habits work.
	for _, name := range natsAliases {
		registerAlias(fs, name, "nats", "the same as --nats (the nats CLI's name for the server `URL`)")
	}
	fs.StringVar(&n.Creds, "creds", "", "NATS credentials file")
	fs.StringVar(&n.NKey, "nkey", "", "NATS NKey seed file")
	fs.StringVar(&n.TLSCA, "tls-ca", "", "CA file to trust for the NATS server's TLS certificate")
	fs.StringVar(&n.TLSCert, "tls-cert", "", "client certificate file (mutual TLS)")
	fs.StringVar(&n.TLSKey, "tls-key", "", "client key file (mutual TLS)")
	fs.StringVar(&n.InboxPrefix, "inbox-prefix", "_INBOX", "prefix of this connection's reply subjects; deploy/nats gives each user its own, _INBOX_<user>")
	fs.StringVar(&n.Context, "context", "", "a nats CLI context (its name under ~/.config/nats/context, or its .json file; environment\n"+
		"NATS_CONTEXT too): its url, user, password, token, creds, nkey, cert, key, ca and inbox_prefix fill in\n"+
		"the connection flags not given here or in the environment")
	n.fs = fs
	n.ConnectTimeout = 5 * time.Second
}

// Connect opens a connection that reconnects forever, and its JetStream.
// A --context that cannot be used is bad input.
func (n *NATSFlags) Connect(name string, log *zap.Logger) (*nats.Conn, jetstream.JetStream, error) {
	cfg, err := n.connectConfig(name)
	if err != nil {
		return nil, nil, err
	}
	return pipeline.Connect(cfg, log)
}

// connectConfig is how the flags say to connect: the connection flags
// given (on the command line or in the environment) first, then the
// context's settings, then the flags' defaults, as the nats CLI reads
// them.
func (n *NATSFlags) connectConfig(name string) (pipeline.ConnectConfig, error) {
	cfg := pipeline.ConnectConfig{URL: n.URL, Name: name, Creds: n.Creds, NKey: n.NKey,
		TLSCA: n.TLSCA, TLSCert: n.TLSCert, TLSKey: n.TLSKey, Timeout: n.ConnectTimeout, InboxPrefix: n.InboxPrefix}
	if n.Context == "" {
		return cfg, nil
	}
	c, err := loadNATSContext(n.Context)
	if err != nil {
		return cfg, BadInput(fmt.Errorf("--context: %w", err))
	}
	given := map[string]bool{}
	if n.fs != nil {
		n.fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	}
	fill := func(dst *string, v string, flags ...string) {
		for _, f := range flags {
			if given[f] {
				return
			}
		}
		if v != "" {
			*dst = v
		}
	}
	fill(&cfg.URL, c.URL, append([]string{"nats"}, natsAliases...)...)
	fill(&cfg.Creds, c.Creds, "creds")
	fill(&cfg.NKey, c.NKey, "nkey")
	fill(&cfg.TLSCA, c.CA, "tls-ca")
	fill(&cfg.TLSCert, c.Cert, "tls-cert")
	fill(&cfg.TLSKey, c.Key, "tls-key")
	fill(&cfg.InboxPrefix, c.InboxPrefix, "inbox-prefix")
	cfg.User, cfg.Password, cfg.Token, cfg.TLSFirst = c.User, c.Password, c.Token, c.TLSFirst
	return cfg, nil
}
