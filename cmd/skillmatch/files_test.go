package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/app"
	"github.com/skillmatch/skillmatch/shared/app/retrieval"
)

func TestAttach(t *testing.T) {
	dir := t.TempDir()
	pdf := writeFile(t, "invoice.pdf", []byte("%PDF-1.7 invoice"))
	big := writeFile(t, "scan.png", make([]byte, task.DefaultLimits.MaxFileBytes+1))
	half := writeFile(t, "half.bin", make([]byte, task.DefaultLimits.MaxFileBytes/2+1))
	tests := []struct {
		name, arg string
		want      *task.File
		err       string // substring
	}{
		{name: "local file as bytes", arg: pdf, want: &task.File{Name: "invoice.pdf", MediaType: "application/pdf", Bytes: []byte("%PDF-1.7 invoice")}},
		{name: "URL by reference", arg: "https://files.example.com/q3/po.csv?v=2",
			want: &task.File{Name: "po.csv", MediaType: "text/csv", URI: "https://files.example.com/q3/po.csv?v=2"}},
		{name: "URL without a name", arg: "https://files.example.com/",
			want: &task.File{MediaType: "application/octet-stream", URI: "https://files.example.com/"}},
		{name: "missing file", arg: filepath.Join(dir, "nope.pdf"), err: "no such file"},
		{name: "a folder", arg: dir, err: "not a regular file"},
		{name: "over the cap", arg: big, err: "pass the URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			left := task.DefaultLimits.MaxFileBytes
			got, err := attach(tt.arg, &left)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != tt.want.Name || got.MediaType != tt.want.MediaType || got.URI != tt.want.URI || !bytes.Equal(got.Bytes, tt.want.Bytes) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	// The cap is over the task: two files that fit alone do not together.
	left := task.DefaultLimits.MaxFileBytes
	if _, err := attach(half, &left); err != nil {
		t.Fatal(err)
	}
	if _, err := attach(half, &left); err == nil || !strings.Contains(err.Error(), "left") {
		t.Errorf("second half: %v", err)
	}
}

// A file the task cannot carry is a usage error before anything runs,
// for match and submit alike.
func TestFileFlagRefused(t *testing.T) {
	big := writeFile(t, "scan.png", make([]byte, task.DefaultLimits.MaxFileBytes+1))
	for _, args := range [][]string{
		{"match", "--cards", examplesDir, "describe this scan", "--file", big},
		{"match", "--cards", examplesDir, "summarise this", "--file", "no-such-file.pdf"},
		{"submit", "--nats", "nats://127.0.0.1:1", "describe this scan", "--file", big},
	} {
		code, _, stderr := runCmd(t, args...)
		if code != 2 || !strings.Contains(stderr, "--file ") || strings.Count(stderr, "\n") > 3 {
			t.Errorf("%v: exit %d, stderr:\n%s", args, code, stderr)
		}
	}
}

// `submit --file` carries the file's bytes through the pipeline into the
// delegation's A2A request.
func TestSubmitCarriesFile(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	fs, rf := retrieval.NewRunFlags(io.Discard)
	if err := fs.Parse([]string{"--data", t.TempDir(), "--nats-listen", "127.0.0.1:-1", "--cards", examplesDir}); err != nil {
		t.Fatal(err)
	}
	r, err := app.StartRun(ctx, rf, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Stop()
	content := []byte("%PDF-1.7 supplier invoice INV-0042, total 1,250.00 EUR")
	pdf := writeFile(t, "invoices.pdf", content)
	var out, errOut bytes.Buffer
	err = cmdSubmit(ctx, []string{"--nats", r.ClientURL, "--json", "--scopes", "finance.read", "--accept", "application/json", "--file", pdf,
		"reconcile these supplier invoices against the PO and send me a JSON summary"}, &out, &errOut)
	if err != nil {
		t.Fatalf("submit: %v\n%s", err, errOut.String())
	}
	var d struct {
		Action  string `json:"action"`
		Request *struct {
			Body json.RawMessage `json:"body"`
			Note string          `json:"note"`
		} `json:"request"`
	}
	if err := json.Unmarshal(out.Bytes(), &d); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if d.Action != "delegate" || d.Request == nil {
		t.Fatalf("no delegation: %s", out.String())
	}
	var body bytes.Buffer
	if err := json.Compact(&body, d.Request.Body); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(body.Bytes(), []byte(`"raw":"`+base64.StdEncoding.EncodeToString(content)+`","filename":"invoices.pdf","mediaType":"application/pdf"`)) || d.Request.Note != "" {
		t.Errorf("the request does not carry the file:\n%s\nnote %q", d.Request.Body, d.Request.Note)
	}
}
