package app

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/a2a/grants"
	"github.com/skillmatch/skillmatch/shared/a2a/identity"
	"github.com/skillmatch/skillmatch/shared/console"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/pipeline"
)

// ConsoleFlags are the console's own flags, on `skillmatch run` and on
// the console service.
type ConsoleFlags struct {
	Listen          string
	Auth            string
	TLSCert, TLSKey string
}

// Register defines --console-listen (default def; "" is off) and --console-auth.
func (c *ConsoleFlags) Register(fs *flag.FlagSet, def string) {
	fs.StringVar(&c.Listen, "console-listen", def, "serve the read-only operator console on this address (a bare port or :port is on loopback);\n"+
		"empty: off")
	fs.StringVar(&c.Auth, "console-auth", "", "console auth file: the operators who may look, by bearer token or user and password\n"+
		"(see README, Console); without it the console only listens on loopback, open to whoever reaches it")
	fs.StringVar(&c.TLSCert, "console-tls-cert", "", "serve the console over HTTPS with this certificate (PEM; with --console-tls-key)")
	fs.StringVar(&c.TLSKey, "console-tls-key", "", "the key of --console-tls-cert (PEM)")
}

// consoleFiles is what the files the console's flags name hold.
type consoleFiles struct {
	auth    *console.Auth
	grants  *grants.Grants
	callers *identity.Directory
	cert    *tls.Certificate // --console-tls-cert and --console-tls-key, nil without
}

// files reads the console's auth file, the grants file it shows under
// and its certificate, and checks its address against its auth, so that
// a command stops on a bad one before it starts anything; callers is the
// directory --callers gave.
func (c *ConsoleFlags) files(grantsFile string, callers *identity.Directory) (consoleFiles, error) {
	f := consoleFiles{callers: callers}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return f, fmt.Errorf("%w: --console-tls-cert and --console-tls-key go together", ErrUsage)
	}
	var err error
	if c.Auth != "" {
		if f.auth, err = console.LoadAuth(c.Auth); err != nil {
			return f, BadInput(fmt.Errorf("--console-auth: %w", err))
		}
	}
	if grantsFile != "" {
		if f.grants, err = grants.Load(grantsFile); err != nil {
			return f, BadInput(err)
		}
	}
	if c.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(c.TLSCert, c.TLSKey)
		if err != nil {
			return f, BadInput(fmt.Errorf("--console-tls-cert: %w", err))
		}
		f.cert = &cert
	}
	if err := console.CheckAddr(c.Listen, f.auth); errors.Is(err, console.ErrOpenNonLoopback) {
		return f, fmt.Errorf("%w: --console-listen %s: %v; give --console-auth FILE", ErrUsage, c.Listen, err)
	} else if err != nil {
		return f, fmt.Errorf("%w: --console-listen: %v", ErrUsage, err)
	}
	return f, nil
}

// start serves the console on c.Listen over js, with what files read,
// until ctx ends; the returned stop ends its tail.
func (c *ConsoleFlags) start(ctx context.Context, js jetstream.JetStream, pf *PipelineFlags, files consoleFiles,
	matcher func() *match.Matcher, log *zap.Logger) (string, func(), error) {
	srv, err := console.New(ctx, console.Config{JS: js, Streams: pf.Streams, CatalogBucket: pf.CatalogBucket,
		ModelBucket: pf.ModelBucket, Matcher: matcher, Grants: files.grants, Callers: files.callers, Auth: files.auth,
		Log: log.With(zap.String("component", "console"))})
	if err != nil {
		return "", nil, err
	}
	var opts []console.ServeOption
	if files.cert != nil {
		opts = append(opts, console.WithCertificate(*files.cert))
	}
	addr, err := srv.Serve(ctx, c.Listen, opts...)
	if errors.Is(err, console.ErrOpenNonLoopback) {
		srv.Stop()
		return "", nil, fmt.Errorf("%w: --console-listen %s: %v; give --console-auth FILE", ErrUsage, c.Listen, err)
	}
	if err != nil {
		srv.Stop()
		return "", nil, err
	}
	who := "open (loopback, no --console-auth)"
	if files.auth != nil {
		who = "operators of " + c.Auth
	}
	scheme := "http"
	if files.cert != nil {
		scheme = "https"
	}
	log.Info("console", zap.String("url", scheme+"://"+addr+"/"), zap.String("auth", who))
	return addr, srv.Stop, nil
}

// ConsoleServiceFlags are the flags of the console service.
type ConsoleServiceFlags struct {
	Console  ConsoleFlags
	Matcher  MatcherFlags
	Pipeline PipelineFlags
	NATS     NATSFlags
	Version  bool
}

// NewConsoleServiceFlags defines the console service's flags.
func NewConsoleServiceFlags(out io.Writer) (*flag.FlagSet, *ConsoleServiceFlags) {
	c := &ConsoleServiceFlags{}
	fs := NewFlagSet("skillmatch-console", "Usage: skillmatch-console [--nats URL] [--console-listen 127.0.0.1:8090] [--console-auth FILE]\n\n"+
		"Serves the read-only operator console of a skillmatch deployment: the catalog with each agent's\n"+
		"state, the live decisions with their explain traces, the dead letters and the calibration. It\n"+
		"reads the streams and buckets (deploy/nats has a read-only console user) and builds a matcher\n"+
		"from the catalog bucket to explain decisions: give it the matcher flags the stages have. Every\n"+
		"flag can be set from the environment as SKILLMATCH_<FLAG> (NATS_URL also sets --nats).\n", out)
	c.NATS.Register(fs)
	fs.DurationVar(&c.NATS.ConnectTimeout, "timeout", 5*time.Second, "connect timeout")
	c.Console.Register(fs, "127.0.0.1:8090")
	c.Matcher.Register(fs)
	c.Pipeline.Register(fs)
	fs.BoolVar(&c.Version, "version", false, "print the version and exit")
	return fs, c
}

// ConsoleMain runs the console service until SIGINT or SIGTERM and returns
// the exit code, as ServiceMain does for a stage.
func ConsoleMain(args []string, r Retrieval) int {
	return consoleMain(args, os.Stdout, os.Stderr, func(ctx context.Context, args []string, stderr io.Writer) error {
		return RunConsole(ctx, args, stderr, r)
	})
}

func consoleMain(args []string, stdout, stderr io.Writer, run func(context.Context, []string, io.Writer) error) int {
	fs, cf := NewConsoleServiceFlags(io.Discard)
	return binaryMain("skillmatch-console", fs, &cf.Version, args, stdout, stderr, func(ctx context.Context) error {
		return run(ctx, args, stderr)
	})
}

// RunConsole runs the console service until ctx ends. Its matcher
// recomputes a decision's shortlist for the trace, so it searches with r
// (app/retrieval's stack); with nil the trace shows the requirement and
// the filters only.
func RunConsole(ctx context.Context, args []string, stderr io.Writer, r Retrieval) error {
	fs, cf := NewConsoleServiceFlags(stderr)
	cf.Matcher.Retrieval = r
	pos, err := Parse(fs, args)
	if h := (*HelpError)(nil); errors.As(err, &h) {
		fmt.Fprint(stderr, h.Text)
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: unexpected argument %q", ErrUsage, pos[0])
	}
	if cf.Console.Listen == "" {
		return fmt.Errorf("%w: --console-listen is empty: the console service has nothing to do", ErrUsage)
	}
	log, err := NewLogger(cf.Pipeline.LogLevel, stderr, LogJSON)
	if err != nil {
		return err
	}
	defer log.Sync() //nolint:errcheck
	log = log.With(zap.String("service", "console"))
	build, err := cf.Matcher.Builder(log)
	if err != nil {
		return err
	}
	callers, err := loadCallers(cf.Pipeline.Callers)
	if err != nil {
		return err
	}
	files, err := cf.Console.files(cf.Matcher.Grants, callers)
	if err != nil {
		return err
	}
	nc, js, err := cf.NATS.Connect("skillmatch-console", log)
	if err != nil {
		return err
	}
	defer nc.Close()
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	// A matcher of its own, rebuilt as the catalog changes, explains
	// decisions and answers "why excluded".
	snaps := pipeline.NewSnapshots(nil)
	w, err := watchCatalog(sctx, js, snaps, build, &cf.Matcher, cf.Pipeline, log)
	if err != nil {
		return err
	}
	defer w.Stop()
	_, stopConsole, err := cf.Console.start(ctx, js, &cf.Pipeline, files, snaps.Matcher, log)
	if err != nil {
		return err
	}
	defer stopConsole()
	<-ctx.Done()
	log.Info("stopping")
	return nil
}
