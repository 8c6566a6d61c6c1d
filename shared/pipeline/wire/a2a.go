package wire

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/endpoint"
	"github.com/skillmatch/skillmatch/shared/a2a/identity"
	"github.com/skillmatch/skillmatch/shared/a2a/routing"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
)

// A2ARequest is a ready A2A v1.0 SendMessage request for one interface of
// the chosen agent.
type A2ARequest struct {
	// URL is where to send it: the interface URL for JSONRPC and GRPC,
	// the interface URL + "/message:send" for HTTP+JSON.
	URL             string `json:"url"`
	ProtocolBinding string `json:"protocolBinding"`
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	// Method is "SendMessage" (JSON-RPC method of A2A v1.0, gRPC
	// A2AService method), "message/send" (the JSON-RPC method of v0.3) or
	// "POST" for HTTP+JSON.
	Method string `json:"method"`
	// Body is the JSON to send: a JSON-RPC 2.0 request for JSONRPC, the
	// SendMessageRequest itself for HTTP+JSON and GRPC (protojson).
	Body json.RawMessage `json:"body"`
	// Headers are the HTTP headers (gRPC metadata) to send with it. A2A
	// v1.0 activates extensions per request through the A2A-Extensions
	// service parameter, so a routed request (package routing) names the
	// skill-routing extension there, whatever the binding.
	Headers map[string]string `json:"headers,omitempty"`
	// Note says what the request leaves out, if anything.
	Note string `json:"note,omitempty"`
}

// RequestOption adjusts what NewA2ARequest builds.
type RequestOption func(*requestOptions)

type requestOptions struct {
	contextID    string
	allowPrivate bool
}

// WithAllowPrivate lets the request go to an interface at a private,
// loopback or similar address: pass the agent's registry status
// (catalog.Status.AllowPrivate). Without it such a URL is refused.
func WithAllowPrivate(allow bool) RequestOption {
	return func(o *requestOptions) { o.allowPrivate = allow }
}

// WithContextID makes the request carry this context id instead of the
// task message's; "" sends none, so that the agent starts a new context.
// The decider uses it to continue a follow-up's recorded context and to
// keep a skill-scoped caller out of contexts it named itself.
func WithContextID(id string) RequestOption {
	return func(o *requestOptions) { o.contextID = id }
}

// DecisionID is the id of the decision for a caller's task: stable
// across redeliveries, so a repeated decision is recognisably the same
// one, and bound to the caller, so that an outcome naming it can be
// checked against who reports it (task ids are the callers' own: two
// callers may use the same one).
func DecisionID(caller, taskID string) string {
	sum := sha256.Sum256([]byte("skillmatch/decision/v2/" + identity.Token(caller) + "/" + taskID))
	return "d-" + hex.EncodeToString(sum[:10])
}

// NewA2ARequest builds the SendMessage request for the card's first
// interface (A2A lists them in order of preference). It returns nil when
// the card declares no interface.
//
// The request goes through routing.Apply: it names the skill-routing
// extension, in message.extensions, in the request metadata
// ({URI: {"skillId": skillID}}) and in the A2A-Extensions header, exactly
// when the card advertises the extension and lists skillID; a routing
// entry the caller put in the message metadata never survives, and an
// empty skillID carries no routing.
//
// The request goes to the first interface whose URL passes the address
// policy (endpoint.CheckInterface); when none does, an error wrapping
// endpoint.ErrRefused says why. The hard filter already
// removes such agents; this is the last check before the caller's data is
// addressed to a URL the card chose.
func NewA2ARequest(c *card.Card, skillID string, t *task.Task, decisionID string, opts ...RequestOption) (*A2ARequest, error) {
	if len(c.Interfaces) == 0 {
		return nil, nil
	}
	o := requestOptions{contextID: t.Message.ContextID}
	for _, opt := range opts {
		opt(&o)
	}
	// The first interface the address policy accepts, as the hard
	// filter's endpoint rule assumes.
	var itf card.Interface
	var refused error
	for _, cand := range c.Interfaces {
		err := endpoint.CheckInterface(cand.Binding, cand.URL, o.allowPrivate)
		if err == nil {
			itf, refused = cand, nil
			break
		}
		if refused == nil {
			refused = err
		}
	}
	if refused != nil {
		return nil, fmt.Errorf("wire: a2a request for agent %q: %w", c.ID, refused)
	}
	md := map[string]any{}
	if len(t.Message.Metadata) > 0 {
		if err := json.Unmarshal(t.Message.Metadata, &md); err != nil {
			return nil, fmt.Errorf("wire: a2a request: message metadata: %w", err)
		}
	}
	// skillmatch's own entry replaces one the caller may have written.
	md["skillmatch"] = map[string]any{"taskId": t.ID, "decisionId": decisionID, "skillId": skillID}
	msg := &a2a.Message{
		ID:        decisionID + "-m",
		ContextID: o.contextID,
		Role:      a2a.MessageRoleUser,
		Metadata:  md,
	}
	if t.Message.MessageID != "" {
		msg.ID = t.Message.MessageID
	}
	var dropped int
	for _, p := range t.Message.Parts {
		switch {
		case p.File != nil && p.File.Bytes != nil:
			msg.Parts = append(msg.Parts, &a2a.Part{Content: a2a.Raw(p.File.Bytes), MediaType: p.File.MediaType, Filename: p.File.Name})
		case p.File != nil && p.File.URI != "":
			msg.Parts = append(msg.Parts, &a2a.Part{Content: a2a.URL(p.File.URI), MediaType: p.File.MediaType, Filename: p.File.Name})
		case p.File != nil:
			dropped++ // named only: there is nothing to send
		case p.Data != nil:
			var v any
			if err := json.Unmarshal(p.Data, &v); err != nil {
				return nil, fmt.Errorf("wire: a2a request: data part: %w", err)
			}
			msg.Parts = append(msg.Parts, &a2a.Part{Content: a2a.Data{Value: v}})
		default:
			msg.Parts = append(msg.Parts, a2a.NewTextPart(p.Text))
		}
	}
	params := &a2a.SendMessageRequest{Tenant: t.Caller.Tenant, Message: msg}
	if accept := t.Constraints.AcceptedOutputTypes; len(accept) > 0 {
		params.Config = &a2a.SendMessageConfig{AcceptedOutputModes: accept}
	}
	routed, err := routing.Apply(params, c, skillID)
	if err != nil {
		return nil, fmt.Errorf("wire: a2a request: %w", err)
	}
	r := &A2ARequest{URL: itf.URL, ProtocolBinding: itf.Binding, ProtocolVersion: itf.ProtocolVersion,
		Headers: map[string]string{}}
	if routed == routing.Routed {
		r.Headers[a2a.SvcParamExtensions] = routing.URI
	}
	if r.ProtocolBinding == "" {
		r.ProtocolBinding = string(a2a.TransportProtocolJSONRPC)
	}
	// The request is written for the protocol version the interface
	// speaks: an A2A v0.3 agent knows message/send and the v0.3 message
	// shape (kind fields), not v1.0's SendMessage.
	v03 := strings.HasPrefix(itf.ProtocolVersion, "0.")
	version := itf.ProtocolVersion
	if version == "" {
		version = "1.0"
	}
	r.Headers[a2a.SvcParamVersion] = version
	var payload any = params
	method := "SendMessage"
	if v03 {
		payload, method = a2av0.FromV1SendMessageRequest(params), "message/send"
	}
	var body any
	switch strings.ToUpper(r.ProtocolBinding) {
	case string(a2a.TransportProtocolHTTPJSON):
		r.Method = "POST"
		if !strings.HasSuffix(itf.URL, "/message:send") {
			r.URL = strings.TrimSuffix(itf.URL, "/") + "/message:send"
		}
		body = payload
	case string(a2a.TransportProtocolGRPC):
		r.Method = "SendMessage"
		body = params
	default:
		r.Method = method
		body = struct {
			JSONRPC string `json:"jsonrpc"`
			ID      string `json:"id"`
			Method  string `json:"method"`
			Params  any    `json:"params"`
		}{"2.0", decisionID, method, payload}
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("wire: a2a request: %w", err)
	}
	r.Body = raw
	if dropped > 0 {
		r.Note = fmt.Sprintf("%d file part(s) are not in the request: the task named them with neither bytes nor a URI; attach them before sending", dropped)
	}
	return r, nil
}
