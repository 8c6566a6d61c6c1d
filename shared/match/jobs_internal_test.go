package match

import (
	"math"
	"testing"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
	"github.com/skillmatch/skillmatch/shared/retrieval/lexicon"
)

// relatives is a lexicon written in the test: word → related stems.
type relatives map[string][]string

func (r relatives) RelatedStems(w string) []string { return r[w] }

// jobLean counts the request's words that name one skill's job and not
// the other's, by the words of the two names that the other card lacks.
func TestJobLean(t *testing.T) {
	docs := []index.Doc{
		{AgentID: "stay", AgentName: "Stay", Name: "Search Hotel", Description: "Find a hotel in a city", Tags: []string{"city"}},
		{AgentID: "stay", AgentName: "Stay", Name: "Reserve Hotel", Description: "Reserve rooms at the chosen hotel for some dates", Tags: []string{"check in date"}},
		// Both names hold "hotel"; the second's other name word is also
		// in the first's description: neither has a job word of its own.
		{AgentID: "inn", AgentName: "Inn", Name: "Hotel", Description: "Hotel listings"},
		{AgentID: "inn", AgentName: "Inn", Name: "Hotel Listings", Description: "Hotel listings by city"},
		{AgentID: "wheels", AgentName: "Wheels", Name: "See Cars on Offer", Description: "Show a list of rental cars for your dates"},
		{AgentID: "wheels", AgentName: "Wheels", Name: "Reserve a Car", Description: "Confirm a car rental for given dates"},
		{AgentID: "coach", AgentName: "Coach", Name: "Find Bus", Description: "Find a bus trip linking two cities"},
		{AgentID: "coach", AgentName: "Coach", Name: "Buy Bus Ticket", Description: "Buy tickets for a chosen bus trip"},
	}
	index.AnalyzeAll(docs, 1)
	// "search" lists "seek"; "seek" lists nothing: the relation is read
	// both ways.
	lex := relatives{"book": {"reserv", "volum"}, "search": {"seek"}}
	search, reserve := &docs[0], &docs[1]
	tests := []struct {
		name   string
		need   string
		domain []string
		a, b   *index.Doc
		want   int
	}{
		{"a relative of the other's job word", "Fine, book two rooms then.", nil, search, reserve, 1},
		{"the same, seen from the other side", "Fine, book two rooms then.", nil, reserve, search, -1},
		{"the job word itself", "Please reserve it for Friday.", nil, search, reserve, 1},
		{"a relative read the other way round", "I seek a place to sleep.", nil, reserve, search, 1},
		{"a word no job word is related to", "I need a hotel in Paris.", nil, search, reserve, 0},
		{"a verb of looking for something", "Find me a hotel in Paris.", nil, reserve, search, 1},
		{"one word for each job", "Search hotels and reserve one.", nil, search, reserve, 0},
		{"a word of both cards names neither job", "hotel hotel", nil, search, reserve, 0},
		{"a domain word of the catalog is skipped", "Please reserve it.", []string{"reserv"}, search, reserve, 0},
		{"no job word of one's own", "hotel listings please", nil, &docs[2], &docs[3], 0},
		// "See Cars on Offer" against "Reserve a Car": finding is seeing.
		{"finding names a job to see", "Help me with finding a rental car for the weekend.", nil, &docs[5], &docs[4], 1},
		// "Show" is a noun as often as a verb: "seats for the late show".
		{"a show names no job", "Two cars for the late show.", nil, &docs[5], &docs[4], 0},
		// "Buy Bus Ticket" against "Find Bus": reserving the bus is buying
		// its ticket, whatever WordNet says of "reserve" and "buy".
		{"reserving names a job to buy", "Sounds good. Reserve that bus.", nil, &docs[6], &docs[7], 1},
		{"purchasing names a job to buy", "I'd like to purchase seats on it.", nil, &docs[6], &docs[7], 1},
		{"finding still names the search", "Find me a bus to Fresno.", nil, &docs[7], &docs[6], 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			domain := map[string]bool{}
			for _, d := range tt.domain {
				domain[d] = true
			}
			words := analyze.AppendContentWords(nil, 0, analyze.Words(tt.need))
			if got := jobLean(lex, domain, words, tt.a, tt.b); got != tt.want {
				t.Errorf("jobLean(%q, %s, %s) = %d, want %d", tt.need, tt.a.Name, tt.b.Name, got, tt.want)
			}
		})
	}
}

// The shipped WordNet table holds the relations callers' words need to
// name a card's job in other words.
func TestJobLeanWordNet(t *testing.T) {
	docs := []index.Doc{
		{AgentID: "bus", AgentName: "Coach", Name: "Find Bus", Description: "Find bus trips between two cities"},
		{AgentID: "bus", AgentName: "Coach", Name: "Buy Bus Ticket", Description: "Buy tickets for a chosen bus trip"},
		{AgentID: "stay", AgentName: "Stay", Name: "Search Hotel", Description: "Find a hotel in a city"},
		{AgentID: "stay", AgentName: "Stay", Name: "Reserve Hotel", Description: "Reserve the chosen hotel for some dates"},
		{AgentID: "tunes", AgentName: "Tunes", Name: "Lookup Song", Description: "Search songs by title"},
		{AgentID: "tunes", AgentName: "Tunes", Name: "Play Song", Description: "Play the selected song on a device"},
	}
	index.AnalyzeAll(docs, 1)
	lex := lexicon.WordNet()
	for _, tt := range []struct {
		need string
		a, b *index.Doc
		want int
	}{
		{"Cool, purchase it.", &docs[0], &docs[1], 1},
		{"Please make a booking.", &docs[2], &docs[3], 1},
		{"Book it for three nights.", &docs[2], &docs[3], 1},
		// WordNet relates "get" to "buy", but "get" is a light verb.
		{"Could you get a bus for me?", &docs[0], &docs[1], 0},
		// Not WordNet's: the verbs of looking for something are one.
		{"Help me find some song I could listen to.", &docs[5], &docs[4], 1},
		{"I'm looking for a quiet hotel near Rome.", &docs[3], &docs[2], 1},
	} {
		words := analyze.AppendContentWords(nil, 0, analyze.Words(tt.need))
		if got := jobLean(lex, nil, words, tt.a, tt.b); got != tt.want {
			t.Errorf("jobLean(%q, %s, %s) = %d, want %d", tt.need, tt.a.Name, tt.b.Name, got, tt.want)
		}
	}
}

// The skill moved up gets the pair's probability, at most 1; the one
// moved down keeps its own, also when it was moved up before, and nothing
// changes without a move.
func TestPoolMoves(t *testing.T) {
	ranked := func(probs ...float64) []Ranked {
		out := make([]Ranked, len(probs))
		for i, p := range probs {
			out[i].Doc, out[i].Prob = 10+i, p
		}
		return out
	}
	tests := []struct {
		name  string
		probs []float64
		moves []jobMove
		want  []float64
	}{
		{"pooled", []float64{0.4, 0.3, 0.2}, []jobMove{{up: 10, down: 12}}, []float64{0.6, 0.3, 0.2}},
		{"at most 1", []float64{0.7, 0.5}, []jobMove{{up: 10, down: 11}}, []float64{1, 0.5}},
		{"no move", []float64{0.4, 0.3}, []jobMove{noMove, noMove}, []float64{0.4, 0.3}},
		{"the other skill is gone", []float64{0.4, 0.3}, []jobMove{{up: 10, down: 99}}, []float64{0.4, 0.3}},
		// 11 moved up over 10 (topicMove), then its sibling 12 over 11
		// (namedJob): 12 pools with 11's own, 11 and 10 keep theirs.
		{"a winner moved down again", []float64{0.5, 0.2, 0.1}, []jobMove{{up: 11, down: 10}, {up: 12, down: 11}}, []float64{0.5, 0.2, 0.3}},
		{"two separate moves", []float64{0.1, 0.2, 0.3, 0.4}, []jobMove{{up: 10, down: 11}, {up: 12, down: 13}}, []float64{0.3, 0.2, 0.7, 0.4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := ranked(tt.probs...)
			poolMoves(out, tt.moves...)
			for i, r := range out {
				if math.Abs(r.Prob-tt.want[i]) > 1e-9 {
					t.Errorf("prob %d = %.2f, want %.2f", i, r.Prob, tt.want[i])
				}
			}
		})
	}
}

// halfOfEach: most of each tag set shared, and more than one term, is one
// service in two agents' words; one term of two ("pdf" beside "summary"
// and "translation") is only the kind of document two jobs work on.
func TestHalfOfEach(t *testing.T) {
	for _, tt := range []struct {
		a, b []string
		want bool
	}{
		{[]string{"dictat", "letter", "offic", "transcript", "type"}, []string{"dictat", "servic", "transcript", "turnaround", "type"}, true},
		{[]string{"pdf", "summari"}, []string{"pdf", "translat"}, false},
		{[]string{"pdf"}, []string{"pdf"}, false},
		{[]string{"doc", "pdf", "summari", "report"}, []string{"doc", "languag", "pdf", "translat"}, false},
		{[]string{"doc", "pdf", "summari"}, []string{"doc", "pdf", "summari", "translat"}, true},
		{nil, []string{"pdf"}, false},
	} {
		if got := halfOfEach(tt.a, tt.b); got != tt.want {
			t.Errorf("halfOfEach(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
