package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/app"
	"github.com/skillmatch/skillmatch/shared/discovery/discover"
)

// cmdCardsDiscover is "skillmatch cards discover": it fetches agents'
// cards from their well-known URLs and prints a summary, or writes them
// into a catalog folder.
func cmdCardsDiscover(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("cards discover", "cards discover URL... [--allow-private] [--out DIR] [--timeout 10s] [--agent-credentials FILE]",
		"Fetches each agent's card from URL/.well-known/agent-card.json (or the legacy\n"+
			"URL/.well-known/agent.json) and prints one line per agent: id, name, version and\n"+
			"number of skills, or the error. With --out the cards are written as DIR/<id>.json,\n"+
			"ready for a catalog folder; the id is derived from the URL's host, port and path.\n"+
			"Fetching is conservative: http(s) only, no credentials in URLs, responses capped at\n"+
			"512 KiB, redirects only to the same host, and private or loopback addresses refused\n"+
			"unless --allow-private. With --agent-credentials, an agent whose card advertises an\n"+
			"authenticated extended card (capabilities.extendedAgentCard) is asked for it.", stderr)
	allowPrivate := fs.Bool("allow-private", false, "allow private, loopback and link-local addresses")
	out := fs.String("out", "", "write each card as DIR/<id>.json instead of printing a summary")
	timeout := fs.Duration("timeout", discover.DefaultTimeout, "total time allowed per agent")
	var creds app.CredentialsFlag
	creds.Register(fs)
	var asJSON jsonFlag
	asJSON.Register(fs, "print one entry per agent (the errors too)")
	urls, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(urls) == 0 {
		return fmt.Errorf("%w: cards discover needs at least one agent URL", errUsage)
	}
	if *timeout <= 0 {
		return fmt.Errorf("%w: --timeout must be positive", errUsage)
	}
	if *out != "" {
		// A path that cannot be a folder is the argument's fault, said
		// before any agent is asked; the folder itself is made with the
		// first card written, so that a run that fetches none leaves none.
		if err := checkFolder(*out); err != nil {
			return fmt.Errorf("%w: --out %s: %v", errUsage, *out, err)
		}
	}

	opts := []discover.Option{discover.WithAllowPrivate(*allowPrivate), discover.WithTimeout(*timeout)}
	if opts, err = creds.Add(opts); err != nil {
		return err
	}
	f := discover.NewFetcher(opts...)
	defer f.CloseIdleConnections()
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	var failed failures
	doc := discovered{Agents: []discoveredAgent{}}
	for _, u := range urls {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		got, err := f.Fetch(ctx, discover.Agent{URL: u}, nil)
		if err == nil && *out != "" {
			err = writeCard(*out, got)
		}
		if asJSON.On() {
			doc.add(u, *out, got, err)
		}
		if err != nil {
			// A URL that is no agent URL, or an address the policy
			// refuses, is the argument's fault; a fetch that failed is not.
			failed.add(errors.Is(err, discover.ErrBadURL) || errors.Is(err, discover.ErrAddressRefused))
			if !asJSON.On() {
				tw.Flush()
				fmt.Fprintf(stderr, "%s\terror: %v\n", u, err)
			}
			continue
		}
		if asJSON.On() {
			continue
		}
		note := ""
		switch {
		case got.Extended:
			note = "\t(extended card)"
		case got.Legacy:
			note = "\t(legacy agent.json)"
		}
		if *out != "" {
			note += "\t" + filepath.Join(*out, got.ID+".json")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d skills%s\n", got.ID, got.Card.Name, orDash(got.Card.Version), len(got.Card.Skills), note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if asJSON.On() {
		if err := asJSON.Write(stdout, doc); err != nil {
			return err
		}
	}
	return failed.err(fmt.Sprintf("of %d agents failed", len(urls)))
}

// discovered is `cards discover --json`: an entry per URL, in order.
type discovered struct {
	Agents []discoveredAgent `json:"agents"`
}

type discoveredAgent struct {
	URL      string `json:"url"`
	ID       string `json:"id,omitempty"`
	Name     string `json:"name,omitempty"`
	Version  string `json:"version,omitempty"`
	Skills   int    `json:"skills"`
	Legacy   bool   `json:"legacy,omitempty"`
	Extended bool   `json:"extended,omitempty"`
	File     string `json:"file,omitempty"`
	Error    string `json:"error,omitempty"`
}

func (d *discovered) add(url, dir string, got *discover.Fetched, err error) {
	a := discoveredAgent{URL: url}
	if err != nil {
		a.Error = err.Error()
	} else {
		a.ID, a.Name, a.Version, a.Skills = got.ID, got.Card.Name, got.Card.Version, len(got.Card.Skills)
		a.Legacy, a.Extended = got.Legacy, got.Extended
		if dir != "" {
			a.File = filepath.Join(dir, got.ID+".json")
		}
	}
	d.Agents = append(d.Agents, a)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// checkFolder says whether dir is a folder or could be made one: the
// nearest part of it that exists is a folder.
func checkFolder(dir string) error {
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		switch {
		case err == nil && fi.IsDir():
			return nil
		case err == nil:
			return fmt.Errorf("%s is a file, not a folder", p)
		case !errors.Is(err, fs.ErrNotExist):
			return err
		case filepath.Dir(p) == p:
			return nil
		}
	}
}

// writeCard writes the card as the agent served it, indented, through a
// temporary file so a reader never sees half a card; dir is made if it
// is missing.
func writeCard(dir string, got *discover.Fetched) error {
	name := got.ID + ".json"
	if name == catalog.RegistryFile {
		return fmt.Errorf("id %q would overwrite the catalog's %s", got.ID, catalog.RegistryFile)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, got.Raw, "", "  "); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	buf.WriteByte('\n')
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+got.ID+"-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, name))
}
