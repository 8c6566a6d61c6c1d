package a2aserver

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A client that sends its headers and then stalls in its body does not
// hold a connection (and, once past authentication, an in-flight slot)
// for ever: the server gives up on it once the body's time and the
// decision's are up. (Stalled headers are ReadHeaderTimeout's.)
func TestStalledClientIsCutOff(t *testing.T) {
	s, err := Listen("127.0.0.1:0", Config{Submitter: never{t}, Timeout: 100 * time.Millisecond, BodyTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop(t.Context()) })
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	half := "POST /jsonrpc HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":"
	if _, err := conn.Write([]byte(half)); err != nil {
		t.Fatal(err)
	}
	// The server answers or closes; a read that times out here means it
	// still waits on the client.
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	start := time.Now()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("still open after %v", time.Since(start))
	}
	if err == nil {
		resp.Body.Close()
	}
}
