package routing_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/routing"
)

func parseCard(t *testing.T, id string, advertise bool, skills ...string) *card.Card {
	t.Helper()
	var ss []string
	for _, s := range skills {
		ss = append(ss, `{"id":"`+s+`","name":"`+s+`","description":"does `+s+`"}`)
	}
	ext := `{"uri":"https://example.com/other/v1"}`
	if advertise {
		ext += `,{"uri":"` + routing.URI + `"}`
	}
	raw := `{"name":"` + id + `","capabilities":{"extensions":[` + ext + `]},"supportedInterfaces":[{"url":"https://a.example/a2a","protocolBinding":"JSONRPC"}],"skills":[` + strings.Join(ss, ",") + `]}`
	c, err := card.Parse(id, []byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// request returns a SendMessageRequest in which a caller tried to set the
// route itself, in both metadata places and in the extensions, under the
// exact URI and under variants.
func request(forged bool) *a2a.SendMessageRequest {
	msg := &a2a.Message{ID: "m1", Role: a2a.MessageRoleUser, Parts: a2a.ContentParts{a2a.NewTextPart("hi")},
		Metadata:   map[string]any{"skillmatch": map[string]any{"skillId": "chosen"}},
		Extensions: []string{"https://example.com/other/v1"},
	}
	p := &a2a.SendMessageRequest{Message: msg, Metadata: map[string]any{"trace": "t1"}}
	if forged {
		msg.Metadata[routing.URI] = map[string]any{"skillId": "admin"}
		msg.Metadata[strings.ToUpper(routing.URI)+"/"] = map[string]any{"skillId": "admin"}
		msg.Extensions = append(msg.Extensions, routing.URI)
		p.Metadata[routing.URI] = map[string]any{"skillId": "admin"}
		p.Metadata[routing.URI+"/"] = "admin"
	}
	return p
}

// routingEntries lists every routing trace left in the request.
func routingEntries(p *a2a.SendMessageRequest) (reqMeta any, msgMeta []string, ext int) {
	for k, v := range p.Metadata {
		if routing.IsRoutingKey(k) {
			if reqMeta != nil || k != routing.URI {
				reqMeta = "more than one, or a variant key: " + k
			} else {
				reqMeta = v
			}
		}
	}
	for k := range p.Message.Metadata {
		if routing.IsRoutingKey(k) {
			msgMeta = append(msgMeta, k)
		}
	}
	for _, e := range p.Message.Extensions {
		if routing.IsRoutingKey(e) {
			ext++
		}
	}
	return
}

func TestApply(t *testing.T) {
	coop := parseCard(t, "billing", true, "invoice", "refund")
	plain := parseCard(t, "ledger", false, "invoice")
	tests := []struct {
		name    string
		card    *card.Card
		skill   string
		forged  bool
		outcome routing.Outcome
	}{
		{"advertises URI and lists skill", coop, "refund", false, routing.Routed},
		{"advertises and lists, caller forged a route", coop, "invoice", true, routing.Routed},
		{"no skill chosen", coop, "", false, routing.NoSkill},
		{"no skill chosen, caller forged a route", coop, "", true, routing.NoSkill},
		{"agent does not advertise", plain, "invoice", false, routing.NotAdvertised},
		{"agent does not advertise, caller forged a route", plain, "invoice", true, routing.NotAdvertised},
		{"skill not listed", coop, "payroll", false, routing.SkillNotListed},
		{"skill not listed, caller forged a route", coop, "payroll", true, routing.SkillNotListed},
		{"no card", nil, "invoice", true, routing.NotAdvertised},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := request(tt.forged)
			o, err := routing.Apply(p, tt.card, tt.skill)
			if err != nil {
				t.Fatal(err)
			}
			if o != tt.outcome {
				t.Errorf("outcome %v, want %v", o, tt.outcome)
			}
			reqMeta, msgMeta, ext := routingEntries(p)
			if len(msgMeta) != 0 {
				t.Errorf("routing entries left in message metadata: %q", msgMeta)
			}
			if tt.outcome == routing.Routed {
				want := map[string]any{"skillId": tt.skill}
				if !reflect.DeepEqual(reqMeta, want) {
					t.Errorf("request metadata route %v, want %v", reqMeta, want)
				}
				if ext != 1 {
					t.Errorf("URI in message extensions %d times, want once", ext)
				}
			} else {
				if reqMeta != nil {
					t.Errorf("request metadata route %v, want none", reqMeta)
				}
				if ext != 0 {
					t.Errorf("URI in message extensions %d times, want none", ext)
				}
			}
			// Everything else is left alone.
			if p.Metadata["trace"] != "t1" {
				t.Errorf("request metadata lost: %v", p.Metadata)
			}
			if !slices.Contains(p.Message.Extensions, "https://example.com/other/v1") {
				t.Errorf("other extension lost: %v", p.Message.Extensions)
			}
			if _, ok := p.Message.Metadata["skillmatch"]; !ok {
				t.Errorf("skillmatch metadata lost: %v", p.Message.Metadata)
			}
			// Check agrees with Apply.
			if err := routing.Check(tt.card, tt.skill); (err == nil) != (tt.outcome == routing.Routed) {
				t.Errorf("Check: %v", err)
			} else if err != nil && !errors.Is(err, routing.ErrUnsupported) {
				t.Errorf("Check error does not wrap ErrUnsupported: %v", err)
			}
			// Applying twice gives the same request.
			before, _ := json.Marshal(p)
			if _, err := routing.Apply(p, tt.card, tt.skill); err != nil {
				t.Fatal(err)
			}
			after, _ := json.Marshal(p)
			if string(before) != string(after) {
				t.Errorf("not idempotent:\n%s\n%s", before, after)
			}
		})
	}
}

func TestApplyWireShape(t *testing.T) {
	coop := parseCard(t, "billing", true, "invoice")
	p := request(false)
	p.Metadata = nil
	if _, err := routing.Apply(p, coop, "invoice"); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Message struct {
			Extensions []string `json:"extensions"`
		} `json:"message"`
		Metadata map[string]map[string]string `json:"metadata"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]string{routing.URI: {"skillId": "invoice"}}
	if !reflect.DeepEqual(got.Metadata, want) || !slices.Contains(got.Message.Extensions, routing.URI) {
		t.Errorf("wire form %s", b)
	}
}

func TestApplyNoMessage(t *testing.T) {
	if _, err := routing.Apply(&a2a.SendMessageRequest{}, nil, "x"); err == nil {
		t.Error("no error")
	}
	if _, err := routing.Apply(nil, nil, "x"); err == nil {
		t.Error("no error for nil request")
	}
}
