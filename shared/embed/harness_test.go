//go:build harness

package embed

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/analyze"
)

type hSkill struct {
	key  string
	doc  string
	exs  []string
	desc string
}

type hTask struct {
	text     string
	expected string
	ok       map[string]bool
}

func hLoad(t *testing.T, dir, split string) ([]hSkill, []hTask) {
	files, _ := filepath.Glob(filepath.Join(dir, "cards", "*.json"))
	var skills []hSkill
	for _, f := range files {
		b, _ := os.ReadFile(f)
		var c struct {
			Name, Description string
			Skills            []struct {
				ID, Name, Description string
				Tags, Examples        []string
			}
		}
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		agent := strings.TrimSuffix(filepath.Base(f), ".json")
		for _, s := range c.Skills {
			doc := s.Name + ". " + s.Description + ". " + strings.Join(s.Tags, ", ") + ". " + strings.Join(s.Examples, ". ")
			skills = append(skills, hSkill{key: agent + "/" + s.ID, doc: doc, exs: s.Examples, desc: s.Name + ". " + s.Description + ". " + strings.Join(s.Tags, ", ")})
		}
	}
	f, _ := os.Open(filepath.Join(dir, "tasks.jsonl"))
	defer f.Close()
	var tasks []hTask
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var x struct {
			Text, Split string
			Expected    *string
			Acceptable  []string
		}
		json.Unmarshal(sc.Bytes(), &x)
		if x.Expected == nil || (split != "" && x.Split != split) {
			continue
		}
		ok := map[string]bool{*x.Expected: true}
		for _, a := range x.Acceptable {
			ok[a] = true
		}
		tasks = append(tasks, hTask{text: x.Text, expected: *x.Expected, ok: ok})
	}
	return skills, tasks
}

type embedFn func(string) []float32

// hEval returns top-1, MRR, recall@5 with skills as doc vectors or max over
// (desc, examples) vectors.
func hEval(skills []hSkill, tasks []hTask, e embedFn, maxMode bool) (float64, float64, float64) {
	var svecs [][][]float32
	for _, s := range skills {
		if maxMode {
			vs := [][]float32{e(s.desc)}
			for _, x := range s.exs {
				vs = append(vs, e(x))
			}
			svecs = append(svecs, vs)
		} else {
			svecs = append(svecs, [][]float32{e(s.doc)})
		}
	}
	var top1, mrr, r5 float64
	type sc struct {
		i int
		s float32
	}
	scores := make([]sc, len(skills))
	for _, tk := range tasks {
		q := e(tk.text)
		for i, vs := range svecs {
			best := float32(-2)
			for _, v := range vs {
				best = max(best, Cosine(q, v))
			}
			scores[i] = sc{i, best}
		}
		sort.SliceStable(scores, func(a, b int) bool { return scores[a].s > scores[b].s })
		for r, s := range scores {
			if tk.ok[skills[s.i].key] {
				if r == 0 {
					top1++
				}
				if r < 5 {
					r5++
				}
				mrr += 1 / float64(r+1)
				break
			}
		}
	}
	n := float64(len(tasks))
	return top1 / n, mrr / n, r5 / n
}

// withComponent returns an embedder like g but removing u instead.
func withComponent(g *GloVe, u []float32) *GloVe {
	c := *g
	c.common = u
	return &c
}

// domainComponent is SIF's original in-domain estimate: the first singular
// vector of the sentence vectors (before removal) of texts.
func domainComponent(g *GloVe, texts []string) []float32 {
	raw := withComponent(g, nil)
	d := g.Dim()
	m := make([]float64, d*d)
	for _, s := range texts {
		v := raw.Embed(s)
		for r := 0; r < d; r++ {
			for c := 0; c < d; c++ {
				m[r*d+c] += float64(v[r] * v[c])
			}
		}
	}
	u := make([]float64, d)
	for i := range u {
		u[i] = 1
	}
	for it := 0; it < 500; it++ {
		nx := make([]float64, d)
		var n float64
		for r := 0; r < d; r++ {
			for c := 0; c < d; c++ {
				nx[r] += m[r*d+c] * u[c]
			}
			n += nx[r] * nx[r]
		}
		n = math.Sqrt(n)
		for r := range nx {
			nx[r] /= n
		}
		u = nx
	}
	out := make([]float32, d)
	for i := range u {
		out[i] = float32(u[i])
	}
	return out
}

func TestHarness(t *testing.T) {
	sets := []struct{ dir, split string }{
		{"/work/shared/golden/clinc150", "dev"},
		{"/work/shared/golden/a2a-samples", ""},
	}
	files := strings.Fields(os.Getenv("HFILES"))
	if len(files) == 0 {
		files = []string{""}
	}
	for _, file := range files {
		var opts []Option
		if file != "" {
			opts = append(opts, WithVectorsFile(file))
		}
		for _, set := range sets {
			skills, tasks := hLoad(t, set.dir, set.split)
			var docs []string
			for _, s := range skills {
				docs = append(docs, s.doc)
			}
			type variant struct {
				name string
				e    embedFn
			}
			var vs []variant
			g0, err := NewGloVe(opts...)
			if err != nil {
				t.Fatal(err)
			}
			comps := map[string][]float32{
				"stored":      g0.common,
				"none":        nil,
				"M-nostop":    vocabComponent(g0.t, 1e-3, true, false),
				"mean":        vocabComponent(g0.t, 1e-3, false, true),
				"mean-nostop": vocabComponent(g0.t, 1e-3, true, true),
			}
			fmt.Println("cos(stored, M-nostop)", Cosine(comps["stored"], comps["M-nostop"]), "cos(stored, mean)", Cosine(comps["stored"], comps["mean"]))
			avals := []float64{3e-4, 1e-3, 3e-3}
			if os.Getenv("HMODE") == "files" {
				avals = []float64{1e-3}
			}
			for _, a := range avals {
				for _, stop := range []bool{false, true} {
					for _, cn := range []string{"stored", "none", "M-nostop", "mean", "mean-nostop", "domain"} {
						if os.Getenv("HMODE") == "files" && (!stop || cn != "stored") {
							continue
						}
						if a != 1e-3 && cn != "stored" && cn != "M-nostop" {
							continue
						}
						g := newGloVe(g0.t, options{sifA: a, skipStop: stop})
						if cn == "domain" {
							g = withComponent(g, domainComponent(g, docs))
						} else {
							g = withComponent(g, comps[cn])
						}
						vs = append(vs, variant{fmt.Sprintf("a=%g stop=%v c=%s", a, stop, cn), g.Embed})
					}
				}
			}
			for _, v := range vs {
				for _, mm := range []bool{false, true} {
					top1, mrr, r5 := hEval(skills, tasks, v.e, mm)
					fmt.Printf("%-14s %-12s %-34s max=%-5v top1 %.4f  mrr %.4f  r@5 %.4f\n", filepath.Base(file), filepath.Base(set.dir), v.name, mm, top1, mrr, r5)
				}
			}
		}
	}
}

func vocabComponent(t *table, a float64, nostop, meanOnly bool) []float32 {
	d := t.Dim
	m := make([]float64, d*d)
	mean := make([]float64, d)
	x := make([]float64, d)
	for i, w := range t.Words {
		if nostop && analyze.IsStopword(w) {
			continue
		}
		v := t.Vector(i)
		p := t.prob[i]
		s := a / (a + p)
		for j := range x {
			x[j] = s * float64(v[j])
			mean[j] += p * x[j]
		}
		for r := 0; r < d; r++ {
			for c := 0; c < d; c++ {
				m[r*d+c] += p * x[r] * x[c]
			}
		}
	}
	u := append([]float64(nil), mean...)
	if !meanOnly {
		for it := 0; it < 2000; it++ {
			nx := make([]float64, d)
			for r := 0; r < d; r++ {
				for c := 0; c < d; c++ {
					nx[r] += m[r*d+c] * u[c]
				}
			}
			u = nx
			var n float64
			for _, z := range u {
				n += z * z
			}
			for r := range u {
				u[r] /= math.Sqrt(n)
			}
		}
	}
	var n float64
	for _, z := range u {
		n += z * z
	}
	out := make([]float32, d)
	for i := range u {
		out[i] = float32(u[i] / math.Sqrt(n))
	}
	return out
}
