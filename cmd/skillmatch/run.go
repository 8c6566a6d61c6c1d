package main

import (
	"context"
	"fmt"
	"io"

	"github.com/skillmatch/skillmatch/shared/app"
	"github.com/skillmatch/skillmatch/shared/app/retrieval"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, rf := retrieval.NewRunFlags(stderr)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: run takes no arguments (got %q)", errUsage, pos[0])
	}
	log, err := app.NewLogger(rf.Pipeline.LogLevel, stderr, app.LogConsole)
	if err != nil {
		return err
	}
	defer log.Sync() //nolint:errcheck
	r, err := app.StartRun(ctx, rf, log)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "skillmatch pipeline running: NATS on %s, store %s\n", r.ClientURL, rf.Data)
	fmt.Fprintf(stdout, "catalog (bucket %s, loaded from %s): %d agents, %d skills (fingerprint %s)\n",
		wire.BucketCatalog, r.CardsDir, r.Agents, r.Skills, r.Fingerprint)
	if r.ConsoleAddr != "" {
		scheme := "http"
		if rf.Console.TLSCert != "" {
			scheme = "https"
		}
		fmt.Fprintf(stdout, "operator console (read-only): %s://%s/\n", scheme, r.ConsoleAddr)
	}
	if r.A2AURL != "" {
		fmt.Fprintf(stdout, "A2A front door: %s (Agent Card at %s/.well-known/agent-card.json)\n", r.A2AURL, r.A2AURL)
	}
	fmt.Fprintf(stdout, "try: skillmatch submit --nats %s \"book a flight to Lisbon on Friday\"\n", r.ClientURL)
	fmt.Fprintln(stdout, "Ctrl-C to stop.")
	<-ctx.Done()
	fmt.Fprintln(stdout, "stopping...")
	r.Stop()
	return nil
}
