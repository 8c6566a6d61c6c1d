package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/learn/golden"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
)

func TestScoreBM25(t *testing.T) {
	a := &golden.Task{ID: "a", Expected: "x/1"}
	b := &golden.Task{ID: "b", Expected: "x/2"}
	c := &golden.Task{ID: "c", Expected: "x/3"}
	none := &golden.Task{ID: "n"}
	tests := []struct {
		name string
		outs []Outcome
		want *Baseline
	}{
		{"not computed", []Outcome{{Task: a, Rank: 1}}, nil},
		{"ranks 1, 4, 25 and a no-match task", []Outcome{
			{Task: a, BM25Rank: 1, BM25Ranked: true},
			{Task: b, BM25Rank: 4, BM25Ranked: true},
			{Task: c, BM25Rank: 25, BM25Ranked: true},
			{Task: none, BM25Ranked: true},
		}, &Baseline{RecallAt: 2.0 / 3, Top1: 1.0 / 3, MRR: (1 + 0.25 + 0.04) / 3}},
		{"absent", []Outcome{{Task: a, BM25Ranked: true}}, &Baseline{}},
	}
	for _, tc := range tests {
		got := Score(tc.outs).BM25
		if (got == nil) != (tc.want == nil) {
			t.Errorf("%s: bm25 %+v, want %+v", tc.name, got, tc.want)
			continue
		}
		if got != nil && (math.Abs(got.RecallAt-tc.want.RecallAt) > 1e-9 || math.Abs(got.Top1-tc.want.Top1) > 1e-9 ||
			math.Abs(got.MRR-tc.want.MRR) > 1e-9) {
			t.Errorf("%s: bm25 %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// The plain-BM25 row ranks the same filtered docs: a skill the filters
// remove is never ranked, and on this small set BM25 alone finds most.
func TestRunPlainBM25(t *testing.T) {
	set, err := golden.Load("testdata/hostile")
	if err != nil {
		t.Fatal(err)
	}
	m, err := match.New(set.Catalog, match.WithEmbedder(embed.Default()))
	if err != nil {
		t.Fatal(err)
	}
	rep, outs, err := Run(context.Background(), m, set.Tasks, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.BM25 == nil || rep.BM25.Top1 <= 0.5 || rep.BM25.RecallAt < rep.BM25.Top1 {
		t.Errorf("plain BM25 %+v", rep.BM25)
	}
	base := NewPlainBM25(m)
	for _, o := range outs {
		if o.Task.DataClass != "confidential" || o.Task.NoMatch() {
			continue
		}
		// Asking for an external agent's skill on confidential data: the
		// filter removes it, so BM25 cannot rank it.
		gt := &golden.Task{ID: o.Task.ID, Text: o.Task.Text, Expected: "lingo-cloud/translate", DataClass: "confidential"}
		req := m.Extract(gt.ToTask())
		if r := base.Rank(&req, gt); r != 0 {
			t.Errorf("task %s: filtered-out skill ranked %d by plain BM25", gt.ID, r)
		}
	}
}

func TestWritePerTask(t *testing.T) {
	outs := []Outcome{
		{Task: &golden.Task{ID: "a", Expected: "x/1", Acceptable: []string{"y/1"}, Category: "twins"}, Rank: 2,
			Action: decide.Delegate, Chosen: "y/1", TopKey: "y/1", Prob: 0.8, BM25Rank: 3, BM25Ranked: true,
			Reason: "best match y/1 at 0.80"},
		{Task: &golden.Task{ID: "b"}, Action: decide.Abstain, TopKey: "x/1", Prob: 0.1},
		{Task: &golden.Task{ID: "c", Expected: "x/1"}, Rank: 1, Action: decide.Delegate, Chosen: "x/1", TopKey: "x/1",
			Prob: 0.9, Delegated: []string{"x/1"}, Fallbacks: []string{"z/1"}, DecisionProb: 0.9},
		{Task: &golden.Task{ID: "d", Expected: "x/1"}, Rank: 1, Action: decide.Clarify, TopKey: "x/1", Prob: 0.6,
			Asked: []string{"x/1", "w/1"}, DecisionProb: 0.6},
		{Task: &golden.Task{ID: "e", Expected: "x/1", Category: "multi"}, Rank: 1, Action: decide.Plan, TopKey: "x/1",
			Prob: 0.9, Delegated: []string{"x/1", "z/2"}, DecisionProb: 0.75},
	}
	var buf bytes.Buffer
	if err := WritePerTask(&buf, outs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{
		`{"id":"a","expected":"x/1","acceptable":["y/1"],"top":"y/1","decision":"delegate","chosen":"y/1","probability":0.8,"rank":2,"bm25_rank":3,"category":"twins","reason":"best match y/1 at 0.80"}`,
		`{"id":"b","expected":null,"acceptable":[],"top":"x/1","decision":"abstain","chosen":"","probability":0.1,"rank":0}`,
		`{"id":"c","expected":"x/1","acceptable":[],"top":"x/1","decision":"delegate","chosen":"x/1","probability":0.9,"rank":1,"fallbacks":["z/1"]}`,
		`{"id":"d","expected":"x/1","acceptable":[],"top":"x/1","decision":"clarify","chosen":"","probability":0.6,"rank":1,"candidates":["x/1","w/1"]}`,
		`{"id":"e","expected":"x/1","acceptable":[],"top":"x/1","decision":"plan","chosen":"","probability":0.9,"rank":1,"category":"multi","steps":["x/1","z/2"],"plan_probability":0.75}`,
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d\n got %s\nwant %s", i, lines[i], want[i])
		}
	}
}

func TestReliabilityAndSweep(t *testing.T) {
	right := &golden.Task{ID: "r", Expected: "x/1"}
	none := &golden.Task{ID: "n"}
	outs := []Outcome{
		{Task: right, TopKey: "x/1", Prob: 0.95, Lead: true},
		{Task: right, TopKey: "x/2", Prob: 0.91, Lead: true},
		{Task: right, TopKey: "x/1", Prob: 0.55, Lead: false},
		{Task: none, TopKey: "x/1", Prob: 0.75, Lead: true},
		{Task: none}, // nothing ranked: a wrong 0
	}
	bins := Reliability(outs, 10)
	tests := []struct {
		bin, count    int
		pred, observe float64
	}{{9, 2, 0.93, 0.5}, {5, 1, 0.55, 1}, {7, 1, 0.75, 0}, {0, 1, 0, 0}, {3, 0, 0, 0}}
	for _, tc := range tests {
		b := bins[tc.bin]
		if b.Count != tc.count || math.Abs(b.Predicted-tc.pred) > 1e-9 || math.Abs(b.Observed-tc.observe) > 1e-9 {
			t.Errorf("bin %d = %+v, want count %d predicted %v observed %v", tc.bin, b, tc.count, tc.pred, tc.observe)
		}
	}
	pts := Sweep(outs)
	if len(pts) != 101 {
		t.Fatalf("%d points", len(pts))
	}
	sweep := []struct {
		k, del         int
		prec, coverage float64
	}{
		{0, 3, 1.0 / 3, 2.0 / 3}, // the no-lead task is never delegated
		{80, 2, 0.5, 2.0 / 3},
		{93, 1, 1, 1.0 / 3},
		{100, 0, 0, 0},
	}
	for _, tc := range sweep {
		p := pts[tc.k]
		if p.Delegated != tc.del || math.Abs(p.Precision-tc.prec) > 1e-9 || math.Abs(p.Coverage-tc.coverage) > 1e-9 {
			t.Errorf("threshold %.2f = %+v, want %d delegated, precision %v, coverage %v", p.Threshold, p, tc.del, tc.prec, tc.coverage)
		}
	}
}

// The plot must be well-formed SVG whatever the outcomes and the title.
func TestWritePlot(t *testing.T) {
	right := &golden.Task{ID: "r", Expected: "x/1"}
	tests := map[string][]Outcome{
		"empty": nil,
		"some": {
			{Task: right, TopKey: "x/1", Prob: 0.95, Lead: true},
			{Task: &golden.Task{ID: "n"}, TopKey: "x/1", Prob: 0.7, Lead: true},
			{Task: right, TopKey: "x/1", Prob: 0.3},
		},
	}
	for name, outs := range tests {
		var buf bytes.Buffer
		if err := WritePlot(&buf, `set <a&b> "dev"`, outs, decide.DefaultPolicy); err != nil {
			t.Fatal(err)
		}
		dec := xml.NewDecoder(&buf)
		root, elems := "", map[string]int{}
		for {
			tok, err := dec.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: not valid XML: %v", name, err)
			}
			if se, ok := tok.(xml.StartElement); ok {
				if root == "" {
					root = se.Name.Space + " " + se.Name.Local
				}
				elems[se.Name.Local]++
			}
		}
		if root != "http://www.w3.org/2000/svg svg" {
			t.Errorf("%s: root %q", name, root)
		}
		if name == "some" && (elems["path"] != 1 || elems["circle"] < 3) {
			t.Errorf("%s: elements %v", name, elems)
		}
	}
}

// Per-task lines of a real run decode back with every field.
func TestRunPerTaskRoundTrip(t *testing.T) {
	set, err := golden.Load("testdata/hostile")
	if err != nil {
		t.Fatal(err)
	}
	m, err := match.New(set.Catalog, match.WithEmbedder(embed.Default()))
	if err != nil {
		t.Fatal(err)
	}
	_, outs, err := Run(context.Background(), m, set.Split("dev"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WritePerTask(&buf, outs); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&buf)
	n, twinFallbacks := 0, 0
	for sc.Scan() {
		var p PerTask
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		if p.ID != outs[n].Task.ID || p.Category == "" || p.BM25Rank == nil || p.Decision == "" {
			t.Errorf("line %d: %+v", n, p)
		}
		if p.Decision == "clarify" && len(p.Candidates) != 2 {
			t.Errorf("line %d: a question naming %v", n, p.Candidates)
		}
		if p.Category == "twins" && p.Decision == "delegate" && len(p.Fallbacks) > 0 {
			twinFallbacks++
		}
		n++
	}
	if n != len(outs) {
		t.Errorf("%d lines for %d outcomes", n, len(outs))
	}
	if twinFallbacks == 0 {
		t.Error("no twins delegation names a fallback")
	}
}

// Plain BM25 filters as the matcher does: a catalog of development agents
// on localhost, matched with private endpoints allowed, is ranked by BM25
// too, not filtered out wholesale.
func TestPlainBM25FiltersLikeTheMatcher(t *testing.T) {
	c, err := card.Parse("local-weather", []byte(`{"name":"Local Weather","description":"weather","version":"1",
		"supportedInterfaces":[{"url":"http://localhost:9999","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
		"capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
		"skills":[{"id":"forecast","name":"Weather forecast","description":"weather forecasts for any city","tags":["weather"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	cat := catalog.New(catalog.Agent{Card: c, Status: catalog.EntryDefault})
	gt := &golden.Task{ID: "w", Text: "weather forecast for Oslo", Expected: c.ID + "/forecast"}
	for _, private := range []bool{false, true} {
		m, err := match.New(cat, match.WithEmbedder(embed.Default()), match.WithPrivateEndpoints(private))
		if err != nil {
			t.Fatal(err)
		}
		req := m.Extract(gt.ToTask())
		if r := NewPlainBM25(m).Rank(&req, gt); (r == 1) != private {
			t.Errorf("private endpoints %v: plain BM25 ranked the local agent %d", private, r)
		}
	}
}
