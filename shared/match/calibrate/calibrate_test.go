package calibrate

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// logistic draws n scores from N(0, σ²) and labels from Platt's model with
// the given A and B.
func logistic(rng *rand.Rand, n int, a, b, sigma float64) ([]float64, []bool) {
	scores, labels := make([]float64, n), make([]bool, n)
	for i := range scores {
		s := rng.NormFloat64() * sigma
		scores[i] = s
		labels[i] = rng.Float64() < 1/(1+math.Exp(a*s+b))
	}
	return scores, labels
}

// cubic draws scores uniformly from [0, 1] with P(positive) = s³: a
// monotone but non-logistic relation, where isotonic should beat Platt.
func cubic(rng *rand.Rand, n int) ([]float64, []bool) {
	scores, labels := make([]float64, n), make([]bool, n)
	for i := range scores {
		s := rng.Float64()
		scores[i] = s
		labels[i] = rng.Float64() < s*s*s
	}
	return scores, labels
}

func probs(c Calibrator, scores []float64) []float64 {
	out := make([]float64, len(scores))
	for i, s := range scores {
		out[i] = c.Prob(s)
	}
	return out
}

func TestPlattRecoversParameters(t *testing.T) {
	tests := []struct {
		a, b, sigma float64
		seed        uint64
	}{
		{-2, 0.5, 1, 1},
		{-1, -1, 2, 2},
		{-5, 3, 0.5, 3},
		{0.8, 0, 1, 4}, // higher scores mean less likely
	}
	for _, tt := range tests {
		scores, labels := logistic(rand.New(rand.NewPCG(tt.seed, 1)), 50000, tt.a, tt.b, tt.sigma)
		p, err := FitPlatt(scores, labels)
		if err != nil {
			t.Fatal(err)
		}
		// Standard errors at n=50,000 are a few hundredths.
		if math.Abs(p.A-tt.a) > 0.1*math.Max(1, math.Abs(tt.a)) || math.Abs(p.B-tt.b) > 0.1*math.Max(1, math.Abs(tt.b)) {
			t.Errorf("A=%v B=%v: fitted A=%v B=%v", tt.a, tt.b, p.A, p.B)
		}
	}
}

// TestPlattStationary checks the fit is a minimum of the smoothed-target
// loss: the gradient vanishes and nudging the parameters never helps.
func TestPlattStationary(t *testing.T) {
	scores, labels := logistic(rand.New(rand.NewPCG(5, 5)), 500, -1.5, 0.3, 1)
	p, err := FitPlatt(scores, labels)
	if err != nil {
		t.Fatal(err)
	}
	pos := 0
	for _, l := range labels {
		if l {
			pos++
		}
	}
	target := make([]float64, len(labels))
	for i, l := range labels {
		target[i] = 1 / float64(len(labels)-pos+2)
		if l {
			target[i] = float64(pos+1) / float64(pos+2)
		}
	}
	g1, g2, _, _, _ := plattDerivatives(scores, target, p.A, p.B)
	if math.Abs(g1) > plattEps || math.Abs(g2) > plattEps {
		t.Errorf("gradient (%v, %v) at the fit", g1, g2)
	}
	f := plattLoss(scores, target, p.A, p.B)
	for _, d := range [][2]float64{{1e-3, 0}, {-1e-3, 0}, {0, 1e-3}, {0, -1e-3}} {
		if g := plattLoss(scores, target, p.A+d[0], p.B+d[1]); g < f {
			t.Errorf("loss %v at the fit, %v at %+v", f, g, d)
		}
	}
}

func TestPlattHandCases(t *testing.T) {
	tests := []struct {
		name   string
		scores []float64
		labels []bool
		check  func(Platt) bool
	}{
		{
			// Separable data: unsmoothed maximum likelihood would diverge.
			name:   "separable stays finite",
			scores: []float64{-2, -1, 1, 2},
			labels: []bool{false, false, true, true},
			check: func(p Platt) bool {
				return finite(p.A) && finite(p.B) && p.A < 0 && p.Prob(2) < 1 && p.Prob(2) > 0.5
			},
		},
		{
			// Constant scores carry no information: the fit is the mean
			// smoothed target, (2/3 + 3·1/5)/4 with targets 2/3 and 1/5.
			name:   "constant scores give the smoothed base rate",
			scores: []float64{3, 3, 3, 3},
			labels: []bool{true, false, false, false},
			check: func(p Platt) bool {
				return math.Abs(p.Prob(3)-(2.0/3+0.6)/4) < 1e-5
			},
		},
		{
			name:   "symmetric data gives p=0.5 at 0",
			scores: []float64{-1, -1, 1, 1, -1, 1},
			labels: []bool{false, false, true, true, true, false},
			check: func(p Platt) bool {
				return math.Abs(p.Prob(0)-0.5) < 1e-6 && p.A < 0
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := FitPlatt(tt.scores, tt.labels)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(p) {
				t.Errorf("fit A=%v B=%v, Prob(-2..2)=%v", p.A, p.B, probs(p, []float64{-2, -1, 0, 1, 2}))
			}
		})
	}
}

func TestPlattProbExtremes(t *testing.T) {
	p := Platt{A: -1, B: 0}
	tests := []struct{ s, want float64 }{
		{0, 0.5},
		{1000, 1}, // exp(-1000) underflows harmlessly
		{-1000, 0},
		{math.Log(3), 0.75},
	}
	for _, tt := range tests {
		if got := p.Prob(tt.s); math.Abs(got-tt.want) > 1e-12 || math.IsNaN(got) {
			t.Errorf("Prob(%v) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

// rep repeats each (score, label) pair n times.
func rep(n int, pairs ...any) ([]float64, []bool) {
	var scores []float64
	var labels []bool
	for i := 0; i < len(pairs); i += 2 {
		for k := 0; k < n; k++ {
			scores = append(scores, pairs[i].(float64))
			labels = append(labels, pairs[i+1].(bool))
		}
	}
	return scores, labels
}

func TestIsotonicHandComputed(t *testing.T) {
	// Four examples at each of the scores 1..4 (n=16, so blocks need
	// √16 = 4 examples), positive rates 0, 3/4, 1/4, 1. PAV pools 2 and 3
	// to 1/2, leaving blocks (1, 0), (2.5, 0.5), (4, 1); the ends clamp to
	// Eps and 1-Eps.
	s1, l1 := rep(4, 1.0, false, 4.0, true)
	s2, l2 := rep(1, 2.0, true, 2.0, true, 2.0, true, 2.0, false, 3.0, true, 3.0, false, 3.0, false, 3.0, false)
	m, err := FitIsotonic(append(s1, s2...), append(l1, l2...))
	if err != nil {
		t.Fatal(err)
	}
	want := Isotonic{X: []float64{1, 2.5, 4}, Y: []float64{Eps, 0.5, 1 - Eps}}
	if !slices.Equal(m.X, want.X) || !slices.Equal(m.Y, want.Y) {
		t.Fatalf("fit %+v, want %+v", m, want)
	}
	tests := []struct{ s, want float64 }{
		{0, Eps},             // clamped below
		{1, Eps},             // first centre
		{1.75, 0.25 + Eps/2}, // halfway between the first two centres
		{2.5, 0.5},
		{3.25, 0.5 + (0.5-Eps)/2},
		{4, 1 - Eps},
		{99, 1 - Eps}, // clamped above
	}
	for _, tt := range tests {
		if got := m.Prob(tt.s); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Prob(%v) = %v, want %v", tt.s, got, tt.want)
		}
	}
	if !math.IsNaN(m.Prob(math.NaN())) {
		t.Error("Prob(NaN) should be NaN")
	}
}

func TestIsotonicPoolsSmallBlocks(t *testing.T) {
	// Labels 0 1 0 1 at scores 1..4: PAV gives blocks of 1, 2 and 1
	// examples; with √4 = 2 required, the first joins the second (rate
	// 1/3, centre 2) and the last, a remainder, joins that group: one
	// block at the base rate. Four labels justify no more.
	m, err := FitIsotonic([]float64{4, 2, 3, 1}, []bool{true, true, false, false})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Isotonic{X: []float64{2.5}, Y: []float64{0.5}}); !slices.Equal(m.X, want.X) || !slices.Equal(m.Y, want.Y) {
		t.Errorf("fit %+v, want %+v", m, want)
	}

	tests := []struct {
		name string
		in   []block
		minN float64
		want []block
	}{
		{"all large", []block{{0, 0, 3, 0, 0}, {3, 3, 3, 1, 1}}, 3, []block{{0, 0, 3, 0, 0}, {3, 3, 3, 1, 1}}},
		{"small joins next", []block{{0, 0, 1, 0, 0}, {2, 1, 2, 1, 1}, {6, 3, 3, 2, 2}}, 3,
			[]block{{2, 1, 3, 0, 1}, {6, 3, 3, 2, 2}}},
		{"remainder joins last", []block{{0, 0, 3, 0, 0}, {1, 1, 1, 1, 1}}, 3, []block{{1, 1, 4, 0, 1}}},
		{"everything small", []block{{0, 0, 1, 0, 0}, {1, 1, 1, 1, 1}}, 5, []block{{1, 1, 2, 0, 1}}},
	}
	for _, tt := range tests {
		if got := poolSmall(slices.Clone(tt.in), tt.minN); !slices.Equal(got, tt.want) {
			t.Errorf("%s: poolSmall = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestIsotonicTies(t *testing.T) {
	// Equal scores are pooled whatever their order: 2 of 3 at score 1
	// are positive.
	s, l := rep(1, 0.0, false, 0.0, false, 0.0, false, 1.0, true, 1.0, false, 1.0, true, 2.0, true, 2.0, true, 2.0, true)
	a, err := FitIsotonic(s, l)
	if err != nil {
		t.Fatal(err)
	}
	perm := rand.New(rand.NewPCG(1, 1)).Perm(len(s))
	ps, pl := make([]float64, len(s)), make([]bool, len(s))
	for i, p := range perm {
		ps[i], pl[i] = s[p], l[p]
	}
	b, err := FitIsotonic(ps, pl)
	if err != nil {
		t.Fatal(err)
	}
	want := Isotonic{X: []float64{0, 1, 2}, Y: []float64{Eps, 2.0 / 3, 1 - Eps}}
	for _, m := range []Isotonic{a, b} {
		if !slices.Equal(m.X, want.X) || !slices.Equal(m.Y, want.Y) {
			t.Errorf("fit %+v, want %+v", m, want)
		}
	}
}

// TestIsotonicProperties compares PAV with a naive quadratic
// implementation on random data, and checks the fitted model's invariants:
// X strictly increasing, Y non-decreasing inside [Eps, 1-Eps], every block
// but a lone one at least √n strong, Prob monotone.
func TestIsotonicProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for iter := 0; iter < 300; iter++ {
		n := 2 + rng.IntN(200)
		scores, labels := make([]float64, n), make([]bool, n)
		for i := range scores {
			scores[i] = float64(rng.IntN(40)) / 8 // many ties
			labels[i] = rng.Float64() < scores[i]/5
		}
		labels[0], labels[1] = true, false

		blocks, naive := pav(scores, labels), naivePAV(scores, labels)
		for i, s := range scores {
			j := slices.IndexFunc(blocks, func(b block) bool { return s >= b.lo && s <= b.hi })
			if j < 0 || math.Abs(blocks[j].meanY()-naive[i]) > 1e-12 {
				t.Fatalf("score %v: PAV block %d, naive rate %v, blocks %v", s, j, naive[i], blocks)
			}
		}

		m, err := FitIsotonic(scores, labels)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := NewIsotonic(m); err != nil {
			t.Fatalf("fit breaks invariants: %v (%+v)", err, m)
		}
		pooled := poolSmall(blocks, math.Ceil(math.Sqrt(float64(n))))
		var total float64
		for _, b := range pooled {
			if len(pooled) > 1 && b.n < math.Ceil(math.Sqrt(float64(n))) {
				t.Fatalf("block of %v examples, n=%d", b.n, n)
			}
			total += b.n
		}
		if total != float64(n) {
			t.Fatalf("pooled blocks hold %v examples, want %d", total, n)
		}
		prev := -1.0
		for x := -1.0; x <= 6; x += 0.01 {
			p := m.Prob(x)
			if p < prev || p < Eps || p > 1-Eps {
				t.Fatalf("Prob(%v) = %v after %v", x, p, prev)
			}
			prev = p
		}
	}
}

// naivePAV returns each example's fitted rate by repeatedly merging the
// first pair of adjacent violating blocks until none is left.
func naivePAV(scores []float64, labels []bool) []float64 {
	type blk struct {
		lo, hi float64 // score range
		pos, n float64
	}
	distinct := slices.Clone(scores)
	slices.Sort(distinct)
	distinct = slices.Compact(distinct)
	bs := make([]blk, len(distinct))
	for i, x := range distinct {
		bs[i] = blk{lo: x, hi: x}
	}
	for i, s := range scores {
		j, _ := slices.BinarySearch(distinct, s)
		bs[j].n++
		if labels[i] {
			bs[j].pos++
		}
	}
	for merged := true; merged; {
		merged = false
		for i := 0; i+1 < len(bs); i++ {
			if bs[i].pos/bs[i].n >= bs[i+1].pos/bs[i+1].n {
				bs[i] = blk{lo: bs[i].lo, hi: bs[i+1].hi, pos: bs[i].pos + bs[i+1].pos, n: bs[i].n + bs[i+1].n}
				bs = slices.Delete(bs, i+1, i+2)
				merged = true
				break
			}
		}
	}
	out := make([]float64, len(scores))
	for i, s := range scores {
		for _, b := range bs {
			if s >= b.lo && s <= b.hi {
				out[i] = b.pos / b.n
			}
		}
	}
	return out
}

func TestIsotonicHeldOutECE(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	trainS, trainL := cubic(rng, 20000)
	testS, testL := cubic(rng, 20000)
	iso, err := FitIsotonic(trainS, trainL)
	if err != nil {
		t.Fatal(err)
	}
	raw := ECE(testS, testL, 10) // scores taken as probabilities: badly off
	got := ECE(probs(iso, testS), testL, 10)
	if got > 0.02 || raw < 0.15 {
		t.Errorf("held-out ECE: isotonic %.4f (want < 0.02), raw scores %.4f (want > 0.15)", got, raw)
	}
	// s³ is not logistic in s, which is where isotonic should beat Platt.
	platt, err := FitPlatt(trainS, trainL)
	if err != nil {
		t.Fatal(err)
	}
	if bi, bp := Brier(probs(iso, testS), testL), Brier(probs(platt, testS), testL); bi >= bp {
		t.Errorf("held-out Brier: isotonic %.5f, Platt %.5f; want isotonic lower", bi, bp)
	}
	// The map should follow s³ closely and, thanks to interpolation
	// between block centres, without the jumps of PAV's step function.
	prev, maxJump, maxDev, sumDev := iso.Prob(0), 0.0, 0.0, 0.0
	const steps = 1000
	for i := 0; i <= steps; i++ {
		s := float64(i) / steps
		p := iso.Prob(s)
		dev := math.Abs(p - s*s*s)
		maxDev, sumDev = max(maxDev, dev), sumDev+dev
		maxJump, prev = max(maxJump, p-prev), p
	}
	// A block of ≥ √20000 ≈ 142 examples has a standard error ≤ 0.042.
	if maxDev > 0.1 || sumDev/steps > 0.02 || maxJump > 0.02 {
		t.Errorf("vs s³: max deviation %.3f (want ≤ 0.1), mean %.4f (≤ 0.02), largest step over 0.001 %.4f (≤ 0.02)",
			maxDev, sumDev/steps, maxJump)
	}
	t.Logf("held-out ECE: isotonic %.4f, raw %.4f; %d blocks; max dev %.3f, mean dev %.4f, max step %.4f",
		got, raw, len(iso.X), maxDev, sumDev/steps, maxJump)
}

func TestFitChoosesMethod(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	tests := []struct {
		name string
		n    int
		opts []Option
		want string
	}{
		{"few labels", 200, nil, MethodPlatt},
		{"many labels", 4000, nil, MethodIsotonic},
		{"lower threshold", 200, []Option{WithMinIsotonic(20)}, MethodIsotonic},
		{"higher threshold", 4000, []Option{WithMinIsotonic(5000)}, MethodPlatt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scores, labels := logistic(rng, tt.n, -2, 0, 1)
			m, err := Fit(scores, labels, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if m.Method() != tt.want {
				t.Errorf("method %q, want %q", m.Method(), tt.want)
			}
			// Either way the model calibrates its own training data.
			if e := ECE(probs(m, scores), labels, 10); e > 0.1 {
				t.Errorf("training ECE %v", e)
			}
		})
	}
}

func TestFitExactThreshold(t *testing.T) {
	// Exactly MinIsotonic of each class is enough; one fewer is not.
	mk := func(pos, neg int) ([]float64, []bool) {
		var s []float64
		var l []bool
		for i := 0; i < pos; i++ {
			s, l = append(s, float64(i%7)+1), append(l, true)
		}
		for i := 0; i < neg; i++ {
			s, l = append(s, float64(i%7)), append(l, false)
		}
		return s, l
	}
	s, l := mk(5, 5)
	if m, _ := Fit(s, l, WithMinIsotonic(5)); m.Method() != MethodIsotonic {
		t.Errorf("5/5 with min 5: %s", m.Method())
	}
	s, l = mk(5, 4)
	if m, _ := Fit(s, l, WithMinIsotonic(5)); m.Method() != MethodPlatt {
		t.Errorf("5/4 with min 5: %s", m.Method())
	}
}

func TestFitErrors(t *testing.T) {
	tests := []struct {
		name   string
		scores []float64
		labels []bool
		want   error // nil: any error
	}{
		{"empty", nil, nil, ErrEmpty},
		{"only positives", []float64{1, 2}, []bool{true, true}, ErrSingleClass},
		{"only negatives", []float64{1}, []bool{false}, ErrSingleClass},
		{"length mismatch", []float64{1, 2}, []bool{true}, nil},
		{"NaN score", []float64{1, math.NaN()}, []bool{true, false}, nil},
		{"infinite score", []float64{math.Inf(-1), 1}, []bool{true, false}, nil},
	}
	fits := map[string]func([]float64, []bool) error{
		"Fit":         func(s []float64, l []bool) error { _, err := Fit(s, l); return err },
		"FitPlatt":    func(s []float64, l []bool) error { _, err := FitPlatt(s, l); return err },
		"FitIsotonic": func(s []float64, l []bool) error { _, err := FitIsotonic(s, l); return err },
	}
	for _, tt := range tests {
		for name, fit := range fits {
			err := fit(tt.scores, tt.labels)
			if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Errorf("%s(%s): err %v, want %v", name, tt.name, err, tt.want)
			}
		}
	}
}

func TestModelJSONRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	small, smallL := logistic(rng, 100, -2, 0.5, 1)
	big, bigL := cubic(rng, 3000)
	for _, tc := range []struct {
		scores []float64
		labels []bool
		method string
	}{{small, smallL, MethodPlatt}, {big, bigL, MethodIsotonic}} {
		m, err := Fit(tc.scores, tc.labels, WithMinIsotonic(100))
		if err != nil {
			t.Fatal(err)
		}
		if m.Method() != tc.method {
			t.Fatalf("method %q, want %q", m.Method(), tc.method)
		}
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(data), `{"method":"`+tc.method+`",`) {
			t.Errorf("JSON %s", data)
		}
		// By value too: a Model embedded in another struct must not
		// marshal as {}.
		byValue, _ := json.Marshal(struct{ M Model }{*m})
		if !strings.Contains(string(byValue), string(data)) {
			t.Errorf("by value: %s, want it to contain %s", byValue, data)
		}
		var back Model
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		if back.Method() != m.Method() {
			t.Errorf("method %q after round trip", back.Method())
		}
		for _, s := range append(tc.scores[:50:50], -10, 10, 0.5) {
			if back.Prob(s) != m.Prob(s) {
				t.Fatalf("Prob(%v) = %v after round trip, was %v", s, back.Prob(s), m.Prob(s))
			}
		}
	}
}

func TestModelJSONShape(t *testing.T) {
	m, _ := NewPlatt(Platt{A: -1.5, B: 0.25})
	if data, _ := json.Marshal(m); string(data) != `{"method":"platt","a":-1.5,"b":0.25}` {
		t.Errorf("platt JSON %s", data)
	}
	iso, _ := NewIsotonic(Isotonic{X: []float64{0, 1}, Y: []float64{0.1, 0.9}})
	if data, _ := json.Marshal(iso); string(data) != `{"method":"isotonic","x":[0,1],"y":[0.1,0.9]}` {
		t.Errorf("isotonic JSON %s", data)
	}
	zero, _ := NewPlatt(Platt{})
	if data, _ := json.Marshal(zero); string(data) != `{"method":"platt","a":0,"b":0}` {
		t.Errorf("zero platt JSON %s", data)
	}
	if _, err := json.Marshal(Model{}); err == nil {
		t.Error("marshalling the zero Model should fail")
	}
}

func TestModelJSONErrors(t *testing.T) {
	tests := []string{
		`{}`,
		`{"method":"spline"}`,
		`{"method":"platt","a":1}`,
		`{"method":"platt","b":1}`,
		`{"method":"isotonic"}`,
		`{"method":"isotonic","x":[0,1],"y":[0.5]}`,
		`{"method":"isotonic","x":[1,0],"y":[0.1,0.2]}`,
		`{"method":"isotonic","x":[0,0],"y":[0.1,0.2]}`,
		`{"method":"isotonic","x":[0,1],"y":[0.5,0.4]}`,
		`{"method":"isotonic","x":[0,1],"y":[0.5,1.5]}`,
		`{"method":"isotonic","x":[0,1],"y":[-0.1,0.5]}`,
		`[1,2]`,
		`{"method":"platt","a":"x","b":1}`,
	}
	for _, in := range tests {
		var m Model
		if err := json.Unmarshal([]byte(in), &m); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
}

func TestZeroModelPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	Model{}.Prob(1)
}
