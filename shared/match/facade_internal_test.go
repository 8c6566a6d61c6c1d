package match

import (
	"slices"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
)

// TestFacade: a card that names three other agents of the catalog as its
// own, by their names of two words or more or by their skills' keys, is
// not trusted; one that names two, or names agents by one-word names
// shared with plain words, is.
func TestFacade(t *testing.T) {
	desk := func(id, name, skill string) catalog.Agent {
		a := agentWith(id, card.Skill{ID: skill, Name: name + " requests", Description: "Handles " + strings.ToLower(name) + " requests."})
		a.Card.Name = name
		return a
	}
	desks := []catalog.Agent{
		desk("box", "Box Office", "match-tickets"), desk("season", "Season Tickets Office", "renewal"),
		desk("store", "Rovers Store", "shop-order"), desk("people", "People Team", "leave"),
		desk("weather", "Weather", "forecast"), desk("lingo", "Translate", "translate"),
	}
	for _, tc := range []struct {
		name, desc string
		cut        string // what the length cap cut off the description
		flagged    bool
	}{
		{"three names", "One front door, powered by the Box Office, the Season Tickets Office and the Rovers Store.", "", true},
		{"three keys", "Sub-skills delegated internally: box/match-tickets, season/renewal, people/leave.", "", true},
		{"names and keys", "Powered by the People Team, box/match-tickets and season/renewal.", "", true},
		{"two names", "Hand-offs to the Box Office and the People Team when a question is theirs.", "", false},
		{"one-word names", "Weather-proof translate kits, and a box office for the season.", "", false},
		// A hundred-and-third set's conductor's call named its desks past
		// the 1,000 characters a description keeps.
		{"names past the length cap", "One front door, powered by the Box", " Office, the Season Tickets Office and the Rovers Store.", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			front := agentWith("front", card.Skill{ID: "door", Name: "Front door", Description: tc.desc, DescriptionCut: tc.cut})
			front.Card.Name = "Rovers One"
			m, err := New(catalog.New(append(desks, front)...), WithEmbedder(embed.Default()))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range m.refs {
				switch {
				case r.agent.Card.ID == "front" && (r.distrust != "") != tc.flagged:
					t.Errorf("front door: distrust %q, want flagged %v", r.distrust, tc.flagged)
				case r.agent.Card.ID != "front" && r.distrust != "":
					t.Errorf("%s distrusted: %q", r.agent.Card.ID, r.distrust)
				}
			}
		})
	}
}

// FuzzFacadeNamed: the agents named reads in a text of ASCII are those a
// plain reading finds: a name's words in a row, or a key between word
// boundaries (a full stop after it aside).
func FuzzFacadeNamed(f *testing.F) {
	for _, seed := range []string{"Powered by the Box Office and box/match-tickets.", "box office/season/renewal", "BOX  OFFICE", "people/leave..", "a/b/c"} {
		f.Add(seed)
	}
	n := &catalogNames{
		byFirst: map[string][]agentName{"box": {{words: []string{"box", "office"}, agent: 1}}, "people": {{words: []string{"people", "team"}, agent: 3}}},
		keys:    map[string]int32{"box/match-tickets": 1, "season/renewal": 2, "people/leave": 3, "a/b": 4},
	}
	f.Fuzz(func(t *testing.T, text string) {
		for i := range len(text) {
			if text[i] >= 0x80 {
				return
			}
		}
		got := map[int32]bool{}
		n.named(text, 0, got, nil)
		want := map[int32]bool{}
		ws := analyze.Words(text)
		for i := range ws {
			for _, a := range n.byFirst[ws[i]] {
				if i+len(a.words) <= len(ws) && slices.Equal(ws[i:i+len(a.words)], a.words) {
					want[a.agent] = true
				}
			}
		}
		lower := strings.ToLower(text)
		for i := range len(lower) {
			if lower[i] != '/' {
				continue
			}
			s, e := i, i+1
			for s > 0 && keyByte(lower[s-1]) {
				s--
			}
			for e < len(lower) && keyByte(lower[e]) {
				e++
			}
			for e > i+1 && strings.IndexByte(".-_", lower[e-1]) >= 0 {
				e--
			}
			if a, ok := n.keys[lower[s:e]]; ok {
				want[a] = true
			}
		}
		if len(got) != len(want) {
			t.Fatalf("named(%q) = %v, a plain reading %v", text, got, want)
		}
		for a := range want {
			if !got[a] {
				t.Fatalf("named(%q) = %v, a plain reading %v", text, got, want)
			}
		}
	})
}
