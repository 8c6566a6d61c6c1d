// Package a2aserver serves skillmatch as an A2A agent (with the a2a-go
// SDK): an Agent Card at /.well-known/agent-card.json and SendMessage over
// JSON-RPC (/jsonrpc) and HTTP+JSON (/rest), and the A2A 0.3 message/send
// on both bindings under /v0.3 (the SDK's compatibility transports). A
// message is turned into a
// skillmatch task, submitted through the pipeline as the authenticated
// caller, and answered with an agent message whose DataPart is the
// decision (delegate with the ready A2A request, plan with one ready
// request per step, clarify with the question, abstain with the reason).
//
// Who asks comes from authentication (a bearer token or a client
// certificate, see Tokens), never from the message: a caller id in the
// payload is a claim the pipeline replaces.
package a2aserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	a2alog "github.com/a2aproject/a2a-go/v2/log"
	"go.uber.org/zap"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/pipeline/client"
)

// Paths of the bindings, below the server's URL: A2A 1.0, and 0.3
// (message/send) for clients of the earlier protocol.
const (
	PathJSONRPC    = "/jsonrpc"
	PathREST       = "/rest"
	PathJSONRPCV03 = "/v0.3/jsonrpc"
	PathRESTV03    = "/v0.3/rest"
)

// Limits of the HTTP side: a request body (a task is at most 1 MiB in the
// pipeline; the JSON-RPC envelope and base64 files add to it) and the
// requests waited on at once (as the NATS front door's).
const (
	MaxBodyBytes = 2 << 20
	MaxInFlight  = 256
)

// MetadataKey is the key of the request metadata that may carry the
// task's claims: {"scopes": [...], "dataClass": "...", "skillId":
// "agent/skill", "streaming": true, "history": [messages], "continue":
// "<earlier task id>"}. The caller's
// directory (--callers) still bounds them: the payload may only narrow.
const MetadataKey = "skillmatch"

// Submitter submits a task and awaits its answer (client.Client).
type Submitter interface {
	Submit(ctx context.Context, t *task.Task) (*client.Answer, error)
}

// Config configures a Server.
type Config struct {
	// Submitter runs a task through the pipeline.
	Submitter Submitter
	// URL is the public base URL of the server, as clients reach it (the
	// card's interfaces are URL+PathJSONRPC and URL+PathREST). Empty: the
	// listener's address over http, or https with TLS.
	URL string
	// Tokens maps bearer tokens to callers; nil: no tokens.
	Tokens *Tokens
	// TLS serves HTTPS with this configuration (certificates set).
	TLS *tls.Config
	// ClientCAs verifies client certificates (mTLS; the caller is the
	// certificate's common name). Needs TLS.
	ClientCAs *x509.CertPool
	// Timeout bounds the wait for one decision (default 15 s).
	Timeout time.Duration
	// BodyTimeout bounds how long a client may take to send one
	// request's body (default 30 s): with the decision's Timeout it bounds
	// a connection's request, so a client that stalls in its body holds
	// no connection or in-flight slot for ever.
	BodyTimeout time.Duration
	// Version is the agent's version on its card.
	Version string
	Log     *zap.Logger
	// Observer, when set, hears how each request ended.
	Observer Observer
}

// Observer hears how each front-door request ended: result is the
// decision's action (delegate, plan, clarify, abstain), "rejected" (the
// pipeline dead-lettered the task), "invalid" (no task could be read),
// "no_decision" (none in time) or "unauthenticated".
type Observer interface {
	FrontDoorAnswered(door, result string, took time.Duration)
}

// ErrConfig marks a configuration the server refuses.
var ErrConfig = errors.New("a2a front door")

// Server is the A2A front door.
type Server struct {
	cfg  Config
	srv  *http.Server
	ln   net.Listener
	url  string
	done chan struct{}
}

// CheckAddr says whether Listen would refuse addr under cfg's
// authentication and TLS, without listening: a caller checks it before it
// starts anything else.
func CheckAddr(addr string, cfg Config) error {
	if cfg.ClientCAs != nil && cfg.TLS == nil {
		return fmt.Errorf("%w: client certificates need TLS (a server certificate and key)", ErrConfig)
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%w: listen address %q: %v", ErrConfig, addr, err)
	}
	if cfg.Tokens == nil && cfg.ClientCAs == nil && !loopback(host) {
		return fmt.Errorf("%w: %s is not a loopback address: without tokens or client certificates anyone reaching it "+
			"would be served; configure authentication or listen on 127.0.0.1", ErrConfig, addr)
	}
	return nil
}

// Listen starts the server on addr. Without tokens or a client CA it
// serves everyone as the anonymous caller, so it refuses then to listen
// anywhere but on a loopback address.
func Listen(addr string, cfg Config) (*Server, error) {
	if cfg.Submitter == nil {
		return nil, fmt.Errorf("%w: no submitter", ErrConfig)
	}
	if err := CheckAddr(addr, cfg); err != nil {
		return nil, err
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 15 * time.Second
	}
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = 30 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = zap.NewNop()
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	s := &Server{cfg: cfg, ln: ln, done: make(chan struct{})}
	s.url = strings.TrimSuffix(cfg.URL, "/")
	if s.url == "" {
		scheme := "http"
		if cfg.TLS != nil {
			scheme = "https"
		}
		s.url = scheme + "://" + ln.Addr().String()
	}
	if cfg.TLS != nil {
		tc := cfg.TLS.Clone()
		if cfg.ClientCAs != nil {
			tc.ClientCAs = cfg.ClientCAs
			tc.ClientAuth = tls.VerifyClientCertIfGiven // a token is enough too
		}
		ln = tls.NewListener(ln, tc)
	}
	// The read deadline stays set while the handler waits for the
	// decision, and net/http cancels a request whose connection read times
	// out, so it covers the body, the wait and a second for the rest.
	perRequest := cfg.BodyTimeout + cfg.Timeout + time.Second
	s.srv = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: perRequest, WriteTimeout: perRequest, IdleTimeout: 2 * time.Minute}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			cfg.Log.Error("a2a front door stopped", zap.Error(err))
		}
	}()
	return s, nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// URL is the server's base URL; the card is at URL + a2asrv.WellKnownAgentCardPath.
func (s *Server) URL() string { return s.url }

// Stop stops accepting requests and waits up to ctx for those in flight.
func (s *Server) Stop(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	<-s.done
	return err
}

// Card is the server's Agent Card.
func (s *Server) Card() *a2a.AgentCard {
	card := &a2a.AgentCard{
		Name: "skillmatch",
		Description: "Matches a task to the A2A agent skill that should do it, with a calibrated probability, " +
			"or says why not: the reply's data part is the decision (delegate with the ready A2A request, " +
			"plan a request with several intents with one ready request per step, " +
			"clarify with the question, abstain with the reason).",
		Version: s.cfg.Version,
		SupportedInterfaces: []*a2a.AgentInterface{
			{URL: s.url + PathJSONRPC, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.Version},
			{URL: s.url + PathREST, ProtocolBinding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: a2a.Version},
			{URL: s.url + PathJSONRPCV03, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2av0.Version},
			{URL: s.url + PathRESTV03, ProtocolBinding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: a2av0.Version},
		},
		DefaultInputModes:  []string{"text/plain", "application/json", "application/octet-stream"},
		DefaultOutputModes: []string{"application/json", "text/plain"},
		Skills: []a2a.AgentSkill{{
			ID: "match", Name: "Match a task to an agent skill",
			Description: "Given a task (text, files, wanted output types, scopes, data class), choose the agent skill " +
				"to delegate it to (or, for a request with several intents, a plan of one skill per part), " +
				"ask a clarifying question, or abstain with the reason.",
			Tags:     []string{"routing", "orchestration", "a2a"},
			Examples: []string{"book me a hotel in Lisbon", "translate this contract to German"},
		}},
	}
	schemes := a2a.NamedSecuritySchemes{}
	var reqs a2a.SecurityRequirementsOptions
	if s.cfg.Tokens != nil {
		schemes["bearer"] = a2a.HTTPAuthSecurityScheme{Scheme: "Bearer", Description: "a token issued to the caller"}
		reqs = append(reqs, a2a.SecurityRequirements{"bearer": {}})
	}
	if s.cfg.ClientCAs != nil {
		schemes["mtls"] = a2a.MutualTLSSecurityScheme{Description: "a client certificate whose common name is the caller id"}
		reqs = append(reqs, a2a.SecurityRequirements{"mtls": {}})
	}
	if len(schemes) > 0 {
		card.SecuritySchemes, card.SecurityRequirements = schemes, reqs
	}
	return card
}

// Handler is the server's HTTP handler: the card (public), and the two
// bindings behind authentication.
func (s *Server) Handler() http.Handler {
	logger := newSlog(s.cfg.Log)
	h := a2asrv.NewHandler(&executor{s: s}, a2asrv.WithCallInterceptors(callerInterceptor{}),
		a2asrv.WithCapabilityChecks(&a2a.AgentCapabilities{}), a2asrv.WithLogger(logger))
	mux := http.NewServeMux()
	// The card in the 1.0 form, which lists the 0.3 interfaces with their
	// version. (The SDK's union of both forms writes security schemes
	// that its own 1.0 card parser refuses.)
	mux.Handle("GET "+a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(s.Card()))
	mux.Handle(PathJSONRPC, s.authenticate(bounded(a2asrv.NewJSONRPCHandler(h))))
	mux.Handle(PathREST+"/", s.authenticate(bounded(http.StripPrefix(PathREST, a2asrv.NewRESTHandler(h)))))
	mux.Handle(PathJSONRPCV03, s.authenticate(bounded(a2av0.NewJSONRPCHandler(h))))
	mux.Handle(PathRESTV03+"/", s.authenticate(bounded(http.StripPrefix(PathRESTV03, a2av0.NewRESTHandler(h)))))
	// The transports log through the request's context.
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mux.ServeHTTP(w, r.WithContext(a2alog.AttachLogger(r.Context(), logger)))
	})
}

// bounded refuses a body over MaxBodyBytes (413) and, past MaxInFlight
// requests at once, answers 503 rather than queue without bound.
func bounded(next http.Handler) http.Handler {
	inFlight := make(chan struct{}, MaxInFlight)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > MaxBodyBytes {
			http.Error(w, fmt.Sprintf("request body of %d bytes, more than %d", r.ContentLength, MaxBodyBytes), http.StatusRequestEntityTooLarge)
			return
		}
		select {
		case inFlight <- struct{}{}:
			defer func() { <-inFlight }()
		default:
			w.Header().Set("Retry-After", "1")
			http.Error(w, fmt.Sprintf("front door busy: %d requests are waiting for their decisions; retry", MaxInFlight), http.StatusServiceUnavailable)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
		next.ServeHTTP(w, r)
	})
}

// callerInterceptor makes the authenticated caller the call's user, and
// keeps the request's accepted output modes for the executor.
type callerInterceptor struct {
	a2asrv.PassthroughCallInterceptor
}

type acceptKey struct{}

func (callerInterceptor) Before(ctx context.Context, cc *a2asrv.CallContext, req *a2asrv.Request) (context.Context, any, error) {
	caller, ok := callerFrom(ctx)
	if !ok {
		return ctx, nil, a2a.ErrUnauthenticated
	}
	cc.User = &a2asrv.User{Name: caller, Authenticated: caller != ""}
	if r, ok := req.Payload.(*a2a.SendMessageRequest); ok && r.Config != nil {
		ctx = context.WithValue(ctx, acceptKey{}, r.Config.AcceptedOutputModes)
	}
	return ctx, nil, nil
}

// executor answers each message with the pipeline's decision.
type executor struct{ s *Server }

func (e *executor) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		msg, err := e.decide(ctx, ec)
		yield(msg, err)
	}
}

func (e *executor) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(nil, fmt.Errorf("%w: a match is not a task that can be canceled", a2a.ErrTaskNotCancelable))
	}
}

// decide submits the message as a task and builds the reply.
func (e *executor) decide(ctx context.Context, ec *a2asrv.ExecutorContext) (_ *a2a.Message, err error) {
	start, result := time.Now(), "invalid"
	defer func() { e.s.observe(result, time.Since(start)) }()
	caller := ""
	if ec.User != nil {
		caller = ec.User.Name
	}
	accept, _ := ctx.Value(acceptKey{}).([]string)
	t, err := TaskOf(ec.Message, ec.Metadata, accept)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", a2a.ErrInvalidParams, err)
	}
	// The caller is the authenticated one, whatever the message claims.
	t.Caller.ID = caller
	log := e.s.cfg.Log.With(zap.String("task_id", t.ID), zap.String("caller", caller))
	ctx, cancel := context.WithTimeout(ctx, e.s.cfg.Timeout)
	defer cancel()
	a, err := e.s.cfg.Submitter.Submit(ctx, t)
	switch {
	case err != nil:
		result = "no_decision"
		log.Warn("a2a front door: no decision", zap.Error(err))
		return nil, fmt.Errorf("%w: no decision for task %s: %v", a2a.ErrInternalError, t.ID, err)
	case a.DeadLetter != nil:
		result = "rejected"
		log.Info("a2a front door: task rejected", zap.String("stage", a.DeadLetter.Stage), zap.String("reason", a.DeadLetter.Reason))
		return nil, fmt.Errorf("%w: task %s rejected by the %s: %s", a2a.ErrInvalidParams, t.ID, a.DeadLetter.Stage, a.DeadLetter.Reason)
	}
	var data map[string]any
	if err := json.Unmarshal(a.Decision.Raw, &data); err != nil {
		result = "no_decision"
		return nil, fmt.Errorf("%w: decision on task %s: %v", a2a.ErrInternalError, t.ID, err)
	}
	result = a.Decision.Action
	log.Info("a2a front door: decided", zap.String("action", a.Decision.Action))
	dp := a2a.NewDataPart(data)
	dp.MediaType = "application/json"
	reply := a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, dp, a2a.NewTextPart(Summary(a.Decision)))
	return reply, nil
}

func (s *Server) observe(result string, took time.Duration) {
	if s.cfg.Observer != nil {
		s.cfg.Observer.FrontDoorAnswered("a2a", result, took)
	}
}

// Summary is one line saying what the decision is, for a reader.
func Summary(d *client.Decision) string {
	switch d.Action {
	case client.Delegate:
		var r struct {
			URL string `json:"url"`
		}
		_ = json.Unmarshal(d.Request, &r)
		return fmt.Sprintf("delegate (probability %.2f) to %s: %s", d.Probability, r.URL, d.Reason)
	case client.Plan:
		steps := make([]string, len(d.Steps))
		for i, s := range d.Steps {
			steps[i] = fmt.Sprintf("%d. %s for %q", i+1, s.Chosen.Key, s.Part)
		}
		return fmt.Sprintf("plan of %d steps (probability %.2f): %s", len(d.Steps), d.Probability, strings.Join(steps, "; "))
	case client.Clarify:
		return "clarify: " + d.Question
	default:
		return "abstain: " + d.Reason
	}
}

// claims is the task's part of the request metadata (MetadataKey).
type claims struct {
	Scopes    json.RawMessage `json:"scopes,omitempty"`
	DataClass string          `json:"dataClass,omitempty"`
	Tenant    string          `json:"tenant,omitempty"`
	SkillID   string          `json:"skillId,omitempty"`
	Streaming *bool           `json:"streaming,omitempty"`
	History   json.RawMessage `json:"history,omitempty"`
	// Continue names an earlier task of the same caller this message
	// follows up (the task's message.taskId): A2A's own taskId names a
	// task of this server, and a match is not one.
	Continue string `json:"continue,omitempty"`
}

// TaskOf is the skillmatch task of an A2A message: its id is the
// message id (a client retrying a message gets the same decision), its
// parts and context are the message's, the accepted output modes become
// the wanted output types, and the request metadata under MetadataKey adds
// the claims. The result is read by task.Parse, with its limits, as any
// submitted task is.
func TaskOf(m *a2a.Message, metadata map[string]any, accept []string) (*task.Task, error) {
	if m == nil {
		return nil, errors.New("no message")
	}
	var c claims
	if raw, ok := metadata[MetadataKey]; ok {
		b, err := json.Marshal(raw)
		if err != nil {
			return nil, fmt.Errorf("metadata %q: %v", MetadataKey, err)
		}
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			return nil, fmt.Errorf("metadata %q: %v", MetadataKey, err)
		}
	}
	parts, err := json.Marshal(m.Parts)
	if err != nil {
		return nil, err
	}
	type wireMessage struct {
		MessageID string          `json:"messageId,omitempty"`
		ContextID string          `json:"contextId,omitempty"`
		TaskID    string          `json:"taskId,omitempty"`
		Role      string          `json:"role"`
		Parts     json.RawMessage `json:"parts"`
		Metadata  map[string]any  `json:"metadata,omitempty"`
	}
	in := struct {
		ID      string          `json:"id"`
		Message wireMessage     `json:"message"`
		History json.RawMessage `json:"history,omitempty"`
		Caller  struct {
			Tenant    string          `json:"tenant,omitempty"`
			Scopes    json.RawMessage `json:"scopes,omitempty"`
			DataClass string          `json:"dataClass,omitempty"`
		} `json:"caller"`
		Constraints struct {
			AcceptedOutputTypes []string `json:"acceptedOutputTypes,omitempty"`
			Streaming           *bool    `json:"streaming,omitempty"`
			SkillID             string   `json:"skillId,omitempty"`
		} `json:"constraints"`
	}{ID: m.ID, History: c.History,
		Message: wireMessage{MessageID: m.ID, ContextID: m.ContextID, TaskID: c.Continue, Role: "user", Parts: parts, Metadata: m.Metadata}}
	in.Caller.Tenant, in.Caller.Scopes, in.Caller.DataClass = c.Tenant, c.Scopes, c.DataClass
	in.Constraints.AcceptedOutputTypes, in.Constraints.Streaming, in.Constraints.SkillID = accept, c.Streaming, c.SkillID
	data, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	return task.Parse(data)
}
