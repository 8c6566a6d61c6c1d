package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// newFlags makes a flag set whose --help explains the command.
func newFlags(name, synopsis, about string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: skillmatch %s\n\n%s\n\nFlags (environment SKILLMATCH_<FLAG> sets a default):\n", synopsis, about)
		fs.PrintDefaults()
	}
	return fs
}

// parse applies SKILLMATCH_* environment defaults, then the arguments.
// Flags may come before or after positional arguments.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		key := "SKILLMATCH_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v, ok := os.LookupEnv(key); ok {
			if err := f.Value.Set(v); err != nil && envErr == nil {
				envErr = fmt.Errorf("%w: %s=%q: %v", errUsage, key, v, err)
			}
		}
	})
	if envErr != nil {
		return nil, envErr
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			// The flag package has printed the error and the usage.
			return nil, errReported{err}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// listFlag is a repeatable or comma-separated string flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

// errReported is a usage error already shown to the user.
type errReported struct{ err error }

func (e errReported) Error() string { return e.err.Error() }
func (e errReported) Unwrap() error { return errUsage }
