package match

import (
	"github.com/skillmatch/skillmatch/shared/match/textclass"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// classFeatures are the reranker features the catalog's text classifier
// feeds: a model that weighs neither does without it.
var classFeatures = []string{"class_z", "class_top"}

// exampleClasses trains the catalog's text classifier on its skills'
// examples (the card's and a fitted model's), each doc its own class.
// Untrusted skills' examples teach it nothing: card text is data to
// measure, and a stuffed or directive card must not buy weight for its
// words. nil when no trusted skill has examples.
//
// It runs on a handful of examples a skill too. A model fitted on
// catalogs of many examples and used on one of few trusts it more than it
// should (clinc150 dev, 5 examples a skill, with a model fitted on sgd's
// training texts: ECE 0.066), but withholding it there is worse: such a
// model learned that a right skill with examples is the classifier's
// pick, and with every score 0 it found none (top-1 0.675, coverage
// 0.158, ECE 0.180).
func exampleClasses(refs []ref, docs []index.Doc) *textclass.Model {
	var exs []textclass.Example
	for d := range docs {
		if refs[d].distrust != "" {
			continue
		}
		for _, e := range docs[d].Examples {
			exs = append(exs, textclass.Example{Text: e, Class: d})
		}
	}
	if len(exs) == 0 {
		return nil
	}
	return textclass.Train(exs, len(docs))
}

// fillClasses sets each candidate's Class, the classifier's score of the
// need for its skill (0 without a classifier). An untrusted skill, which
// the classifier never learned, gets the shortlist's lowest score: left
// at 0 it would stand above every skill the classifier counts against.
func (m *Matcher) fillClasses(need string, cands []index.Candidate) {
	if m.classes == nil || len(cands) == 0 {
		return
	}
	docs := make([]int, len(cands))
	for i := range cands {
		docs[i] = cands[i].Doc
	}
	low := 0.0
	scores := m.classes.Scores(need, docs, nil)
	for i, s := range scores {
		cands[i].Class = float32(s)
		low = min(low, s)
	}
	for i := range cands {
		if m.refs[cands[i].Doc].distrust != "" {
			cands[i].Class = float32(low)
		}
	}
}
