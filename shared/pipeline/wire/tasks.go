package wire

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"github.com/skillmatch/skillmatch/shared/a2a/identity"
	"github.com/skillmatch/skillmatch/shared/match/settle"
)

// BucketTasks is the JetStream KV bucket of delegated tasks: key =
// TaskRecordKey(task id), value = a TaskRecord. The decider writes one per
// delegation and reads it back when a later message continues the task
// (task.Message.TaskID), so that the follow-up keeps the task's agent,
// skill, context and caller. Entries expire with the bucket's TTL.
const BucketTasks = "skillmatch_tasks"

// TaskRecord is what the decider remembers of a delegation.
type TaskRecord struct {
	V          int    `json:"v"`
	TaskID     string `json:"taskId"`
	DecisionID string `json:"decisionId"`
	AgentID    string `json:"agentId"`
	SkillID    string `json:"skillId"`
	// ContextID is the context id the delegation's A2A request carried;
	// empty when it carried none (the agent then chose one, which
	// skillmatch does not see).
	ContextID string `json:"contextId,omitempty"`
	// CallerID is the caller that may continue the task.
	CallerID string `json:"callerId,omitempty"`
	// Need is the start of the task's request, which a trusted caller's
	// verified success may teach the catalog as an example of the skill.
	Need string `json:"need,omitempty"`
	// At is informative only.
	At time.Time `json:"at,omitzero"`
}

// SameDelegation reports whether two records say the same thing: the
// same task delegated to the same skill, in the same context, for the
// same caller (At and V aside).
func (r TaskRecord) SameDelegation(o TaskRecord) bool { return r.Record().SameDelegation(o.Record()) }

// NewTaskRecord is the bucket value of a settle.Record.
func NewTaskRecord(r settle.Record) *TaskRecord {
	return &TaskRecord{V: Version, TaskID: r.TaskID, DecisionID: r.DecisionID, AgentID: r.AgentID, SkillID: r.SkillID,
		ContextID: r.ContextID, CallerID: r.CallerID, Need: r.Need, At: r.At}
}

// Record is the settle.Record a bucket value holds.
func (r TaskRecord) Record() settle.Record {
	return settle.Record{TaskID: r.TaskID, DecisionID: r.DecisionID, AgentID: r.AgentID, SkillID: r.SkillID,
		ContextID: r.ContextID, CallerID: r.CallerID, Need: r.Need, At: r.At}
}

// TaskRecordKey is the bucket key of a caller's task: task ids are the
// callers' own, so each caller has its own. Task ids may hold ':', which
// KV keys may not, and '.' separates key tokens, so the key is
// "<caller token>/<task id>" in unpadded base64url: always a valid key,
// one per caller and id.
func TaskRecordKey(caller, taskID string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(identity.Token(caller) + "/" + taskID))
}

// DecodeTaskRecord reads and checks a bucket value.
func DecodeTaskRecord(data []byte) (*TaskRecord, error) {
	var r TaskRecord
	if err := decode(data, "task record", &r); err != nil {
		return nil, err
	}
	if err := checkTaskID("task record", r.TaskID); err != nil {
		return nil, err
	}
	if r.AgentID == "" || r.SkillID == "" {
		return nil, fmt.Errorf("%w: task record %s: no agentId or skillId", ErrBadMessage, r.TaskID)
	}
	return &r, nil
}

// BucketTaskIDs is the JetStream KV bucket where earlier versions kept
// the task ids in use: key = TaskRecordKey(caller, task id), value = a
// TaskIDRecord, kept as long as the streams kept a task's messages. Their
// decider created the record with the task's one decision before
// publishing it, a second synced write per task; the decision, published
// once with its task's fingerprint and submission in its headers, is now
// the record, and the bucket is only read, for the tasks decided before.
const BucketTaskIDs = "skillmatch_taskids"

// TaskIDRecord is what the pipeline remembers of a caller's task id: read
// from its decision's headers, or from the task-id bucket of earlier
// versions.
type TaskIDRecord struct {
	V        int    `json:"v"`
	TaskID   string `json:"taskId"`
	CallerID string `json:"callerId,omitempty"`
	// Fingerprint is the hash of the task decided under the id, as its
	// caller submitted it; Seq is that submission's stream sequence.
	// Both are empty for a task submitted before records existed.
	Fingerprint string `json:"fingerprint,omitempty"`
	Seq         uint64 `json:"seq,omitempty"`
	// Decision is the task's decision message, exactly as published
	// (nil when none is: a claim an earlier version's extractor wrote).
	Decision *StoredMessage `json:"decision,omitempty"`
}

// StoredMessage is a message as published: subject, Nats-Msg-Id and data.
type StoredMessage struct {
	Subject string          `json:"subject"`
	MsgID   string          `json:"msgId"`
	Data    json.RawMessage `json:"data"`
}

// DecodeTaskIDRecord reads and checks a bucket value.
func DecodeTaskIDRecord(data []byte) (*TaskIDRecord, error) {
	var r TaskIDRecord
	if err := decode(data, "task id record", &r); err != nil {
		return nil, err
	}
	if err := checkTaskID("task id record", r.TaskID); err != nil {
		return nil, err
	}
	if d := r.Decision; d != nil && (d.Subject == "" || d.MsgID == "" || len(d.Data) == 0) {
		return nil, fmt.Errorf("%w: task id record %s: incomplete decision", ErrBadMessage, r.TaskID)
	}
	return &r, nil
}
