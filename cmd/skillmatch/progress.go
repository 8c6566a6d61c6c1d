package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// progress draws a bar on a terminal, or prints a line every 10% when
// output goes to a file or CI log. A job of several stages (fit: features,
// then the reranker) restarts the count for each, so that a long last
// stage is not silent after the first one's 100%.
type progress struct {
	w      io.Writer
	label  string
	tty    bool
	start  time.Time
	last   int // last decile printed, or last redraw time slot on a tty
	stageN string
	done   int // last done seen, to notice a new stage
	total  int
}

func newProgress(w io.Writer, label string) *progress {
	tty := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return &progress{w: w, label: label, tty: tty, start: time.Now(), last: -1}
}

// stage is update for a job of named stages (fit.Config.Progress): each
// stage is counted on its own, labelled with its name.
func (p *progress) stage(name string, done, total int) {
	if name != p.stageN {
		p.stageN = name
		p.restart()
	}
	p.update(done, total)
}

// restart begins a new stage: its own clock and deciles.
func (p *progress) restart() {
	if p.tty && p.last >= 0 && p.done != p.total {
		fmt.Fprintln(p.w) // end the unfinished bar's line
	}
	p.start, p.last, p.done, p.total = time.Now(), -1, 0, 0
}

func (p *progress) update(done, total int) {
	if total <= 0 {
		return
	}
	// A count that goes back or changes its total is the next stage of
	// the job, even from a caller that does not name stages.
	if done < p.done || (p.total != 0 && total != p.total) {
		p.restart()
	}
	p.done, p.total = done, total
	label := p.label
	if p.stageN != "" {
		label += " " + p.stageN
	}
	frac := float64(done) / float64(total)
	if p.tty {
		slot := int(time.Since(p.start) / (100 * time.Millisecond))
		if slot == p.last && done != total {
			return
		}
		p.last = slot
		const width = 30
		n := int(frac * width)
		fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d %3.0f%% %s", label, strings.Repeat("=", n),
			strings.Repeat(" ", width-n), done, total, 100*frac, p.eta(frac))
		if done == total {
			fmt.Fprintln(p.w)
		}
		return
	}
	decile := int(frac * 10)
	if decile != p.last && (decile > p.last) {
		p.last = decile
		fmt.Fprintf(p.w, "%s: %d/%d (%.0f%%) %s\n", label, done, total, 100*frac, p.eta(frac))
	}
}

func (p *progress) eta(frac float64) string {
	el := time.Since(p.start)
	if frac <= 0 || frac >= 1 {
		return "in " + el.Round(100*time.Millisecond).String()
	}
	left := time.Duration(float64(el) * (1 - frac) / frac)
	return "eta " + left.Round(time.Second).String()
}
