package card

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// sdkCard is an invented agent built with the official Go SDK's types, so
// that the tests read the JSON the SDK really writes, not our idea of it.
func sdkCard() a2a.AgentCard {
	return a2a.AgentCard{
		Name:        "Orbit Scheduler",
		Description: "Books meeting rooms and plans recurring meetings.",
		Version:     "3.0.1",
		SupportedInterfaces: []*a2a.AgentInterface{
			a2a.NewAgentInterface("https://orbit.test/a2a", a2a.TransportProtocolJSONRPC),
			a2a.NewAgentInterface("https://orbit.test/grpc", a2a.TransportProtocolGRPC),
		},
		Capabilities: a2a.AgentCapabilities{
			Streaming:  true,
			Extensions: []a2a.AgentExtension{{URI: "https://orbit.test/ext/timezones", Params: map[string]any{"default": "UTC"}}},
		},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain", "text/calendar"},
		SecuritySchemes: a2a.NamedSecuritySchemes{
			"orbitOAuth": a2a.OAuth2SecurityScheme{Flows: a2a.AuthorizationCodeOAuthFlow{
				AuthorizationURL: "https://orbit.test/auth", TokenURL: "https://orbit.test/token",
				Scopes: map[string]string{"rooms.read": "", "rooms.book": ""},
			}},
			"orbitKey": a2a.APIKeySecurityScheme{Location: a2a.APIKeySecuritySchemeLocationHeader, Name: "X-Orbit-Key"},
			"mtls":     a2a.MutualTLSSecurityScheme{},
		},
		SecurityRequirements: a2a.SecurityRequirementsOptions{
			{"orbitOAuth": {"rooms.read"}},
			{"orbitKey": {}, "mtls": nil},
		},
		Skills: []a2a.AgentSkill{
			{
				ID: "book-room", Name: "Book a room",
				Description: "Reserves a meeting room for a time slot.",
				Tags:        []string{"rooms", "booking"},
				Examples:    []string{"Book a room for six people tomorrow at 10"},
				SecurityRequirements: a2a.SecurityRequirementsOptions{
					{"orbitOAuth": {"rooms.book", "rooms.read"}},
				},
			},
			{
				ID: "plan-series", Name: "Plan a meeting series",
				Description: "Finds a recurring slot that suits every attendee.",
				Tags:        []string{"recurring", "calendar"},
				InputModes:  []string{"text", "text/calendar"},
				OutputModes: []string{"text/calendar"},
			},
			{
				// An explicitly empty list: the author means "open". The
				// SDK's omitempty drops it on the way out (see below).
				ID: "room-faq", Name: "Room questions",
				Description:          "Answers questions about rooms and equipment.",
				Tags:                 []string{"faq"},
				SecurityRequirements: a2a.SecurityRequirementsOptions{},
			},
		},
	}
}

func TestParseSDKMarshal(t *testing.T) {
	data, err := json.Marshal(sdkCard())
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse("orbit-scheduler", data)
	if err != nil {
		t.Fatal(err)
	}
	want := &Card{
		ID:              "orbit-scheduler",
		Name:            "Orbit Scheduler",
		Description:     "Books meeting rooms and plans recurring meetings.",
		Version:         "3.0.1",
		ProtocolVersion: string(a2a.Version),
		Interfaces: []Interface{
			{URL: "https://orbit.test/a2a", Binding: "JSONRPC", ProtocolVersion: string(a2a.Version)},
			{URL: "https://orbit.test/grpc", Binding: "GRPC", ProtocolVersion: string(a2a.Version)},
		},
		Streaming:          true,
		Extensions:         []Extension{{URI: "https://orbit.test/ext/timezones"}},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain", "text/calendar"},
		SecuritySchemes:    []string{"mtls", "orbitKey", "orbitOAuth"},
		Security:           []Requirement{{"orbitOAuth": {"rooms.read"}}, {"orbitKey": {}, "mtls": {}}},
		Skills: []Skill{
			{
				ID: "book-room", Name: "Book a room",
				Description: "Reserves a meeting room for a time slot.",
				Tags:        []string{"rooms", "booking"},
				Examples:    []string{"Book a room for six people tomorrow at 10"},
				Security:    []Requirement{{"orbitOAuth": {"rooms.book", "rooms.read"}}},
				HasSecurity: true,
			},
			{
				ID: "plan-series", Name: "Plan a meeting series",
				Description: "Finds a recurring slot that suits every attendee.",
				Tags:        []string{"recurring", "calendar"},
				InputModes:  []string{"text/plain", "text/calendar"},
				OutputModes: []string{"text/calendar"},
			},
			{
				// Lost by the SDK's marshal: the skill inherits the card's
				// requirements. Nothing a reader can do about it.
				ID: "room-faq", Name: "Room questions",
				Description: "Answers questions about rooms and equipment.",
				Tags:        []string{"faq"},
			},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%#v\nwant\n%#v", got, want)
	}

	// Where the SDK can read its own output, it must agree with us.
	var back a2a.AgentCard
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if sdk := fromSDK(back.SecurityRequirements); !reflect.DeepEqual(sdk, got.Security) {
		t.Errorf("card security: SDK reads %#v, we read %#v", sdk, got.Security)
	}
	for i, s := range back.Skills {
		if sdk := fromSDK(s.SecurityRequirements); !reflect.DeepEqual(sdk, got.Skills[i].Security) {
			t.Errorf("skill %s security: SDK reads %#v, we read %#v", s.ID, sdk, got.Skills[i].Security)
		}
	}
}

// fromSDK converts the SDK's requirements to ours (nil scopes as empty).
func fromSDK(opts a2a.SecurityRequirementsOptions) []Requirement {
	var out []Requirement
	for _, r := range opts {
		req := Requirement{}
		for name, scopes := range r {
			req[string(name)] = append([]string{}, scopes...)
		}
		out = append(out, req)
	}
	return out
}

// TestSDKJSONShapes pins the SDK behaviours that shaped this package. If
// one of them changes with an SDK upgrade, revisit security.go.
func TestSDKJSONShapes(t *testing.T) {
	data, err := json.Marshal(sdkCard())
	if err != nil {
		t.Fatal(err)
	}
	js := string(data)

	// 1. Scopes are written as a bare array, not the spec's {"list": [...]},
	//    and a nil scope list as null.
	for _, want := range []string{
		`"securityRequirements":[{"schemes":{"orbitOAuth":["rooms.read"]}},{"schemes":{`,
		`"mtls":null`,
	} {
		if !strings.Contains(js, want) {
			t.Errorf("SDK JSON lacks %s:\n%s", want, js)
		}
	}
	// 2. An empty, non-nil requirement list on a skill is omitted.
	if strings.Contains(js, `"securityRequirements":[]`) {
		t.Errorf("SDK now writes empty requirement lists:\n%s", js)
	}

	// 3. The SDK cannot read the spec's {"list": [...]} form.
	var c a2a.AgentCard
	spec := `{"securityRequirements": [{"schemes": {"oauth": {"list": ["read"]}}}]}`
	if err := json.Unmarshal([]byte(spec), &c); err == nil {
		t.Errorf("SDK now reads the spec form: %#v", c.SecurityRequirements)
	}

	// 4. The SDK reads a v0.3 entry as an empty requirement (anyone passes):
	//    a card that needs OAuth would read as open.
	c = a2a.AgentCard{}
	v03 := `{"securityRequirements": [{"oauth": ["read"]}]}`
	if err := json.Unmarshal([]byte(v03), &c); err != nil || len(c.SecurityRequirements) != 1 || len(c.SecurityRequirements[0]) != 0 {
		t.Errorf("SDK reading of a v0.3 entry changed: %#v, %v", c.SecurityRequirements, err)
	}
	got, err := Parse("acme", []byte(`{"name": "Acme", "securityRequirements": [{"oauth": ["read"]}], "skills": [{"id": "a", "name": "A"}]}`))
	if err != nil || !reflect.DeepEqual(got.Security, []Requirement{{"oauth": {"read"}}}) {
		t.Errorf("we read %#v, %v", got.Security, err)
	}

	// 5. Unknown security scheme shapes fail the SDK's whole card; we only
	//    need the names.
	c = a2a.AgentCard{}
	if err := json.Unmarshal([]byte(`{"securitySchemes": {"k": {"type": "apiKey"}}}`), &c); err == nil {
		t.Error("SDK now reads v0.3 scheme objects")
	}
}
