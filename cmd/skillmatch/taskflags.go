package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/skillmatch/skillmatch/shared/a2a/mediatype"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
)

// taskFlags are the flags that describe a task, shared by match and submit.
type taskFlags struct {
	files, accept    listFlag
	history          repeatFlag // a turn is free text: its commas split nothing
	scopes           scopesFlag
	dataClass        *string
	streaming        *bool
	continues, skill *string
	caller, tenant   *string
}

func newTaskFlags(fs *flag.FlagSet) *taskFlags {
	tf := &taskFlags{}
	fs.Var(&tf.files, "file", "attached file (repeatable): a local file, sent to the agent as bytes (at most "+sizeOf(int64(task.DefaultLimits.MaxFileBytes))+"\n"+
		"over the task), or a URL (https://...) the agent fetches; its media type comes from the extension")
	fs.Var(&tf.accept, "accept", "accepted output media types (comma-separated or repeated)")
	fs.Var(&tf.scopes, "scopes", `caller scopes (comma-separated); "" means a caller with no scopes; unset means no security filter`)
	fs.Var(&tf.history, "history", "an earlier user turn (repeatable, oldest first)")
	tf.dataClass = fs.String("data-class", "", "data class of the task: public, internal, confidential, restricted")
	tf.streaming = fs.Bool("streaming", false, "the caller needs streaming")
	tf.caller = fs.String("caller", "", "caller id: what --grants restricts, and who may follow up a task")
	tf.tenant = fs.String("tenant", "", "caller's tenant (passed on as the A2A request's tenant)")
	tf.continues = fs.String("continue", "", "id of an earlier delegated task this message follows up (message.taskId): it goes to that task's\n"+
		"agent and skill, in its context, for the same caller only, or is refused")
	tf.skill = fs.String("skill", "", "the skill to send to, as AGENT/SKILL (constraints.skillId): the task goes there or is refused;\n"+
		"on a follow-up it must be the task's own skill")
	return tf
}

// validTask builds the task the flags describe around the text, with a new
// random id when id is empty, and checks it as the pipeline's extractor
// does: a bad field is a usage error naming it.
func (tf *taskFlags) validTask(id string, text []string) (*task.Task, error) {
	for i, h := range tf.history {
		if strings.TrimSpace(h) == "" {
			return nil, fmt.Errorf("%w: --history %d is empty: give each earlier turn its text", errUsage, i+1)
		}
	}
	t := tf.task(id, text)
	left := task.DefaultLimits.MaxFileBytes
	for _, f := range tf.files {
		file, err := attach(f, &left)
		if err != nil {
			return nil, fmt.Errorf("%w: --file %s", errUsage, err)
		}
		t.Message.Parts = append(t.Message.Parts, task.Part{File: file})
	}
	if t.ID == "" {
		t.ID = newTaskID()
	}
	raw, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	if _, err := task.Parse(raw); err != nil {
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	return t, nil
}

// newTaskID is a fresh task id: the time and 48 random bits.
func newTaskID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "cli-" + time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
}

// defaultFollowupsFile is where `match` records its delegations.
func defaultFollowupsFile() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "skillmatch", "followups.json")
}

// task builds the task the flags describe around the text, without its
// files (validTask attaches them).
func (tf *taskFlags) task(id string, text []string) *task.Task {
	t := &task.Task{ID: id, Message: task.Message{Role: "user", Parts: []task.Part{{Text: strings.Join(text, " ")}}}}
	for _, h := range tf.history {
		t.History = append(t.History, task.Message{Role: "user", Parts: []task.Part{{Text: h}}})
	}
	if tf.scopes.set {
		t.Caller.Scopes = tf.scopes.scopes
	}
	t.Caller.DataClass = *tf.dataClass
	t.Caller.ID, t.Caller.Tenant = *tf.caller, *tf.tenant
	t.Constraints.AcceptedOutputTypes = tf.accept
	if *tf.streaming {
		t.Constraints.Streaming = tf.streaming
	}
	t.Message.TaskID = *tf.continues
	t.Constraints.SkillID = *tf.skill
	return t
}

// attach reads a --file value. A URL (https://host/a.pdf, any scheme with
// a host or an opaque part) is passed by reference for the agent to fetch;
// a local file is read and carried as bytes, out of left, the file bytes
// the task may still carry. A file that is missing, not a regular file or
// larger than what is left is refused with what to do instead.
func attach(arg string, left *int) (*task.File, error) {
	if u, err := url.Parse(arg); err == nil && len(u.Scheme) > 1 && (u.Host != "" || u.Opaque != "") {
		name := path.Base(u.Path)
		if name == "/" || name == "." {
			name = ""
		}
		f := &task.File{Name: name, MediaType: mediatype.OfName(name), URI: arg}
		if f.Name == "" && f.MediaType == "" {
			f.MediaType = "application/octet-stream" // a part needs one of the two
		}
		return f, nil
	}
	fi, err := os.Stat(arg)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: no such file; give a file that exists or a URL the agent can fetch", arg)
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s: not a regular file", arg)
	case fi.Size() > int64(*left):
		return nil, fmt.Errorf("%s: %s, over the %s of file bytes a task carries (%s left): put it where the agent can fetch it and pass the URL",
			arg, sizeOf(fi.Size()), sizeOf(int64(task.DefaultLimits.MaxFileBytes)), sizeOf(int64(*left)))
	}
	data, err := os.ReadFile(arg)
	if err != nil {
		return nil, err
	}
	if len(data) > *left { // grew since the stat
		return nil, fmt.Errorf("%s: over the %s of file bytes a task carries", arg, sizeOf(int64(task.DefaultLimits.MaxFileBytes)))
	}
	*left -= len(data)
	name := filepath.Base(arg)
	return &task.File{Name: name, MediaType: mediatype.OfName(name), Bytes: data}, nil
}

// sizeOf says a byte count the way people read it.
func sizeOf(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
