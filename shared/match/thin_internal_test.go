package match

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/match/rerank"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

func analyzed(d index.Doc) *index.Doc {
	d.Analyze()
	return &d
}

var (
	hotelDoc = analyzed(index.Doc{Key: "stays/hotel", AgentID: "stays", SkillID: "hotel", AgentName: "Stays", Name: "Hotel reservations",
		Description: "Reserves hotel rooms for a stay in a city.", Tags: []string{"hotel", "lodging"},
		Examples: []string{"get me a hotel room in Madrid for three nights", "reserve a hotel near the conference centre"}})
	invoiceDoc = analyzed(index.Doc{Key: "ledger/reconcile", AgentID: "ledger", SkillID: "reconcile", AgentName: "Ledger", Name: "Invoice reconciliation",
		Description: "Matches supplier invoices against purchase orders and receipts and flags mismatches.",
		Tags:        []string{"invoices", "accounts payable", "purchase order"}})
	rideDoc = analyzed(index.Doc{Key: "rides/getride", AgentID: "rides", SkillID: "getride", AgentName: "Rides", Name: "Order a ride",
		Description: "Call a taxi to take you to a destination."})
	forecastDoc = analyzed(index.Doc{Key: "meteo/forecast", AgentID: "meteo", SkillID: "forecast", AgentName: "Meteo", Name: "Weather",
		Description: "Gives the forecast for a city."})
	holidayDoc = analyzed(index.Doc{Key: "people/annual-leave", AgentID: "people", SkillID: "annual-leave", AgentName: "People Team", Name: "Holiday booking",
		Description: "Book, change or cancel holiday and check how many days are left.", Tags: []string{"annual leave", "holiday", "days left", "carry over"}})
	providerDoc = analyzed(index.Doc{Key: "care/findprovider", AgentID: "care", SkillID: "findprovider", AgentName: "Care", Name: "Find Provider",
		Description: "Discover therapist according to user's conditions", Tags: []string{"city", "type"}})
)

// TestThinLink: a skill whose only tie to the request is one common word,
// while the request's other words speak of something else, is thinly
// linked; two links, a rare word, a word of the skill's label the request
// means (similar texts, and a pointer back or another word not far from
// the skill's), another word close to the skill's, or a short request are
// not.
func TestThinLink(t *testing.T) {
	wv := embed.Default().(rerank.WordVectors)
	tests := []struct {
		name  string
		need  string
		doc   *index.Doc
		dense float32
		want  bool
	}{
		{"a common word of the description", "play some jazz in the living room", hotelDoc, 0.52, true},
		{"a common word of a label phrase, dissimilar texts", "order a new pair of running shoes", invoiceDoc, 0.26, true},
		{"a common word of a label phrase, similar texts", "order a new pair of running shoes", invoiceDoc, 0.5, false},
		{"two links", "book a hotel room in Vienna", hotelDoc, 0.75, false},
		{"another word close to the skill's", "could you call a cab to take us to the airport", rideDoc, 0.6, false},
		{"a rare word", "forecast for Nairobi on Saturday", forecastDoc, 0.5, false},
		{"a short request", "living room", hotelDoc, 0.5, false},
		{"no link at all", "somewhere to sleep in Porto", hotelDoc, 0.7, false},
		{"a word of the label, the rest elsewhere", "book me a taxi to the airport for 5am tomorrow", holidayDoc, 0.5, true},
		{"a word of the label, pointing back", "could you book it for me, a taxi to the airport at 5am", holidayDoc, 0.5, false},
		{"a word of the label, another word not far from the skill's", "find me a psychologist in Santa Rosa", providerDoc, 0.5, false},
		{"a word of the label, no other word near the skill's", "find me a plumber in Santa Rosa", providerDoc, 0.5, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, got := newThinQuery(wv, tt.need, false).thin(tt.doc, tt.dense); got != tt.want {
				t.Errorf("thin(%q, %s) = %v, want %v", tt.need, tt.doc.Key, got, tt.want)
			}
		})
	}
}

func ranked(d *index.Doc, dense float32, prob float64) Ranked {
	return Ranked{Scored: rerank.Scored{Candidate: index.Candidate{Entry: d, Dense: dense}}, Prob: prob}
}

func demoted(r Ranked) Ranked { r.Demoted = true; return r }

// TestShrinkThin: a thin link keeps its rank but loses its confidence,
// never falling under a candidate it outranked; others keep theirs.
func TestShrinkThin(t *testing.T) {
	m := &Matcher{cfg: config{words: embed.Default().(rerank.WordVectors)}, policy: decide.DefaultPolicy}
	req := &extract.Requirement{Need: "play some jazz in the living room"}
	tests := []struct {
		name      string
		in        []Ranked
		wantProbs []float64
	}{
		{"halved over a weak runner-up", []Ranked{ranked(hotelDoc, 0.52, 0.88), ranked(rideDoc, 0.3, 0.12)}, []float64{0.44, 0.12}},
		{"held just over a close runner-up", []Ranked{ranked(hotelDoc, 0.52, 0.88), ranked(rideDoc, 0.3, 0.6)}, []float64{0.6 + 1e-6, 0.6}},
		{"under the clarify floor: untouched", []Ranked{ranked(hotelDoc, 0.52, 0.3)}, []float64{0.3}},
		// A degraded twin is judged like the healthy one; spared, it kept
		// 0.90 over the healthy one's 0.44 and was delegated to.
		{"a degraded twin too", []Ranked{demoted(ranked(hotelDoc, 0.52, 0.90)), ranked(hotelDoc, 0.52, 0.88)}, []float64{0.45, 0.44}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.in[0].Prob
			m.shrinkThin(req, tt.in)
			for i, want := range tt.wantProbs {
				if got := tt.in[i].Prob; got < want-1e-9 || got > want+1e-9 {
					t.Errorf("candidate %d (%s): probability %v, want %v", i, tt.in[i].Entry.Key, got, want)
				}
			}
			// --explain says why a shrunk candidate lost its confidence.
			if shrunk := tt.in[0].Prob < before; shrunk != strings.Contains(tt.in[0].Reason, `common word "room"`) {
				t.Errorf("reason %q: want the thin link named exactly when shrunk", tt.in[0].Reason)
			}
		})
	}
	// A label word's link is judged on the request as Rank reads it: a
	// pointer or an earlier turn keeps it, other words elsewhere do not.
	for _, tt := range []struct {
		name    string
		req     *extract.Requirement
		wantRaw bool // the probability kept
	}{
		{"a label word, the rest elsewhere", &extract.Requirement{Need: "book me a taxi to the airport for 5am tomorrow"}, false},
		{"a label word, pointing back", &extract.Requirement{Need: "could you book it for me, a taxi to the airport at 5am"}, true},
		{"a label word after earlier turns", &extract.Requirement{Need: "book me a taxi to the airport for 5am tomorrow",
			History: []string{"I'm off from the 4th"}}, true},
	} {
		in := []Ranked{ranked(holidayDoc, 0.5, 0.8), ranked(rideDoc, 0.3, 0.1)}
		m.shrinkThin(tt.req, in)
		if kept := in[0].Prob == 0.8; kept != tt.wantRaw {
			t.Errorf("%s: holiday booking at %.2f, want its 0.80 kept %v", tt.name, in[0].Prob, tt.wantRaw)
		}
	}
	// Two thinly linked siblings no longer pool: the decider would add
	// their halved probabilities back up past the threshold.
	other := *hotelDoc
	other.Key, other.AgentID, other.AgentName = "inns/hotel", "inns", "Inns"
	best, twin := ranked(hotelDoc, 0.52, 0.95), ranked(&other, 0.52, 0.90)
	twin.AlikeOf, twin.Alike, twin.Sibling = hotelDoc.Key, decide.AlikeTwin, true
	pair := []Ranked{best, twin}
	m.shrinkThin(req, pair)
	if p, pooled := m.policy.Pooled(Options(pair)); pooled {
		t.Errorf("thin siblings pooled to %.2f", p)
	}
	// Without word vectors there is no corpus weight to call a word common.
	bare := &Matcher{policy: decide.DefaultPolicy}
	in := []Ranked{ranked(hotelDoc, 0.52, 0.88)}
	if bare.shrinkThin(req, in); in[0].Prob != 0.88 {
		t.Errorf("without word vectors: probability %v, want 0.88 kept", in[0].Prob)
	}
}

// TestUnnamedShrinks: a thin request's candidates whose label it does not
// name report unnamedShrink of their probability, never under one they outranked, and
// one whose label it names keeps its own.
func TestUnnamedShrinks(t *testing.T) {
	tests := []struct {
		name  string
		need  string
		probs []float64 // hotelDoc, rideDoc
		want  []float64
	}{
		{"names neither", "sort it out", []float64{1, 0.3}, []float64{unnamedShrink, 0.3 * unnamedShrink}},
		{"names the ride: never under it", "get a ride for it", []float64{0.9, 0.6}, []float64{0.6 + 1e-6, 0.6}},
		{"not thin: no pointer", "sort out lodging", []float64{0.9, 0.6}, []float64{0.9, 0.6}},
		{"only asks", "I need help", []float64{1, 0.3}, []float64{unnamedShrink, 0.3 * unnamedShrink}},
		{"only asks, in office English", "please action ASAP", []float64{1, 0.3}, []float64{unnamedShrink, 0.3 * unnamedShrink}},
		{"asks nothing, in neither skill's words", "where are you from", []float64{0.9, 0.6}, []float64{0.9 * unnamedShrink, 0.6 * unnamedShrink}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := []Ranked{ranked(hotelDoc, 0.5, tt.probs[0]), ranked(rideDoc, 0.5, tt.probs[1])}
			markUnnamed(&extract.Requirement{Need: tt.need}, out)
			for i, r := range out {
				if diff := r.Prob - tt.want[i]; diff > 1e-9 || diff < -1e-9 {
					t.Errorf("%s: probability %v, want %v", r.Entry.Key, r.Prob, tt.want[i])
				}
				if r.Unnamed != strings.HasPrefix(r.Reason, "the request names no job") {
					t.Errorf("%s: unnamed %v but reason %q", r.Entry.Key, r.Unnamed, r.Reason)
				}
			}
		})
	}
}

// TestUnnamedWords: "the status" points at a thing's state without naming
// the thing, so a skill whose name holds the word is not named by it; the
// particle of an asking verb ("get back to me") names no job, even a
// refund's tagged "money back". A request naming the skill's own word
// ("a status letter", "money back") still names it.
func TestUnnamedWords(t *testing.T) {
	letters := analyzed(index.Doc{Key: "records/status-letter", AgentID: "records", SkillID: "status-letter", AgentName: "Records",
		Name: "Status letters", Description: "Letters confirming a student's enrolment."})
	leave := analyzed(index.Doc{Key: "people/annual-leave", AgentID: "people", SkillID: "annual-leave", AgentName: "People Team",
		Name: "Annual leave", Description: "Book time off, check how many days are left this year.", Tags: []string{"holiday", "time off"}})
	refunds := analyzed(index.Doc{Key: "care/refund", AgentID: "care", SkillID: "refund", AgentName: "Customer Care",
		Name: "Refunds", Description: "Refunds for cancelled sailings.", Tags: []string{"money back", "refund"}})
	cancels := analyzed(index.Doc{Key: "stays/cancel-stay", AgentID: "stays", SkillID: "cancel-stay", AgentName: "Cancellations",
		Name: "Cancel a holiday", Description: "Cancel a lodge or caravan stay and refund the deposit.", Tags: []string{"cancel", "lodge"}})
	extend := analyzed(index.Doc{Key: "boarding/extend-stay", AgentID: "boarding", SkillID: "extend-stay", AgentName: "Boarding",
		Name: "Extend or shorten a stay", Description: "Move a dog's pick-up day.", Tags: []string{"change", "extend"}})
	absence := analyzed(index.Doc{Key: "attendance/absence", AgentID: "attendance", SkillID: "absence", AgentName: "Attendance",
		Name: "Report an absence", Description: "Tell the school a pupil is off sick or late.", Tags: []string{"absence", "late"}})
	events := analyzed(index.Doc{Key: "events/book-event", AgentID: "events", SkillID: "book-event", AgentName: "Events",
		Name: "Book an event", Description: "Places at library events.", Tags: []string{"author talks", "talk"}})
	greeter := analyzed(index.Doc{Key: "talk/greeting", AgentID: "talk", SkillID: "greeting", AgentName: "Small talk",
		Name: "Greeting", Description: "Answers a hello with one."})
	camera := analyzed(index.Doc{Key: "drains/camera-check", AgentID: "drains", SkillID: "camera-check", AgentName: "Drains",
		Name: "Drain camera check", Description: "A camera survey of your drains to find and fix blockages."})
	oncall := analyzed(index.Doc{Key: "rota/on-call", AgentID: "rota", SkillID: "on-call", AgentName: "Rotas",
		Name: "On-call cover", Description: "Find an engineer to cover an on-call night.", Tags: []string{"call-out", "cover"}})
	origin := analyzed(index.Doc{Key: "talk/origin", AgentID: "talk", SkillID: "origin", AgentName: "Small talk",
		Name: "Where the assistant is from", Description: "Says where the assistant comes from.",
		Examples: []string{"where are you from", "where were you made"}})
	for _, tt := range []struct {
		doc     *index.Doc
		need    string
		unnamed bool
	}{
		{letters, "What's the status?", true},
		{letters, "any progress on it?", true},
		{letters, "I need a status letter", false},
		{refunds, "please look into it and get back to me", true},
		{refunds, "sort it out for me", true},
		{refunds, "I want it back", false},
		{refunds, "money back for it", false},
		{refunds, "just have a look and let me know", true},
		{refunds, "let me know about my refund", false},
		// An earlier request pointed at, with no earlier turn to name
		// it, and the state of a thing not named: every blind writer's
		// vague requests.
		{leave, "same as last time, please", true},
		{leave, "same as last week please", true},
		{leave, "book me the same time off as last year", false},
		{letters, "any update?", true},
		{letters, "still waiting", true},
		{refunds, "it's happened again", true},
		{leave, "what happens next?", true},
		{leave, "they're back.", true},
		{refunds, "they still haven't sent my refund", false},
		{leave, "what happens to my leave if I move teams?", false},
		{refunds, "can it be sorted before the weekend?", true},
		{extend, "is it ready yet?", true},
		{extend, "can it be extended yet?", false},
		// An act on an arrangement names no bookable thing: a catalog's
		// many bookings share the words.
		{cancels, "please cancel Thursday for us", true},
		{cancels, "cancel our booking for Saturday", true},
		{cancels, "cancel the lodge for Saturday", false},
		{leave, "cancel my annual leave on Friday", false},
		// Beside only whom, when or where it is for, too, but for a
		// skill whose label is the act.
		{leave, "Please cancel Thursday for my mum.", true},
		{leave, "Cancel Thursday's booking for Tern, please.", true},
		{leave, "Please cancel Mr Dunlop's booking for the 14th", true},
		{cancels, "Please cancel Thursday for my mum.", false},
		{cancels, "Cancel Thursday's booking for Tern, please.", true},
		{cancels, "Please cancel the lodge for my mum", false},
		{extend, "I need it changed before the weekend", true},
		{extend, "can it be extended?", false},
		// "too late" judges a thing not named.
		{absence, "is it too late?", true},
		{absence, "he'll be late today", false},
		// Where to go is no job: "the right place", "the wrong desk".
		{leave, "is this the right place for it?", true},
		{leave, "who's the right person to talk to about this?", true},
		{refunds, "is this the right place for my refund?", false},
		{events, "Who do I need to talk to about this?", true},
		{events, "can I book the author talk for it?", false},
		{refunds, "still waiting for my refund", false},
		{refunds, "not what we agreed", true},
		{refunds, "it's still not right", true},
		{refunds, "not the refund we agreed", false},
		// "not right" judges a thing not named, and someone else's
		// report of it names no job either.
		{refunds, "The lads say it's not right. Can you have a look?", true},
		{refunds, "my manager reckons it's not right", true},
		{refunds, "they say the refund is not right", false},
		{refunds, "something's not right with my refund", false},
		// Greetings, asks for a reply, follow-ups and times name nothing;
		// a name of whom or where names no job beside a pointer.
		{letters, "hi, is anybody there?", true},
		{greeter, "hello there", false},
		{refunds, "could somebody call us back?", true},
		{refunds, "can someone call me back when they have a minute?", true},
		{refunds, "could somebody call us back about the refund?", false},
		{refunds, "it's urgent, call me", true},
		{oncall, "it's urgent, call me", true},
		{oncall, "ring us asap please", true},
		{oncall, "call me when the on-call engineer is free", false},
		{refunds, "what do you want to call me", false},
		{letters, "this is the second time this has happened", true},
		{camera, "can you check something for me", true},
		{camera, "please fix it asap", true},
		{camera, "can you check the drains for me", false},
		{letters, "the second status letter", false},
		{leave, "following up on my message of Tuesday", true},
		{leave, "following up on my earlier message", true},
		{leave, "we had this in the post this morning, what now?", true},
		{leave, "the usual for Priya Shah", true},
		{leave, "holiday for Priya Shah", false},
		{refunds, "will it rain in Leeds tomorrow", false},
		// A request that names nothing, points at nothing and asks
		// nothing names a skill only in the skill's own words; an ask
		// noun or "I'd like" names no job either.
		{origin, "where are you from?", false},
		{origin, "are you from here", true},
		{leave, "what should I do?", true},
		{refunds, "I have a question", true},
		{refunds, "I have a question about my refund", false},
		{letters, "I'd like some information", true},
		{letters, "I'd like a status letter", false},
		{refunds, "I like the new refund form", false},
	} {
		out := []Ranked{ranked(tt.doc, 0.5, 0.8), ranked(hotelDoc, 0.5, 0.3)}
		markUnnamed(&extract.Requirement{Need: tt.need}, out)
		if out[0].Unnamed != tt.unnamed {
			t.Errorf("%q: %s unnamed %v, want %v", tt.need, tt.doc.Key, out[0].Unnamed, tt.unnamed)
		}
	}
}

// TestDemoteMarked: a marked candidate loses half its probability and
// falls below every unmarked one it no longer outscores; the unmarked
// keep their order, and so do the marked.
func TestDemoteMarked(t *testing.T) {
	cand := func(key string, p float64) Ranked {
		return Ranked{Scored: rerank.Scored{Candidate: index.Candidate{Entry: &index.Doc{Key: key}}}, Prob: p}
	}
	for _, tc := range []struct {
		name   string
		in     []Ranked
		marked []bool
		want   []string
	}{
		{"first falls below the second", []Ranked{cand("a", 0.8), cand("b", 0.5), cand("c", 0.3)}, []bool{true, false, false}, []string{"b", "a", "c"}},
		{"first falls below two", []Ranked{cand("a", 0.8), cand("b", 0.5), cand("c", 0.45)}, []bool{true, false, false}, []string{"b", "c", "a"}},
		{"first stays over what it still outscores", []Ranked{cand("a", 0.8), cand("b", 0.39), cand("c", 0.1)}, []bool{true, false, false}, []string{"a", "b", "c"}},
		{"a tie goes to the unmarked", []Ranked{cand("a", 0.8), cand("b", 0.4)}, []bool{true, false}, []string{"b", "a"}},
		{"marked keep their order", []Ranked{cand("a", 0.9), cand("b", 0.8), cand("c", 0.3), cand("d", 0)}, []bool{true, true, false, false}, []string{"a", "b", "c", "d"}},
		{"all marked", []Ranked{cand("a", 0.9), cand("b", 0.2)}, []bool{true, true}, []string{"a", "b"}},
		{"none marked", []Ranked{cand("a", 0.2), cand("b", 0.9)}, []bool{false, false}, []string{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := map[string]float64{}
			note := make([]string, len(tc.in))
			for i, r := range tc.in {
				before[r.Entry.Key] = r.Prob
				if tc.marked[i] {
					note[i] = "marked. "
				}
			}
			wasMarked := map[string]bool{}
			for i, r := range tc.in {
				wasMarked[r.Entry.Key] = tc.marked[i]
			}
			demoteMarked(tc.in, note)
			var got []string
			for _, r := range tc.in {
				got = append(got, r.Entry.Key)
				want := before[r.Entry.Key]
				if wasMarked[r.Entry.Key] {
					want *= thinShrink
					if !strings.HasPrefix(r.Reason, "marked. ") {
						t.Errorf("%s: reason %q lacks the note", r.Entry.Key, r.Reason)
					}
				}
				if r.Prob != want {
					t.Errorf("%s: probability %v, want %v", r.Entry.Key, r.Prob, want)
				}
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("order %v, want %v", got, tc.want)
			}
		})
	}
}

// TestAskedOnly: a skill tied to a request of one content word only by an
// asking word ("need") reports askedShrink of its probability; one that
// holds the thing asked for, or a word close to it, keeps its own, and so
// does every skill when the request names two things, points at one, or
// follows earlier turns.
func TestAskedOnly(t *testing.T) {
	m := &Matcher{cfg: config{words: embed.Default().(rerank.WordVectors)}, policy: decide.DefaultPolicy}
	hardship := analyzed(index.Doc{Key: "collections/hardship", AgentID: "collections", SkillID: "hardship", AgentName: "Collections",
		Name:        "Extra support for owners in difficult circumstances",
		Description: "Where an owner's health or caring duties affect the business, we record the support they need and pause collections.",
		Tags:        []string{"breathing space", "pause"}})
	tables := analyzed(index.Doc{Key: "dining/reserve", AgentID: "dining", SkillID: "reserve", AgentName: "Dining", Name: "Restaurant reservations",
		Description: "Make a table booking at a restaurant you choose."})
	plumbing := analyzed(index.Doc{Key: "trades/plumbing", AgentID: "trades", SkillID: "plumbing", AgentName: "Trades", Name: "Emergency plumbing",
		Description: "Whatever you need fixed at home: leaks, burst pipes, blocked drains."})
	for _, tt := range []struct {
		name   string
		req    *extract.Requirement
		doc    *index.Doc
		shrunk bool
	}{
		{"only the asking word", &extract.Requirement{Need: "what do we need to do about the account?"}, hardship, true},
		{"only the asking word, a thing it does not hold", &extract.Requirement{Need: "I need a dentist"}, plumbing, true},
		{"holds the thing", &extract.Requirement{Need: "I need a plumber for a burst pipe"}, plumbing, false},
		{"a word of the thing's family", &extract.Requirement{Need: "I need a plumber"}, plumbing, false},
		{"a word close to the thing", &extract.Requirement{Need: "we need a cab"}, rideDoc, false},
		{"holds no asking word", &extract.Requirement{Need: "I need a dentist"}, rideDoc, false},
		{"names the arrangement asked for", &extract.Requirement{Need: "I need to make a dinner reservation"}, tables, false},
		{"two things", &extract.Requirement{Need: "I need the account statement"}, hardship, false},
		{"points at one", &extract.Requirement{Need: "what do we need to do about it?"}, hardship, false},
		{"after earlier turns", &extract.Requirement{Need: "what do we need to do about the account?",
			History: []string{"my husband is in hospital and the business is struggling"}}, hardship, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := []Ranked{ranked(tt.doc, 0.4, 0.9), ranked(hotelDoc, 0.2, 0.05)}
			m.shrinkAskedOnly(tt.req, out)
			want := 0.9
			if tt.shrunk {
				want = 0.9 * askedShrink
			}
			if got := out[0].Prob; got < want-1e-9 || got > want+1e-9 {
				t.Errorf("%q: %s at %v, want %v", tt.req.Need, tt.doc.Key, got, want)
			}
			if tt.shrunk != strings.Contains(out[0].Reason, "only an asking word") {
				t.Errorf("reason %q: want the asking word named exactly when shrunk", out[0].Reason)
			}
		})
	}
}

// TestProperNames: a word capitalized mid-sentence is a name, its
// possessive too (analyze.Words reads "Dunlop's" as "dunlop"); the first
// word, acronyms and a request written all in capitals or title case give
// none.
func TestProperNames(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"the usual for the Kiln House", []string{"house", "kiln"}},
		{"Please cancel Mr Dunlop's booking for Thursday", []string{"dunlop", "mr", "thursday"}},
		{"Cancel the Hendersons' booking", []string{"hendersons"}},
		{"Cancel it. Thursday is off", nil},
		{"the VAT on PO 1234", nil},
		{"CANCEL THE BOOKING", nil},
		{"Cancel The Booking", nil},
	} {
		got := slices.Sorted(maps.Keys(properNames(tt.text)))
		if !slices.Equal(got, tt.want) {
			t.Errorf("properNames(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// TestStrayFollowUp: a follow-up that names nothing (times, replies,
// pointers) loses thinShrink of its best candidate's probability when the
// earlier turns do not point at that skill either; a turn with a content
// or arranging word, one the conversation points at, and a first turn
// keep theirs.
func TestStrayFollowUp(t *testing.T) {
	m := &Matcher{policy: decide.DefaultPolicy}
	lab := analyzed(index.Doc{Key: "lab/keeping-quality", AgentID: "lab", SkillID: "keeping-quality", AgentName: "Lab",
		Name: "Keeping-quality studies", Description: "We tell you how many days a product really keeps."})
	leave := []string{"I'd like 14-18 July off as annual leave please"}
	for _, tt := range []struct {
		name    string
		req     *extract.Requirement
		history []*index.Doc // the earlier turns' best skills, best first
		shrunk  bool
	}{
		{"names nothing, the conversation points elsewhere", &extract.Requirement{Need: "actually, make that the week after", History: leave}, []*index.Doc{holidayDoc, hotelDoc}, true},
		{"only a time", &extract.Requirement{Need: "and on Sundays?", History: leave}, []*index.Doc{holidayDoc}, true},
		{"the conversation points at it", &extract.Requirement{Need: "actually, make that the week after", History: leave}, []*index.Doc{holidayDoc, lab}, false},
		{"a content word", &extract.Requirement{Need: "and the custard tarts too?", History: leave}, []*index.Doc{holidayDoc}, false},
		{"an arranging word", &extract.Requirement{Need: "yes, make the booking", History: leave}, []*index.Doc{holidayDoc}, false},
		{"a first turn", &extract.Requirement{Need: "actually, make that the week after"}, nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			docs := []*index.Doc{lab, holidayDoc, hotelDoc}
			docOf := func(d *index.Doc) int { return slices.Index(docs, d) }
			top, next := ranked(lab, 0.5, 0.9), ranked(holidayDoc, 0.3, 0.1)
			top.Doc, next.Doc = docOf(lab), docOf(holidayDoc)
			out := []Ranked{top, next}
			sl := &Shortlist{}
			if tt.history != nil {
				sl.History = &index.Result{}
				for _, d := range tt.history {
					sl.History.Candidates = append(sl.History.Candidates, index.Candidate{Doc: docOf(d), Entry: d})
				}
			}
			m.shrinkStrayFollowUp(tt.req, sl, out)
			want := 0.9
			if tt.shrunk {
				want = 0.9 * thinShrink
			}
			if got := out[0].Prob; got < want-1e-9 || got > want+1e-9 {
				t.Errorf("%q: %s at %v, want %v", tt.req.Need, out[0].Entry.Key, got, want)
			}
			if tt.shrunk != strings.Contains(out[0].Reason, "turns before it") {
				t.Errorf("reason %q: want the note exactly when shrunk", out[0].Reason)
			}
		})
	}
}
