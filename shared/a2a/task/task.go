// Package task defines the task a caller submits to skillmatch: a message
// shaped like an A2A Message, the caller's context and explicit constraints.
package task

import (
	"encoding/json"
	"strings"
)

// Task is one request to match.
type Task struct {
	ID      string  `json:"id"`
	Message Message `json:"message"`
	// History holds earlier turns of the conversation, oldest first.
	History     []Message   `json:"history,omitempty"`
	Caller      Caller      `json:"caller"`
	Constraints Constraints `json:"constraints"`
}

// Message is the subset of an A2A Message that matching reads.
type Message struct {
	MessageID string `json:"messageId,omitempty"`
	ContextID string `json:"contextId,omitempty"`
	// TaskID (A2A's Message.taskId) names the skillmatch task this message
	// continues: a follow-up goes to that task's agent and skill. It is the
	// id of an earlier skillmatch task, not the agent's own task id, which
	// skillmatch never sees. Only the task's own message carries it.
	TaskID string `json:"taskId,omitempty"`
	Role   string `json:"role,omitempty"`
	Parts  []Part `json:"parts"`
	// Metadata is the A2A message metadata, a JSON object passed on to the
	// chosen agent; skillmatch's own entries (its "skillmatch" entry and
	// the skill-routing entry) replace any the caller put there. Only the
	// task's own message carries it.
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// Part is one part of a message: exactly one of Text, File or Data is set.
// An empty text part is a Part with none set. It reads the A2A v1.0 and v0.3
// JSON shapes (see part.go) and writes the v1.0 one.
type Part struct {
	Text string          `json:"text,omitempty"`
	File *File           `json:"file,omitempty"`
	Data json.RawMessage `json:"data,omitempty"`
}

// File is an attached file. Matching reads only its name and media type;
// its content, Bytes (at most Limits.MaxFileBytes over a task, base64 in
// JSON) or URI, is passed on in the delegation's A2A request.
type File struct {
	Name      string `json:"name,omitempty"`
	MediaType string `json:"mediaType,omitempty"`
	URI       string `json:"uri,omitempty"`
	Bytes     []byte `json:"bytes,omitempty"`
}

// Caller says who asks and what they may see.
type Caller struct {
	ID     string `json:"id,omitempty"`
	Tenant string `json:"tenant,omitempty"`
	// Scopes nil means "not filtered on security"; an empty, non-nil list
	// means a caller with no scopes.
	Scopes    []string `json:"scopes"`
	DataClass string   `json:"dataClass,omitempty"`
}

// Constraints are explicit requirements beyond the message text.
type Constraints struct {
	AcceptedOutputTypes []string `json:"acceptedOutputTypes,omitempty"`
	Streaming           *bool    `json:"streaming,omitempty"`
	// SkillID names the skill the caller wants, as "<agentId>/<skillId>"
	// (the form of a decision's key): the task goes to that skill or is
	// refused, never elsewhere. On a follow-up (Message.TaskID) it must be
	// the continued task's skill.
	SkillID string `json:"skillId,omitempty"`
}

// Skill splits SkillID into the agent id and the skill id; ok is false
// when no skill is named.
func (c Constraints) Skill() (agentID, skillID string, ok bool) {
	return strings.Cut(c.SkillID, "/")
}
