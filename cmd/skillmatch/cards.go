package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/grants"
	"github.com/skillmatch/skillmatch/shared/app"
	"github.com/skillmatch/skillmatch/shared/discovery/refresh"
	"github.com/skillmatch/skillmatch/shared/match/cardtrust"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// natsFlags are the connection flags of the commands that talk to a
// running pipeline.
type natsFlags struct{ app.NATSFlags }

func addNATSFlags(fs *flag.FlagSet) *natsFlags {
	n := &natsFlags{}
	n.Register(fs)
	return n
}

func (f *natsFlags) connect(name string) (*nats.Conn, jetstream.JetStream, error) {
	return f.Connect(name, nil)
}

// connectCatalog connects and opens the catalog bucket; the caller closes
// the connection.
func (f *natsFlags) connectCatalog(ctx context.Context, name, bucket string) (*nats.Conn, jetstream.JetStream, jetstream.KeyValue, error) {
	nc, js, err := f.connect(name)
	if err != nil {
		return nil, nil, nil, err
	}
	kv, err := openCatalog(ctx, js, bucket)
	if err != nil {
		nc.Close()
		return nil, nil, nil, err
	}
	return nc, js, kv, nil
}

// openCatalog opens the catalog bucket, explaining a missing one.
func openCatalog(ctx context.Context, js jetstream.JetStream, bucket string) (jetstream.KeyValue, error) {
	kv, err := pipeline.CatalogKV(ctx, js, bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, fmt.Errorf("%w (start the pipeline with `skillmatch run`, or create the streams with a service's --setup-streams)", err)
	}
	return kv, err
}

const cardsUsage = `cards add DIR|FILE... | cards remove ID... | cards list [--as CALLER [--grants FILE]]   [--nats URL]
       [--trust-keys FILE|URL] [--unsigned refuse|flag|accept] [--bad-signature refuse|flag|accept]
       skillmatch cards discover URL... [--allow-private] [--out DIR] [--timeout 10s]
       skillmatch ` + cardsRefreshUsage

func cmdCards(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	// discover has flags of its own and needs no pipeline.
	if len(args) > 0 && args[0] == "discover" {
		return cmdCardsDiscover(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "refresh" {
		return cmdCardsRefresh(ctx, args[1:], stdout, stderr)
	}
	fs := newFlags("cards", cardsUsage,
		"Manages the card catalog of a running pipeline: the JetStream KV bucket "+wire.BucketCatalog+"\n"+
			"(key = agent id, value = the card JSON and the registry status). The retriever, reranker\n"+
			"and decider watch the bucket and rebuild their index on every change, without a restart.\n\n"+
			"  add DIR|FILE...  checks each card with the card parser and puts it: a catalog folder\n"+
			"                   (cards/*.json or *.json, and registry.json for statuses) or card files\n"+
			"                   (agent id = file name without .json). A refused card is reported with\n"+
			"                   its reason and the others are still added; the exit code is then 2\n"+
			"                   (1 if the server failed to store one).\n"+
			"                   With --trust-keys, --unsigned or --bad-signature each card's signatures\n"+
			"                   are checked: a card the policy refuses is refused, the verdict of the\n"+
			"                   others is kept with the card. A skill whose own card text gives the\n"+
			"                   matcher orders, repeats its words or claims any task is added with a\n"+
			"                   warning: no task will go to it.\n"+
			"  remove ID...     removes agents; they are never chosen again (exit 2 if one is not there).\n"+
			"  list             lists the agents in the bucket with health, clearance and signature\n"+
			"                   verdict, and each skill whose card text is not trusted, with why;\n"+
			"                   where some skills give example requests and others none, it names\n"+
			"                   the latter (the matcher finds them less often; --json counts each\n"+
			"                   skill's examples); --as CALLER shows the catalog as that caller\n"+
			"                   sees it under --grants: only the skills granted to it, each card reduced.\n"+
			"  discover URL...  fetches agents' cards from their well-known URLs (see cards discover --help).\n"+
			"  refresh          keeps the bucket in step with a registry of agents (see cards refresh --help).", stderr)
	nf := addNATSFlags(fs)
	bucket := fs.String("bucket", wire.BucketCatalog, "catalog KV bucket")
	timeout := fs.Duration("timeout", 15*time.Second, "time limit for the whole command")
	var tf app.TrustFlags
	tf.Register(fs)
	as := fs.String("as", "", "list: show the catalog as this caller sees it (with --grants)")
	grantsFile := fs.String("grants", "", "list --as: grants file (default: no restriction)")
	var asJSON jsonFlag
	asJSON.Register(fs, "list: print the listing")
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
	nc, _, kv, err := nf.connectCatalog(ctx, "skillmatch cards", *bucket)
	if err != nil {
		return err
	}
	defer nc.Close()
	switch verb {
	case "add":
		trust, err := tf.Trust(ctx)
		if err != nil {
			return err
		}
		return cardsAdd(ctx, kv, trust, rest, stdout, stderr)
	case "remove":
		var failed failures
		for _, id := range rest {
			if err := pipeline.RemoveCard(ctx, kv, id); err != nil {
				fmt.Fprintf(stderr, "not removed: %v\n", err)
				failed.add(errors.Is(err, pipeline.ErrNoAgent))
				continue
			}
			fmt.Fprintf(stdout, "removed %s\n", id)
		}
		return failed.err(fmt.Sprintf("of %d agents not removed", len(rest)))
	case "list":
		if *as != "" {
			return cardsListAs(ctx, kv, *as, *grantsFile, &asJSON, stdout)
		}
	}
	return cardsList(ctx, kv, &asJSON, stdout)
}

// failures counts the arguments a command could not act on, and whether
// each was the argument's fault (a card that does not parse or the
// policy refuses, an agent not in the catalog, a URL that is no agent's)
// rather than a server's.
type failures struct{ n, theirs int }

func (f *failures) add(badInput bool) {
	f.n++
	if badInput {
		f.theirs++
	}
}

// err is nil when nothing failed; bad input (exit 2) when every failure
// was the input's; else a plain error (exit 1): the server may take the
// rest on a second try.
func (f failures) err(what string) error {
	switch {
	case f.n == 0:
		return nil
	case f.theirs == f.n:
		return app.BadInput(fmt.Errorf("%d %s", f.n, what))
	default:
		return fmt.Errorf("%d %s", f.n, what)
	}
}

func cardsAdd(ctx context.Context, kv jetstream.KeyValue, trust *refresh.Trust, paths []string, stdout, stderr io.Writer) error {
	var refused failures
	added := 0
	for _, p := range paths {
		files, errs := pipeline.ReadCards(p)
		for _, e := range errs {
			fmt.Fprintf(stderr, "refused: %v\n", e)
			refused.add(true)
		}
		for _, f := range files {
			rev, changed, sig, err := app.PutChecked(ctx, kv, f, trust)
			verdict := ""
			if sig.Checked() {
				verdict = ", signature " + sig.String()
			}
			switch {
			case err != nil:
				fmt.Fprintf(stderr, "refused: %s: %v\n", f.Path, err)
				refused.add(errors.Is(err, refresh.ErrRefused))
			case changed:
				fmt.Fprintf(stdout, "added %s (revision %d%s)\n", f.ID, rev, verdict)
				added++
				warnUntrusted(f, stderr)
			default:
				fmt.Fprintf(stdout, "unchanged %s (revision %d%s)\n", f.ID, rev, verdict)
				added++
				warnUntrusted(f, stderr)
			}
		}
	}
	return refused.err(fmt.Sprintf("card(s) refused, %d added", added))
}

// warnUntrusted tells the operator which skills of an added card its own
// text gives away (cardtrust): they stay in the catalog, and the matcher
// never trusts them with a task.
func warnUntrusted(f pipeline.CardFile, stderr io.Writer) {
	if f.Card == nil {
		return
	}
	for i, why := range cardtrust.Reasons(f.Card) {
		if why != "" {
			fmt.Fprintf(stderr, "warning: %s: %s; no task will go to this skill\n", card.Key(f.Card.ID, f.Card.Skills[i].ID), why)
		}
	}
}

// listing is `cards list --json`: one document for the whole listing.
type listing struct {
	// Caller is --as; with it Agents are those the caller sees, each with
	// its granted skills only, and the totals count the whole catalog.
	Caller      string         `json:"caller,omitempty"`
	Agents      []listingAgent `json:"agents"`
	Skipped     []string       `json:"skipped,omitempty"`
	Revision    uint64         `json:"revision"`
	TotalAgents int            `json:"totalAgents"`
	TotalSkills int            `json:"totalSkills"`
}

type listingAgent struct {
	ID     string         `json:"id"`
	Name   string         `json:"name"`
	Status catalog.Status `json:"status"`
	Skills []listingSkill `json:"skills"`
}

type listingSkill struct {
	Key  string `json:"key"`
	Name string `json:"name"`
	// Untrusted says why the card's own text keeps the skill from every
	// task (cardtrust); empty when it does not.
	Untrusted string `json:"untrusted,omitempty"`
	// Examples is how many example requests the card gives the skill.
	Examples int `json:"examples"`
}

func newListing(cat *catalog.Catalog, rev uint64, errs []error) *listing {
	l := &listing{Agents: []listingAgent{}, Revision: rev, TotalAgents: len(cat.Agents), TotalSkills: len(cat.Skills())}
	for _, e := range errs {
		l.Skipped = append(l.Skipped, e.Error())
	}
	return l
}

func (l *listing) add(a catalog.Agent) {
	la := listingAgent{ID: a.Card.ID, Name: a.Card.Name, Status: a.Status, Skills: []listingSkill{}}
	untrusted := cardtrust.Reasons(a.Card)
	for i, s := range a.Card.Skills {
		la.Skills = append(la.Skills, listingSkill{Key: card.Key(a.Card.ID, s.ID), Name: s.Name, Untrusted: untrusted[i],
			Examples: len(s.Examples)})
	}
	l.Agents = append(l.Agents, la)
}

func cardsList(ctx context.Context, kv jetstream.KeyValue, asJSON *jsonFlag, stdout io.Writer) error {
	cat, rev, errs := pipeline.LoadCatalogKV(ctx, kv)
	if err := ctx.Err(); err != nil {
		return err
	}
	if asJSON.On() {
		l := newListing(cat, rev, errs)
		for _, a := range cat.Agents {
			l.add(a)
		}
		return asJSON.Write(stdout, l)
	}
	reasons := make([][]string, len(cat.Agents))
	for ai, a := range cat.Agents {
		printAgent(stdout, a)
		reasons[ai] = cardtrust.Reasons(a.Card)
		for i, why := range reasons[ai] {
			if why != "" {
				fmt.Fprintf(stdout, "    %s  not trusted: %s\n", card.Key(a.Card.ID, a.Card.Skills[i].ID), why)
			}
		}
	}
	for _, e := range errs {
		fmt.Fprintf(stdout, "skipped: %v\n", e)
	}
	fmt.Fprintf(stdout, "%d agents, %d skills, bucket revision %d\n", len(cat.Agents), len(cat.Skills()), rev)
	if keys := withoutExamples(cat, reasons); len(keys) > 0 {
		fmt.Fprintf(stdout, "note: %d of %d skills give no example requests while the others do; the matcher ranks\n"+
			"such skills first less often (README, \"Card regimes\"): two or three examples each help: %s\n",
			len(keys), len(cat.Skills()), listSome(keys, 10))
	}
	return nil
}

// withoutExamples lists the keys of the trusted skills whose card gives
// no example requests, when other trusted skills of the catalog give
// some: beside skills with examples such skills are ranked first less
// often, which the card's author can mend. Nil when every skill is of
// one kind, which the built-in model is fitted for. untrusted is
// cardtrust.Reasons of each agent, in the catalog's order.
func withoutExamples(cat *catalog.Catalog, untrusted [][]string) []string {
	var without []string
	with := false
	for ai, a := range cat.Agents {
		for i, s := range a.Card.Skills {
			switch {
			case untrusted[ai][i] != "":
			case len(s.Examples) > 0:
				with = true
			default:
				without = append(without, card.Key(a.Card.ID, s.ID))
			}
		}
	}
	if !with {
		return nil
	}
	return without
}

// listSome joins the first n of items, saying how many more there are.
func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

// printAgent is one line of a listing: id, skills, health, clearance,
// signature verdict ("-" when not checked) and name.
func printAgent(w io.Writer, a catalog.Agent) {
	fmt.Fprintf(w, "%-28s %3d skills  %-8s %-12s %-24s %s\n", a.Card.ID, len(a.Card.Skills), a.Status.Health, a.Status.Clearance,
		a.Status.Signature, a.Card.Name)
}

// cardsListAs lists the catalog as a caller sees it: the agents it may be
// matched to, each with only the skills granted to it.
func cardsListAs(ctx context.Context, kv jetstream.KeyValue, caller, grantsFile string, asJSON *jsonFlag, stdout io.Writer) error {
	var g *grants.Grants
	if grantsFile != "" {
		var err error
		if g, err = grants.Load(grantsFile); err != nil {
			return app.BadInput(err)
		}
	}
	cat, rev, errs := pipeline.LoadCatalogKV(ctx, kv)
	if err := ctx.Err(); err != nil {
		return err
	}
	seen := g.ReduceCatalog(cat, caller)
	if asJSON.On() {
		l := newListing(cat, rev, errs)
		l.Caller = caller
		for _, a := range seen.Agents {
			l.add(a)
		}
		return asJSON.Write(stdout, l)
	}
	for _, a := range seen.Agents {
		printAgent(stdout, a)
		untrusted := cardtrust.Reasons(a.Card)
		for i, s := range a.Card.Skills {
			note := ""
			if untrusted[i] != "" {
				note = "  not trusted: " + untrusted[i]
			}
			fmt.Fprintf(stdout, "    %s  %s%s\n", card.Key(a.Card.ID, s.ID), s.Name, note)
		}
	}
	fmt.Fprintf(stdout, "as %q: %d of %d agents, %d of %d skills, bucket revision %d\n",
		caller, len(seen.Agents), len(cat.Agents), len(seen.Skills()), len(cat.Skills()), rev)
	return nil
}
