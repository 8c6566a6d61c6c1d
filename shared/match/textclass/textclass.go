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
	"math"
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

// A catalog whose skills give at most fewExamples examples each, on
// average, is learned from prototypes first (see startFromPrototypes),
// each worth prototypeWeight mistakes. On clinc150's cards (5 examples a
// skill), scored alone over its training requests, the perceptron picks
// the right skill for 0.694 of them and with prototypes 0.780 (0.736 at
// weight 1, 0.775 at 2, 0.780 at 4 to 32). Fitted with its 95 training
// texts a skill as well, prototypes at weight 4 lift the classifier alone
// on dev (0.893 → 0.903) but cost the whole matcher a little (top-1 0.933
// → 0.930, refusal 0.900 → 0.870): with that many examples the mistakes
// say enough, so there it starts from nothing, as before.
//
// A feature found in the examples of more than maxPrototypeSkills skills
// starts from nothing: it says little of any one of them ("my", "please"),
// and a weight for each of thousands of skills would make every example
// using it read them all (20,000 synthetic skills of ten examples each
// trained in 34 s with such rows, 7 s without, against 17 s for the
// perceptron alone, all on a busy machine). Left out beyond 32 skills,
// clinc150's prototypes score 0.781 of its training requests, 0.780 with
// every feature kept.
const (
	fewExamples        = 20
	prototypeWeight    = 4
	maxPrototypeSkills = 32
)

// maxFeatures bounds the features of one text: card text and requests are
// untrusted, and a long one must not cost a pass over its every pair.
const maxFeatures = 256

// Train learns a model from examples whose classes are below classes.
// The examples are visited in an order fixed by a seeded shuffle, so the
// same examples give the same model. With a handful of examples a skill
// it starts from the skills' prototypes (startFromPrototypes).
func Train(examples []Example, classes int) *Model {
	return train(examples, classes, maxTrainWork, fewPerClass(examples, classes))
}

// train is Train reading at most about budget weights, from the
// prototypes when prototypes is set.
func train(examples []Example, classes, budget int, prototypes bool) *Model {
	m := &Model{ids: map[string]int32{}}
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
	if prototypes {
		startFromPrototypes(accs, samples, classes)
	}
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

// fewPerClass says whether the classes that have examples have at most
// fewExamples each on average.
func fewPerClass(examples []Example, classes int) bool {
	has := make([]bool, max(classes, 0))
	n, in := 0, 0
	for _, ex := range examples {
		if ex.Class < 0 || ex.Class >= classes {
			continue
		}
		in++
		if !has[ex.Class] {
			has[ex.Class] = true
			n++
		}
	}
	return n > 0 && in <= fewExamples*n
}

// startFromPrototypes sets each class's starting weights to its
// prototype: the tf-idf sum of its examples' features, of unit length
// over every feature, each weight times its feature's idf again (a
// request's features are weighed as the examples' are), times
// prototypeWeight; features of more than maxPrototypeSkills skills are
// then left at 0. A perceptron
// learns only from its mistakes, and with a handful of examples a skill
// it makes few: a word of an example it already got right never gains
// weight, and a request using that word scores nothing for its skill. The
// prototypes count every example's every word; the mistakes then correct
// them. The weights stay in acc.w, which the average keeps whole.
func startFromPrototypes(accs []accRow, samples []sample, classes int) {
	df := make([]float64, len(accs))
	for _, s := range samples {
		for _, f := range s.feats { // distinct within an example
			df[f]++
			if accs[f] == nil {
				accs[f] = accRow{}
			}
			a := accs[f][s.class]
			if a == nil {
				a = &acc{}
				accs[f][s.class] = a
			}
			a.w++
		}
	}
	n := float64(len(samples))
	idf := make([]float64, len(df))
	for f, d := range df {
		if d > 0 {
			idf[f] = math.Log(1 + n/d)
		}
	}
	// Each class's squared length is summed feature by feature in index
	// order (whatever order a row's map gives its classes), so the same
	// examples give the same weights to the last bit.
	sq := make([]float64, classes)
	for f, row := range accs {
		for c, a := range row {
			w := a.w * idf[f]
			sq[c] += w * w
		}
	}
	for f, row := range accs {
		if len(row) > maxPrototypeSkills {
			accs[f] = nil
			continue
		}
		for c, a := range row {
			a.w = prototypeWeight * a.w * idf[f] * idf[f] / math.Sqrt(sq[c])
		}
	}
}

// sample is an example's features (sorted, distinct) and its class.
type sample struct {
	feats []int32
	class int32
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
