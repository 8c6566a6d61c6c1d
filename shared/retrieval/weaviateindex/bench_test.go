package weaviateindex

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// BenchmarkSearch measures one retrieval (BM25 + dense + fusion + details)
// at 1,000 skills (SKILLMATCH_BENCH_SKILLS sets another size) in memory and through Weaviate, with no filter and with a
// scattered half of the catalog allowed (not pushed down: post-filtered).
// It reports the median and 99th percentile besides the mean.
func BenchmarkSearch(b *testing.B) {
	ctx := context.Background()
	emb := embed.Default()
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("SKILLMATCH_BENCH_SKILLS")); err == nil && v > 0 {
		n = v
	}
	docs := synthDocs(b, n)
	queries := synthQueries(200)(b, docs)
	mem, err := index.NewMemory(slices.Clone(docs), emb)
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	wv := newWeaviate(b, ctx, fmt.Sprintf("bench%d", n), slices.Clone(docs), Config{})
	b.Logf("%d skills, %d texts: stored (or found) in Weaviate in %v", n, len(wv.vs.Owner)-n, time.Since(t0).Round(time.Millisecond))
	qs := make([]index.Query, len(queries))
	for i, text := range queries {
		qs[i] = index.Query{Text: text, Terms: analyze.Terms(text), Vector: emb.EmbedText(text)}
	}
	half := allows(docs)["half"]
	for _, c := range []struct {
		name  string
		ix    index.Index
		allow []bool
	}{{"memory", mem, nil}, {"weaviate", wv, nil}, {"memory/half", mem, half}, {"weaviate/half", wv, half}} {
		b.Run(c.name, func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			i := 0
			for b.Loop() {
				q := qs[i%len(qs)]
				q.Allow = c.allow
				i++
				t0 := time.Now()
				if _, err := c.ix.Search(ctx, q); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			b.Logf("%s: %d dense rounds for %d searches", c.name, denseRounds.Swap(0), len(lat))
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}
