package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/frontdoor/a2aserver"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// bearer adds a token to every request of an HTTP client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// a2aClient is an a2a-go client of the card's A2A 1.0 interface of the
// binding, sending token ("" none).
func a2aClient(ctx context.Context, t *testing.T, card *a2a.AgentCard, binding a2a.TransportProtocol, token string) *a2aclient.Client {
	return a2aClientOf(ctx, t, card, binding, a2a.Version, token)
}

// a2aClientOf is an a2a-go client of the card's interface of the binding
// and protocol version; for 0.3, the SDK's 0.3 transports (message/send).
func a2aClientOf(ctx context.Context, t *testing.T, card *a2a.AgentCard, binding a2a.TransportProtocol, version a2a.ProtocolVersion, token string) *a2aclient.Client {
	t.Helper()
	hc := &http.Client{}
	if token != "" {
		hc.Transport = bearer{token}
	}
	var iface *a2a.AgentInterface
	for _, i := range card.SupportedInterfaces {
		if i.ProtocolBinding == binding && i.ProtocolVersion == version {
			iface = i
		}
	}
	if iface == nil {
		t.Fatalf("the card has no %s interface: %+v", binding, card.SupportedInterfaces)
	}
	c, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{iface},
		a2aclient.WithJSONRPCTransport(hc), a2aclient.WithRESTTransport(hc),
		a2aclient.WithCompatTransport(a2av0.Version, a2a.TransportProtocolJSONRPC, a2av0.NewJSONRPCTransportFactory(a2av0.JSONRPCTransportConfig{Client: hc})),
		a2aclient.WithCompatTransport(a2av0.Version, a2a.TransportProtocolHTTPJSON, a2av0.NewRESTTransportFactory(a2av0.RESTTransportConfig{Client: hc})))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// decisionOf is the decision data part of a reply.
func decisionOf(t *testing.T, res a2a.SendMessageResult) map[string]any {
	t.Helper()
	m, ok := res.(*a2a.Message)
	if !ok {
		t.Fatalf("reply %T, want a message", res)
	}
	for _, p := range m.Parts {
		if d, ok := p.Content.(a2a.Data); ok {
			if v, ok := d.Value.(map[string]any); ok {
				return v
			}
		}
	}
	t.Fatalf("no data part in %+v", m)
	return nil
}

func sendTask(id, text string) *a2a.SendMessageRequest {
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))
	msg.ID = id
	// A claim of another caller: the authenticated one must win.
	msg.Metadata = map[string]any{"caller": map[string]any{"id": "mallory"}}
	return &a2a.SendMessageRequest{Message: msg, Config: &a2a.SendMessageConfig{AcceptedOutputModes: []string{"application/json"}},
		Metadata: map[string]any{a2aserver.MetadataKey: map[string]any{"scopes": []string{"travel.book"}}}}
}

// An a2a-go client sends a task to run's A2A listener and gets the
// decision, over JSON-RPC and HTTP+JSON; the caller is the token's, not
// the payload's, and a client without a known token is refused.
func TestRunA2AFrontDoor(t *testing.T) {
	tokens := map[string]string{"tok-alice-0123456789": "alice", "tok-bob-0123456789": "bob"}
	var lines []string
	for tok, caller := range tokens {
		d := sha256.Sum256([]byte(tok))
		lines = append(lines, fmt.Sprintf("%q: %q", hex.EncodeToString(d[:]), caller))
	}
	file := filepath.Join(t.TempDir(), "tokens.json")
	if err := os.WriteFile(file, []byte(`{"tokens": {`+strings.Join(lines, ", ")+`}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r, ctx := startTestRun(t, "--a2a-listen", "127.0.0.1:0", "--a2a-tokens", file, "--health-listen", "127.0.0.1:0")
	if r.A2AURL == "" {
		t.Fatal("no A2A URL")
	}
	// The card is public.
	card, err := agentcard.DefaultResolver.Resolve(ctx, r.A2AURL)
	if err != nil {
		t.Fatal(err)
	}
	if card.Name != "skillmatch" || len(card.SupportedInterfaces) != 4 || card.SecuritySchemes["bearer"] == nil {
		t.Fatalf("card %+v", card)
	}
	nc, js, err := pipeline.Connect(pipeline.ConnectConfig{URL: r.ClientURL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()

	type iface struct {
		binding a2a.TransportProtocol
		version a2a.ProtocolVersion
	}
	for i, in := range []iface{{a2a.TransportProtocolJSONRPC, a2a.Version}, {a2a.TransportProtocolHTTPJSON, a2a.Version},
		{a2a.TransportProtocolJSONRPC, a2av0.Version}, {a2a.TransportProtocolHTTPJSON, a2av0.Version}} {
		binding := a2a.TransportProtocol(string(in.binding) + " " + string(in.version))
		for tok, caller := range tokens {
			id := fmt.Sprintf("a2a-%d-%s", i, caller)
			res, err := a2aClientOf(ctx, t, card, in.binding, in.version, tok).SendMessage(ctx, sendTask(id, "book me a hotel in Lisbon for two nights"))
			if err != nil {
				t.Fatalf("%s as %s: %v", binding, caller, err)
			}
			d := decisionOf(t, res)
			if d["taskId"] != id || d["decisionId"] != wire.DecisionID(caller, id) {
				t.Errorf("%s as %s: decision %v, want the decision id of the caller's task", binding, caller, d)
			}
			switch d["action"] {
			case "delegate":
				if d["request"] == nil {
					t.Errorf("%s: a delegation without its A2A request: %v", binding, d)
				}
			case "abstain", "clarify":
				if d["reason"] == "" && d["question"] == "" {
					t.Errorf("%s: %v without a reason or question", binding, d["action"])
				}
			default:
				t.Errorf("%s: action %v", binding, d["action"])
			}
			// The decision is on the token's caller's subject, for that task.
			if n := countSubjects(ctx, t, js, pipeline.DefaultStreams.Decisions, wire.SubjectDecisionOf(caller, id)); n != 1 {
				t.Errorf("%s as %s: %d decisions on the caller's subject for the task", binding, caller, n)
			}
		}
		// No token, or an unknown one: refused, and nothing is submitted.
		for _, tok := range []string{"", "tok-mallory-0123456789"} {
			id := fmt.Sprintf("a2a-%d-anon-%q", i, tok)
			_, err := a2aClientOf(ctx, t, card, in.binding, in.version, tok).SendMessage(ctx, sendTask(id, "book me a hotel in Lisbon"))
			if err == nil {
				t.Errorf("%s with token %q: accepted", binding, tok)
			}
		}
	}
	// Plain HTTP says 401 with the scheme to use.
	resp, err := http.Post(r.A2AURL+a2aserver.PathJSONRPC, "application/json",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("unauthenticated: %s %v", resp.Status, resp.Header)
	}
	if n := countSubjects(ctx, t, js, pipeline.DefaultStreams.Submissions, wire.SubjectSubmitted+".>"); n != 8 {
		t.Errorf("%d submissions, want the 8 authenticated ones", n)
	}
	// The metrics count each answer: 8 decisions, 9 refusals (2 per
	// interface and the plain POST).
	resp, err = http.Get("http://" + r.HealthAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var decided float64
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, `skillmatch_frontdoor_requests_total{door="a2a",result="`) && !strings.Contains(line, "unauthenticated") {
			var v float64
			fmt.Sscan(line[strings.LastIndexByte(line, ' ')+1:], &v)
			decided += v
		}
	}
	if decided != 8 || !strings.Contains(string(body), `skillmatch_frontdoor_requests_total{door="a2a",result="unauthenticated"} 9`) ||
		!strings.Contains(string(body), `skillmatch_frontdoor_seconds_count{door="a2a"} 8`) {
		t.Errorf("front-door metrics (%v decided):\n%s", decided, grepLines(string(body), "skillmatch_frontdoor"))
	}
}

func countSubjects(ctx context.Context, t *testing.T, js jetstream.JetStream, stream, filter string) uint64 {
	t.Helper()
	s, err := js.Stream(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(filter))
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, c := range info.State.Subjects {
		n += c
	}
	return n
}

// Zero configuration: on loopback without tokens every client is the
// anonymous caller; a rejected task is an invalid-params error with the
// reason; a non-loopback address without authentication is refused.
func TestRunA2AAnonymous(t *testing.T) {
	r, ctx := startTestRun(t, "--a2a-listen", "127.0.0.1:0")
	card, err := agentcard.DefaultResolver.Resolve(ctx, r.A2AURL)
	if err != nil {
		t.Fatal(err)
	}
	if len(card.SecuritySchemes) != 0 {
		t.Errorf("security schemes %v without authentication", card.SecuritySchemes)
	}
	// A client made from the card alone, as the README shows.
	fromCard, err := a2aclient.NewFromCard(ctx, card)
	if err != nil {
		t.Fatal(err)
	}
	res, err := fromCard.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser,
		a2a.NewTextPart("book me a hotel in Lisbon"))})
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := res.(*a2a.Message).Parts[0].Data().(map[string]any); !ok || d["action"] == nil {
		t.Errorf("reply %+v", res)
	}
	c := a2aClient(ctx, t, card, a2a.TransportProtocolHTTPJSON, "")
	res, err = c.SendMessage(ctx, sendTask("anon-1", "translate this contract to German"))
	if err != nil {
		t.Fatal(err)
	}
	if d := decisionOf(t, res); d["decisionId"] != wire.DecisionID("", "anon-1") {
		t.Errorf("decision %v, want the anonymous caller's", d)
	}
	// A request with several intents gets a plan with one ready A2A
	// request per step, and the text part says so.
	plan := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(
		"book a flight to Lisbon for Monday; reset my forgotten password; what is the weather forecast in Lisbon"))
	plan.ID = "anon-plan"
	res, err = c.SendMessage(ctx, &a2a.SendMessageRequest{Message: plan})
	if err != nil {
		t.Fatal(err)
	}
	d := decisionOf(t, res)
	steps, _ := d["steps"].([]any)
	reqs, _ := d["stepRequests"].([]any)
	text := ""
	for _, p := range res.(*a2a.Message).Parts {
		if tp, ok := p.Content.(a2a.Text); ok {
			text += string(tp)
		}
	}
	if d["action"] != "plan" || len(steps) != 3 || len(reqs) != 3 || d["request"] != nil ||
		!strings.HasPrefix(text, "plan of 3 steps") || !strings.Contains(text, "3. world-info/weather-forecast") {
		t.Errorf("plan: decision %v, text %q", d, text)
	}
	// The same message again (a retry) gets the same decision.
	res, err = c.SendMessage(ctx, sendTask("anon-1", "translate this contract to German"))
	if err != nil || decisionOf(t, res)["decisionId"] != wire.DecisionID("", "anon-1") {
		t.Errorf("retry: %v", err)
	}
	// An A2A 0.3 request as a 0.3 agent framework sends it (message/send,
	// parts with "kind") gets the decision as a 0.3 data part.
	resp, err := http.Post(r.A2AURL+a2aserver.PathJSONRPCV03, "application/json", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"v03-1","role":"user",`+
			`"parts":[{"kind":"text","text":"book me a hotel in Lisbon"}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var v03 struct {
		Result struct {
			Kind  string `json:"kind"`
			Parts []struct {
				Kind string         `json:"kind"`
				Data map[string]any `json:"data"`
			} `json:"parts"`
		} `json:"result"`
		Error any `json:"error"`
	}
	err = json.NewDecoder(resp.Body).Decode(&v03)
	resp.Body.Close()
	if err != nil || v03.Error != nil || v03.Result.Kind != "message" || len(v03.Result.Parts) == 0 ||
		v03.Result.Parts[0].Kind != "data" || v03.Result.Parts[0].Data["decisionId"] != wire.DecisionID("", "v03-1") {
		t.Errorf("0.3 message/send: %+v %v", v03, err)
	}

	// A follow-up names the earlier task in the metadata and keeps its skill.
	res, err = c.SendMessage(ctx, sendTask("anon-2", "book a flight from Berlin to Lisbon on Friday"))
	if err != nil {
		t.Fatal(err)
	}
	first := decisionOf(t, res)
	if first["action"] != "delegate" {
		t.Fatalf("first: %v", first)
	}
	follow := sendTask("anon-3", "make it a window seat please")
	follow.Metadata[a2aserver.MetadataKey].(map[string]any)["continue"] = "anon-2"
	res, err = c.SendMessage(ctx, follow)
	if err != nil {
		t.Fatal(err)
	}
	key := func(d map[string]any) any { c, _ := d["chosen"].(map[string]any); return c["key"] }
	if d := decisionOf(t, res); d["action"] != "delegate" || key(d) == nil || key(d) != key(first) ||
		!strings.Contains(fmt.Sprint(d["reason"]), "follow-up of task anon-2") {
		t.Errorf("follow-up: %v\nfirst: %v", d, first)
	}
	_, err = c.SendMessage(ctx, sendTask("bad id!", "x"))
	if !errors.Is(err, a2a.ErrInvalidParams) || !strings.Contains(err.Error(), "id") {
		t.Errorf("bad task: %v", err)
	}

	// A task the pipeline rejects (its id reused for another task) is an
	// invalid-params error with the dead letter's reason.
	if _, err := c.SendMessage(ctx, sendTask("victim", "book a flight to Lisbon")); err != nil {
		t.Fatal(err)
	}
	_, err = c.SendMessage(ctx, sendTask("victim", "translate this contract to German"))
	if !errors.Is(err, a2a.ErrInvalidParams) || !strings.Contains(err.Error(), "rejected by the extractor") || !strings.Contains(err.Error(), pipeline.ErrTaskIDReused.Error()) {
		t.Errorf("reused task id: %v", err)
	}

	fs, rf := NewRunFlags(nil)
	if err := fs.Parse([]string{"--a2a-listen", "0.0.0.0:0"}); err != nil {
		t.Fatal(err)
	}
	if _, err := rf.A2A.Serve(a2aserver.Config{}, nil, nil, nil); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("0.0.0.0 without authentication: %v", err)
	}
	// Files, which a run calls before it starts anything, says so too.
	if _, err := rf.A2A.Files(); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("0.0.0.0 without authentication, before the start: %v", err)
	}
}
