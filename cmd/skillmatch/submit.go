package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/skillmatch/skillmatch/shared/natsbox"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/task"
)

func cmdSubmit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("submit", `submit "task text" [--file x.pdf] [--accept application/json] [--scopes a,b] [--nats URL]`,
		"Publishes a task to a running pipeline (`skillmatch run`, or the services) and prints its\n"+
			"decision; a task the pipeline rejects prints the dead letter's reason.", stderr)
	var files, accept, history listFlag
	fs.Var(&files, "file", "attached file (repeatable); its media type comes from the extension")
	fs.Var(&accept, "accept", "accepted output media types (comma-separated or repeated)")
	var scopes scopesFlag
	fs.Var(&scopes, "scopes", `caller scopes (comma-separated); "" means a caller with no scopes; unset means no security filter`)
	fs.Var(&history, "history", "an earlier user turn (repeatable, oldest first)")
	dataClass := fs.String("data-class", "", "data class of the task: public, internal, confidential, restricted")
	streaming := fs.Bool("streaming", false, "the caller needs streaming")
	id := fs.String("id", "", "task id (default: a new random id); a repeated id returns the earlier decision")
	natsURL := fs.String("nats", "nats://"+natsbox.DefaultListen, "NATS server URL")
	creds := fs.String("creds", "", "NATS credentials file")
	nkey := fs.String("nkey", "", "NATS NKey seed file")
	tlsCA := fs.String("tls-ca", "", "CA file to trust for the NATS server's TLS certificate")
	tlsCert := fs.String("tls-cert", "", "client certificate file (mutual TLS)")
	tlsKey := fs.String("tls-key", "", "client key file (mutual TLS)")
	timeout := fs.Duration("timeout", 15*time.Second, "how long to wait for the decision")
	asJSON := fs.Bool("json", false, "print the decision message as JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return fmt.Errorf("%w: submit needs the task text", errUsage)
	}
	t := &task.Task{ID: *id, Message: task.Message{Role: "user", Parts: []task.Part{{Text: strings.Join(pos, " ")}}}}
	if t.ID == "" {
		var b [6]byte
		_, _ = rand.Read(b[:])
		t.ID = "cli-" + time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
	}
	for _, f := range files {
		t.Message.Parts = append(t.Message.Parts, task.Part{File: &task.File{Name: filepath.Base(f), MediaType: mediaTypeOf(f)}})
	}
	for _, h := range history {
		t.History = append(t.History, task.Message{Role: "user", Parts: []task.Part{{Text: h}}})
	}
	if scopes.set {
		t.Caller.Scopes = scopes.scopes
	}
	t.Caller.DataClass = *dataClass
	t.Constraints.AcceptedOutputTypes = accept
	if *streaming {
		t.Constraints.Streaming = streaming
	}

	// Check it here too, for a quick answer; the pipeline checks again.
	raw, err := json.Marshal(t)
	if err != nil {
		return err
	}
	if _, err := task.Parse(raw); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	nc, js, err := pipeline.Connect(pipeline.ConnectConfig{URL: *natsURL, Name: "skillmatch submit", Creds: *creds,
		NKey: *nkey, TLSCA: *tlsCA, TLSCert: *tlsCert, TLSKey: *tlsKey}, nil)
	if err != nil {
		return err
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	a, err := pipeline.Submit(ctx, js, pipeline.Streams{}, t)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if a.DeadLetter != nil {
			return enc.Encode(a.DeadLetter)
		}
		return enc.Encode(a.Decision)
	}
	if dl := a.DeadLetter; dl != nil {
		return fmt.Errorf("task %s rejected by the %s: %s", t.ID, dl.Stage, dl.Reason)
	}
	d := a.Decision
	fmt.Fprintf(stdout, "task %s, decision %s\n", d.TaskID, d.DecisionID)
	printDecision(stdout, d.Decision)
	if r := d.Request; r != nil {
		fmt.Fprintf(stdout, "A2A request: %s %s (%s)\n", r.Method, r.URL, r.ProtocolBinding)
		if r.Note != "" {
			fmt.Fprintf(stdout, "note: %s\n", r.Note)
		}
	}
	return nil
}
