// Package rerank orders a filtered shortlist by how well each skill fits
// the task. Rerankers only ever reorder the candidates they are given: a
// skill outside the filtered shortlist can never be chosen.
package rerank

import (
	"context"

	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// Input is what a reranker reads: the requirement and the retrieval answer
// for it.
type Input struct {
	Req    *extract.Requirement
	Terms  []string
	Vector []float32
	Result *index.Result
	// History, when the task has earlier turns, is a retrieval of those
	// turns over every skill the filters kept, trimmed to the shortlisted
	// ones: what the conversation was about, for requests like "yes, book
	// it" that lean on it.
	History *index.Result
	// Explain asks for a reason on every candidate, not only the best.
	Explain bool
	// Kin, when set, lists for each candidate (by index) the others that
	// are the same skill offered by another agent, each card written
	// apart (two banks' "Check Balance"), pairwise: a copy of one card is
	// no kin of it even when both are kin of a third. Kin are not each
	// other's rivals in the listwise layer, which reads a candidate's lead
	// over the best of the others: the job is as likely theirs with a
	// sibling beside it as alone.
	Kin [][]int
}

// Scored is a shortlisted candidate with its fit.
type Scored struct {
	index.Candidate
	// Score is the fit, 0 (no fit) to 10 (perfect fit).
	Score float64
	// Reason says briefly why, for --explain and decision logs.
	Reason string
}

// Reranker scores every candidate of the shortlist. The result holds
// exactly the input candidates, best first.
type Reranker interface {
	Rerank(ctx context.Context, in *Input) ([]Scored, error)
}
