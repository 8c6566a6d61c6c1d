package match_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// A short request's framing ("hey, would you help me locate …") does not
// carry it to whichever card reads most like a request for help: the
// built-in vectors embed what it asks for. Without the change the hotel search,
// described in the words of looking things up, stood nearer.
func TestFramingDoesNotCarryTheRequest(t *testing.T) {
	sights := agentSpec{ID: "sights", Name: "Sights", Desc: "The only guide you need to places of interest.", Skills: []skillSpec{
		{ID: "view-attractions", Name: "View Attractions", Desc: "List the attractions worth visiting in a city", Tags: []string{"site location", "view"}}}}
	stays := agentSpec{ID: "stays", Name: "Stays", Desc: "Hotels for every budget.", Skills: []skillSpec{
		{ID: "search-hotels", Name: "Search Hotels", Desc: "Search for hotels, read about them, and book one", Tags: []string{"city", "stars"}}}}
	m := newMatcher(t, buildCatalog(t, sights, stays))
	res := mustMatch(t, m, textTask("f", "Hey, would you help me locate some nice attractions?"))
	if res.Ranked[0].Entry.Key != "sights/view-attractions" {
		t.Fatalf("best match %s, want the attractions", res.Ranked[0].Entry.Key)
	}
	var sight, hotel float32
	for _, r := range res.Ranked {
		switch r.Entry.Key {
		case "sights/view-attractions":
			sight = r.Dense
		case "stays/search-hotels":
			hotel = r.Dense
		}
	}
	if sight <= hotel {
		t.Errorf("meaning similarity: attractions %.2f, hotels %.2f; want the attractions nearer", sight, hotel)
	}
}

// recordingEmbedder is the built-in embedder noting each text embedded
// one at a time: the requests, once the index is built.
type recordingEmbedder struct {
	vector.Local
	mu    sync.Mutex
	texts []string
}

func (r *recordingEmbedder) EmbedText(text string) []float32 {
	r.mu.Lock()
	r.texts = append(r.texts, text)
	r.mu.Unlock()
	return r.Local.EmbedText(text)
}

// A request is compared like with like: to description-only cards
// without its framing, to cards whose skills have examples (requests as
// their authors wrote them, framing and all) whole.
func TestFramingKeptWhereCardsHaveExamples(t *testing.T) {
	const request = "Hey, would you please find me a few attractions?"
	bare := []agentSpec{
		{ID: "sights", Name: "Sights", Desc: "Places of interest.", Skills: []skillSpec{
			{ID: "view-attractions", Name: "View Attractions", Desc: "List the attractions worth visiting in a city"}}},
		{ID: "stays", Name: "Stays", Desc: "Hotels for every budget.", Skills: []skillSpec{
			{ID: "search-hotels", Name: "Search Hotels", Desc: "Search for and book hotels"}}},
	}
	withExamples := []agentSpec{
		{ID: "sights", Name: "Sights", Desc: "Places of interest.", Skills: []skillSpec{
			{ID: "view-attractions", Name: "View Attractions", Desc: "List the attractions worth visiting in a city",
				Examples: []string{"can you show me what to see in Rome?", "hi, any museums worth a visit in Oslo?"}}}},
		{ID: "stays", Name: "Stays", Desc: "Hotels for every budget.", Skills: []skillSpec{
			{ID: "search-hotels", Name: "Search Hotels", Desc: "Search for and book hotels",
				Examples: []string{"could you look up a hotel in Lyon for me?"}}}},
	}
	// One agent listing many skills with examples does not choose for a
	// catalog of description-only agents.
	var many []skillSpec
	for _, city := range []string{"rome", "oslo", "lima", "kyiv", "pune"} {
		many = append(many, skillSpec{ID: "tour-" + city, Name: "Tour " + city, Desc: "Guided tours in " + city,
			Examples: []string{"can you book me a tour of " + city + "?"}})
	}
	flooded := append(append([]agentSpec(nil), bare...), agentSpec{ID: "tours", Name: "Tours", Desc: "City tours.", Skills: many})
	for _, tt := range []struct {
		name  string
		specs []agentSpec
		want  string
	}{
		{"description-only cards", bare, "me a few attractions"},
		{"cards with examples", withExamples, request},
		{"one agent's many skills with examples", flooded, "me a few attractions"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recordingEmbedder{Local: embed.Default()}
			m := newMatcher(t, buildCatalog(t, tt.specs...), match.WithEmbedder(rec),
				match.WithWordVectors(embed.Default().(*embed.GloVe)))
			rec.mu.Lock()
			rec.texts = nil
			rec.mu.Unlock()
			mustMatch(t, m, textTask("w", request))
			if !slices.Equal(rec.texts, []string{tt.want}) {
				t.Errorf("embedded %q, want only %q", rec.texts, tt.want)
			}
		})
	}
}
