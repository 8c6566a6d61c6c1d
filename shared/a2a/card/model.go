// Package card reads A2A Agent Cards (v1.0 and v0.3 shapes) into one
// normalised, sanitised model that the rest of skillmatch works on.
package card

// Card is an agent's card after normalisation. Text fields are sanitised:
// they are untrusted input written by whoever runs the agent.
type Card struct {
	// ID is the agent's id in the catalog (for a golden set, the file stem).
	ID              string      `json:"id"`
	Name            string      `json:"name"`
	Description     string      `json:"description"`
	Version         string      `json:"version"`
	ProtocolVersion string      `json:"protocolVersion,omitempty"`
	Interfaces      []Interface `json:"interfaces,omitempty"`
	Streaming       bool        `json:"streaming,omitempty"`
	Push            bool        `json:"pushNotifications,omitempty"`
	Extensions      []Extension `json:"extensions,omitempty"`
	ExtendedCard    bool        `json:"extendedAgentCard,omitempty"`
	// DefaultInputModes and DefaultOutputModes are media types, legacy mode
	// words already mapped (text → text/plain, data → application/json,
	// file → */*); words that are not media types are dropped.
	DefaultInputModes  []string `json:"defaultInputModes,omitempty"`
	DefaultOutputModes []string `json:"defaultOutputModes,omitempty"`
	// SecuritySchemes lists the declared scheme names (their details are not
	// needed for matching).
	SecuritySchemes []string `json:"securitySchemes,omitempty"`
	// Security is the card-level requirement list; nil means open.
	Security []Requirement `json:"security,omitempty"`
	Skills   []Skill       `json:"skills"`
	// Notes says what sanitisation cut or dropped, so a user can see it.
	Notes []string `json:"notes,omitempty"`
	// DescriptionCut is what the length cap cut off the description (at
	// most MaxCutKept characters), for the trust checks alone: nothing
	// indexes or shows it, but a card that hides orders past the cap is
	// no less an attack card. Never serialised: every reader parses the
	// card's own JSON.
	DescriptionCut string `json:"-"`
}

// Interface is one way to reach the agent.
type Interface struct {
	URL             string `json:"url"`
	Binding         string `json:"protocolBinding,omitempty"`
	ProtocolVersion string `json:"protocolVersion,omitempty"`
}

// Extension is an A2A extension the agent declares.
type Extension struct {
	URI      string `json:"uri"`
	Required bool   `json:"required,omitempty"`
}

// Requirement is one entry of a security requirement list: every scheme in
// it must be satisfied, a scheme by all its scopes.
type Requirement map[string][]string

// Skill is one skill of a card.
type Skill struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tags        []string `json:"tags,omitempty"`
	Examples    []string `json:"examples,omitempty"`
	// InputModes and OutputModes are the skill's own modes; nil means the
	// card's defaults apply (a skill's modes replace them, never add).
	InputModes  []string `json:"inputModes,omitempty"`
	OutputModes []string `json:"outputModes,omitempty"`
	// Security, when HasSecurity, replaces the card's requirements.
	Security    []Requirement `json:"security,omitempty"`
	HasSecurity bool          `json:"hasSecurity,omitempty"`
	// DescriptionCut is what the length cap cut off the description, as
	// Card.DescriptionCut.
	DescriptionCut string `json:"-"`
}

// WrittenDescription is the description as its author wrote it, what the
// length cap cut off included (DescriptionCut): what the trust checks
// read.
func (c *Card) WrittenDescription() string { return c.Description + c.DescriptionCut }

// WrittenDescription is the skill's description as written (see
// Card.WrittenDescription).
func (s *Skill) WrittenDescription() string { return s.Description + s.DescriptionCut }

// Key is the catalog-wide key of a skill: "<agent>/<skillId>".
func Key(agentID, skillID string) string { return agentID + "/" + skillID }

// EffectiveInputModes returns the modes that apply to the skill.
func (c *Card) EffectiveInputModes(s *Skill) []string {
	if s.InputModes != nil {
		return s.InputModes
	}
	return c.DefaultInputModes
}

// EffectiveOutputModes returns the modes that apply to the skill.
func (c *Card) EffectiveOutputModes(s *Skill) []string {
	if s.OutputModes != nil {
		return s.OutputModes
	}
	return c.DefaultOutputModes
}

// EffectiveSecurity returns the requirement list that applies to the skill;
// nil means open.
func (c *Card) EffectiveSecurity(s *Skill) []Requirement {
	if s.HasSecurity {
		return s.Security
	}
	return c.Security
}

// HasExtension reports whether the card declares the extension URI.
func (c *Card) HasExtension(uri string) bool {
	for _, e := range c.Extensions {
		if e.URI == uri {
			return true
		}
	}
	return false
}
