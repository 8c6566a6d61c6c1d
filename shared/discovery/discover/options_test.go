package discover

import (
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
)

// The options no binary sets: each changes what a fetch does.
func TestOptionsChangeTheFetch(t *testing.T) {
	body := testCard{Name: "Two", Version: "1", Skills: []string{"a", "b"}}.JSON(t)
	plain := newAgentServer(t, body, WellKnownPath)

	// A same-host redirect loop, counting its requests.
	hops := 0
	loop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hops++
		http.Redirect(w, r, fmt.Sprintf("/hop/%d", hops), http.StatusFound)
	}))
	defer loop.Close()

	secure := httptest.NewUnstartedServer(plain.Config.Handler)
	secure.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is the point
	secure.StartTLS()
	defer secure.Close()
	trusted := secure.Client().Transport.(*http.Transport).TLSClientConfig

	oneSkill := card.DefaultLimits
	oneSkill.MaxSkills = 1

	tests := []struct {
		name    string
		url     string
		opts    []Option
		hops    int    // requests the loop server takes, when url is the loop's
		wantErr error  // nil: the fetch succeeds
		errHas  string // in the error text
		wantUA  string // User-Agent the plain server sees
		skills  int    // skills of the card fetched, when it is
	}{
		{name: "redirects followed: 3 by default", url: loop.URL, hops: 4, wantErr: ErrRedirect, errHas: "more than 3 redirects"},
		{name: "WithMaxRedirects(1)", url: loop.URL, opts: []Option{WithMaxRedirects(1)}, hops: 2, wantErr: ErrRedirect, errHas: "more than 1 redirects"},
		{name: "WithMaxRedirects(0) follows none", url: loop.URL, opts: []Option{WithMaxRedirects(0)}, hops: 1, wantErr: ErrRedirect, errHas: "more than 0 redirects"},
		{name: "WithUserAgent", url: plain.URL, opts: []Option{WithUserAgent("catalog-bot/2")}, wantUA: "catalog-bot/2", skills: 2},
		{name: "WithCardLimits keeps the skills under them", url: plain.URL, opts: []Option{WithCardLimits(oneSkill)}, skills: 1},
		{name: "TLS: an unknown authority is refused", url: secure.URL, errHas: "certificate"},
		{name: "WithTLSConfig trusts its roots", url: secure.URL, opts: []Option{WithTLSConfig(trusted)}, skills: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hops = 0
			before := len(plain.reqs())
			got, err := testFetcher(tc.opts...).Fetch(t.Context(), Agent{URL: tc.url, ID: "agent"}, nil)
			switch {
			case tc.wantErr == nil && tc.errHas == "" && err != nil:
				t.Fatalf("fetch: %v", err)
			case tc.wantErr != nil && !errors.Is(err, tc.wantErr):
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			case tc.errHas != "" && (err == nil || !strings.Contains(err.Error(), tc.errHas)):
				t.Fatalf("err = %v, want one saying %q", err, tc.errHas)
			}
			if tc.skills > 0 && (err != nil || len(got.Card.Skills) != tc.skills) {
				t.Errorf("fetched %+v (%v), want a card of %d skills", got, err, tc.skills)
			}
			if tc.url == loop.URL && hops != tc.hops {
				t.Errorf("the loop took %d requests, want %d", hops, tc.hops)
			}
			if tc.wantUA != "" {
				reqs := plain.reqs()[before:]
				if len(reqs) == 0 || reqs[0].Header.Get("User-Agent") != tc.wantUA {
					t.Errorf("User-Agent %v, want %q", reqs, tc.wantUA)
				}
			}
		})
	}
}
