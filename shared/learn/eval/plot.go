package eval

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"

	"github.com/skillmatch/skillmatch/shared/match/decide"
)

// Bin is one bin of a reliability diagram.
type Bin struct {
	Lo, Hi    float64
	Count     int
	Predicted float64 // mean calibrated probability of the top candidate
	Observed  float64 // share of those tops that were right
}

// Reliability bins the top candidates' probabilities into n equal bins,
// the same samples ECE reads (a task with nothing ranked is a 0 that is
// wrong).
func Reliability(outs []Outcome, n int) []Bin {
	bins := make([]Bin, n)
	for i := range bins {
		bins[i].Lo, bins[i].Hi = float64(i)/float64(n), float64(i+1)/float64(n)
	}
	for i := range outs {
		o := &outs[i]
		p, right := 0.0, false
		if o.TopKey != "" {
			p, right = o.Prob, o.Task.Correct(o.TopKey)
		}
		b := min(int(p*float64(n)), n-1)
		bins[b].Count++
		bins[b].Predicted += p
		if right {
			bins[b].Observed++
		}
	}
	for i := range bins {
		if c := float64(bins[i].Count); c > 0 {
			bins[i].Predicted /= c
			bins[i].Observed /= c
		}
	}
	return bins
}

// Point is one operating point of the precision/coverage curve.
type Point struct {
	Threshold, Precision, Coverage float64
	Delegated                      int
}

// Sweep replays the delegation rule at thresholds 0, 0.01, …, 1 with the
// margin rule as it was decided: a task is delegated to its top candidate
// when the top's probability reaches the threshold and it leads. Coverage
// is over tasks with an expected skill, precision over delegations (a
// no-match task delegated is wrong), as in the report.
func Sweep(outs []Outcome) []Point {
	withExpected := 0
	for i := range outs {
		if !outs[i].Task.NoMatch() {
			withExpected++
		}
	}
	pts := make([]Point, 0, 101)
	for k := 0; k <= 100; k++ {
		t := float64(k) / 100
		var del, right, covered int
		for i := range outs {
			o := &outs[i]
			if !o.delegatedAt(t) {
				continue
			}
			del++
			if o.Task.Correct(o.TopKey) {
				right++
			}
			if !o.Task.NoMatch() {
				covered++
			}
		}
		pts = append(pts, Point{Threshold: t, Precision: share(float64(right), del),
			Coverage: share(float64(covered), withExpected), Delegated: del})
	}
	return pts
}

// WritePlot writes an SVG with the reliability diagram (10 bins) and the
// precision/coverage curve, marking the policy's threshold. Hand-written
// so the command needs no plotting dependency.
func WritePlot(w io.Writer, title string, outs []Outcome, policy decide.Policy) error {
	const width, height = 920, 460
	var b bytes.Buffer
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>`+"\n")
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="22" text-anchor="middle" font-size="15">%s</text>`+"\n", width/2, esc(title))

	// Both panels plot [0,1]×[0,1] in a 340-pixel square.
	const size = 340
	type panel struct{ x0, y0 float64 }
	px := func(p panel, x, y float64) (float64, float64) { return p.x0 + x*size, p.y0 + size - y*size }
	axes := func(p panel, name, xl, yl string) {
		fmt.Fprintf(&b, `<g><text x="%.0f" y="%.0f" text-anchor="middle" font-size="13">%s</text>`+"\n", p.x0+size/2, p.y0-12, esc(name))
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="%d" height="%d" fill="none" stroke="#444"/>`+"\n", p.x0, p.y0, size, size)
		for k := 0; k <= 10; k += 2 {
			v := float64(k) / 10
			x, _ := px(p, v, 0)
			_, y := px(p, 0, v)
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#ddd"/>`, x, p.y0, x, p.y0+size)
			fmt.Fprintf(&b, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#ddd"/>`+"\n", p.x0, y, p.x0+size, y)
			fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle">%.1f</text>`, x, p.y0+size+16, v)
			fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" text-anchor="end">%.1f</text>`+"\n", p.x0-6, y+4, v)
		}
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle">%s</text>`+"\n", p.x0+size/2, p.y0+size+36, esc(xl))
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle" transform="rotate(-90 %.0f %.0f)">%s</text></g>`+"\n",
			p.x0-38, p.y0+size/2, p.x0-38, p.y0+size/2, esc(yl))
	}

	rel := panel{x0: 70, y0: 60}
	axes(rel, "Reliability (10 bins; n per bin)", "predicted probability of the top candidate", "observed share right")
	x1, y1 := px(rel, 0, 0)
	x2, y2 := px(rel, 1, 1)
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#999" stroke-dasharray="4 3"/>`+"\n", x1, y1, x2, y2)
	for _, bin := range Reliability(outs, 10) {
		if bin.Count == 0 {
			continue
		}
		// A bar per bin for what was observed, a dot at what was predicted.
		bx, by := px(rel, bin.Lo, bin.Observed)
		_, base := px(rel, 0, 0)
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#4a7ebb" fill-opacity="0.6"><title>%.1f-%.1f: %d tasks, predicted %.3f, observed %.3f</title></rect>`+"\n",
			bx+2, by, size/10.0-4, base-by, bin.Lo, bin.Hi, bin.Count, bin.Predicted, bin.Observed)
		cx, cy := px(rel, (bin.Lo+bin.Hi)/2, bin.Predicted)
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="#c0392b"/>`+"\n", cx, cy)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="9">%d</text>`+"\n", cx, math.Min(by, cy)-5, bin.Count)
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="10" fill="#4a7ebb">bars: observed</text><text x="%.0f" y="%.0f" font-size="10" fill="#c0392b">dots: mean predicted</text>`+"\n",
		rel.x0+6, rel.y0+14, rel.x0+6, rel.y0+28)

	pc := panel{x0: 530, y0: 60}
	axes(pc, "Precision / coverage (delegation threshold swept)", "coverage", "delegation precision")
	pts := Sweep(outs)
	var path bytes.Buffer
	for i, p := range pts {
		if p.Delegated == 0 {
			continue
		}
		x, y := px(pc, p.Coverage, p.Precision)
		cmd := "L"
		if path.Len() == 0 || i == 0 {
			cmd = "M"
		}
		fmt.Fprintf(&path, "%s%.1f %.1f ", cmd, x, y)
	}
	if path.Len() > 0 {
		fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="#27ae60" stroke-width="2"/>`+"\n", bytes.TrimSpace(path.Bytes()))
	}
	for _, p := range pts {
		k := int(math.Round(p.Threshold * 100))
		if p.Delegated == 0 || (k%10 != 0 && math.Abs(p.Threshold-policy.Threshold) > 1e-9) {
			continue
		}
		x, y := px(pc, p.Coverage, p.Precision)
		fill, r := "#27ae60", 2.5
		if math.Abs(p.Threshold-policy.Threshold) < 1e-9 {
			fill, r = "#c0392b", 4.5
		}
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s"><title>threshold %.2f: precision %.3f, coverage %.3f, %d delegated</title></circle>`+"\n",
			x, y, r, fill, p.Threshold, p.Precision, p.Coverage, p.Delegated)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="9" fill="#555">%.1f</text>`+"\n", x+5, y-4, p.Threshold)
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="10" fill="#c0392b">red: policy threshold %.2f (margin %.2f)</text>`+"\n",
		pc.x0+6, pc.y0+size-8, policy.Threshold, policy.Margin)
	b.WriteString("</svg>\n")
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write plot: %w", err)
	}
	return nil
}

func esc(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// delegatedAt says whether the decider would delegate the outcome's task
// at threshold t, all else equal: what Sweep replays.
func (o *Outcome) delegatedAt(t float64) bool {
	weighed := o.Prob
	if o.Weighed > 0 {
		weighed = o.Weighed
	}
	return o.TopKey != "" && o.Lead && weighed >= t
}
