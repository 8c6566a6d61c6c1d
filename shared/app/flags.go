// Package app is the composition root of skillmatch: it turns flags and
// SKILLMATCH_* environment (each flag defined once, here) into matchers,
// pipeline stages, a group of stages or the all-in-one `run`. The
// skillmatch command and every service main call it; nothing else builds a
// matcher.
package app

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// ErrUsage marks a command-line error: the process exits 2.
var ErrUsage = errors.New("usage")

// ErrBadInput marks input the command cannot use — a golden set, card
// folder or registry that does not parse or holds nothing usable: the
// process exits 2, as for a usage error, with the error alone (the flags
// were right; the files are not).
var ErrBadInput = errors.New("bad input")

// BadInput marks err as ErrBadInput, keeping its message.
func BadInput(err error) error { return badInput{err} }

type badInput struct{ error }

func (e badInput) Unwrap() error      { return e.error }
func (badInput) Is(target error) bool { return target == ErrBadInput }

// HelpError is --help (or -h) on a command line: the caller prints Text,
// the command's whole help, on stdout and exits 0. Parse returns it rather
// than printing so that help goes to stdout whatever writer the flag set
// was made with.
type HelpError struct{ Text string }

func (e *HelpError) Error() string { return "help requested" }

// Unwrap lets errors.Is(err, flag.ErrHelp) keep working.
func (e *HelpError) Unwrap() error { return flag.ErrHelp }

// UsageError is a bad flag, value or argument found by Parse. Like the
// nats CLI, skillmatch reports it in two short lines (the error, then
// where help is) instead of the flag package's whole flag dump.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap makes a UsageError both ErrUsage and its cause.
func (e *UsageError) Unwrap() []error { return []error{ErrUsage, e.Err} }

// ReportError writes a command-line error the way every skillmatch binary
// does (cmd is "skillmatch match", "skillmatch-retriever", ...) and
// returns the exit code: 0 after printing help on stdout, 2 for a usage
// error (two lines on stderr) or bad input (one), 1 otherwise.
func ReportError(cmd string, err error, stdout, stderr io.Writer) int {
	var help *HelpError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &help):
		fmt.Fprint(stdout, help.Text)
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, ErrUsage):
		// "usage: " is what the %w of ErrUsage adds; the second line says it.
		fmt.Fprintf(stderr, "%s: %s\nsee '%s --help'\n", cmd, strings.TrimPrefix(err.Error(), ErrUsage.Error()+": "), cmd)
		return 2
	case errors.Is(err, ErrBadInput):
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return 2
	default:
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return 1
	}
}

// EnvKey is the environment variable that sets a flag's default.
func EnvKey(flagName string) string {
	return "SKILLMATCH_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// alias is another name of a flag: it sets the same value, and the
// environment sets it only through the flag it names (ApplyEnv).
type alias struct{ flag.Value }

// String is the value's, "" for the zero alias flag.PrintDefaults makes.
func (a *alias) String() string {
	if a == nil || a.Value == nil {
		return ""
	}
	return a.Value.String()
}

// registerAlias defines name as another name of the flag of, already
// defined.
func registerAlias(fs *flag.FlagSet, name, of, usage string) {
	fs.Var(&alias{fs.Lookup(of).Value}, name, usage)
}

// natsCLIEnv are the nats CLI's variables for flags of the same meaning,
// read when SKILLMATCH_<FLAG> is unset.
var natsCLIEnv = map[string]string{"nats": "NATS_URL", "context": "NATS_CONTEXT"}

// ApplyEnv sets flags from SKILLMATCH_<FLAG>, and --nats and --context
// from NATS_URL and NATS_CONTEXT (the nats CLI's variables) when theirs
// are unset. A flag set from the environment counts as given (fs.Visit
// sees it); the command line still overrides it.
func ApplyEnv(fs *flag.FlagSet) error {
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "version" {
			return // an action, not a setting: SKILLMATCH_VERSION may well be an image tag
		}
		if _, ok := f.Value.(*alias); ok {
			return // another name of a flag, which the environment sets
		}
		key := EnvKey(f.Name)
		v, ok := os.LookupEnv(key)
		if alt := natsCLIEnv[f.Name]; !ok && alt != "" {
			key = alt
			v, ok = os.LookupEnv(key)
		}
		if ok {
			if e := fs.Set(f.Name, v); e != nil && err == nil {
				err = fmt.Errorf("%w: %s=%q: %v", ErrUsage, key, v, e)
			}
		}
	})
	return err
}

// Parse applies the environment defaults, then the arguments, and
// returns the positional arguments; flags may come before or after them.
// It prints nothing: --help comes back as a *HelpError, a bad flag as a
// *UsageError (see ReportError).
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	if err := ApplyEnv(fs); err != nil {
		return nil, err
	}
	// The flag package prints the error and the whole usage on a bad
	// flag; silence it for the parse and report in two lines instead.
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	defer func() { fs.SetOutput(out); fs.Usage = usage }()
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				var b strings.Builder
				fs.SetOutput(&b)
				usage()
				return nil, &HelpError{Text: b.String()}
			}
			return nil, &UsageError{Err: err}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// NewFlagSet makes a flag set whose --help explains the command. out is
// where an explicit fs.Usage() call writes; Parse returns the help instead.
func NewFlagSet(name, usage string, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "%s\nFlags (environment SKILLMATCH_<FLAG> sets a default):\n", usage)
		fs.PrintDefaults()
	}
	return fs
}

// JSONFlag is a --json flag: bare --json (or --json=-) means stdout, and
// --json=FILE writes FILE; a file named "-" is never created. It is a
// boolean flag so that "--json" never swallows the next argument.
type JSONFlag struct{ Path string }

func (j *JSONFlag) String() string { return j.Path }

// IsBoolFlag lets --json stand alone.
func (j *JSONFlag) IsBoolFlag() bool { return true }

// Set implements flag.Value.
func (j *JSONFlag) Set(v string) error {
	switch v {
	case "true", "-":
		j.Path = "-"
	case "false", "":
		j.Path = ""
	default:
		j.Path = v
	}
	return nil
}

// On says whether JSON was asked for.
func (j *JSONFlag) On() bool { return j.Path != "" }

// Register defines the flag as --json.
func (j *JSONFlag) Register(fs *flag.FlagSet, what string) {
	fs.Var(j, "json", what+" as one JSON document on stdout (--json or --json=-), or in a file (--json=FILE)")
}

// Write writes v as indented JSON to stdout or the file.
func (j *JSONFlag) Write(stdout io.Writer, v any) error { return WriteJSON(j.Path, stdout, v) }

// WriteJSON writes v as indented JSON to path, where "-" is stdout.
func WriteJSON(path string, stdout io.Writer, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if path == "-" {
		_, err = stdout.Write(data)
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// RepeatFlag is a repeatable string flag whose every use is one value,
// commas and all: free text such as a conversation's earlier turn.
type RepeatFlag []string

func (r *RepeatFlag) String() string { return strings.Join(*r, " | ") }

// Set implements flag.Value.
func (r *RepeatFlag) Set(v string) error {
	*r = append(*r, v)
	return nil
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
