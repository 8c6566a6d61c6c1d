package discover

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
)

func TestFetchWellKnownPath(t *testing.T) {
	srv := newAgentServer(t, testCard{Name: "Weather", Version: "1.0.0", Skills: []string{"forecast", "radar"}}.JSON(t), WellKnownPath)
	got, err := testFetcher().Fetch(t.Context(), Agent{URL: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Card.Name != "Weather" || got.Card.Version != "1.0.0" || len(got.Card.Skills) != 2 {
		t.Errorf("card = %+v", got.Card)
	}
	if got.Legacy || got.Source != srv.URL+WellKnownPath {
		t.Errorf("Source = %q, Legacy = %v; want %q from the v1 path", got.Source, got.Legacy, srv.URL+WellKnownPath)
	}
	if want := "127.0.0.1-" + strings.TrimPrefix(srv.hostPort(t), "127.0.0.1:"); got.ID != want || got.Card.ID != want {
		t.Errorf("ID = %q, card id %q; want %q derived from the host", got.ID, got.Card.ID, want)
	}
	if got.Hash != Hash(got.Card) || len(got.Hash) != 64 {
		t.Errorf("Hash = %q", got.Hash)
	}
	if n := len(srv.reqs()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	// An explicit id, and a URL naming the card itself, work too.
	got, err = testFetcher().Fetch(t.Context(), Agent{URL: srv.URL + WellKnownPath, ID: "weather"}, nil)
	if err != nil || got.Card.ID != "weather" {
		t.Fatalf("explicit id: %v, %+v", err, got)
	}
}

func TestFetchLegacyFallback(t *testing.T) {
	srv := newAgentServer(t, testCard{Name: "Old", Version: "0.3", Skills: []string{"a"}}.JSON(t), LegacyWellKnownPath)
	got, err := testFetcher().Fetch(t.Context(), Agent{URL: srv.URL + "/"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Legacy || got.Source != srv.URL+LegacyWellKnownPath || got.Card.Name != "Old" {
		t.Errorf("got Legacy=%v Source=%q name=%q", got.Legacy, got.Source, got.Card.Name)
	}
	paths := []string{}
	for _, r := range srv.reqs() {
		paths = append(paths, r.URL.Path)
	}
	if strings.Join(paths, " ") != WellKnownPath+" "+LegacyWellKnownPath {
		t.Errorf("paths asked = %v, want the v1 path then the legacy one", paths)
	}

	// Neither path: a clear status error naming the legacy URL.
	none := newAgentServer(t, nil, "/elsewhere")
	_, err = testFetcher().Fetch(t.Context(), Agent{URL: none.URL}, nil)
	if !errors.Is(err, ErrStatus) || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), LegacyWellKnownPath) {
		t.Errorf("err = %v, want a 404 status error naming the legacy path", err)
	}
	// A 500 on the v1 path does not fall back.
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	}))
	defer broken.Close()
	if _, err := testFetcher().Fetch(t.Context(), Agent{URL: broken.URL}, nil); !errors.Is(err, ErrStatus) || !strings.Contains(err.Error(), "500") {
		t.Errorf("err = %v, want a 500 status error", err)
	}
}

func TestFetchInvalidCard(t *testing.T) {
	srv := newAgentServer(t, []byte(`{"name": "x", "skills": []}`), WellKnownPath)
	_, err := testFetcher().Fetch(t.Context(), Agent{URL: srv.URL, ID: "x"}, nil)
	if !errors.Is(err, card.ErrInvalidCard) || !strings.Contains(err.Error(), srv.URL+WellKnownPath) {
		t.Errorf("err = %v, want ErrInvalidCard naming the URL", err)
	}
}

func TestSizeCap(t *testing.T) {
	chunk := make([]byte, 32<<10)
	for i := range chunk {
		chunk[i] = ' '
	}
	serve := func(total int, withLength bool) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if withLength {
				w.Header().Set("Content-Length", fmt.Sprint(total))
			}
			for n := 0; n < total; n += len(chunk) {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}))
	}
	for _, tc := range []struct {
		total      int
		withLength bool
	}{{2 << 20, false}, {2 << 20, true}, {16 << 20, false}} {
		t.Run(fmt.Sprintf("%dMiB/content-length=%v", tc.total>>20, tc.withLength), func(t *testing.T) {
			srv := serve(tc.total, tc.withLength)
			defer srv.Close()
			f := testFetcher()
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := f.Fetch(t.Context(), Agent{URL: srv.URL, ID: "big"}, nil)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "limit 524288") {
				t.Fatalf("err = %v, want ErrTooLarge naming the limit", err)
			}
			t.Logf("allocated %d bytes", after.TotalAlloc-before.TotalAlloc)
			// Reading the whole body would allocate at least its size;
			// capped reading allocates about twice the cap, whatever the
			// body's size (a generous bound, for -race).
			if alloc := after.TotalAlloc - before.TotalAlloc; tc.total > 4<<20 && alloc > 4<<20 {
				t.Errorf("allocated %d bytes reading a %d-byte body; the cap should bound it", alloc, tc.total)
			}
		})
	}
	// A smaller cap applies to cards that would otherwise pass.
	srv := newAgentServer(t, testCard{Name: "A", Version: "1", Skills: []string{"a"}}.JSON(t), WellKnownPath)
	if _, err := testFetcher(WithMaxBytes(50)).Fetch(t.Context(), Agent{URL: srv.URL, ID: "a"}, nil); !errors.Is(err, ErrTooLarge) {
		t.Errorf("err = %v, want ErrTooLarge", err)
	}
}

func TestSlowServerTimesOut(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	slowHeaders := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slowHeaders.Close()
	slowBody := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		_, _ = w.Write([]byte(`{"name": "slow",`))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slowBody.Close()
	for name, srv := range map[string]*httptest.Server{"headers": slowHeaders, "body": slowBody} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			_, err := testFetcher(WithTimeout(200*time.Millisecond)).Fetch(t.Context(), Agent{URL: srv.URL, ID: "slow"}, nil)
			if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "200ms") {
				t.Errorf("err = %v, want ErrTimeout naming the timeout", err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v, want about 200ms", d)
			}
		})
	}
}

func TestConnectTimeout(t *testing.T) {
	// A dialer that never connects stands in for a black-holed address.
	hang := func(ctx context.Context, _, _ string) (netConn, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	f := testFetcher(WithConnectTimeout(100*time.Millisecond), WithTimeout(5*time.Second), WithDialer(hang))
	start := time.Now()
	_, err := f.Fetch(t.Context(), Agent{URL: "http://203.0.113.7/", ID: "x"}, nil)
	if err == nil || time.Since(start) > 2*time.Second {
		t.Errorf("err = %v after %v, want a failure after about 100ms", err, time.Since(start))
	}
}

func TestRedirects(t *testing.T) {
	body := testCard{Name: "Moved", Version: "1", Skills: []string{"a"}}.JSON(t)
	// Same host: followed.
	same := newAgentServer(t, body, "/cards/moved.json")
	mux := http.NewServeMux()
	mux.Handle("/cards/", same.Config.Handler)
	mux.HandleFunc(WellKnownPath, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/cards/moved.json", http.StatusFound)
	})
	sameHost := httptest.NewServer(mux)
	defer sameHost.Close()
	got, err := testFetcher().Fetch(t.Context(), Agent{URL: sameHost.URL, ID: "moved"}, nil)
	if err != nil || got.Card.Name != "Moved" {
		t.Fatalf("same-host redirect: %v", err)
	}

	// Another host:port (both servers are 127.0.0.1): refused, and the
	// other server never asked.
	other := newAgentServer(t, body, WellKnownPath)
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+WellKnownPath, http.StatusFound)
	}))
	defer redirector.Close()
	_, err = testFetcher().Fetch(t.Context(), Agent{URL: redirector.URL, ID: "r"}, nil)
	if !errors.Is(err, ErrRedirect) || !strings.Contains(err.Error(), other.hostPort(t)) {
		t.Errorf("err = %v, want ErrRedirect naming %s", err, other.hostPort(t))
	}
	if n := len(other.reqs()); n != 0 {
		t.Errorf("the other host got %d requests", n)
	}

	// Another host name on the same address and port: refused too.
	_, port, _ := strings.Cut(redirector.Listener.Addr().String(), ":")
	byName := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Host, "agent-a.test") {
			http.Redirect(w, r, "http://agent-b.test:"+port+WellKnownPath, http.StatusFound)
			return
		}
		_, _ = w.Write(body)
	}))
	defer byName.Close()
	_, port, _ = strings.Cut(byName.Listener.Addr().String(), ":")
	res := mapResolver{"agent-a.test": loopback, "agent-b.test": loopback}
	_, err = testFetcher(WithResolver(res)).Fetch(t.Context(), Agent{URL: "http://agent-a.test:" + port}, nil)
	if !errors.Is(err, ErrRedirect) || !strings.Contains(err.Error(), "agent-b.test:"+port) {
		t.Errorf("err = %v, want ErrRedirect naming agent-b.test:%s", err, port)
	}

	// A same-host loop: stopped after 3 redirects.
	var hops int
	loop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hops++
		http.Redirect(w, r, fmt.Sprintf("/hop/%d", hops), http.StatusFound)
	}))
	defer loop.Close()
	_, err = testFetcher().Fetch(t.Context(), Agent{URL: loop.URL, ID: "loop"}, nil)
	if !errors.Is(err, ErrRedirect) || !strings.Contains(err.Error(), "more than 3 redirects") || hops != 4 {
		t.Errorf("err = %v after %d requests, want ErrRedirect after 4", err, hops)
	}
}

func TestPrivateAddressRefused(t *testing.T) {
	srv := newAgentServer(t, testCard{Name: "Local", Version: "1", Skills: []string{"a"}}.JSON(t), WellKnownPath)
	hp := srv.hostPort(t)
	_, err := NewFetcher().Fetch(t.Context(), Agent{URL: srv.URL}, nil)
	var ae *AddrError
	if !errors.Is(err, ErrAddressRefused) || !errors.As(err, &ae) || ae.Class != "loopback" {
		t.Fatalf("err = %v, want a loopback AddrError", err)
	}
	if !strings.Contains(err.Error(), hp) || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("err = %q, want it to name %s and say loopback", err, hp)
	}
	if n := len(srv.reqs()); n != 0 {
		t.Errorf("server got %d requests", n)
	}

	// A public-looking name that resolves to loopback (what DNS rebinding
	// does) is refused on the resolved address.
	_, port, _ := strings.Cut(hp, ":")
	f := NewFetcher(WithResolver(mapResolver{"public.example": loopback}))
	_, err = f.Fetch(t.Context(), Agent{URL: "http://public.example:" + port}, nil)
	if !errors.Is(err, ErrAddressRefused) || !strings.Contains(err.Error(), "127.0.0.1:"+port) || !strings.Contains(err.Error(), "public.example") {
		t.Errorf("err = %v, want a refusal naming the name and 127.0.0.1:%s", err, port)
	}
	// Names resolving to one refused and one usable address use the usable one.
	f = NewFetcher(WithResolver(mapResolver{"mixed.example": {netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("192.0.2.10")}}),
		WithDialer(func(ctx context.Context, network, addr string) (netConn, error) {
			if !strings.HasPrefix(addr, "192.0.2.10:") {
				t.Errorf("dialled %s", addr)
			}
			return dialLoopback(ctx, network, hp)
		}))
	if _, err := f.Fetch(t.Context(), Agent{URL: "http://mixed.example:" + port}, nil); err != nil {
		t.Errorf("mixed addresses: %v", err)
	}
	// Allowed per agent, or for the whole fetcher.
	if _, err := NewFetcher().Fetch(t.Context(), Agent{URL: srv.URL, AllowPrivate: true}, nil); err != nil {
		t.Errorf("Agent.AllowPrivate: %v", err)
	}
	if _, err := NewFetcher(WithAllowPrivate(true)).Fetch(t.Context(), Agent{URL: srv.URL}, nil); err != nil {
		t.Errorf("WithAllowPrivate: %v", err)
	}
}

func TestAddrClass(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1": "loopback", "::1": "loopback", "10.1.2.3": "private", "172.16.0.1": "private",
		"192.168.1.1": "private", "fd00::1": "private", "169.254.169.254": "link-local", "fe80::1": "link-local",
		"0.0.0.0": "unspecified", "::": "unspecified", "0.1.2.3": "unspecified", "224.0.0.1": "link-local",
		"239.1.1.1": "multicast", "ff02::1": "link-local", "ff05::1": "multicast", "100.64.0.1": "carrier-grade NAT",
		"100.127.255.255": "carrier-grade NAT", "255.255.255.255": "reserved", "::ffff:127.0.0.1": "loopback",
		"64:ff9b::a00:1": "private", "2002:7f00:1::": "loopback",
		// IPv4-compatible (::/96) and IPv4-translated forms: the endpoint policy.
		"::127.0.0.1": "loopback", "::a9fe:a9fe": "link-local", "::ffff:0:10.0.0.1": "private",
		"8.8.8.8": "", "100.128.0.1": "", "2001:4860:4860::8888": "", "203.0.113.7": "",
	} {
		if got := AddrClass(netip.MustParseAddr(addr)); got != want {
			t.Errorf("AddrClass(%s) = %q, want %q", addr, got, want)
		}
	}
}

// A name resolving to an IPv4-compatible IPv6 address (::/96) of loopback
// or the metadata service is refused at dial time like the IPv4 address,
// and the dialer is never asked.
func TestEmbeddedIPv4Refused(t *testing.T) {
	for _, addr := range []string{"::7f00:1", "::a9fe:a9fe", "::ffff:0:a00:1"} {
		f := NewFetcher(WithResolver(mapResolver{"compat.example": {netip.MustParseAddr(addr)}}),
			WithDialer(func(ctx context.Context, network, a string) (netConn, error) {
				t.Errorf("%s: dialled %s", addr, a)
				return nil, errors.New("no")
			}))
		_, err := f.Fetch(t.Context(), Agent{URL: "http://compat.example:8080"}, nil)
		if !errors.Is(err, ErrAddressRefused) {
			t.Errorf("%s: err = %v, want ErrAddressRefused", addr, err)
		}
	}
}

func TestCredentialsInURLRefused(t *testing.T) {
	srv := newAgentServer(t, nil, WellKnownPath)
	u := strings.Replace(srv.URL, "http://", "http://admin:s3cret@", 1)
	_, err := testFetcher().Fetch(t.Context(), Agent{URL: u}, nil)
	if !errors.Is(err, ErrBadURL) || !strings.Contains(err.Error(), "credentials") {
		t.Errorf("err = %v, want ErrBadURL about credentials", err)
	}
	if err != nil && strings.Contains(err.Error(), "s3cret") {
		t.Errorf("err %q repeats the password", err)
	}
	if n := len(srv.reqs()); n != 0 {
		t.Errorf("server got %d requests", n)
	}
}

func TestNormalizeURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://Agent.Example.COM/":                                 "https://agent.example.com",
		"https://agent.example.com:443/a2a/":                         "https://agent.example.com/a2a",
		"http://agent.example.com:80":                                "http://agent.example.com",
		"http://agent.example.com:8080/x/.well-known/agent.json":     "http://agent.example.com:8080/x",
		"HTTPS://agent.example.com/.well-known/agent-card.json#frag": "https://agent.example.com",
		"http://[::1]:9000/":                                         "http://[::1]:9000",
	} {
		u, err := NormalizeURL(in)
		if err != nil || u.String() != want {
			t.Errorf("NormalizeURL(%q) = %v, %v; want %q", in, u, err, want)
		}
	}
	for in, want := range map[string]string{
		"":                          "empty",
		"ftp://agent.example.com":   `scheme "ftp"`,
		"file:///etc/passwd":        `scheme "file"`,
		"agent.example.com":         "no scheme",
		"https://u:p@agent.example": "credentials",
		"https://u@agent.example":   "credentials",
		"https:///path":             "no host",
		"https://a.example/?x=1":    "query",
		"https://a.example:0":       "port",
		"https://a.example:99999":   "port",
		"http://a\x87.example":      "not valid UTF-8",
		// 816 bytes given; percent-encoded once normalized, each "é" takes 6.
		"https://" + strings.Repeat("é", 400) + ".example": "once normalized",
	} {
		_, err := NormalizeURL(in)
		if !errors.Is(err, ErrBadURL) || !strings.Contains(err.Error(), want) {
			t.Errorf("NormalizeURL(%q) = %v, want ErrBadURL mentioning %q", in, err, want)
		}
	}
}

func TestDeriveID(t *testing.T) {
	for in, want := range map[string]string{
		"https://agents.example.com":                 "agents.example.com",
		"https://Agents.Example.com:8443/Billing/v2": "agents.example.com-8443-billing-v2",
		"http://127.0.0.1:8080":                      "127.0.0.1-8080",
		"http://[::1]:9000":                          "1-9000",
		"https://a.example/caf%C3%A9":                "a.example-caf",
	} {
		u, err := NormalizeURL(in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DeriveID(u)
		if err != nil || got != want || !card.ValidID(got) {
			t.Errorf("DeriveID(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestExtendedCard(t *testing.T) {
	var srvURL string
	var authSeen []string
	mux := http.NewServeMux()
	mux.HandleFunc(WellKnownPath, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(testCard{Name: "Pub", Version: "1", Skills: []string{"a"}, Interface: srvURL + "/a2a", Extended: true}.JSON(t))
	})
	mux.HandleFunc("GET /a2a"+ExtendedCardPath, func(w http.ResponseWriter, r *http.Request) {
		authSeen = append(authSeen, r.Header.Get("Authorization"))
		if r.Header.Get("Authorization") != "Bearer tok" || r.Header.Get("X-Tenant") != "t1" {
			http.Error(w, "unauthenticated", http.StatusUnauthorized)
			return
		}
		_, _ = w.Write(testCard{Name: "Pub", Version: "1", Skills: []string{"a", "secret"}, Interface: srvURL + "/a2a", Extended: true}.JSON(t))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	srvURL = srv.URL

	creds := WithCredentials(map[string]Credentials{srv.URL + "/": {Bearer: "tok", Header: map[string]string{"X-Tenant": "t1"}}})
	got, err := testFetcher(creds).Fetch(t.Context(), Agent{URL: srv.URL, ID: "ext"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Extended || got.ExtendedErr != nil || len(got.Card.Skills) != 2 {
		t.Errorf("Extended=%v ExtendedErr=%v skills=%d, want the extended card with 2 skills", got.Extended, got.ExtendedErr, len(got.Card.Skills))
	}

	// No credentials: the public card, and the extended path never asked.
	authSeen = nil
	got, err = testFetcher().Fetch(t.Context(), Agent{URL: srv.URL, ID: "ext"}, nil)
	if err != nil || got.Extended || len(got.Card.Skills) != 1 || len(authSeen) != 0 {
		t.Errorf("without credentials: err=%v Extended=%v skills=%d asked=%d", err, got.Extended, len(got.Card.Skills), len(authSeen))
	}

	// Wrong credentials: the public card, and the reason.
	bad := WithCredentials(map[string]Credentials{srv.URL: {Bearer: "nope"}})
	got, err = testFetcher(bad).Fetch(t.Context(), Agent{URL: srv.URL, ID: "ext"}, nil)
	if err != nil || got.Extended || got.ExtendedErr == nil || !strings.Contains(got.ExtendedErr.Error(), "401") {
		t.Errorf("bad credentials: err=%v Extended=%v ExtendedErr=%v", err, got.Extended, got.ExtendedErr)
	}
	if strings.Contains(fmt.Sprint(got.ExtendedErr), "nope") {
		t.Errorf("ExtendedErr repeats the token")
	}

	// An interface on another origin never receives the credentials.
	thief := newAgentServer(t, nil, "/none")
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(testCard{Name: "F", Version: "1", Skills: []string{"a"}, Interface: thief.URL + "/a2a", Extended: true}.JSON(t))
	}))
	defer foreign.Close()
	creds = WithCredentials(map[string]Credentials{foreign.URL: {Bearer: "tok"}})
	got, err = testFetcher(creds).Fetch(t.Context(), Agent{URL: foreign.URL, ID: "f"}, nil)
	if err != nil || got.Extended || got.ExtendedErr == nil || !strings.Contains(got.ExtendedErr.Error(), "not on the agent's origin") {
		t.Errorf("foreign interface: err=%v ExtendedErr=%v", err, got.ExtendedErr)
	}
	if n := len(thief.reqs()); n != 0 {
		t.Errorf("the foreign interface got %d requests", n)
	}
}
