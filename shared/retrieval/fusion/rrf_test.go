package fusion

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func TestRRFHandComputed(t *testing.T) {
	tests := []struct {
		name    string
		k       float64
		weights []float64
		lists   [][]int
		want    []Scored
	}{
		{
			name:  "two lists k=60",
			k:     60,
			lists: [][]int{{1, 2, 3}, {3, 1, 4}},
			want: []Scored{
				{ID: 1, Score: 1.0/61 + 1.0/62, Ranks: []int{1, 2}},
				{ID: 3, Score: 1.0/63 + 1.0/61, Ranks: []int{3, 1}},
				{ID: 2, Score: 1.0 / 62, Ranks: []int{2, 0}},
				{ID: 4, Score: 1.0 / 63, Ranks: []int{0, 3}},
			},
		},
		{
			name:  "two lists k=0",
			k:     0,
			lists: [][]int{{1, 2, 3}, {3, 1, 4}},
			want: []Scored{
				{ID: 1, Score: 1.5, Ranks: []int{1, 2}},
				{ID: 3, Score: 1.0/3 + 1, Ranks: []int{3, 1}},
				{ID: 2, Score: 0.5, Ranks: []int{2, 0}},
				{ID: 4, Score: 1.0 / 3, Ranks: []int{0, 3}},
			},
		},
		{
			name:  "single list keeps its order",
			k:     DefaultK,
			lists: [][]int{{7, 3, 9}},
			want: []Scored{
				{ID: 7, Score: 1.0 / 61, Ranks: []int{1}},
				{ID: 3, Score: 1.0 / 62, Ranks: []int{2}},
				{ID: 9, Score: 1.0 / 63, Ranks: []int{3}},
			},
		},
		{
			name:  "missing from one list and an empty list",
			k:     10,
			lists: [][]int{{5}, {}, {6, 5}},
			want: []Scored{
				{ID: 5, Score: 1.0/11 + 1.0/12, Ranks: []int{1, 0, 2}},
				{ID: 6, Score: 1.0 / 11, Ranks: []int{0, 0, 1}},
			},
		},
		{
			name:  "duplicate id in a list keeps the first rank",
			k:     60,
			lists: [][]int{{1, 2, 1}},
			want: []Scored{
				{ID: 1, Score: 1.0 / 61, Ranks: []int{1}},
				// 2 keeps rank 2: the duplicate does not shift later ranks.
				{ID: 2, Score: 1.0 / 62, Ranks: []int{2}},
			},
		},
		{
			name:    "weights favour the first list",
			k:       60,
			weights: []float64{2, 1},
			lists:   [][]int{{1, 2}, {2, 1}},
			want: []Scored{
				{ID: 1, Score: 2.0/61 + 1.0/62, Ranks: []int{1, 2}},
				{ID: 2, Score: 2.0/62 + 1.0/61, Ranks: []int{2, 1}},
			},
		},
		{
			name:    "weights favour the second list",
			k:       60,
			weights: []float64{1, 2},
			lists:   [][]int{{1, 2}, {2, 1}},
			want: []Scored{
				{ID: 2, Score: 1.0/62 + 2.0/61, Ranks: []int{2, 1}},
				{ID: 1, Score: 1.0/61 + 2.0/62, Ranks: []int{1, 2}},
			},
		},
		{
			name:    "zero weight keeps documents and ranks",
			k:       60,
			weights: []float64{1, 0},
			lists:   [][]int{{1}, {2, 1}},
			want: []Scored{
				{ID: 1, Score: 1.0 / 61, Ranks: []int{1, 2}},
				{ID: 2, Score: 0, Ranks: []int{0, 1}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := WeightedRRF(tt.k, tt.weights, tt.lists...)
			assertScored(t, got, tt.want)
		})
	}
}

func TestRRFTies(t *testing.T) {
	tests := []struct {
		name  string
		k     float64
		lists [][]int
		want  []int
	}{
		// Swapped ranks give equal scores; the best single rank is 1 for
		// both, so the smaller id wins.
		{"swapped ranks", 60, [][]int{{2, 1}, {1, 2}}, []int{1, 2}},
		{"swapped ranks, lists reversed", 60, [][]int{{1, 2}, {2, 1}}, []int{1, 2}},
		// With k=0 each of 9 and 7 scores 1/1 and 5 scores 1/2+1/2: a
		// three-way tie. 5 has the smallest id but the worst best rank.
		{"best rank before id", 0, [][]int{{9, 5}, {7, 5}}, []int{7, 9, 5}},
		// Three lists with permuted ranks must tie exactly even though
		// the contributions are summed in different list orders.
		{"three-way permutation", 60, [][]int{{1, 2, 3}, {2, 3, 1}, {3, 1, 2}}, []int{1, 2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RRF(tt.k, tt.lists...)
			if ids := ids(got); !slices.Equal(ids, tt.want) {
				t.Fatalf("order = %v, want %v", ids, tt.want)
			}
			if tt.name == "three-way permutation" {
				for _, s := range got[1:] {
					if s.Score != got[0].Score {
						t.Errorf("scores %v and %v should tie exactly", s.Score, got[0].Score)
					}
				}
			}
		})
	}
}

// TestRRFKChangesOrder checks that k trades a single top hit (x, first in
// one list) against consensus (y, third in both): 1/(k+1) = 2/(k+3) at k=1.
// Documents found by one list only keep their relative order for every k.
func TestRRFKChangesOrder(t *testing.T) {
	const x, b, a, c, y = 10, 20, 30, 40, 50
	lists := [][]int{{x, a, y}, {b, c, y}}
	tests := []struct {
		k    float64
		want []int
	}{
		{0, []int{x, b, y, a, c}},
		{0.5, []int{x, b, y, a, c}},
		{1, []int{x, b, y, a, c}}, // exact tie with y; x has the better best rank
		{2, []int{y, x, b, a, c}},
		{60, []int{y, x, b, a, c}},
		{1e6, []int{y, x, b, a, c}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint("k=", tt.k), func(t *testing.T) {
			if got := ids(RRF(tt.k, lists...)); !slices.Equal(got, tt.want) {
				t.Errorf("order = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRRFEmpty(t *testing.T) {
	tests := []struct {
		name  string
		lists [][]int
	}{
		{"no lists", nil},
		{"nil list", [][]int{nil}},
		{"empty lists", [][]int{{}, {}}},
	}
	for _, tt := range tests {
		if got := RRF(DefaultK, tt.lists...); len(got) != 0 {
			t.Errorf("%s: got %v, want empty", tt.name, got)
		}
	}
}

func TestRRFPanics(t *testing.T) {
	tests := []struct {
		name    string
		k       float64
		weights []float64
		lists   [][]int
	}{
		{"negative k", -1, nil, [][]int{{1}}},
		{"NaN k", math.NaN(), nil, [][]int{{1}}},
		{"infinite k", math.Inf(1), nil, [][]int{{1}}},
		{"too few weights", 60, []float64{1}, [][]int{{1}, {2}}},
		{"too many weights", 60, []float64{1, 1}, [][]int{{1}}},
		{"negative weight", 60, []float64{-1}, [][]int{{1}}},
		{"NaN weight", 60, []float64{math.NaN()}, [][]int{{1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			WeightedRRF(tt.k, tt.weights, tt.lists...)
		})
	}
}

// TestRRFProperties checks invariants on random inputs: every input id
// appears once with the right ranks and score, the output is sorted,
// permuting the lists changes nothing, unit weights equal plain RRF, and a
// document that is at least as well ranked in every list is never placed
// below one it dominates.
func TestRRFProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 500; iter++ {
		lists := randomLists(rng, 1+rng.IntN(4), 30, 40)
		weights := make([]float64, len(lists))
		ones := make([]float64, len(lists))
		for i := range weights {
			weights[i] = rng.Float64() * 3
			ones[i] = 1
		}
		k := []float64{0, 1, 10, 60, 1000}[rng.IntN(5)]

		got := WeightedRRF(k, weights, lists...)
		checkInvariants(t, k, weights, lists, got)

		perm := rng.Perm(len(lists))
		pl, pw := make([][]int, len(lists)), make([]float64, len(lists))
		for i, p := range perm {
			pl[i], pw[i] = lists[p], weights[p]
		}
		permuted := WeightedRRF(k, pw, pl...)
		for i := range got {
			if got[i].ID != permuted[i].ID || got[i].Score != permuted[i].Score {
				t.Fatalf("permuting lists changed position %d: %+v vs %+v", i, got[i], permuted[i])
			}
		}

		plain, unit := RRF(k, lists...), WeightedRRF(k, ones, lists...)
		assertScored(t, plain, unit)

		checkDominance(t, plain)
	}
}

func checkInvariants(t *testing.T, k float64, weights []float64, lists [][]int, got []Scored) {
	t.Helper()
	first := make(map[int][]int) // id -> first rank per list
	for i, l := range lists {
		for r, id := range l {
			if first[id] == nil {
				first[id] = make([]int, len(lists))
			}
			if first[id][i] == 0 {
				first[id][i] = r + 1
			}
		}
	}
	if len(got) != len(first) {
		t.Fatalf("got %d documents, want %d", len(got), len(first))
	}
	for i, s := range got {
		want, ok := first[s.ID]
		if !ok {
			t.Fatalf("unexpected id %d", s.ID)
		}
		if !slices.Equal(s.Ranks, want) {
			t.Fatalf("id %d ranks %v, want %v", s.ID, s.Ranks, want)
		}
		var sum float64
		for j, r := range want {
			if r > 0 {
				sum += weights[j] / (k + float64(r))
			}
		}
		if math.Abs(s.Score-sum) > 1e-12 {
			t.Fatalf("id %d score %v, want %v", s.ID, s.Score, sum)
		}
		if i > 0 && compare(got[i-1], s) >= 0 {
			t.Fatalf("not sorted at %d: %+v then %+v", i, got[i-1], s)
		}
	}
}

// checkDominance assumes unit weights.
func checkDominance(t *testing.T, got []Scored) {
	t.Helper()
	for i := range got {
		for j := i + 1; j < len(got); j++ {
			if dominates(got[j].Ranks, got[i].Ranks) {
				t.Fatalf("%+v dominates %+v but is ranked below it", got[j], got[i])
			}
		}
	}
}

// dominates reports whether ranks a are at least as good as b in every
// list and strictly better in one (absent counts as worst).
func dominates(a, b []int) bool {
	strict := false
	for i := range a {
		ra, rb := a[i], b[i]
		if ra == 0 {
			ra = math.MaxInt
		}
		if rb == 0 {
			rb = math.MaxInt
		}
		if ra > rb {
			return false
		}
		if ra < rb {
			strict = true
		}
	}
	return strict
}

func randomLists(rng *rand.Rand, n, maxLen, universe int) [][]int {
	lists := make([][]int, n)
	for i := range lists {
		l := rng.Perm(universe)[:rng.IntN(maxLen+1)]
		if rng.IntN(10) == 0 && len(l) > 1 {
			l = append(l, l[0]) // exercise duplicate handling
		}
		lists[i] = l
	}
	return lists
}

func assertScored(t *testing.T, got, want []Scored) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d results %v, want %d %v", len(got), got, len(want), want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.ID != w.ID || math.Abs(g.Score-w.Score) > 1e-12 || !slices.Equal(g.Ranks, w.Ranks) {
			t.Errorf("result %d = %+v, want %+v", i, g, w)
		}
	}
}

func ids(s []Scored) []int {
	out := make([]int, len(s))
	for i := range s {
		out[i] = s[i].ID
	}
	return out
}

func BenchmarkRRF(b *testing.B) {
	for _, bc := range []struct{ lists, length int }{{2, 100}, {3, 1000}} {
		b.Run(fmt.Sprintf("lists=%d/len=%d", bc.lists, bc.length), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(3, 4))
			lists := make([][]int, bc.lists)
			for i := range lists {
				// Half-overlapping lists, as lexical and dense retrieval give.
				lists[i] = rng.Perm(2 * bc.length)[:bc.length]
			}
			b.ReportAllocs()
			for b.Loop() {
				RRF(DefaultK, lists...)
			}
		})
	}
}

// TopRRF is RRF's prefix, for any cut, with ties in score and rank.
func TestTopRRFIsAPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	for round := range 500 {
		lists := make([][]int, 1+rng.IntN(3))
		for i := range lists {
			for range rng.IntN(60) {
				lists[i] = append(lists[i], rng.IntN(80))
			}
		}
		all := RRF(60, lists...)
		for _, n := range []int{-1, 0, 1, 2, 5, 20, len(all) - 1, len(all), len(all) + 3} {
			got, want := TopRRF(60, n, lists...), all
			if n > 0 && n < len(all) {
				want = all[:n]
			}
			if !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Fatalf("round %d, n %d: TopRRF %v, RRF prefix %v", round, n, got, want)
			}
		}
	}
}

// Doc numbers are numbered through an array, other ids (negative, huge)
// through a map: the fused lists are the same up to the shift of the ids,
// which keeps their order, whichever way, and one fuser alternating
// between both stays correct.
func TestArrayAndMapNumberingAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 3))
	for round := range 300 {
		lists := randomLists(rng, 1+rng.IntN(3), 50, 60)
		for _, shift := range []int{-1000, maxDenseID, 1 << 40} {
			moved := make([][]int, len(lists))
			for i, l := range lists {
				for _, id := range l {
					moved[i] = append(moved[i], id+shift)
				}
			}
			for _, n := range []int{0, 5} {
				want, got := TopRRF(60, n, lists...), TopRRF(60, n, moved...)
				if len(got) != len(want) {
					t.Fatalf("round %d, shift %d: %d fused, want %d", round, shift, len(got), len(want))
				}
				for i := range got {
					if got[i].ID != want[i].ID+shift || got[i].Score != want[i].Score || !slices.Equal(got[i].Ranks, want[i].Ranks) {
						t.Fatalf("round %d, shift %d: place %d is %+v, want %+v shifted", round, shift, i, got[i], want[i])
					}
				}
			}
		}
	}
}
