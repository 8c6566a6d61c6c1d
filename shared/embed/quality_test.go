//go:build harness

package embed

import (
	"bufio"
	"fmt"
	"math"
	"math/rand"
	"os"
	"sort"
	"testing"
	"unsafe"

	"github.com/skillmatch/skillmatch/shared/analyze"
)

func cos64(a, b []float32) float64 {
	var d, na, nb float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return d / math.Sqrt(na*nb)
}

func TestQuality(t *testing.T) {
	f, err := os.Open("/tmp/exp/words.txt")
	if err != nil {
		t.Skip(err)
	}
	orig := map[string][]float32{}
	b, _ := os.ReadFile("/tmp/exp/vecs.f32")
	all := unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
	sc := bufio.NewScanner(f)
	for i := 0; sc.Scan(); i++ {
		orig[sc.Text()] = all[i*100 : (i+1)*100]
	}
	file := os.Getenv("QFILE")
	var opts []Option
	if file != "" {
		opts = append(opts, WithVectorsFile(file))
	}
	g, err := NewGloVe(opts...)
	if err != nil {
		t.Fatal(err)
	}
	tb := g.t
	fmt.Printf("file %q: %d words, %d bits\n", file, tb.Len(), tb.Bits)
	r := rand.New(rand.NewSource(7))
	// 1. random pairs
	var mae, mx float64
	const np = 500
	for k := 0; k < np; k++ {
		i, j := r.Intn(tb.Len()), r.Intn(tb.Len())
		d := math.Abs(cos64(orig[tb.Words[i]], orig[tb.Words[j]]) - cos64(tb.Vector(i), tb.Vector(j)))
		mae += d
		mx = max(mx, d)
	}
	fmt.Printf("random word pairs (%d): cosine MAE %.5f max %.5f\n", np, mae/np, mx)
	// 2. related pairs: each sampled word with its float nearest neighbour among top 20k
	mae, mx = 0, 0
	const nn = 300
	agree := 0
	for k := 0; k < nn; k++ {
		i := 100 + r.Intn(20000)
		best, bi, bq, bqi := -2.0, 0, -2.0, 0
		vi, qi := orig[tb.Words[i]], tb.Vector(i)
		for j := 0; j < 20000; j++ {
			if j == i {
				continue
			}
			if c := cos64(vi, orig[tb.Words[j]]); c > best {
				best, bi = c, j
			}
			if c := cos64(qi, tb.Vector(j)); c > bq {
				bq, bqi = c, j
			}
		}
		if bi == bqi {
			agree++
		}
		d := math.Abs(best - cos64(qi, tb.Vector(bi)))
		mae += d
		mx = max(mx, d)
	}
	fmt.Printf("nearest-neighbour pairs (%d): cosine MAE %.5f max %.5f; same top-1 neighbour %d/%d\n", nn, mae/nn, mx, agree, nn)

	// 3. nearest neighbours of a few words (quantized)
	for _, w := range []string{"money", "invoice", "translate", "weather", "flight", "database", "refund", "schedule", "summarize", "docker"} {
		i, ok := tb.find(w)
		if !ok {
			fmt.Printf("%-10s not in vocabulary\n", w)
			continue
		}
		q := tb.Vector(int(i))
		type nb struct {
			w string
			c float64
		}
		var nbs []nb
		for j := 0; j < tb.Len(); j++ {
			if j != int(i) {
				nbs = append(nbs, nb{tb.Words[j], cos64(q, tb.Vector(j))})
			}
		}
		sort.Slice(nbs, func(a, b int) bool { return nbs[a].c > nbs[b].c })
		fmt.Printf("%-10s", w)
		for _, n := range nbs[:8] {
			fmt.Printf(" %s(%.2f)", n.w, n.c)
		}
		fmt.Println()
	}

	// 4. sentence similarities, quantized vs float SIF
	floatEmbed := func(s string) []float32 {
		out := make([]float64, 100)
		emb := func(skip bool) bool {
			found := false
			for _, w := range analyze.Words(s) {
				if skip && analyze.IsStopword(w) {
					continue
				}
				i, ok := tb.lookup(w)
				if !ok {
					continue
				}
				v := orig[tb.Words[i]]
				a := float64(tb.SIFA)
				wt := a / (a + tb.prob[i])
				for j := range out {
					out[j] += wt * float64(v[j])
				}
				found = true
			}
			return found
		}
		if !emb(true) {
			emb(false)
		}
		var dot float64
		for j, u := range tb.Common {
			dot += out[j] * float64(u)
		}
		res := make([]float32, 100)
		for j, u := range tb.Common {
			res[j] = float32(out[j] - dot*float64(u))
		}
		return res
	}
	pairs := [][2]string{
		{"transfer money to my savings account", "move funds between accounts"},
		{"transfer money to my savings account", "what's the weather in paris"},
		{"move funds between accounts", "what's the weather in paris"},
		{"book a flight to london next tuesday", "reserve plane tickets"},
		{"book a flight to london next tuesday", "translate this sentence into french"},
		{"summarize this pdf report", "create a short summary of a document"},
		{"summarize this pdf report", "play some jazz music"},
		{"deploy the service to kubernetes", "roll out a new release to the cluster"},
		{"deploy the service to kubernetes", "order a pizza with extra cheese"},
	}
	for _, p := range pairs {
		fmt.Printf("%.3f (float %.3f)  %q vs %q\n", Cosine(g.Embed(p[0]), g.Embed(p[1])), cos64(floatEmbed(p[0]), floatEmbed(p[1])), p[0], p[1])
	}
	skills, tasks := hLoad(t, "/work/shared/golden/clinc150", "dev")
	mae, mx = 0, 0
	const ns = 2000
	for k := 0; k < ns; k++ {
		a, s := tasks[r.Intn(len(tasks))].text, skills[r.Intn(len(skills))].doc
		if k%2 == 0 {
			s = tasks[r.Intn(len(tasks))].text
		}
		d := math.Abs(float64(Cosine(g.Embed(a), g.Embed(s))) - cos64(floatEmbed(a), floatEmbed(s)))
		mae += d
		mx = max(mx, d)
	}
	fmt.Printf("sentence pairs (%d CLINC task/skill texts): cosine MAE %.5f max %.5f\n", ns, mae/ns, mx)
}
