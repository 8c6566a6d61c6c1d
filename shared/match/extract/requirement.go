// Package extract turns a task into a structured requirement with a
// deterministic rule set.
package extract

// Requirement is what the matcher needs to know about a task.
type Requirement struct {
	TaskID string `json:"taskId"`
	// Need is the task's text kept close to the user's words.
	Need string `json:"need"`
	// InputTypes the skill must all accept; OutputTypes of which it must
	// produce at least one. Always concrete media types.
	InputTypes  []string `json:"inputTypes,omitempty"`
	OutputTypes []string `json:"outputTypes,omitempty"`
	// OutputsLoose says OutputTypes were read from a thing the words name
	// ("aerial photos of the roof", "slides in advance"), not declared by
	// the caller nor asked for as a format ("as a PDF"): a catalog whose
	// cards declare no such output still serves the request, so when no
	// skill passes with them they are dropped (match.Shortlist).
	OutputsLoose bool `json:"outputsLoose,omitempty"`
	// DroppedOutputs are the loose outputs WithoutLooseOutputs dropped:
	// the thing the request asked for, which the matcher then wants the
	// chosen skill's words to name (match.shrinkUnmade).
	DroppedOutputs []string `json:"droppedOutputs,omitempty"`
	Streaming      bool     `json:"streaming,omitempty"`
	// DataClass "" means no data-policy constraint.
	DataClass string `json:"dataClass,omitempty"`
	CallerID  string `json:"callerId,omitempty"`
	Tenant    string `json:"tenant,omitempty"`
	// Scopes nil means "not filtered on security".
	Scopes []string `json:"scopes"`
	// History keeps the last user turns, oldest first, for follow-ups.
	History []string `json:"history,omitempty"`
}

// WithoutLooseOutputs is r with its loose outputs moved to
// DroppedOutputs (see OutputsLoose), r itself when they are not loose.
func (r Requirement) WithoutLooseOutputs() Requirement {
	if r.OutputsLoose {
		r.DroppedOutputs, r.OutputTypes, r.OutputsLoose = r.OutputTypes, nil, false
	}
	return r
}
