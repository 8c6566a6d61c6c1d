// Package routing implements the skill-routing extension on the sending
// side: it tells a cooperating A2A agent which of its skills a delegated
// message was routed to.
//
// The contract (extension URI in URI):
//
//   - The agent opts in by listing URI in its card's
//     capabilities.extensions; a request is routed only when the agent does
//     and the card lists the chosen skill.
//   - A routed SendMessage request names URI in message.extensions and sets
//     the request-level metadata {URI: {"skillId": "<id>"}}.
//   - Only skillmatch writes the route, from the skill it chose. A routing
//     entry a caller put in the request metadata or the message metadata is
//     always deleted, and so is URI in message.extensions when the request
//     is not routed. A send without a chosen skill carries no routing.
//
// The agent is the one that enforces the route. skillmatch cannot check
// that it does, so a skill-scoped grant (package grants) is only as strong
// as the agent's implementation.
package routing

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
)

// URI identifies the extension.
const URI = "https://extensions.allsrc.dev/agent-taskbay/skill-routing/v1"

// SkillIDField is the member of the routing metadata that names the skill.
const SkillIDField = "skillId"

// ErrUnsupported is wrapped when an agent cannot be sent a routed request:
// it does not advertise URI, or its card does not list the skill.
var ErrUnsupported = errors.New("agent does not support bounded skill routing")

// Outcome says what Apply did.
type Outcome int

const (
	// NoSkill: no skill was chosen; the request carries no routing.
	NoSkill Outcome = iota
	// Routed: the request names URI and carries the skill id.
	Routed
	// NotAdvertised: the agent does not list URI in
	// capabilities.extensions; the request carries no routing.
	NotAdvertised
	// SkillNotListed: the agent advertises URI but its card does not
	// list the skill; the request carries no routing.
	SkillNotListed
)

// Advertises reports whether the card lists URI in capabilities.extensions.
func Advertises(c *card.Card) bool {
	return c != nil && c.HasExtension(URI)
}

// Supports reports whether a request for the skill would be routed: the
// card advertises URI and lists the skill. Check says why not.
func Supports(c *card.Card, skillID string) bool {
	return outcome(c, skillID) == Routed
}

// Check says whether a request for the skill would be routed: nil when the
// card advertises URI and lists the skill, an error wrapping
// ErrUnsupported that says which is missing otherwise. A skill-scoped
// caller must not be sent to an agent for which Check fails.
func Check(c *card.Card, skillID string) error {
	switch o := outcome(c, skillID); o {
	case Routed:
		return nil
	case NoSkill:
		return fmt.Errorf("%w: no skill chosen", ErrUnsupported)
	case NotAdvertised:
		return fmt.Errorf("%w: agent %q does not advertise %s", ErrUnsupported, agentID(c), URI)
	default:
		return fmt.Errorf("%w: agent %q does not list skill %q", ErrUnsupported, agentID(c), skillID)
	}
}

func agentID(c *card.Card) string {
	if c == nil {
		return ""
	}
	return c.ID
}

func outcome(c *card.Card, skillID string) Outcome {
	switch {
	case skillID == "":
		return NoSkill
	case !Advertises(c):
		return NotAdvertised
	}
	if _, ok := c.Skill(skillID); !ok {
		return SkillNotListed
	}
	return Routed
}

// IsRoutingKey reports whether a metadata key names the extension. Besides
// URI itself it matches every variant an agent might also read as it
// (normalise), so that a caller cannot forge the route under one of them
// and have it survive Strip.
func IsRoutingKey(k string) bool {
	return normalise(k) == routingKey
}

// routingKey is URI in the form normalise gives.
var routingKey = normalise(URI)

// normalise folds what an agent's URI handling may treat as the same
// extension: surrounding space, percent-encoding (even repeated: "%252D"),
// letter case, the scheme (http, https or none), a default port, a
// trailing dot on the host, and trailing "/", "#" and "?".
func normalise(k string) string {
	s := strings.TrimSpace(k)
	for range 3 { // an agent may decode more than once
		if !strings.Contains(s, "%") {
			break
		}
		d, err := url.PathUnescape(s)
		if err != nil {
			break
		}
		s = d
	}
	s = strings.ToLower(strings.TrimSpace(s))
	for _, p := range []string{"https://", "http://", "//"} {
		if rest, ok := strings.CutPrefix(s, p); ok {
			s = rest
			break
		}
	}
	host, path, _ := strings.Cut(s, "/")
	host = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(host, ":443"), ":80"), ".")
	path = strings.TrimRight(path, "/#? \t")
	return host + "/" + path
}

// Strip deletes every routing entry from the request metadata and the
// message metadata, and URI from the message's extensions. It leaves
// other entries alone.
func Strip(p *a2a.SendMessageRequest) {
	if p == nil {
		return
	}
	stripMap(p.Metadata)
	if len(p.Metadata) == 0 {
		p.Metadata = nil
	}
	if m := p.Message; m != nil {
		stripMap(m.Metadata)
		if len(m.Metadata) == 0 {
			m.Metadata = nil
		}
		m.Extensions = slices.DeleteFunc(m.Extensions, IsRoutingKey)
		if len(m.Extensions) == 0 {
			m.Extensions = nil
		}
	}
}

func stripMap(m map[string]any) {
	for k := range m {
		if IsRoutingKey(k) {
			delete(m, k)
		}
	}
}

// Apply makes the SendMessage request carry exactly the routing skillmatch
// decided: it always strips what a caller supplied (Strip), then, when the
// card advertises URI and lists skillID, adds URI to the message's
// extensions and sets the request metadata {URI: {"skillId": skillID}}.
// An empty skillID means no skill was chosen: nothing is added.
//
// The Outcome says which case applied; it is not an error for an agent
// not to take part (a caller with whole-agent access may use any agent).
// A caller whose grant is skill-scoped needs Routed: use Check first, or
// refuse when Apply returns anything else. The error is only for a request
// without a message.
//
// The wire package should call Apply on the *a2a.SendMessageRequest it
// builds, before marshalling it; when the transport is HTTP, it should
// also send the service parameter a2a.SvcParamExtensions
// ("A2A-Extensions: <URI>") for a Routed request.
func Apply(p *a2a.SendMessageRequest, c *card.Card, skillID string) (Outcome, error) {
	if p == nil || p.Message == nil {
		return NoSkill, errors.New("routing: request has no message")
	}
	Strip(p)
	o := outcome(c, skillID)
	if o != Routed {
		return o, nil
	}
	p.Message.Extensions = append(p.Message.Extensions, URI)
	if p.Metadata == nil {
		p.Metadata = map[string]any{}
	}
	p.Metadata[URI] = map[string]any{SkillIDField: skillID}
	return Routed, nil
}
