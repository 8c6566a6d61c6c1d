// Package textclass is a linear text classifier learned from a catalog's
// own examples: an averaged perceptron over words, adjacent word pairs and
// the first word. The matcher's other example features are nearest
// neighbours (one request against one example at a time, by GloVe cosine
// or BM25); a discriminative model learns which words tell two similar
// skills apart ("update" between a to-do list and its update, "how"
// between when and how to change the oil), which neighbours weigh like
// any other word. It learns at load time, deterministically, in about a
// second for 15,000 examples.
package textclass

import (
	"math/rand/v2"
	"slices"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
)

// Example is one labelled text: Class numbers its skill, from 0.
type Example struct {
	Text  string
	Class int
}

// Model scores texts against classes. The zero value and nil score every
// class 0.
type Model struct {
	ids map[string]int32
	// rows[f] are feature f's non-zero weights, by class.
	rows [][]weight
}

type weight struct {
	class int32
	w     float32
}

// Epochs is how many passes Train makes over the examples: on clinc150's
// training texts the dev accuracy stops rising after four.
const Epochs = 5

// maxTrainWork bounds the weights Train reads, so that a catalog of any
// size loads in bounded time: a word common to many skills' examples
// gathers a weight for each, and each example reads every weight of each
// of its words. clinc150's 14,203 training texts take 61 million reads
// over the five epochs (0.8 s); 20,000 synthetic skills of ten examples
// each, all sharing a dozen words, reach the bound in 2.5 s. Past it Train
// stops early, after the same examples every run, and keeps what it
// learned.
const maxTrainWork = 200_000_000

// maxFeatures bounds the features of one text: card text and requests are
// untrusted, and a long one must not cost a pass over its every pair.
const maxFeatures = 256

// Train learns a model from examples whose classes are below classes.
// The examples are visited in an order fixed by a seeded shuffle, so the
// same examples give the same model.
func Train(examples []Example, classes int) *Model {
	return train(examples, classes, maxTrainWork)
}

// train is Train reading at most about budget weights.
func train(examples []Example, classes, budget int) *Model {
	m := &Model{ids: map[string]int32{}}
	type sample struct {
		feats []int32
		class int32
	}
	samples := make([]sample, 0, len(examples))
	var buf []string
	for _, ex := range examples {
		if ex.Class < 0 || ex.Class >= classes {
			continue
		}
		buf = features(buf[:0], ex.Text)
		fs := make([]int32, 0, len(buf))
		for _, f := range buf {
			id, ok := m.ids[f]
			if !ok {
				id = int32(len(m.ids))
				m.ids[f] = id
			}
			fs = append(fs, id)
		}
		slices.Sort(fs)
		samples = append(samples, sample{slices.Compact(fs), int32(ex.Class)})
	}
	// Sorted by skill, as a catalog lists them, the perceptron would learn
	// each class in turn and forget the first ones.
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(len(samples), func(i, j int) { samples[i], samples[j] = samples[j], samples[i] })

	accs := make([]accRow, len(m.ids))
	score := make([]float64, classes)
	seen := make([]bool, classes)
	var touched []int32
	step := 1.0
	work := 0
train:
	for range Epochs {
		for _, s := range samples {
			if work > budget {
				break train
			}
			touched = touched[:0]
			for _, f := range s.feats {
				work += len(accs[f])
				for c, a := range accs[f] {
					if !seen[c] {
						seen[c] = true
						touched = append(touched, c)
					}
					score[c] += a.w
				}
			}
			// The best other class; one no feature touched scores 0.
			other, best := int32(-1), 0.0
			for _, c := range touched {
				if c != s.class && (other < 0 || score[c] > best || score[c] == best && c < other) {
					other, best = c, score[c]
				}
			}
			mistake := score[s.class] <= best
			for _, c := range touched {
				score[c], seen[c] = 0, false
			}
			if mistake {
				for _, f := range s.feats {
					if accs[f] == nil {
						accs[f] = accRow{}
					}
					accs[f].add(s.class, 1, step)
					if other >= 0 {
						accs[f].add(other, -1, step)
					}
				}
			}
			step++
		}
	}
	m.rows = make([][]weight, len(accs))
	for f, row := range accs {
		for c, a := range row {
			if w := a.w - a.u/step; w != 0 {
				m.rows[f] = append(m.rows[f], weight{c, float32(w)})
			}
		}
		slices.SortFunc(m.rows[f], func(a, b weight) int { return int(a.class - b.class) })
	}
	return m
}

// acc is one class's weight for one feature and its changes summed, each
// times the step it was made at: the average weight over every step is
// w - u/steps (the averaged perceptron's trick), which generalises far
// better than the last weights.
type acc struct{ w, u float64 }

type accRow map[int32]*acc

func (row accRow) add(c int32, d, step float64) {
	a, ok := row[c]
	if !ok {
		a = &acc{}
		row[c] = a
	}
	a.w += d
	a.u += d * step
}

// Scores writes the score of text for each of classes into dst (grown
// when short) and returns it.
func (m *Model) Scores(text string, classes []int, dst []float64) []float64 {
	if cap(dst) < len(classes) {
		dst = make([]float64, len(classes))
	}
	dst = dst[:len(classes)]
	clear(dst)
	if m == nil || len(m.rows) == 0 {
		return dst
	}
	for _, f := range features(nil, text) {
		id, ok := m.ids[f]
		if !ok {
			continue
		}
		row := m.rows[id]
		for i, c := range classes {
			if j, ok := slices.BinarySearchFunc(row, int32(c), func(w weight, c int32) int { return int(w.class - c) }); ok {
				dst[i] += float64(row[j].w)
			}
		}
	}
	return dst
}

// features appends text's features to dst: each word's term (a stopword
// as itself: "how" and "when" tell intents apart), each pair of adjacent
// words, and the first word, at most maxFeatures.
func features(dst []string, text string) []string {
	words := analyze.Words(text)
	for i, w := range words {
		if !analyze.IsStopword(w) {
			words[i] = analyze.Stem(w)
		}
	}
	if len(words) == 0 {
		return dst
	}
	dst = append(dst, "^"+words[0])
	for i, w := range words {
		if len(dst) >= maxFeatures {
			break
		}
		dst = append(dst, w)
		if i+1 < len(words) {
			dst = append(dst, w+" "+words[i+1])
		}
	}
	return dst[:min(len(dst), maxFeatures)]
}

// Size is how many features the model knows and how many weights it
// holds, for logs.
func (m *Model) Size() (features, weights int) {
	if m == nil {
		return 0, 0
	}
	for _, r := range m.rows {
		weights += len(r)
	}
	return len(m.rows), weights
}
