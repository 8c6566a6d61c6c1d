// Package natsboxtest starts the embedded NATS server for tests and
// benchmarks: one call instead of the same start, connect and cleanup in
// every package that needs a real server.
package natsboxtest

import (
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/pipeline/natsbox"
)

// Start starts an embedded server with cfg (its data in a temporary
// directory of tb unless cfg names one) and connects to it. The
// connection and the server are closed when tb ends; closing them earlier
// is allowed.
func Start(tb testing.TB, cfg natsbox.Config) (*natsbox.Server, *nats.Conn, jetstream.JetStream) {
	tb.Helper()
	if cfg.DataDir == "" {
		cfg.DataDir = tb.TempDir()
	}
	srv, err := natsbox.Start(cfg)
	if err != nil {
		tb.Fatalf("start embedded nats: %v", err)
	}
	tb.Cleanup(srv.Shutdown)
	nc, err := srv.Connect()
	if err != nil {
		tb.Fatalf("connect to embedded nats: %v", err)
	}
	tb.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		tb.Fatalf("jetstream: %v", err)
	}
	return srv, nc, js
}
