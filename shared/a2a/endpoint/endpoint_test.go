package endpoint

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestAddrClass(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1": "loopback", "::1": "loopback", "10.1.2.3": "private", "172.16.0.1": "private",
		"192.168.1.1": "private", "fd00::1": "private", "fec0::1": "private", "169.254.169.254": "link-local",
		"fe80::1": "link-local", "fe80::1%eth0": "link-local", "0.0.0.0": "unspecified", "::": "unspecified",
		"0.1.2.3": "unspecified", "224.0.0.1": "link-local", "239.1.1.1": "multicast", "ff02::1": "link-local",
		"ff05::1": "multicast", "100.64.0.1": "carrier-grade NAT", "100.127.255.255": "carrier-grade NAT",
		"255.255.255.255": "reserved", "240.0.0.1": "reserved",
		// IPv4 inside IPv6: mapped, compatible (::/96), translated, NAT64, 6to4.
		"::ffff:127.0.0.1": "loopback", "::ffff:169.254.169.254": "link-local", "::127.0.0.1": "loopback",
		"::7f00:1": "loopback", "::a9fe:a9fe": "link-local", "::10.0.0.1": "private", "::ffff:0:127.0.0.1": "loopback",
		"64:ff9b::a00:1": "private", "2002:7f00:1::": "loopback", "::8.8.8.8": "",
		"8.8.8.8": "", "100.128.0.1": "", "2001:4860:4860::8888": "", "203.0.113.7": "", "::ffff:8.8.8.8": "",
	} {
		if got := AddrClass(netip.MustParseAddr(addr)); got != want {
			t.Errorf("AddrClass(%s) = %q, want %q", addr, got, want)
		}
	}
	if got := AddrClass(netip.Addr{}); got != "invalid" {
		t.Errorf("zero Addr: %q", got)
	}
}

func TestHostClass(t *testing.T) {
	for host, want := range map[string]string{
		"127.0.0.1": "loopback", "[::1]": "loopback", "::1": "loopback", "127.0.0.1.": "loopback",
		"localhost": "loopback", "LOCALHOST.": "loopback", "api.localhost": "loopback",
		// Forms inet_aton accepts, which a resolver may treat as addresses.
		"127.1": "loopback", "2130706433": "loopback", "0x7f000001": "loopback", "0177.0.0.1": "loopback",
		"0xa9.0xfe.0xa9.0xfe": "link-local", "169.254.43518": "link-local", "10.1": "private", "0": "unspecified",
		"": "invalid",
		// Names are not resolved.
		"example.com": "", "metadata.google.internal": "", "localhost.example.com": "", "8.8.8.8": "",
		"1.2.3.4.5": "", "08": "", "127.0.0.256x": "", "0x1.0x2.0x3.0x4.0x5": "", "256.1.1.1": "",
	} {
		if got := HostClass(host); got != want {
			t.Errorf("HostClass(%q) = %q, want %q", host, got, want)
		}
	}
}

func TestCheckURL(t *testing.T) {
	tests := []struct {
		url          string
		allowPrivate bool
		class        string // want this class; "-" a refusal without a class; "" accepted
		says         string // the reason contains this
	}{
		{url: "https://agents.example.com/a2a"},
		{url: "http://agents.example.com:8080/a2a"},
		{url: "HTTPS://Agents.Example.COM/a2a"},
		{url: "https://[2001:db8::1]/a2a"},
		{url: "http://169.254.169.254/x", class: "link-local", says: "allowPrivate"},
		{url: "http://127.0.0.1:6379/", class: "loopback"},
		{url: "http://[::1]:8080/", class: "loopback"},
		{url: "http://[::ffff:169.254.169.254]/", class: "link-local"},
		{url: "http://[::a9fe:a9fe]/", class: "link-local"},
		{url: "http://[fe80::1%25eth0]/", class: "link-local"},
		{url: "http://10.0.0.5/a2a", class: "private"},
		{url: "http://0.0.0.0:80/", class: "unspecified"},
		{url: "http://[::]/", class: "unspecified"},
		{url: "http://224.0.0.251/", class: "link-local"},
		{url: "http://239.0.0.1/", class: "multicast"},
		{url: "http://2130706433/", class: "loopback"},
		{url: "http://localhost:9000/", class: "loopback"},
		{url: "file:///etc/passwd", class: "-", says: `scheme "file"`},
		{url: "gopher://example.com/", class: "-", says: "want http or https"},
		{url: "javascript:alert(1)", class: "-", says: "scheme"},
		{url: "//example.com/a2a", class: "-", says: "no scheme"},
		{url: "/relative", class: "-", says: "no scheme"},
		{url: "http:///nohost", class: "-", says: "no host"},
		{url: "http:opaque", class: "-", says: "no host"},
		{url: "https://user:s3cret@example.com/", class: "-", says: "credentials"},
		{url: "http://exa mple.com/%zz", class: "-", says: "not a URL"},
		// Allowed for the agent: addresses pass, the scheme rule stays.
		{url: "http://127.0.0.1:6379/", allowPrivate: true},
		{url: "http://10.0.0.5/a2a", allowPrivate: true},
		{url: "file:///etc/passwd", allowPrivate: true, class: "-", says: "scheme"},
	}
	for _, tt := range tests {
		err := CheckURL(tt.url, tt.allowPrivate)
		if tt.class == "" {
			if err != nil {
				t.Errorf("CheckURL(%q, %v) = %v, want nil", tt.url, tt.allowPrivate, err)
			}
			continue
		}
		var e *Error
		if !errors.Is(err, ErrRefused) || !errors.As(err, &e) {
			t.Errorf("CheckURL(%q, %v) = %v, want an *Error wrapping ErrRefused", tt.url, tt.allowPrivate, err)
			continue
		}
		if want := strings.TrimPrefix(tt.class, "-"); e.Class != want {
			t.Errorf("CheckURL(%q): class %q, want %q", tt.url, e.Class, want)
		}
		if !strings.Contains(err.Error(), tt.says) {
			t.Errorf("CheckURL(%q) = %q, want it to say %q", tt.url, err, tt.says)
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("CheckURL(%q) repeats the password: %q", tt.url, err)
		}
	}
}

// The allocation-free path accepts only what the full check accepts.
func TestPlainNameAgrees(t *testing.T) {
	urls := []string{
		"https://agents.example.com/a2a", "http://agents.example.com", "https://a.example?x=1", "https://a.example#f",
		"https://localhost/", "http://localhost./x", "https://api.localhost/", "http://x.localhost", "https://cafe.be/",
		"https://0xa9.0xfe.0xa9.0xfe/", "https://deadbeef/", "http://127.0.0.1/", "https://example.com:8443/a2a",
		"https://user@example.com/", "https://exa%6dple.com/", "https://Example.com/", "http://.example.com/",
		"https://example.com/a b", "https://example.com/\x7f", "https://example.com/%2e", "https://", "http://-/",
		"https://g/", "ftp://example.com/", "https://example..com/", "https://[::1]/", "https://xn--bcher-kva.example/",
	}
	for _, u := range urls {
		if plainName(u) && checkParsed(u, false) != nil {
			t.Errorf("plainName(%q) accepts what checkParsed refuses: %v", u, checkParsed(u, false))
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = CheckURL("https://agents.example.com/a2a/v1", false) }); n != 0 {
		t.Errorf("CheckURL of a plain name allocates %v times", n)
	}
}

func TestCheckInterface(t *testing.T) {
	tests := []struct {
		binding, url string
		private, ok  bool
	}{
		{"GRPC", "agents.example.com:443", false, true},
		{"GRPC", "localhost:11001", false, false},
		{"GRPC", "localhost:11001", true, true},
		{"GRPC", "10.0.0.7:50051", false, false},
		{"GRPC", "no-port", true, false},
		{"grpc", "https://agents.example.com", false, true},
		{"JSONRPC", "agents.example.com:443", false, false}, // not a URL
		{"HTTP+JSON", "http://localhost:1/", true, true},
		{"", "http://169.254.169.254/", false, false},
	}
	for _, tt := range tests {
		err := CheckInterface(tt.binding, tt.url, tt.private)
		if (err == nil) != tt.ok {
			t.Errorf("%s %s private=%v: %v", tt.binding, tt.url, tt.private, err)
		}
		if err != nil && !errors.Is(err, ErrRefused) {
			t.Errorf("%s: error %v does not wrap ErrRefused", tt.url, err)
		}
	}
}
