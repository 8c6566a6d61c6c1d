// Command skillmatch matches tasks to A2A agent skills: it evaluates and
// fits the matcher on golden sets and answers single tasks from a catalog.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `skillmatch turns a task into a ranked, calibrated choice of A2A agent skill,
or an honest abstention.

Usage:
  skillmatch <command> [flags]

Commands:
  match   match one task against a folder of agent cards
  eval    measure the matcher on a golden set (recall@20, top-1, MRR, precision,
          coverage, no-match refusal, ECE, latency)
  fit     fit reranker weights and calibration on a golden set's training split
  run     run the whole pipeline in process: embedded NATS JetStream and all five stages
  submit  publish a task to a running pipeline and print its decision
  cards   add, remove or list the cards of a running pipeline's catalog; discover cards by URL
  replay  replay the tasks stream through the current catalog; eval figures from labelled outcomes
  version print the version

Run "skillmatch <command> --help" for a command's flags. Every flag can also be
set from the environment as SKILLMATCH_<FLAG> (e.g. SKILLMATCH_MODEL=model.json).
`

var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "match":
		err = cmdMatch(ctx, args[1:], stdout, stderr)
	case "eval":
		err = cmdEval(ctx, args[1:], stdout, stderr)
	case "fit":
		err = cmdFit(ctx, args[1:], stdout, stderr)
	case "run":
		err = cmdRun(ctx, args[1:], stdout, stderr)
	case "submit":
		err = cmdSubmit(ctx, args[1:], stdout, stderr)
	case "cards":
		err = cmdCards(ctx, args[1:], stdout, stderr)
	case "replay":
		err = cmdReplay(ctx, args[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "skillmatch", version)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "skillmatch: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, new(errReported)):
		return 2
	case errors.Is(err, errUsage):
		fmt.Fprintln(stderr, "skillmatch:", err)
		return 2
	default:
		fmt.Fprintln(stderr, "skillmatch:", err)
		return 1
	}
}
