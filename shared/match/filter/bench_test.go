package filter

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/match/extract"
)

// benchCatalog is 1,000 agents of 100 skills: most skills on their card's
// defaults, a third with their own input modes, a fifth with their own
// outputs, a tenth with their own security; some agents down, degraded,
// external or with a low clearance.
func benchCatalog() *catalog.Catalog {
	rng := rand.New(rand.NewPCG(7, 11))
	ins := [][]string{{pdf}, {"image/*"}, {txt}, {csv, pdf}, {anyT}}
	outs := [][]string{{js}, {txt}, {csv, js}, {"image/*"}}
	secs := [][]card.Requirement{nil, {{"oauth": {"finance.read"}}}, {{"oauth": {"admin"}}, {"mtls": nil}}}
	classes := []string{"", catalog.Public, catalog.Internal, catalog.Confidential, catalog.Restricted}
	cat := &catalog.Catalog{Agents: make([]catalog.Agent, 1000)}
	for ai := range cat.Agents {
		c := &card.Card{
			ID:                 fmt.Sprintf("agent-%04d", ai),
			DefaultInputModes:  []string{txt, js},
			DefaultOutputModes: []string{txt, js},
			Streaming:          rng.IntN(2) == 0,
			Security:           pick(rng, secs),
			Skills:             make([]card.Skill, 100),
		}
		if rng.IntN(5) == 0 {
			c.DefaultInputModes = append(c.DefaultInputModes, pdf)
		}
		for si := range c.Skills {
			s := card.Skill{ID: fmt.Sprintf("skill-%03d", si)}
			if rng.IntN(3) == 0 {
				s.InputModes = pick(rng, ins)
			}
			if rng.IntN(5) == 0 {
				s.OutputModes = pick(rng, outs)
			}
			if rng.IntN(10) == 0 {
				s.HasSecurity, s.Security = true, pick(rng, secs)
			}
			c.Skills[si] = s
		}
		st := catalog.DefaultStatus
		switch r := rng.IntN(100); {
		case r < 2:
			st.Health = catalog.Down
		case r < 7:
			st.Health = catalog.Degraded
		}
		st.External = rng.IntN(10) == 0
		st.Clearance = pick(rng, classes)
		cat.Agents[ai] = catalog.Agent{Card: c, Status: st}
	}
	return cat
}

func BenchmarkApply(b *testing.B) {
	cat := benchCatalog()
	reqs := []struct {
		name string
		req  extract.Requirement
	}{
		{"none", extract.Requirement{}},
		{"typical", extract.Requirement{InputTypes: []string{pdf}, OutputTypes: []string{js}, DataClass: catalog.Internal, Scopes: []string{"finance.read"}}},
		{"strict", extract.Requirement{InputTypes: []string{pdf, csv}, OutputTypes: []string{csv}, Streaming: true, DataClass: catalog.Confidential, Scopes: []string{}}},
	}
	for _, r := range reqs {
		b.Run(r.name, func(b *testing.B) {
			b.ReportAllocs()
			var res Result
			for b.Loop() {
				res = apply(&r.req, cat)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(res.Keep)), "ns/skill")
			b.ReportMetric(float64(res.Kept), "kept")
			b.ReportMetric(float64(len(res.Rejections)), "rejected")
		})
	}
}

// BenchmarkKeep compares the catalog's Keep with a plan's on the same
// 100,000 skills (without reasons, the per-decision path).
func BenchmarkKeep(b *testing.B) {
	cat := benchCatalog()
	p := NewPlan(cat)
	req := extract.Requirement{InputTypes: []string{pdf}, OutputTypes: []string{js}, DataClass: catalog.Internal, Scopes: []string{"finance.read"}}
	for _, k := range []struct {
		name string
		keep func() Result
	}{
		{"catalog", func() Result { return Keep(&req, cat) }},
		{"plan", func() Result { return p.Keep(&req) }},
	} {
		b.Run(k.name, func(b *testing.B) {
			b.ReportAllocs()
			var res Result
			for b.Loop() {
				res = k.keep()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(res.Keep)), "ns/skill")
			b.ReportMetric(float64(res.Kept), "kept")
		})
	}
}

// BenchmarkExplain compares the reasons of a task few skills fit, written
// by the catalog's Explain and by a plan's.
func BenchmarkExplain(b *testing.B) {
	cat := benchCatalog()
	p := NewPlan(cat)
	req := extract.Requirement{InputTypes: []string{"audio/mpeg"}, OutputTypes: []string{csv}, Scopes: []string{}}
	for _, k := range []struct {
		name    string
		explain func(*Result)
	}{
		{"catalog", func(res *Result) { res.Explain(&req, cat) }},
		{"plan", func(res *Result) { p.Explain(res, &req) }},
	} {
		b.Run(k.name, func(b *testing.B) {
			b.ReportAllocs()
			res := Keep(&req, cat)
			for b.Loop() {
				res.Rejections = nil
				k.explain(&res)
			}
			b.ReportMetric(float64(len(res.Rejections)), "rejected")
		})
	}
}
