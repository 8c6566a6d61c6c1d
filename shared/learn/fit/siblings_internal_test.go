package fit

import "testing"

// A task's sample is its best candidate by fit and the best of that
// one's kin, whatever their places.
func TestSampleOf(t *testing.T) {
	tests := []struct {
		name      string
		fits      []float64
		kin       [][]int
		correct   []bool
		fit, kinF float64
		right, ok bool
	}{
		{"best first, its kin after a stranger", []float64{9, 4, 2}, [][]int{{2}, nil, {0}}, []bool{true, false, true}, 9, 2, true, true},
		{"best last, two kin", []float64{3, 1, 8}, [][]int{{1, 2}, {0, 2}, {0, 1}}, []bool{false, false, true}, 8, 3, true, true},
		{"kin of another candidate only", []float64{2, 7, 6}, [][]int{{2}, nil, {0}}, []bool{false, false, true}, 7, -1, false, true},
		{"no kin at all", []float64{1, 5}, nil, []bool{false, true}, 5, -1, true, true},
		{"equal fits: the first", []float64{5, 5}, [][]int{{1}, {0}}, []bool{true, false}, 5, 5, true, true},
		{"nothing retrieved", nil, nil, nil, 0, 0, false, false},
	}
	for _, tt := range tests {
		sm, ok := sampleOf(tt.fits, tt.kin, tt.correct, 3, 1)
		if ok != tt.ok {
			t.Errorf("%s: ok %v, want %v", tt.name, ok, tt.ok)
			continue
		}
		if ok && (sm.fit != tt.fit || sm.kinFit != tt.kinF || sm.right != tt.right || sm.copies != 3 || sm.part != 1) {
			t.Errorf("%s: %+v, want fit %v kin %v right %v", tt.name, sm, tt.fit, tt.kinF, tt.right)
		}
	}
}

// ownBeatsPooled keeps a best candidate's own probability beside its
// sibling only where tasks the calibration did not learn from say it
// already is the pair's.
func TestOwnBeatsPooled(t *testing.T) {
	// n tasks at one fit, every rightEvery'th of them wrong, spread over
	// the three parts; kin says whether their best candidate has a
	// sibling (at the same fit), copies weighs them.
	tasks := func(n, wrongEvery int, kin bool, copies int) []calSample {
		out := make([]calSample, n)
		for i := range out {
			out[i] = calSample{fit: 5, kinFit: -1, right: i%wrongEvery != 0, copies: copies, part: uint32(i % 3)}
			if kin {
				out[i].kinFit = 5
			}
		}
		return out
	}
	join := func(a ...[]calSample) []calSample {
		var out []calSample
		for _, s := range a {
			out = append(out, s...)
		}
		return out
	}
	tests := []struct {
		name    string
		samples []calSample
		want    bool
	}{
		// Every calibration sample has a sibling and is right half the
		// time: the calibration says 0.5, the truth; pooled says 0.75.
		{"calibrated on siblings", tasks(300, 2, true, 1), true},
		// Lone tops right half the time pull the calibration to 0.58,
		// while tops beside a sibling are right three times in four:
		// pooled (0.83) is nearer.
		{"calibrated on lone tops", join(tasks(300, 2, false, 1), tasks(150, 4, true, 1)), false},
		{"too few tasks with a sibling", join(tasks(300, 2, false, 1), tasks(minKinTops-1, 2, true, 1)), false},
		{"no siblings", tasks(300, 2, false, 1), false},
		// The same tasks weighed as the calibration weighs them: no-match
		// tasks beside a sibling, copied ten times, are all wrong, so the
		// own (lower) probability wins.
		{"weighed no-match tasks", join(tasks(300, 2, false, 1), tasks(150, 4, true, 1), tasks(60, 1, true, 10)), true},
	}
	for _, tt := range tests {
		if got := ownBeatsPooled(tt.samples, 3); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
