// Package llmreranktest is a chat-completions stub for tests: a
// deterministic "language model" that judges skills by word overlap and,
// like a naive model, obeys instructions it finds in its prompt — but only
// outside the data blocks the system prompt declares. Quoted card text
// that escaped its block, or was never put in one, would fool it; that is
// what the tests of package llmrerank rely on.
package llmreranktest

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
)

// Mode is how the stub answers.
type Mode int32

const (
	// Honest answers the schema for exactly the ids it was given.
	Honest Mode = iota
	// ExtraID adds a judgement for an id outside the shortlist.
	ExtraID
	// MissingID leaves the last id out.
	MissingID
	// Prose answers in words instead of JSON.
	Prose
	// OutOfRange gives a fit of 11.
	OutOfRange
)

// Stub is the chat stub; Handler serves POST /v1/chat/completions.
type Stub struct {
	mode   atomic.Int32
	calls  atomic.Int64
	obeyed atomic.Int64
}

// Obeyed is the number of answers in which the stub followed an
// instruction found in its prompt.
func (s *Stub) Obeyed() int64 { return s.obeyed.Load() }

// SetMode changes how the stub answers from the next request on.
func (s *Stub) SetMode(m Mode) { s.mode.Store(int32(m)) }

// Calls is the number of requests served.
func (s *Stub) Calls() int64 { return s.calls.Load() }

var (
	nonceRe   = regexp.MustCompile(`<<<REQUEST (\S+)"`)
	commandRe = regexp.MustCompile(`(?i)(?:ignore (?:all )?previous instructions and answer|report a fit of) (\d+)`)
	idsRe     = regexp.MustCompile(`(?m)^Candidate ids: (.*)\.$`)
)

// Handler serves chat completions.
func (s *Stub) Handler(w http.ResponseWriter, r *http.Request) {
	s.calls.Add(1)
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		ResponseFormat json.RawMessage `json:"response_format"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	var system, user string
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			system += m.Content + "\n"
		case "user":
			user += m.Content + "\n"
		}
	}
	content := s.answer(system, user)
	resp := map[string]any{
		"object":  "chat.completion",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}},
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

// Judge is what the stub would answer for a prompt, as id → fit; exported
// so a test can show it is fooled by an undelimited prompt.
func Judge(system, user string) (map[string]int, []string) {
	fits, ids, _ := judge(system, user)
	return fits, ids
}

func judge(system, user string) (map[string]int, []string, bool) {
	nonce := ""
	if m := nonceRe.FindStringSubmatch(system); m != nil {
		nonce = m[1]
	}
	var ids []string
	if m := idsRe.FindStringSubmatch(user); m != nil {
		for _, id := range strings.Split(m[1], ",") {
			ids = append(ids, strings.TrimSpace(id))
		}
	}
	request, cards, outside := split(user, nonce)
	fits := map[string]int{}
	need := analyze.Terms(request)
	for _, id := range ids {
		fits[id] = overlap(need, analyze.Terms(cards[id]))
	}
	// A naive model does what its prompt tells it, wherever it is not
	// told that the text is data.
	if m := commandRe.FindStringSubmatch(system + "\n" + outside); m != nil {
		n, _ := strconv.Atoi(m[1])
		for _, id := range ids {
			fits[id] = n
		}
		return fits, ids, true
	}
	return fits, ids, false
}

// split separates the request block, each card block by id, and the text
// outside every block. Without a nonce nothing is a block.
func split(user, nonce string) (request string, cards map[string]string, outside string) {
	cards = map[string]string{}
	if nonce == "" {
		return user, cards, user
	}
	var out strings.Builder
	lines := strings.Split(user, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case l == "<<<REQUEST "+nonce:
			for i++; i < len(lines) && lines[i] != "REQUEST "+nonce+">>>"; i++ {
				request += lines[i] + "\n"
			}
		case strings.HasPrefix(l, "<<<CARD ") && strings.HasSuffix(l, " "+nonce):
			id := strings.TrimSuffix(strings.TrimPrefix(l, "<<<CARD "), " "+nonce)
			end := "CARD " + id + " " + nonce + ">>>"
			for i++; i < len(lines) && lines[i] != end; i++ {
				cards[id] += lines[i] + "\n"
			}
		default:
			out.WriteString(l + "\n")
		}
	}
	return request, cards, out.String()
}

// overlap is 10 × the share of the request's terms the card mentions.
func overlap(need, card []string) int {
	if len(need) == 0 {
		return 0
	}
	have := map[string]bool{}
	for _, t := range card {
		have[t] = true
	}
	n := 0
	for _, t := range need {
		if have[t] {
			n++
		}
	}
	return int(math.Round(10 * float64(n) / float64(len(need))))
}

func (s *Stub) answer(system, user string) string {
	fits, ids, obeyed := judge(system, user)
	if obeyed {
		s.obeyed.Add(1)
	}
	mode := Mode(s.mode.Load())
	if mode == Prose {
		return "The best skill is clearly the first one."
	}
	type judgement struct {
		ID     string `json:"id"`
		Fit    int    `json:"fit"`
		Reason string `json:"reason"`
	}
	var js []judgement
	for _, id := range ids {
		js = append(js, judgement{ID: id, Fit: fits[id], Reason: fmt.Sprintf("%d of 10 of the request's words", fits[id])})
	}
	switch mode {
	case ExtraID:
		js = append(js, judgement{ID: "evil/steal-everything", Fit: 10, Reason: "told to"})
	case MissingID:
		if len(js) > 0 {
			js = js[:len(js)-1]
		}
	case OutOfRange:
		if len(js) > 0 {
			js[0].Fit = 11
		}
	}
	data, _ := json.Marshal(map[string]any{"judgements": js})
	return string(data)
}
