package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// progress draws a bar on a terminal, or prints a line every 10% when
// output goes to a file or CI log.
type progress struct {
	w     io.Writer
	label string
	tty   bool
	start time.Time
	last  int // last decile printed, or last redraw time slot on a tty
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

func (p *progress) update(done, total int) {
	if total <= 0 {
		return
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
		fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d %3.0f%% %s", p.label, strings.Repeat("=", n),
			strings.Repeat(" ", width-n), done, total, 100*frac, p.eta(frac))
		if done == total {
			fmt.Fprintln(p.w)
		}
		return
	}
	decile := int(frac * 10)
	if decile != p.last && (decile > p.last) {
		p.last = decile
		fmt.Fprintf(p.w, "%s: %d/%d (%.0f%%) %s\n", p.label, done, total, 100*frac, p.eta(frac))
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
