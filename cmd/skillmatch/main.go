// Command skillmatch matches tasks to A2A agent skills: it evaluates and
// fits the matcher on golden sets and answers single tasks from a catalog.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/app"
	"github.com/skillmatch/skillmatch/shared/learn/fit"
	"github.com/skillmatch/skillmatch/shared/learn/golden"
)

const usage = `skillmatch turns a task into a ranked, calibrated choice of A2A agent skill,
or an honest abstention.

Usage:
  skillmatch <command> [flags]

Commands:
  match     match one task against a folder of agent cards
  eval      measure the matcher on a golden set (recall@20, top-1, MRR, precision,
            coverage, no-match refusal, ECE, latency)
  fit       fit reranker weights and calibration on a golden set's training split
  run       run the whole pipeline in process: embedded NATS JetStream and all five stages
  submit    publish a task to a running pipeline and print its decision
  report    report the outcome of acting on a decision (evidence for the success priors)
  cards     add, remove or list the cards of a running pipeline's catalog; discover cards
            by URL
  examples  list or remove the examples the catalog learned from verified outcomes
  replay    replay the submitted tasks through the current catalog; eval figures from
            labelled outcomes
  version   print the version

Run "skillmatch <command> --help" or "skillmatch help <command>" for a command's flags.
Every flag can also be set from the environment as SKILLMATCH_<FLAG>
(e.g. SKILLMATCH_MODEL=model.json).
`

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
	case "report":
		err = cmdReport(ctx, args[1:], stdout, stderr)
	case "cards":
		err = cmdCards(ctx, args[1:], stdout, stderr)
	case "examples":
		err = cmdExamples(ctx, args[1:], stdout, stderr)
	case "replay":
		err = cmdReplay(ctx, args[1:], stdout, stderr)
	case "version", "--version", "-version":
		err = cmdVersion(args[1:], stdout)
	case "help", "-h", "--help", "-help":
		// `help CMD [SUB]` is `CMD [SUB] --help`, as in the nats CLI.
		if len(args) > 1 && args[1] != "help" {
			return run(ctx, append(append([]string(nil), args[1:]...), "--help"), stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
	default:
		err = fmt.Errorf("%w: unknown command %q", errUsage, args[0])
		return app.ReportError("skillmatch", err, stdout, stderr)
	}
	if errors.Is(err, golden.ErrInvalidSet) || errors.Is(err, catalog.ErrInvalidRegistry) || errors.Is(err, fit.ErrNothingToFit) {
		err = app.BadInput(err)
	}
	return app.ReportError(commandName(args), err, stdout, stderr)
}

// commandName is the command the arguments run, as its help names it:
// "skillmatch match", "skillmatch cards discover".
func commandName(args []string) string {
	name := "skillmatch " + args[0]
	if args[0] == "cards" && len(args) > 1 && (args[1] == "discover" || args[1] == "refresh") {
		name += " " + args[1]
	}
	if strings.HasPrefix(args[0], "-") {
		name = "skillmatch"
	}
	return name
}

func cmdVersion(args []string, stdout io.Writer) error {
	fs := newFlags("version", "version", "Prints the version (from the build info: the module version, else the VCS\n"+
		"revision, else devel), the Go toolchain and the platform.", io.Discard)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: version takes no arguments (got %q)", errUsage, pos[0])
	}
	fmt.Fprintln(stdout, app.VersionLine("skillmatch"))
	return nil
}
