package app

import (
	"flag"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/natsbox"
)

// natsAliases are --nats's other names; the environment sets none of
// them (SKILLMATCH_NATS and NATS_URL do).
var natsAliases = []string{"s", "server"}

// NATSFlags say how to reach an external NATS server.
type NATSFlags struct {
	URL, Creds, NKey, TLSCA, TLSCert, TLSKey string
	InboxPrefix                              string
	// ConnectTimeout bounds the first connect (a flag only where
	// RegisterTimeout is called: services call it --timeout).
	ConnectTimeout time.Duration
}

// Register defines --nats (NATS_URL also sets it; -s and --server are
// its other names), --creds, --nkey and the TLS files.
func (n *NATSFlags) Register(fs *flag.FlagSet) {
	fs.StringVar(&n.URL, "nats", "nats://"+natsbox.DefaultListen, "NATS server URL(s), comma-separated (environment NATS_URL too)")
	// The nats CLI's names for it, so that its users' habits work.
	for _, alias := range natsAliases {
		fs.StringVar(&n.URL, alias, n.URL, "the same as --nats (the nats CLI's name)")
	}
	fs.StringVar(&n.Creds, "creds", "", "NATS credentials file")
	fs.StringVar(&n.NKey, "nkey", "", "NATS NKey seed file")
	fs.StringVar(&n.TLSCA, "tls-ca", "", "CA file to trust for the NATS server's TLS certificate")
	fs.StringVar(&n.TLSCert, "tls-cert", "", "client certificate file (mutual TLS)")
	fs.StringVar(&n.TLSKey, "tls-key", "", "client key file (mutual TLS)")
	fs.StringVar(&n.InboxPrefix, "inbox-prefix", "_INBOX", "prefix of this connection's reply subjects; deploy/nats gives each user its own, _INBOX_<user>")
	n.ConnectTimeout = 5 * time.Second
}

// Connect opens a connection that reconnects forever, and its JetStream.
func (n *NATSFlags) Connect(name string, log *zap.Logger) (*nats.Conn, jetstream.JetStream, error) {
	return pipeline.Connect(pipeline.ConnectConfig{URL: n.URL, Name: name, Creds: n.Creds, NKey: n.NKey,
		TLSCA: n.TLSCA, TLSCert: n.TLSCert, TLSKey: n.TLSKey, Timeout: n.ConnectTimeout, InboxPrefix: n.InboxPrefix}, log)
}
