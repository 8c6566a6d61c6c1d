// Package app is the composition root of skillmatch: it turns flags and
// SKILLMATCH_* environment (each flag defined once, here) into matchers,
// pipeline stages, a group of stages or the all-in-one `run`. The
// skillmatch command and every service main call it; nothing else builds a
// matcher.
package app

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// ErrUsage marks a command-line error: the process exits 2.
var ErrUsage = errors.New("usage")

// ErrReported is a usage error the flag package has already printed.
type ErrReported struct{ Err error }

func (e ErrReported) Error() string { return e.Err.Error() }
func (e ErrReported) Unwrap() error { return ErrUsage }

// EnvKey is the environment variable that sets a flag's default.
func EnvKey(flagName string) string {
	return "SKILLMATCH_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// ApplyEnv sets flag defaults from SKILLMATCH_<FLAG>, and --nats from
// NATS_URL (the nats CLI's variable) when SKILLMATCH_NATS is unset.
func ApplyEnv(fs *flag.FlagSet) error {
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		key := EnvKey(f.Name)
		v, ok := os.LookupEnv(key)
		if !ok && f.Name == "nats" {
			key = "NATS_URL"
			v, ok = os.LookupEnv(key)
		}
		if ok {
			if e := f.Value.Set(v); e != nil && err == nil {
				err = fmt.Errorf("%w: %s=%q: %v", ErrUsage, key, v, e)
			}
		}
	})
	return err
}

// Parse applies the environment defaults, then the arguments, and
// returns the positional arguments; flags may come before or after them.
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	if err := ApplyEnv(fs); err != nil {
		return nil, err
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, ErrReported{err}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// NewFlagSet makes a flag set whose --help explains the command.
func NewFlagSet(name, usage string, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprintf(out, "%s\nFlags (environment SKILLMATCH_<FLAG> sets a default):\n", usage)
		fs.PrintDefaults()
	}
	return fs
}

// ListFlag is a repeatable or comma-separated string flag.
type ListFlag []string

func (l *ListFlag) String() string { return strings.Join(*l, ",") }

// Set implements flag.Value.
func (l *ListFlag) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}
