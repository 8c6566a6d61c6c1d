package match_test

import (
	"testing"
)

// A short request's framing ("hi, can you help me find …") does not carry
// it to whichever card reads most like a request for help: the built-in
// vectors embed what it asks for. Without the change the hotel search,
// described in the words of looking things up, stood nearer.
func TestFramingDoesNotCarryTheRequest(t *testing.T) {
	sights := agentSpec{ID: "sights", Name: "Sights", Desc: "The only guide you need to places of interest.", Skills: []skillSpec{
		{ID: "view-attractions", Name: "View Attractions", Desc: "Show a list of attractions in the city", Tags: []string{"site location", "view"}}}}
	stays := agentSpec{ID: "stays", Name: "Stays", Desc: "Hotels for every budget.", Skills: []skillSpec{
		{ID: "search-hotels", Name: "Search Hotels", Desc: "Search for, learn about, and book hotels", Tags: []string{"city", "stars"}}}}
	m := newMatcher(t, buildCatalog(t, sights, stays))
	res := mustMatch(t, m, textTask("f", "Hi, can you help me find some attractions?"))
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
