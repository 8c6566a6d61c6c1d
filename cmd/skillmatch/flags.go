package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/skillmatch/skillmatch/shared/app"
)

// errUsage marks a command-line error (exit 2).
var errUsage = app.ErrUsage

// jsonFlag is --json: stdout (--json, --json=-) or --json=FILE.
type jsonFlag = app.JSONFlag

// newFlags makes a flag set whose --help explains the command.
func newFlags(name, synopsis, about string, out io.Writer) *flag.FlagSet {
	return app.NewFlagSet(name, fmt.Sprintf("Usage: skillmatch %s\n\n%s\n", synopsis, about), out)
}

// parse applies SKILLMATCH_* environment defaults, then the arguments.
// Flags may come before or after positional arguments.
func parse(fs *flag.FlagSet, args []string) ([]string, error) { return app.Parse(fs, args) }

// listFlag is a repeatable or comma-separated string flag.
type listFlag = app.ListFlag

// repeatFlag is a repeatable flag whose every use is one value.
type repeatFlag = app.RepeatFlag
