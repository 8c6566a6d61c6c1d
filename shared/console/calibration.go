package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/learn/feedback"
	"github.com/skillmatch/skillmatch/shared/match/calibrate"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// Bin is one bin of a reliability diagram.
type Bin struct {
	Lo, Hi   float64
	N        int
	MeanProb float64 // mean stated probability
	Rate     float64 // observed share right
}

// Reliability bins labelled examples by stated probability (n equal bins)
// and returns the bins with the expected calibration error: the
// count-weighted mean gap between stated and observed.
func Reliability(ex []feedback.Example, n int) ([]Bin, float64) {
	if n < 1 {
		n = 10
	}
	bins := make([]Bin, n)
	for i := range bins {
		bins[i].Lo, bins[i].Hi = float64(i)/float64(n), float64(i+1)/float64(n)
	}
	for _, e := range ex {
		p := e.Prob
		if math.IsNaN(p) {
			continue
		}
		i := min(max(int(p*float64(n)), 0), n-1)
		b := &bins[i]
		b.N++
		b.MeanProb += p
		if e.Right {
			b.Rate++
		}
	}
	ece, total := 0.0, 0
	for i := range bins {
		b := &bins[i]
		if b.N == 0 {
			continue
		}
		b.MeanProb /= float64(b.N)
		b.Rate /= float64(b.N)
		ece += float64(b.N) * math.Abs(b.MeanProb-b.Rate)
		total += b.N
	}
	if total > 0 {
		ece /= float64(total)
	}
	return bins, ece
}

// RateBucket counts the actions decided in one interval.
type RateBucket struct {
	Start, End                    time.Time
	N, Delegate, Clarify, Abstain int
}

// Rates splits decisions (oldest first) into at most n equal intervals of
// time and counts each action.
func Rates(ds []Summary, n int) []RateBucket {
	if len(ds) == 0 || n < 1 {
		return nil
	}
	lo, hi := ds[0].At, ds[0].At
	for _, d := range ds {
		if d.At.Before(lo) {
			lo = d.At
		}
		if d.At.After(hi) {
			hi = d.At
		}
	}
	span := hi.Sub(lo)
	if span <= 0 {
		n, span = 1, time.Second
	}
	step := span / time.Duration(n)
	if step <= 0 {
		step = 1
	}
	out := make([]RateBucket, n)
	for i := range out {
		out[i].Start = lo.Add(time.Duration(i) * step)
		out[i].End = out[i].Start.Add(step)
	}
	for _, d := range ds {
		i := min(int(d.At.Sub(lo)/step), n-1)
		b := &out[i]
		b.N++
		switch d.Action {
		case "delegate", "plan": // a plan delegates each step
			b.Delegate++
		case "clarify":
			b.Clarify++
		default:
			b.Abstain++
		}
	}
	return out
}

// Chart geometry of the inline SVGs.
const (
	chartW, chartH = 420.0, 300.0
	padL, padB     = 44.0, 36.0
	padT, padR     = 12.0, 12.0
)

func px(x float64) float64 { return padL + x*(chartW-padL-padR) }
func py(y float64) float64 { return chartH - padB - y*(chartH-padB-padT) }

// axes draws the frame, the 0-1 ticks of the y axis and the axis titles
// (fixed words: nothing untrusted is ever written into a chart).
func axes(b *strings.Builder, xTitle, yTitle string) {
	fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" class="frame"/>`, px(0), py(1), px(1)-px(0), py(0)-py(1))
	for i := 0; i <= 4; i++ {
		v := float64(i) / 4
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" class="grid"/>`, px(0), py(v), px(1), py(v))
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" class="tick" text-anchor="end">%.2f</text>`, px(0)-4, py(v)+4, v)
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" class="axis" text-anchor="middle">%s</text>`, (px(0)+px(1))/2, chartH-6, xTitle)
	fmt.Fprintf(b, `<text x="12" y="%.1f" class="axis" text-anchor="middle" transform="rotate(-90 12 %.1f)">%s</text>`,
		(py(0)+py(1))/2, (py(0)+py(1))/2, yTitle)
}

// ReliabilitySVG draws the bins: the diagonal of perfect calibration, a
// bar per bin at its observed rate and a dot at its mean stated
// probability, with each bin's count.
func ReliabilitySVG(bins []Bin) template.HTML {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="reliability diagram">`, chartW, chartH, chartW, chartH)
	axes(&b, "stated probability", "observed share right")
	for i := 0; i <= 4; i++ {
		v := float64(i) / 4
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="tick" text-anchor="middle">%.2f</text>`, px(v), py(0)+14, v)
	}
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" class="diag"/>`, px(0), py(0), px(1), py(1))
	for _, bin := range bins {
		if bin.N == 0 {
			continue
		}
		x0, x1 := px(bin.Lo)+1, px(bin.Hi)-1
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" class="bar"><title>%.1f-%.1f: %d labelled, %.0f%% right, stated %.2f</title></rect>`,
			x0, py(bin.Rate), x1-x0, py(0)-py(bin.Rate), bin.Lo, bin.Hi, bin.N, 100*bin.Rate, bin.MeanProb)
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" class="dot"/>`, px(bin.MeanProb), py(bin.MeanProb))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="count" text-anchor="middle">%d</text>`, (x0+x1)/2, py(bin.Rate)-3, bin.N)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // numbers and fixed words only
}

// RatesSVG draws the share of each action per interval as stacked bars.
func RatesSVG(rs []RateBucket) template.HTML {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="decision rates over time">`, chartW, chartH, chartW, chartH)
	axes(&b, "time (oldest left)", "share of decisions")
	n := float64(len(rs))
	for i, r := range rs {
		if r.N == 0 {
			continue
		}
		x0, x1 := px(float64(i)/n)+1, px(float64(i+1)/n)-1
		y := 0.0
		for _, part := range []struct {
			n     int
			class string
		}{{r.Delegate, "delegate"}, {r.Clarify, "clarify"}, {r.Abstain, "abstain"}} {
			h := float64(part.n) / float64(r.N)
			if h == 0 {
				continue
			}
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" class="%s"><title>%s to %s: %d of %d %s</title></rect>`,
				x0, py(y+h), x1-x0, py(y)-py(y+h), part.class, r.Start.UTC().Format("15:04:05"), r.End.UTC().Format("15:04:05"),
				part.n, r.N, part.class)
			y += h
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // numbers, times and fixed words only
}

// PosteriorRow is one skill's success rate.
type PosteriorRow struct {
	Skill               string
	Successes, Failures float64
	Mean, Lo, Hi        float64
	LatencyMS, Cost     float64
	Last                time.Time
}

// IntervalSVG draws a skill's 95% interval and mean on a 0-1 line.
func IntervalSVG(lo, mean, hi float64) template.HTML {
	const w, h = 160.0, 14.0
	x := func(v float64) float64 { return 2 + v*(w-4) }
	return template.HTML(fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" class="interval">`+
		`<line x1="2" y1="7" x2="%.1f" y2="7" class="track"/><rect x="%.1f" y="3" width="%.1f" height="8" class="ci"/>`+
		`<line x1="%.1f" y1="1" x2="%.1f" y2="13" class="mean"/></svg>`, w, h, w, h, w-2, x(lo), max(x(hi)-x(lo), 1), x(mean), x(mean))) //nolint:gosec // numbers only
}

type calibrationView struct {
	page
	// The calibration in use.
	Calibration  string
	CalRevision  uint64
	CalChanged   time.Time
	CalJSON      string
	CalNote      string
	Bins         []Bin
	ECE          float64
	Labelled     int
	Unlabelled   int
	OtherCaller  int
	OutcomesRead int
	Decisions    int
	Reliability  template.HTML
	Rates        []RateBucket
	RatesChart   template.HTML
	Delegate     float64
	Clarify      float64
	Abstain      float64
	Posteriors   []PosteriorRow
	PostRevision uint64
	PostTaken    time.Time
	Observed     int64
	FleetMean    float64
	PriorWeight  float64
	PostNote     string
	Intervals    map[string]template.HTML
}

func (s *Server) calibrationPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	v := calibrationView{page: s.page(r, "calibration", "Calibration and outcomes"), Intervals: map[string]template.HTML{}}
	kv, err := s.cfg.JS.KeyValue(ctx, s.cfg.ModelBucket)
	if err != nil {
		s.fail(w, r, "opening the model bucket", err)
		return
	}
	// The calibration in use and when it last changed.
	switch e, err := kv.Get(ctx, wire.ModelKeyCalibration); {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		v.Calibration = "the model's own calibration"
		if m := s.cfg.Matcher(); m != nil {
			if c, ok := m.Calibrator().(interface{ Method() string }); ok {
				v.Calibration += " (" + c.Method() + ")"
			}
		}
		v.CalNote = "no refit has been published"
		// A deleted refit leaves a marker: when the model's own came back.
		if hist, err := kv.History(ctx, wire.ModelKeyCalibration); err == nil && len(hist) > 0 {
			last := hist[len(hist)-1]
			v.CalRevision, v.CalChanged = last.Revision(), last.Created()
			v.CalNote = "the published refit was deleted: the reranker is back to the model's own"
		}
	case err != nil:
		v.CalNote = "the model bucket could not be read: " + err.Error()
	default:
		v.CalRevision, v.CalChanged = e.Revision(), e.Created()
		var m calibrate.Model
		if err := json.Unmarshal(e.Value(), &m); err != nil {
			v.Calibration = "a refit that does not decode (the reranker keeps the previous one)"
			v.CalNote = err.Error()
		} else {
			v.Calibration = "refitted from outcomes: " + m.Method()
		}
		v.CalJSON = clipText(string(e.Value()), 4<<10)
	}
	// Reliability of recent labelled outcomes, joined with the decisions
	// the console follows: an outcome counts only from the caller its
	// decision was delivered to, as the refit counts them.
	kept := s.tail.Kept()
	v.Decisions = len(kept)
	owner := make(map[string]string, len(kept))
	logged := make([]feedback.LoggedDecision, 0, len(kept))
	for _, d := range kept {
		if d.TopKey == "" {
			continue
		}
		owner[d.DecisionID] = d.Caller
		logged = append(logged, feedback.LoggedDecision{DecisionID: d.DecisionID, TaskID: d.TaskID, TopKey: d.TopKey,
			TopScore: d.TopScore, Prob: d.TopProb, At: d.At})
	}
	var outcomes []feedback.Outcome
	err = pipeline.ReadStream(ctx, s.cfg.JS, s.cfg.Streams.Outcomes, pipeline.Range{Latest: s.cfg.Outcomes},
		func(m jetstream.Msg, _ *jetstream.MsgMetadata) {
			v.OutcomesRead++
			o, err := wire.DecodeOutcome(m.Data())
			if err != nil {
				return
			}
			caller, err := wire.CallerOf(wire.SubjectOutcome, m.Subject())
			if mine, ok := owner[o.DecisionID]; err != nil || !ok || mine != caller {
				v.OtherCaller++
				return
			}
			outcomes = append(outcomes, feedback.Outcome{DecisionID: o.DecisionID, TaskID: o.TaskID, Skill: o.Skill,
				Success: o.Success, RightSkill: o.RightSkill, At: o.At})
		})
	if err != nil {
		v.PostNote = "the outcomes stream could not be read: " + err.Error()
	}
	ex, unl := feedback.Join(logged, outcomes)
	v.Labelled, v.Unlabelled = len(ex), unl
	v.Bins, v.ECE = Reliability(ex, 10)
	v.Reliability = ReliabilitySVG(v.Bins)
	v.Rates = Rates(kept, 12)
	v.RatesChart = RatesSVG(v.Rates)
	for _, d := range kept {
		switch d.Action {
		case "delegate", "plan": // a plan delegates each step
			v.Delegate++
		case "clarify":
			v.Clarify++
		default:
			v.Abstain++
		}
	}
	if n := float64(len(kept)); n > 0 {
		v.Delegate, v.Clarify, v.Abstain = v.Delegate/n, v.Clarify/n, v.Abstain/n
	}
	// Per-skill success rates from the posteriors snapshot.
	switch e, err := kv.Get(ctx, wire.ModelKeyPosteriors); {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		v.PostNote = "no posteriors snapshot yet: the feedback stage puts one after its first counted outcomes"
	case err != nil:
		v.PostNote = "the posteriors could not be read: " + err.Error()
	default:
		var snap feedback.Snapshot
		p := feedback.NewPosteriors()
		if err := json.Unmarshal(e.Value(), &snap); err != nil {
			v.PostNote = "the posteriors snapshot does not decode: " + err.Error()
			break
		}
		if err := p.Restore(snap); err != nil {
			v.PostNote = "the posteriors snapshot is invalid: " + err.Error()
			break
		}
		v.PostRevision, v.PostTaken, v.Observed = e.Revision(), snap.TakenAt, snap.Observed
		v.FleetMean, v.PriorWeight = p.FleetMean(), snap.PriorWeight
		for _, k := range p.Skills() {
			st, _ := p.Stats(k)
			mean, _ := p.Mean(k)
			lo, hi := p.Interval(k, 0.95)
			v.Posteriors = append(v.Posteriors, PosteriorRow{Skill: k, Successes: st.Successes, Failures: st.Failures,
				Mean: mean, Lo: lo, Hi: hi, LatencyMS: st.LatencyMS, Cost: st.Cost, Last: st.Last})
			v.Intervals[k] = IntervalSVG(lo, mean, hi)
		}
		sort.Slice(v.Posteriors, func(i, j int) bool { return v.Posteriors[i].Mean < v.Posteriors[j].Mean })
	}
	s.render(w, r, "calibration", &v)
}
