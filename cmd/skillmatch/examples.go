package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/app"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

const examplesUsage = `examples list [--skill AGENT/SKILL] [--json] | examples remove AGENT/SKILL (TEXT | --all)   [--nats URL]`

func cmdExamples(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("examples", examplesUsage,
		"Shows and removes the examples a running pipeline's catalog learned: the feedback stage\n"+
			"makes a task an example of its skill when a trusted caller (\"trusted\": true in --callers)\n"+
			"reports a verified success of the skill it was delegated to. They live in the KV bucket\n"+
			wire.BucketExamples+" (per catalog and skill, at most 50 per skill, oldest dropped first,\n"+
			"deduplicated); the retriever, reranker and decider index them beside the cards' own\n"+
			"examples and rebuild on every change. Operator only.\n\n"+
			"  list                        every skill's learned examples, oldest first\n"+
			"  remove AGENT/SKILL TEXT     removes one example (matched ignoring case and spacing)\n"+
			"  remove AGENT/SKILL --all    removes all of a skill's examples", stderr)
	nf := addNATSFlags(fs)
	bucket := fs.String("bucket", wire.BucketExamples, "learned-examples KV bucket")
	catalogBucket := fs.String("catalog-bucket", wire.BucketCatalog, "the catalog whose examples these are (its KV bucket)")
	skill := fs.String("skill", "", "list: only this skill (AGENT/SKILL)")
	all := fs.Bool("all", false, "remove: every example of the skill")
	timeout := fs.Duration("timeout", 15*time.Second, "time limit for the whole command")
	var asJSON jsonFlag
	asJSON.Register(fs, "list: print the examples (skill key to texts)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return fmt.Errorf("%w: examples needs list or remove", errUsage)
	}
	verb, rest := pos[0], pos[1:]
	switch {
	case verb == "list" && len(rest) > 0:
		return fmt.Errorf("%w: examples list takes no arguments (use --skill)", errUsage)
	case verb == "remove" && (len(rest) == 0 || len(rest) > 2 || (len(rest) == 2) == *all):
		return fmt.Errorf("%w: examples remove needs AGENT/SKILL and either one TEXT or --all", errUsage)
	case verb != "list" && verb != "remove":
		return fmt.Errorf("%w: examples: unknown action %q (want list or remove)", errUsage, verb)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	nc, js, err := nf.connect("skillmatch examples")
	if err != nil {
		return err
	}
	defer nc.Close()
	kv, err := pipeline.ExamplesKV(ctx, js, *bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return fmt.Errorf("%w (start the pipeline with `skillmatch run`, or create the streams with a service's --setup-streams)", err)
	}
	if err != nil {
		return err
	}
	store := pipeline.NewExamples(kv, *catalogBucket, 0)
	if verb == "remove" {
		text := ""
		if len(rest) == 2 {
			text = rest[1]
		}
		n, err := store.Remove(ctx, rest[0], text, *all)
		if err != nil {
			return err
		}
		if n == 0 {
			return app.BadInput(fmt.Errorf("%s: no such learned example", rest[0]))
		}
		fmt.Fprintf(stdout, "removed %d example(s) of %s\n", n, rest[0])
		return nil
	}
	ex, errs, err := store.List(ctx)
	if err != nil {
		return err
	}
	for _, e := range errs {
		fmt.Fprintln(stderr, "warning:", e)
	}
	if *skill != "" {
		ex = map[string][]string{*skill: ex[*skill]}
		if ex[*skill] == nil {
			delete(ex, *skill)
		}
	}
	if asJSON.On() {
		return asJSON.Write(stdout, ex)
	}
	keys := make([]string, 0, len(ex))
	n := 0
	for k, v := range ex {
		keys = append(keys, k)
		n += len(v)
	}
	slices.Sort(keys)
	fmt.Fprintf(stdout, "%d learned examples of %d skills\n", n, len(keys))
	for _, k := range keys {
		fmt.Fprintf(stdout, "%s (%d)\n", k, len(ex[k]))
		for _, t := range ex[k] {
			fmt.Fprintf(stdout, "  %q\n", t)
		}
	}
	return nil
}
