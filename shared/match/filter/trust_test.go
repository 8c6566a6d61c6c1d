package filter

import (
	"reflect"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/match/extract"
)

// at gives the card one interface per URL.
func at(urls ...string) func(*card.Card) {
	return func(c *card.Card) {
		for _, u := range urls {
			c.Interfaces = append(c.Interfaces, card.Interface{URL: u, Binding: "JSONRPC"})
		}
	}
}

func TestEndpoint(t *testing.T) {
	allow := catalog.Status{AllowPrivate: true}
	const hint = "; private addresses must be allowed for the agent (allowPrivate)"
	runChecks(t, []checkCase{
		{name: "public https", card: at("https://agents.example.com/a2a")},
		{name: "public IP literal", card: at("http://203.0.113.7:8080/a2a")},
		{name: "no interface: nothing to send to", card: at()},
		{name: "metadata service", card: at("http://169.254.169.254/x"), rule: RuleEndpoint,
			reason: "card interface http://169.254.169.254/x: link-local address" + hint},
		{name: "file URL", card: at("file:///etc/passwd"), rule: RuleEndpoint,
			reason: `card interface file:///etc/passwd: scheme "file" not allowed: want http or https`},
		{name: "local redis", card: at("http://127.0.0.1:6379/"), rule: RuleEndpoint,
			reason: "card interface http://127.0.0.1:6379/: loopback address" + hint},
		{name: "IPv4-mapped loopback", card: at("http://[::ffff:127.0.0.1]/"), rule: RuleEndpoint},
		{name: "IPv4-compatible metadata", card: at("http://[::a9fe:a9fe]/"), rule: RuleEndpoint},
		{name: "private network", card: at("https://10.0.0.7/a2a"), rule: RuleEndpoint},
		{name: "localhost name", card: at("http://localhost:8080/"), rule: RuleEndpoint},
		{name: "integer IPv4", card: at("http://2130706433/"), rule: RuleEndpoint},
		// A delegation goes to the first acceptable interface (the
		// request builder picks the same one): a refused one beside it
		// does not remove the agent; refused ones only do.
		{name: "one acceptable interface keeps the agent", card: at("http://127.0.0.1:9/", "https://agents.example.com/a2a")},
		{name: "every interface refused removes the agent", card: at("http://127.0.0.1:9/", "http://10.0.0.1/"), rule: RuleEndpoint,
			reason: "card interface http://127.0.0.1:9/: loopback address" + hint},
		{name: "credentials in the URL", card: at("https://u:pw@agents.example.com/"), rule: RuleEndpoint,
			reason: "card interface https://u:xxxxx@agents.example.com/: credentials in the URL are refused"},
		// The registry allows private addresses for an agent it knows;
		// the scheme rule still holds.
		{name: "allowPrivate: loopback kept", card: at("http://127.0.0.1:6379/"), status: allow},
		{name: "allowPrivate: private kept", card: at("https://10.0.0.7/a2a"), status: allow},
		{name: "allowPrivate: file still refused", card: at("file:///etc/passwd"), status: allow, rule: RuleEndpoint},
		// Health and data policy come first; streaming after.
		{name: "down first", card: at("http://127.0.0.1/"), status: catalog.Status{Health: catalog.Down}, rule: RuleHealth},
		{name: "data policy before endpoint", card: at("http://127.0.0.1/"), req: extract.Requirement{DataClass: "restricted"}, rule: RuleDataPolicy},
		{name: "endpoint before streaming", card: at("http://127.0.0.1/"), req: extract.Requirement{Streaming: true}, rule: RuleEndpoint},
	})
}

// A catalog where one agent points its interface at the metadata
// service: Keep removes its skills and Explain says why.
func TestEndpointExplained(t *testing.T) {
	cat := catalog.New(
		catalog.Agent{Card: &card.Card{ID: "good", Interfaces: []card.Interface{{URL: "https://good.example/a2a"}}, Skills: []card.Skill{{ID: "x"}}}, Status: catalog.DefaultStatus},
		catalog.Agent{Card: &card.Card{ID: "evil", Interfaces: []card.Interface{{URL: "http://169.254.169.254/latest/meta-data/"}}, Skills: []card.Skill{{ID: "x"}, {ID: "y"}}}, Status: catalog.DefaultStatus},
	)
	got := apply(&extract.Requirement{}, cat)
	want := []Rejection{
		{Agent: "evil", Skill: "x", Rule: RuleEndpoint, Reason: "card interface http://169.254.169.254/latest/meta-data/: link-local address; private addresses must be allowed for the agent (allowPrivate)"},
		{Agent: "evil", Skill: "y", Rule: RuleEndpoint, Reason: "card interface http://169.254.169.254/latest/meta-data/: link-local address; private addresses must be allowed for the agent (allowPrivate)"},
	}
	if got.Kept != 1 || !reflect.DeepEqual(got.Keep, []bool{false, false, true}) || !reflect.DeepEqual(got.Rejections, want) {
		t.Errorf("got %+v\nwant rejections %+v", got, want)
	}
}

func TestStrict(t *testing.T) {
	strict := []Option{WithStrict(true)}
	lax := []Option{WithStrict(false)}
	oauth := func(c *card.Card) { c.Security = []card.Requirement{{"oauth": {"admin"}}} }
	apiKey := func(c *card.Card) { c.Security = []card.Requirement{{"apiKey": nil}} }
	noModes := func(c *card.Card) { c.DefaultInputModes, c.DefaultOutputModes = nil, nil }
	cleared := catalog.Status{Clearance: catalog.Restricted}
	runChecks(t, []checkCase{
		// Scopes: a task without them is a caller with none.
		{name: "no scopes, locked skill: open by default", card: oauth, status: cleared},
		{name: "no scopes, locked skill: lax is the default", card: oauth, status: cleared, opts: lax},
		{name: "no scopes, locked skill: strict refuses", card: oauth, status: cleared, opts: strict, rule: RuleSecurity,
			reason: "task states no caller scopes (strict policy): skill requires oauth [admin]; caller has no scopes"},
		{name: "no scopes, open skill: strict keeps", status: cleared, opts: strict},
		{name: "no scopes, scope-less scheme: strict keeps", card: apiKey, status: cleared, opts: strict},
		{name: "scopes stated: strict as usual", card: oauth, status: cleared, opts: strict, req: extract.Requirement{Scopes: strs("admin")}},
		// Data class: a task without one is restricted data.
		{name: "no class: open by default", status: catalog.DefaultStatus},
		{name: "no class, external agent: strict refuses", status: catalog.DefaultStatus, opts: strict, rule: RuleDataPolicy,
			reason: "task states no data class, read as restricted (strict policy); agent is external and receives public data only; task data is restricted"},
		{name: "no class, internal clearance: strict refuses", status: catalog.Status{Clearance: catalog.Internal}, opts: strict, rule: RuleDataPolicy,
			reason: "task states no data class, read as restricted (strict policy); task data is restricted; agent is cleared for internal only"},
		{name: "no class, restricted clearance: strict keeps", status: cleared, opts: strict},
		{name: "class stated: strict as usual", status: catalog.Status{Clearance: catalog.Internal}, opts: strict, req: extract.Requirement{DataClass: "internal"}},
		// Modes: a skill that declares none takes nothing a task asks for.
		{name: "no modes: open by default", card: noModes, status: cleared, req: extract.Requirement{InputTypes: strs(pdf), OutputTypes: strs(js)}},
		{name: "no input modes: strict refuses", card: noModes, status: cleared, opts: strict, req: extract.Requirement{InputTypes: strs(pdf, csv)}, rule: RuleInputType,
			reason: "skill declares no input modes (strict policy); task attaches application/pdf and text/csv"},
		{name: "no output modes: strict refuses", card: noModes, status: cleared, opts: strict, req: extract.Requirement{OutputTypes: strs(js, csv)}, rule: RuleOutputType,
			reason: "skill declares no output modes (strict policy); task wants application/json or text/csv"},
		{name: "only non-media words: strict refuses", skill: card.Skill{InputModes: strs("banana")}, status: cleared, opts: strict,
			req: extract.Requirement{InputTypes: strs(pdf)}, rule: RuleInputType},
		{name: "no modes, task asks for none: strict keeps", card: noModes, status: cleared, opts: strict},
		{name: "declared modes: strict as usual", status: cleared, opts: strict, req: extract.Requirement{InputTypes: strs(txt), OutputTypes: strs(txt)}},
	})
}
