// Package systemone is a reranker over a relevance-classification service
// in the style of TypeSafe's System One: one HTTP call carries the
// request, the recent turns and one "score" question per shortlisted
// skill (the skill flattened into a rubric), and the service answers a
// relevance probability per question. Skills under the threshold are not
// needed for the request: their fit is 0. The answer must hold exactly the
// questions asked, each a score in [0, 1], or it is refused whole
// (ErrBadAnswer) and the matcher ranks with its built-in reranker.
package systemone

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/skillmatch/skillmatch/shared/match/rerank"
	"github.com/skillmatch/skillmatch/shared/retrieval/modelapi"
)

// Config configures a Scorer.
type Config struct {
	// Client posts to the scoring endpoint (e.g. .../v1/systemone), with
	// the key in Authorization: Bearer or in Client.Header.
	Client modelapi.Client
	// Model is the model alias (default "jev-latest").
	Model string
	// Threshold is the lowest relevance a skill is kept at (default 0.6).
	Threshold float64
	// MaxRubric caps a skill's rubric in characters (default 500).
	MaxRubric int
	// Turns is how many earlier turns go with the request (default 4).
	Turns int
}

// Scorer is the System One-style reranker.
type Scorer struct{ cfg Config }

var _ rerank.Reranker = (*Scorer)(nil)

// New returns the scorer.
func New(cfg Config) (*Scorer, error) {
	if cfg.Client.URL == "" {
		return nil, errors.New("systemone: no URL")
	}
	if cfg.Model == "" {
		cfg.Model = "jev-latest"
	}
	if cfg.Threshold == 0 {
		cfg.Threshold = 0.6
	}
	if cfg.Threshold < 0 || cfg.Threshold > 1 {
		return nil, fmt.Errorf("systemone: threshold %v: want 0 to 1", cfg.Threshold)
	}
	if cfg.MaxRubric <= 0 {
		cfg.MaxRubric = 500
	}
	if cfg.Turns <= 0 {
		cfg.Turns = 4
	}
	return &Scorer{cfg: cfg}, nil
}

// ErrBadAnswer marks an answer that does not hold exactly the questions
// asked, each a score in [0, 1].
var ErrBadAnswer = errors.New("systemone: answer outside the questions asked")

// Question and Criteria are the score question of the seed design: two
// criteria, so the score is a 0-1 relevance probability comparable to the
// threshold (a third would rescale it).
const Question = "How relevant is this skill to answering the user's latest request?"

var Criteria = []string{
	"Not needed; the request can be answered fully without this skill.",
	"Needed; the request or part of it requires this skill.",
}

type turn struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type question struct {
	Type         string            `json:"type"`
	Instructions map[string]string `json:"instructions"`
	Criteria     []string          `json:"criteria"`
}

type request struct {
	Model     string              `json:"model"`
	State     map[string]any      `json:"state"`
	Questions map[string]question `json:"questions"`
}

type answer struct {
	Type  string   `json:"type"`
	Score *float64 `json:"score"`
}

type response struct {
	Model   string            `json:"model"`
	Answers map[string]answer `json:"answers"`
}

// Rerank implements rerank.Reranker.
func (s *Scorer) Rerank(ctx context.Context, in *rerank.Input) ([]rerank.Scored, error) {
	cands := in.Result.Candidates
	if len(cands) == 0 {
		return nil, nil
	}
	req := request{Model: s.cfg.Model, State: map[string]any{}, Questions: map[string]question{}}
	var conv []turn
	if in.Req != nil {
		req.State["latest user message"] = s.strip(in.Req.Need)
		h := in.Req.History
		if len(h) > s.cfg.Turns {
			h = h[len(h)-s.cfg.Turns:]
		}
		for _, t := range h {
			conv = append(conv, turn{Role: "user", Content: s.strip(t)})
		}
	}
	if conv != nil {
		req.State["conversation"] = conv
	}
	for i, c := range cands {
		d := c.Entry
		rubric := d.AgentName + ": " + d.Name
		if d.Description != "" {
			rubric += " — " + d.Description
		}
		if len(d.Tags) > 0 {
			rubric += " topics: " + strings.Join(d.Tags, ", ")
		}
		req.Questions[key(i)] = question{Type: "score", Criteria: Criteria,
			Instructions: map[string]string{"question": Question, "skill": s.strip(rubric)}}
	}
	var resp response
	if err := s.cfg.Client.Post(ctx, req, &resp); err != nil {
		return nil, fmt.Errorf("systemone: %w", err)
	}
	if len(resp.Answers) != len(cands) {
		return nil, fmt.Errorf("%w: %d answers for %d questions", ErrBadAnswer, len(resp.Answers), len(cands))
	}
	out := make([]rerank.Scored, len(cands))
	for i := range cands {
		a, ok := resp.Answers[key(i)]
		switch {
		case !ok:
			return nil, fmt.Errorf("%w: no answer for %s", ErrBadAnswer, key(i))
		case a.Type != "score" || a.Score == nil || math.IsNaN(*a.Score) || *a.Score < 0 || *a.Score > 1:
			return nil, fmt.Errorf("%w: answer for %s is not a score in [0, 1]", ErrBadAnswer, key(i))
		}
		p := *a.Score
		sc := rerank.Scored{Candidate: cands[i], Score: 10 * p,
			Reason: fmt.Sprintf("relevance %.2f (%s)", p, plain(resp.Model))}
		if p < s.cfg.Threshold {
			sc.Score = 0
			sc.Reason = fmt.Sprintf("relevance %.2f, under the threshold %.2f (%s)", p, s.cfg.Threshold, plain(resp.Model))
		}
		out[i] = sc
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Score > out[b].Score })
	return out, nil
}

// key names question i: ids of our own, never card text.
func key(i int) string { return "skill_" + strconv.Itoa(i+1) }

func (s *Scorer) strip(t string) string {
	t = strings.Map(func(c rune) rune {
		switch {
		case unicode.IsSpace(c):
			return ' '
		case unicode.IsControl(c) || unicode.Is(unicode.Cf, c):
			return -1
		}
		return c
	}, t)
	t = strings.Join(strings.Fields(t), " ")
	if rs := []rune(t); len(rs) > s.cfg.MaxRubric {
		t = string(rs[:s.cfg.MaxRubric]) + "…"
	}
	return t
}

// plain keeps the model name the service reports short and printable.
func plain(s string) string {
	s = strings.Map(func(c rune) rune {
		if unicode.IsPrint(c) && c != ' ' {
			return c
		}
		return -1
	}, s)
	if len(s) > 40 {
		s = s[:40]
	}
	if s == "" {
		return "systemone"
	}
	return s
}
