package app

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/skillmatch/skillmatch/shared/frontdoor/a2aserver"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// testCA issues certificates for a test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newTestCA(t *testing.T, name string) *testCA {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issue returns a certificate and key (PEM) for cn: a server's for
// 127.0.0.1 when server is set, else a client's.
func (ca *testCA) issue(t *testing.T, cn string, server bool) (certPEM, keyPEM []byte) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	if server {
		tmpl.ExtKeyUsage, tmpl.IPAddresses = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, []net.IP{net.IPv4(127, 0, 0, 1)}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

// With --a2a-client-ca a client certificate signed by that CA is the
// caller its common name says; without one (and without a token) the
// client gets 401, and a certificate of another CA is refused.
func TestRunA2AMutualTLS(t *testing.T) {
	dir := t.TempDir()
	ca, other := newTestCA(t, "skillmatch test CA"), newTestCA(t, "someone else")
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sc, sk := ca.issue(t, "skillmatch", true)
	r, ctx := startTestRun(t, "--a2a-listen", "127.0.0.1:0", "--a2a-tls-cert", write("server.pem", sc),
		"--a2a-tls-key", write("server.key", sk), "--a2a-client-ca", write("ca.pem", ca.pem))
	if !strings.HasPrefix(r.A2AURL, "https://") {
		t.Fatalf("A2A URL %s", r.A2AURL)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.pem)
	clientOf := func(certPEM, keyPEM []byte) *http.Client {
		tc := &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
		if certPEM != nil {
			pair, err := tls.X509KeyPair(certPEM, keyPEM)
			if err != nil {
				t.Fatal(err)
			}
			tc.Certificates = []tls.Certificate{pair}
		}
		return &http.Client{Transport: &http.Transport{TLSClientConfig: tc}}
	}
	iface := &a2a.AgentInterface{URL: r.A2AURL + a2aserver.PathJSONRPC, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.Version}
	send := func(hc *http.Client, id string) (a2a.SendMessageResult, error) {
		c, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{iface}, a2aclient.WithJSONRPCTransport(hc))
		if err != nil {
			t.Fatal(err)
		}
		return c.SendMessage(ctx, sendTask(id, "book me a hotel in Lisbon"))
	}

	res, err := send(clientOf(ca.issue(t, "carol", false)), "tls-1")
	if err != nil {
		t.Fatal(err)
	}
	if d := decisionOf(t, res); d["decisionId"] != wire.DecisionID("carol", "tls-1") {
		t.Errorf("decision %v, want carol's", d)
	}
	if _, err := send(clientOf(nil, nil), "tls-2"); err == nil {
		t.Error("no certificate, no token: accepted")
	}
	if _, err := send(clientOf(other.issue(t, "carol", false)), "tls-3"); err == nil {
		t.Error("a certificate of another CA: accepted")
	}
	if _, err := send(clientOf(ca.issue(t, "not a caller!", false)), "tls-4"); err == nil {
		t.Error("a common name that is no caller id: accepted")
	}
	// The card says how to authenticate.
	resp, err := clientOf(nil, nil).Get(r.A2AURL + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("card over TLS: %s", resp.Status)
	}
}
