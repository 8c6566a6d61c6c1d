package routing_test

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/skillmatch/skillmatch/shared/a2a/routing"
)

func TestIsRoutingKeyVariants(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{routing.URI, true},
		{" " + routing.URI + " ", true},
		{routing.URI + "/", true},
		{routing.URI + "//", true},
		{routing.URI + "#", true},
		{routing.URI + "/#", true},
		{routing.URI + "?", true},
		{"HTTPS://EXTENSIONS.ALLSRC.DEV/agent-taskbay/skill-routing/v1", true},
		{"https://Extensions.Allsrc.Dev/agent-taskbay/skill-routing/v1", true},
		{"http://extensions.allsrc.dev/agent-taskbay/skill-routing/v1", true},
		{"HTTP://extensions.allsrc.dev/agent-taskbay/skill-routing/v1/", true},
		{"//extensions.allsrc.dev/agent-taskbay/skill-routing/v1", true},
		{"extensions.allsrc.dev/agent-taskbay/skill-routing/v1", true},
		{"https://extensions.allsrc.dev:443/agent-taskbay/skill-routing/v1", true},
		{"https://extensions.allsrc.dev./agent-taskbay/skill-routing/v1", true},
		{"https://extensions.allsrc.dev/agent%2Dtaskbay/skill%2drouting/v1", true},
		{"https://extensions.allsrc.dev/agent%252Dtaskbay/skill-routing/v1", true},
		{"https%3A%2F%2Fextensions.allsrc.dev%2Fagent-taskbay%2Fskill-routing%2Fv1", true},
		{"https://%65xtensions.allsrc.dev/agent-taskbay/skill-routing/v1%23", true},
		// Other extensions and versions are left alone.
		{"https://extensions.allsrc.dev/agent-taskbay/skill-routing/v2", false},
		{"https://extensions.allsrc.dev/agent-taskbay/skill-routing", false},
		{"https://extensions.allsrc.dev/agent-taskbay/skill-routing/v1/extra", false},
		{"https://evil.example/agent-taskbay/skill-routing/v1", false},
		{"https://extensions.allsrc.dev:8443/agent-taskbay/skill-routing/v1", false},
		{"https://example.com/other/v1", false},
		{"skillmatch", false},
		{"trace", false},
		{"", false},
		{"%zz", false},
	}
	for _, tt := range tests {
		if got := routing.IsRoutingKey(tt.key); got != tt.want {
			t.Errorf("IsRoutingKey(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}

// A caller's forged route under any variant is gone after Apply, and the
// only route left is the one skillmatch wrote.
func TestApplyStripsVariants(t *testing.T) {
	variants := []string{
		"http://extensions.allsrc.dev/agent-taskbay/skill-routing/v1",
		"https://extensions.allsrc.dev/agent%2Dtaskbay/skill-routing/v1",
		routing.URI + "#",
		"HTTPS://EXTENSIONS.ALLSRC.DEV/agent-taskbay/skill-routing/v1/",
	}
	msg := &a2a.Message{ID: "m", Role: a2a.MessageRoleUser, Parts: a2a.ContentParts{a2a.NewTextPart("hi")}, Metadata: map[string]any{"keep": 1}}
	p := &a2a.SendMessageRequest{Message: msg, Metadata: map[string]any{"trace": "t"}}
	for _, v := range variants {
		msg.Metadata[v] = map[string]any{"skillId": "admin"}
		p.Metadata[v] = map[string]any{"skillId": "admin"}
		msg.Extensions = append(msg.Extensions, v)
	}
	c := parseCard(t, "billing", true, "invoice")
	if o, err := routing.Apply(p, c, "invoice"); err != nil || o != routing.Routed {
		t.Fatalf("Apply = %v, %v", o, err)
	}
	for k := range p.Metadata {
		if routing.IsRoutingKey(k) && k != routing.URI {
			t.Errorf("request metadata keeps forged %q", k)
		}
	}
	if got := p.Metadata[routing.URI]; got.(map[string]any)[routing.SkillIDField] != "invoice" {
		t.Errorf("route = %v", got)
	}
	for k := range msg.Metadata {
		if routing.IsRoutingKey(k) {
			t.Errorf("message metadata keeps forged %q", k)
		}
	}
	if len(msg.Extensions) != 1 || msg.Extensions[0] != routing.URI {
		t.Errorf("extensions = %q", msg.Extensions)
	}
	if p.Metadata["trace"] != "t" || msg.Metadata["keep"] != 1 {
		t.Errorf("other entries touched: %v, %v", p.Metadata, msg.Metadata)
	}
}
