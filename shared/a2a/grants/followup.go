package grants

import "errors"

// Errors of Followup. Their texts are what a caller is told.
var (
	// ErrSkillChange: a follow-up on a known task named another skill.
	ErrSkillChange = errors.New("task skill cannot be changed")
	// ErrSkillRequired: a skill-scoped caller sent without a skill; a
	// skill grant never authorises a generic send.
	ErrSkillRequired = errors.New("a skill-scoped caller must send with a skill")
)

// Followup decides the skill and the context of a message.
//
//   - taskSkill is the skill recorded on the known task the message
//     continues, or "" when it starts a new task.
//   - requestedSkill is the skill the caller named, or the matcher chose,
//     for this message ("" for none).
//   - callerScoped is Grants.Scoped for the caller and the agent.
//   - existingContext says the message names a context id of its own.
//
// A follow-up on a known task keeps the task's skill: naming no skill
// keeps it, naming the same one is fine, naming another is ErrSkillChange.
// It continues the task's context (newContext is false); checking that a
// supplied context id matches the task's, and that the task is known at
// all, is the caller's job.
//
// A new task keeps the requested skill. For a skill-scoped caller it must
// name one (ErrSkillRequired), and it always starts a new context
// (newContext is true, whatever existingContext says): the request must
// not carry the caller's context id, so that a scoped caller cannot join a
// conversation the agent holds outside the skill. The decider drops the
// context id (and referenceTaskIds) when newContext is true.
// Callers with whole-agent access keep their context (newContext false).
//
// A known task recorded without a skill (a whole-agent send) has no skill
// to keep: a scoped caller must not continue it, which the caller of
// Followup checks before, since taskSkill "" reads as a new task here.
// The kept skill must still pass Grants.Check for the caller.
func Followup(taskSkill, requestedSkill string, callerScoped, existingContext bool) (keepSkill string, newContext bool, err error) {
	if taskSkill != "" {
		if requestedSkill != "" && requestedSkill != taskSkill {
			return "", false, ErrSkillChange
		}
		return taskSkill, false, nil
	}
	if !callerScoped {
		return requestedSkill, false, nil
	}
	if requestedSkill == "" {
		return "", false, ErrSkillRequired
	}
	// existingContext does not change the answer: the context id is
	// dropped whether or not the caller named one.
	_ = existingContext
	return requestedSkill, true, nil
}
