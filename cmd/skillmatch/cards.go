package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/natsbox"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/wire"
)

// natsFlags are the connection flags of the commands that talk to a
// running pipeline.
type natsFlags struct {
	url, creds, nkey, tlsCA, tlsCert, tlsKey *string
}

func addNATSFlags(fs *flag.FlagSet) *natsFlags {
	return &natsFlags{
		url:     fs.String("nats", "nats://"+natsbox.DefaultListen, "NATS server URL"),
		creds:   fs.String("creds", "", "NATS credentials file"),
		nkey:    fs.String("nkey", "", "NATS NKey seed file"),
		tlsCA:   fs.String("tls-ca", "", "CA file to trust for the NATS server's TLS certificate"),
		tlsCert: fs.String("tls-cert", "", "client certificate file (mutual TLS)"),
		tlsKey:  fs.String("tls-key", "", "client key file (mutual TLS)"),
	}
}

func (f *natsFlags) connect(name string) (*nats.Conn, jetstream.JetStream, error) {
	return pipeline.Connect(pipeline.ConnectConfig{URL: *f.url, Name: name, Creds: *f.creds, NKey: *f.nkey,
		TLSCA: *f.tlsCA, TLSCert: *f.tlsCert, TLSKey: *f.tlsKey}, nil)
}

// openCatalog opens the catalog bucket, explaining a missing one.
func openCatalog(ctx context.Context, js jetstream.JetStream, bucket string) (jetstream.KeyValue, error) {
	kv, err := pipeline.CatalogKV(ctx, js, bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, fmt.Errorf("%w (start the pipeline with `skillmatch run`, or create the streams with a service's --setup-streams)", err)
	}
	return kv, err
}

const cardsUsage = `cards add DIR|FILE... | cards remove ID... | cards list   [--nats URL]
       skillmatch cards discover URL... [--allow-private] [--out DIR] [--timeout 10s]`

func cmdCards(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	// discover has flags of its own and needs no pipeline.
	if len(args) > 0 && args[0] == "discover" {
		return cmdCardsDiscover(ctx, args[1:], stdout, stderr)
	}
	fs := newFlags("cards", cardsUsage,
		"Manages the card catalog of a running pipeline: the JetStream KV bucket "+wire.BucketCatalog+"\n"+
			"(key = agent id, value = the card JSON and the registry status). The retriever, reranker\n"+
			"and decider watch the bucket and rebuild their index on every change, without a restart.\n\n"+
			"  add DIR|FILE...  checks each card with the card parser and puts it: a catalog folder\n"+
			"                   (cards/*.json or *.json, and registry.json for statuses) or card files\n"+
			"                   (agent id = file name without .json). A refused card is reported with\n"+
			"                   its reason and the others are still added; the exit code is then 1.\n"+
			"  remove ID...     removes agents; they are never chosen again.\n"+
			"  list             lists the agents in the bucket, with their revision.\n"+
			"  discover URL...  fetches agents' cards from their well-known URLs (see cards discover --help).", stderr)
	nf := addNATSFlags(fs)
	bucket := fs.String("bucket", wire.BucketCatalog, "catalog KV bucket")
	timeout := fs.Duration("timeout", 15*time.Second, "time limit for the whole command")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return fmt.Errorf("%w: cards needs add, remove or list", errUsage)
	}
	verb, rest := pos[0], pos[1:]
	switch verb {
	case "add", "remove":
		if len(rest) == 0 {
			return fmt.Errorf("%w: cards %s needs at least one argument", errUsage, verb)
		}
	case "list":
		if len(rest) > 0 {
			return fmt.Errorf("%w: cards list takes no arguments", errUsage)
		}
	default:
		return fmt.Errorf("%w: cards: unknown action %q (want add, remove or list)", errUsage, verb)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	nc, js, err := nf.connect("skillmatch cards")
	if err != nil {
		return err
	}
	defer nc.Close()
	kv, err := openCatalog(ctx, js, *bucket)
	if err != nil {
		return err
	}
	switch verb {
	case "add":
		return cardsAdd(ctx, kv, rest, stdout, stderr)
	case "remove":
		failed := 0
		for _, id := range rest {
			if err := pipeline.RemoveCard(ctx, kv, id); err != nil {
				fmt.Fprintf(stderr, "not removed: %v\n", err)
				failed++
				continue
			}
			fmt.Fprintf(stdout, "removed %s\n", id)
		}
		if failed > 0 {
			return fmt.Errorf("%d of %d agents not removed", failed, len(rest))
		}
		return nil
	default:
		return cardsList(ctx, kv, stdout)
	}
}

func cardsAdd(ctx context.Context, kv jetstream.KeyValue, paths []string, stdout, stderr io.Writer) error {
	refused, added := 0, 0
	for _, p := range paths {
		files, errs := pipeline.ReadCards(p)
		for _, e := range errs {
			fmt.Fprintf(stderr, "refused: %v\n", e)
			refused++
		}
		for _, f := range files {
			rev, changed, err := pipeline.PutCard(ctx, kv, f.ID, f.Data, f.Status)
			switch {
			case err != nil:
				fmt.Fprintf(stderr, "refused: %s: %v\n", f.Path, err)
				refused++
			case changed:
				fmt.Fprintf(stdout, "added %s (revision %d)\n", f.ID, rev)
				added++
			default:
				fmt.Fprintf(stdout, "unchanged %s (revision %d)\n", f.ID, rev)
				added++
			}
		}
	}
	if refused > 0 {
		return fmt.Errorf("%d card(s) refused, %d added", refused, added)
	}
	return nil
}

func cardsList(ctx context.Context, kv jetstream.KeyValue, stdout io.Writer) error {
	cat, rev, errs := pipeline.LoadCatalogKV(ctx, kv)
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, a := range cat.Agents {
		fmt.Fprintf(stdout, "%-28s %3d skills  %-8s %-12s %s\n", a.Card.ID, len(a.Card.Skills), a.Status.Health, a.Status.Clearance, a.Card.Name)
	}
	for _, e := range errs {
		fmt.Fprintf(stdout, "skipped: %v\n", e)
	}
	fmt.Fprintf(stdout, "%d agents, %d skills, bucket revision %d\n", len(cat.Agents), len(cat.Skills()), rev)
	return nil
}
