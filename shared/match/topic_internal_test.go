package match

import (
	"fmt"
	"slices"
	"testing"

	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// A small invented catalog: a hotel and a restaurant agent that each find
// and reserve, a music agent that looks up and plays, and a one-skill
// taxi agent.
func topicDocs() []index.Doc {
	docs := []index.Doc{
		{AgentID: "stay", AgentName: "Stay Hotels", Name: "Search Hotel", Description: "Find a hotel in a city", Tags: []string{"destination"}},
		{AgentID: "stay", AgentName: "Stay Hotels", Name: "Reserve Hotel", Description: "Reserve rooms at the chosen hotel for some dates", Tags: []string{"destination", "check in date"}},
		{AgentID: "dine", AgentName: "Dine Out", Name: "Find Restaurants", Description: "Find a restaurant by cuisine and city"},
		{AgentID: "dine", AgentName: "Dine Out", Name: "Reserve Restaurant", Description: "Book a table at the chosen restaurant"},
		{AgentID: "tunes", AgentName: "Tunes 2", Name: "Lookup Song", Description: "Search for a song by artist"},
		{AgentID: "tunes", AgentName: "Tunes 2", Name: "Play Song", Description: "Play the selected song on a device"},
		{AgentID: "cabs", AgentName: "Cabs", Name: "Get Ride", Description: "Call a taxi to a destination"},
	}
	index.AnalyzeAll(docs, 1)
	return docs
}

// domainsOf is the domain terms of docs, none left out.
func domainsOf(docs []index.Doc) map[string]bool {
	return domainTerms(func(i int) *index.Doc { return &docs[i] }, len(docs), nil)
}

// Domain terms are those every skill of an agent holds and no agent's
// skills differ by; job words tell one agent's skills apart. A one-skill
// agent tells nothing apart, so its words are none ("taxi"), and neither
// are an untrusted agent's.
func TestDomainTerms(t *testing.T) {
	docs := topicDocs()
	got := domainTerms(func(i int) *index.Doc { return &docs[i] }, len(docs), nil)
	for _, w := range []string{"hotel", "restaurant", "song"} {
		if !got[stem(w)] {
			t.Errorf("%q is not a domain term", w)
		}
	}
	for _, w := range []string{"reserve", "find", "search", "play", "book", "cuisine", "city", "2", "taxi"} {
		if got[stem(w)] {
			t.Errorf("%q is a domain term", w)
		}
	}
	// The music agent untrusted: "song" is no longer one.
	untrusted := domainTerms(func(i int) *index.Doc { return &docs[i] }, len(docs), func(d int) bool { return docs[d].AgentID == "tunes" })
	if untrusted[stem("song")] || !untrusted[stem("hotel")] {
		t.Errorf("with the music agent untrusted: song %v, hotel %v", untrusted[stem("song")], untrusted[stem("hotel")])
	}
	for _, w := range []string{"reserve", "find", "search", "play", "book", "cuisine", "city", "2"} {
		if got[stem(w)] {
			t.Errorf("%q is a domain term", w)
		}
	}
}

// A word for how an agent is run in its name ("Deal Desk", "People
// Team") names no domain: "it fell off the desk" moved a deal desk's
// discount approval up, and "the newsletter people" a People Team's
// sickness reports (a sixtieth set, written blind; eight more requests of
// the hostile sets that spoke of people went to the People Team, none
// rightly). The agent's other words still do.
func TestDomainTermsOrgNames(t *testing.T) {
	docs := []index.Doc{
		{AgentID: "people", AgentName: "People Team", Name: "Holiday requests", Description: "Book staff annual leave"},
		{AgentID: "people", AgentName: "People Team", Name: "Sickness absence", Description: "Report staff sickness and fit notes"},
		{AgentID: "deals", AgentName: "Deal Desk", Name: "Discount approval", Description: "Approve a discount on a deal"},
		{AgentID: "deals", AgentName: "Deal Desk", Name: "Quote", Description: "Price a deal"},
	}
	index.AnalyzeAll(docs, 1)
	got := domainsOf(docs)
	for _, w := range []string{"people", "team", "desk"} {
		if got[stem(w)] {
			t.Errorf("%q is a domain term", w)
		}
	}
	for _, w := range []string{"staff", "deal"} {
		if !got[stem(w)] {
			t.Errorf("%q is not a domain term", w)
		}
	}
}

func stem(w string) string {
	if ts := analyze.Terms(w); len(ts) == 1 {
		return ts[0]
	}
	return w
}

// A turn that names no domain carries the latest domain its conversation
// named; one that names its own, or the topic of an agent with one skill
// (its words no other agent holds, light verbs aside), or whose earlier
// turns name none, is left alone.
func TestCarryTopic(t *testing.T) {
	domain := domainsOf(topicDocs())
	tests := []struct {
		name    string
		need    string
		history []string
		add     string // the words carried in; "" for none
	}{
		{"follow-up after a hotel turn", "yes, book it for me", []string{"I need a hotel in Paris for Friday"}, "hotel"},
		{"follow-up after a restaurant turn", "yes, book it for me", []string{"a table for two at an italian restaurant"}, "restaurant"},
		{"latest domain wins", "sounds good, reserve it", []string{"find me a restaurant nearby", "and a hotel close to it", "that one looks fine"}, "hotel"},
		{"names its own new domain", "now find me some songs by Adele", []string{"I need a hotel in Paris"}, ""},
		{"names the same domain", "reserve that hotel", []string{"I need a hotel in Paris"}, ""},
		{"earlier turns name no domain", "sure, do it then", []string{"sounds good", "ok"}, ""},
		{"no earlier turns", "yes, book that", nil, ""},
		// The one-skill taxi agent's word does not stop the carry (topicMove
		// keeps the taxi first: see TestTopicMove).
		{"a one-skill agent's word", "thanks, now call me a taxi", []string{"I need a hotel in Paris"}, "hotel"},
		{"a light verb is no topic", "yes, get it for me", []string{"I need a hotel in Paris"}, "hotel"},
		// "cuisine" is the restaurant agent's alone, but that agent has
		// two skills: its topic words are its domain words.
		{"a word of one agent with two skills", "any cuisine is fine, reserve it", []string{"I need a hotel in Paris"}, "hotel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &extract.Requirement{Need: tt.need, History: tt.history}
			got := carryTopic(tt.need, req, domain)
			want := tt.need
			if tt.add != "" {
				want += " " + tt.add
			}
			if got != want {
				t.Errorf("carryTopic = %q, want %q", got, want)
			}
		})
	}
	if got := carryTopic("yes", &extract.Requirement{Need: "yes", History: []string{"a hotel"}}, nil); got != "yes" {
		t.Errorf("a catalog without domain terms carried %q", got)
	}
}

// A turn continues the one before when it opens with "and", "same",
// "another", "plus" or "make it" (after an interjection), asks "the same
// for" something, or says "while you're at it"; the "too" and "also" that
// open another service's job in a dialogue ("I also need a cab") do not
// make one.
func TestContinues(t *testing.T) {
	tests := []struct {
		turn string
		want bool
	}{
		{"and next door at number 11 too, same day if they can", true},
		{"oh, and 107 as well please", true},
		{"Same for number 7 next door please", true},
		{"another one by the back door", true},
		{"plus the garage", true},
		{"actually, make it the whole week", true},
		{"Actually, can you make it Thursday instead?", true},
		{"please make it two", true},
		{"yes, do the same for Friday", true},
		{"the guinea pigs too while you're at it", true},
		{"her sister as well while they're there", true},
		{"his brother while you are at it", true},
		{"I also need a cab to get there", false},
		{"Could you find me a hotel there too?", false},
		{"Can you also tell me the weather forecast for the 5th?", false},
		{"we make it to the airport by noon", false},
		{"keep the same room", false},
		{"while the kettle boils, check my balance", false},
		{"let's find a house to stay in while we are there", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := continues(analyze.Words(tt.turn)); got != tt.want {
			t.Errorf("continues(%q) = %v, want %v", tt.turn, got, tt.want)
		}
	}
}

// A continuing turn that names no domain is searched with the turn before
// it; one that names its own domain, a short turn QueryText joins already
// and a turn with no earlier one are left to the other rules.
func TestContinuedTurn(t *testing.T) {
	domain := domainsOf(topicDocs())
	tests := []struct {
		name    string
		need    string
		history []string
		want    string
	}{
		{"the same for another thing", "same for my colleague arriving on Monday", []string{"I need a hotel in Paris for Friday", "a room for three nights"},
			"a room for three nights same for my colleague arriving on Monday"},
		{"names its own domain", "and a restaurant near it too please", []string{"I need a hotel in Paris for Friday"}, ""},
		{"does not continue", "I also need a cab to the station", []string{"I need a hotel in Paris for Friday"}, ""},
		{"short: QueryText joins it", "and mine", []string{"I need a hotel in Paris for Friday"}, ""},
		{"no earlier turn", "same for my colleague arriving on Monday", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &extract.Requirement{Need: tt.need, History: tt.history}
			if got := continuedTurn(QueryText(req), req, domain); got != tt.want {
				t.Errorf("continuedTurn = %q, want %q", got, tt.want)
			}
		})
	}
	// An opening interjection names no domain, even one whose term every
	// skill of some agent holds (a billing agent's "actual readings").
	req := &extract.Requirement{Need: "actually, make it the whole week", History: []string{"two days off in June please"}}
	if got, want := continuedTurn(QueryText(req), req, map[string]bool{"actual": true}), "two days off in June please actually, make it the whole week"; got != want {
		t.Errorf("after an opening interjection that is a domain word: continuedTurn = %q, want %q", got, want)
	}
}

// A one-agent term is one that the text of a single agent holds, whatever
// its number of skills ("taxi" of the one-skill taxi agent, "song" of the
// music agent); a word two agents hold ("find", "reserve", "destination")
// is none, nor is a number, nor a word of an untrusted agent alone.
func TestOneAgentTerms(t *testing.T) {
	docs := topicDocs()
	tests := []struct {
		name      string
		untrusted string
		one, none []string
	}{
		{"all trusted", "", []string{"taxi", "song", "cuisine", "play", "cab"}, []string{"find", "reserve", "destination", "city", "2", "search"}},
		// "song" and "play" are then no agent's; "search" only the hotel agent's.
		{"music agent untrusted", "tunes", []string{"taxi", "cuisine", "search"}, []string{"song", "play", "find", "reserve"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := oneAgentTerms(func(i int) *index.Doc { return &docs[i] }, len(docs), func(d int) bool { return docs[d].AgentID == tt.untrusted })
			for _, w := range tt.one {
				if !got[stem(w)] {
					t.Errorf("%q is not a one-agent term", w)
				}
			}
			for _, w := range tt.none {
				if got[stem(w)] {
					t.Errorf("%q is a one-agent term", w)
				}
			}
		})
	}
}

// A request names a skill's job by a word of its name other than a domain
// word: the word, a relative (here a stub lexicon's) or a seek verb for a
// seek verb, or two words side by side the name writes as one ("round
// trip", "Roundtrip"); light verbs ("make") and domain words ("hotel")
// name none.
func TestJobNamedBy(t *testing.T) {
	docs := append(topicDocs(), index.Doc{AgentID: "fly", AgentName: "Fly", Name: "Find Roundtrip Flights", Description: "Search round trip fares"})
	docs[len(docs)-1].Analyze()
	domain := domainsOf(docs)
	lex := stubLexicon{"book": {stem("reserve")}}
	tests := []struct {
		request string
		doc     int // index in topicDocs
		want    int
	}{
		{"make me a reservation for Friday", 1, 1}, // Reserve Hotel: reservation → reserve
		{"make me a reservation for Friday", 3, 1}, // Reserve Restaurant alike
		{"make me a reservation for Friday", 0, 0}, // Search Hotel
		{"please book it", 1, 1},                   // book is a relative of reserve
		{"find me one near the station", 0, 1},     // find and search are seek verbs
		{"find me one near the station", 4, 1},     // Lookup Song
		{"one hotel please", 0, 0},                 // hotel is a domain word
		{"make it so", 3, 0},                       // make is a light verb
		{"play it in the kitchen", 5, 1},           // Play Song
		{"play it in the kitchen", 1, 0},           // Reserve Hotel
		{"search a round trip with Delta", 7, 2},   // two words a name writes as one
		{"a round of golf on the trip", 7, 0},      // not side by side
		{"search a round trip with Delta", 0, 1},   // Search Hotel: search alone
	}
	for _, tt := range tests {
		words := analyze.AppendContentWords(nil, 0, analyze.Words(tt.request))
		if got := jobNamedBy(lex, domain, requestWordsOf(lex, domain, words), &docs[tt.doc]); got != tt.want {
			t.Errorf("%q names %q %d times, want %d", tt.request, docs[tt.doc].Name, got, tt.want)
		}
	}
}

// stubLexicon relates each word to the given stems.
type stubLexicon map[string][]string

func (l stubLexicon) RelatedStems(w string) []string { return l[w] }

// BenchmarkCatalogTopics times the two passes over a catalog that the
// first follow-up pays for (domain terms and one-agent terms) at 100,000
// skills: 50,000 invented agents of two skills, each naming its own topic
// among 5,000 and a job among 20.
func BenchmarkCatalogTopics(b *testing.B) {
	docs := make([]index.Doc, 100_000)
	for i := range docs {
		a := i / 2
		topic := fmt.Sprintf("topic%c%c%c", 'a'+a%5000/400, 'a'+a%400/20, 'a'+a%20)
		job := fmt.Sprintf("job%c%c", 'a'+i%20, 'a'+(i/20)%20)
		docs[i] = index.Doc{AgentID: fmt.Sprint("agent", a), AgentName: "Agent " + topic,
			Name: job + " " + topic, Description: "Does " + job + " for " + topic + " in a city on a date", Tags: []string{topic, "city"}}
	}
	index.AnalyzeAll(docs, 2)
	at := func(i int) *index.Doc { return &docs[i] }
	b.Run("domain", func(b *testing.B) {
		for b.Loop() {
			domainTerms(at, len(docs), nil)
		}
	})
	b.Run("one-agent", func(b *testing.B) {
		for b.Loop() {
			oneAgentTerms(at, len(docs), nil)
		}
	})
}

// A text's domain words are its words that are domain terms, once each,
// as written; two words a catalog writes as one count as that word.
func TestDomainWords(t *testing.T) {
	domain := map[string]bool{stem("pickup"): true, stem("hotel"): true, stem("rentalcars"): true, stem("thankyou"): true, stem("checkin"): true}
	tests := []struct {
		text string
		want []string
	}{
		{"we pick up the keys at noon", []string{"pickup"}},
		{"we'll pick them up at noon", nil}, // not side by side
		{"two hotels, and the hotel by the pickup", []string{"hotels", "pickup"}},
		{"a pick up, then a pickup", []string{"pickup"}},
		{"do Rental Cars have one?", []string{"rentalcars"}},
		{"sounds good", nil},
		{"we check in at noon", []string{"checkin"}},
		{"thank you, book it", nil}, // a pronoun makes no phrasal verb
	}
	for _, tt := range tests {
		if got := domainWords(tt.text, domain); !slices.Equal(got, tt.want) {
			t.Errorf("domainWords(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// A request names a domain by a domain word, unless the word follows a
// preposition of place and a determiner: "a taxi to the restaurant" is
// about a taxi. "Listen to music" has no determiner: music is its topic.
func TestNamedTopic(t *testing.T) {
	domain := domainsOf(topicDocs())
	tests := []struct {
		need string
		want []string
	}{
		{"make the reservation for this hotel and two guests", []string{"hotel"}},
		{"I need a taxi to the restaurant", nil},
		{"find me a table near my hotel", nil},
		{"a taxi to the restaurant near the hotel", nil},
		{"I want to listen to song lyrics", []string{"song"}},
		{"book the hotel, then a taxi to the restaurant", []string{"hotel"}},
	}
	for _, tt := range tests {
		var want []string
		for _, w := range tt.want {
			want = append(want, stem(w))
		}
		if _, got := namedTopic(&extract.Requirement{Need: tt.need}, domain); !slices.Equal(got, want) {
			t.Errorf("namedTopic(%q) = %v, want %v", tt.need, got, want)
		}
	}
}

// A domain word names an agent's domain only in a form its labels write:
// "house" is no "Housing", "park" no "Parking"; a plural is the same form.
func TestInAgentsForms(t *testing.T) {
	docs := []index.Doc{
		{AgentID: "benefits", AgentName: "Housing Benefit", Name: "New claim", Tags: []string{"housing benefit"}},
		{AgentID: "pests", AgentName: "Pest Control", Name: "House call-out", Tags: []string{"houses", "parking"}},
	}
	index.AnalyzeAll(docs, 1)
	m := &Matcher{idx: index.Docs(docs)}
	m.labelForms = func() map[string]map[string]formKinds { return labelFormsOf(m.idx.Doc, m.idx.Len()) }
	hous, park := analyze.Stem("house"), analyze.Stem("park")
	tests := []struct {
		doc   int
		words []string
		want  []string
	}{
		{0, []string{"house"}, nil},
		{0, []string{"housing"}, []string{hous}},
		{1, []string{"house"}, []string{hous}},
		{1, []string{"houses"}, []string{hous}},
		{1, []string{"park"}, nil},
		{0, []string{"park"}, []string{park}}, // not in its labels: holds decides
		{0, nil, []string{hous}},              // a conversation's domain: kept
	}
	for _, tt := range tests {
		terms := []string{hous}
		if len(tt.words) > 0 && tt.words[0] == "park" {
			terms = []string{park}
		}
		if got := m.inAgentsForms(tt.doc, tt.words, terms); !slices.Equal(got, tt.want) {
			t.Errorf("doc %d, %v: %v, want %v", tt.doc, tt.words, got, tt.want)
		}
	}
}

// TestSoleNameTerm: an agent name names a domain only when, numbers and
// words for a kind of organisation aside, it is one word ("IT" is a
// stopword, so "IT Service Desk" is named by its service).
func TestSoleNameTerm(t *testing.T) {
	for _, tt := range []struct{ name, word string }{
		{"Buses 1", "buses"},
		{"Music Team", "music"},
		{"RentalCars 2", "rentalcars"},
		{"IT Service Desk", "service"},
		{"Finance Shared Services", ""},
		{"Smart Metering Programme", ""},
		{"Health, Safety & Food Hygiene", ""},
		{"Desk 4", ""},
		{"", ""},
	} {
		want := ""
		if tt.word != "" {
			want = analyze.Terms(tt.word)[0]
		}
		if got := soleNameTerm(analyze.Terms(tt.name)); got != want {
			t.Errorf("soleNameTerm(%q) = %q, want %q", tt.name, got, want)
		}
	}
}
