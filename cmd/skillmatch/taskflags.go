package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
)

// taskFlags are the flags that describe a task, shared by match and submit.
type taskFlags struct {
	files, accept, history listFlag
	scopes                 scopesFlag
	dataClass              *string
	streaming              *bool
	continues, skill       *string
	caller, tenant         *string
}

func newTaskFlags(fs *flag.FlagSet) *taskFlags {
	tf := &taskFlags{}
	fs.Var(&tf.files, "file", "attached file (repeatable); its media type comes from the extension")
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
	t := tf.task(id, text)
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

// task builds the task the flags describe around the text.
func (tf *taskFlags) task(id string, text []string) *task.Task {
	t := &task.Task{ID: id, Message: task.Message{Role: "user", Parts: []task.Part{{Text: strings.Join(text, " ")}}}}
	for _, f := range tf.files {
		// The extractor reads the media type from the extension.
		t.Message.Parts = append(t.Message.Parts, task.Part{File: &task.File{Name: filepath.Base(f)}})
	}
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
