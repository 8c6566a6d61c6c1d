package natsbox

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func TestStartRestartKeepsStore(t *testing.T) {
	dir := t.TempDir()
	for round := 0; round < 2; round++ {
		s, err := Start(Config{DataDir: dir, Listen: "127.0.0.1:-1"})
		if err != nil {
			t.Fatal(err)
		}
		if s.ClientURL() == "" {
			t.Fatal("no client url")
		}
		// Over TCP, as an outside client would.
		nc, err := nats.Connect(s.ClientURL())
		if err != nil {
			t.Fatal(err)
		}
		js, _ := jetstream.New(nc)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		st, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: "T", Subjects: []string{"t.>"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := js.Publish(ctx, "t.x", []byte("hi")); err != nil {
			t.Fatal(err)
		}
		info, err := st.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := uint64(round + 1); info.State.Msgs != want {
			t.Errorf("round %d: %d messages, want %d", round, info.State.Msgs, want)
		}
		cancel()
		nc.Close()
		s.Shutdown()
	}
}

func TestInProcessOnly(t *testing.T) {
	s, err := Start(Config{DataDir: t.TempDir(), InProcess: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	if s.ClientURL() != "" {
		t.Errorf("in-process server has url %q", s.ClientURL())
	}
	nc, err := s.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if !nc.IsConnected() {
		t.Error("not connected")
	}
}

func TestBadConfig(t *testing.T) {
	if _, err := Start(Config{}); err == nil {
		t.Error("no data dir accepted")
	}
	if _, err := Start(Config{DataDir: t.TempDir(), Listen: "nope"}); err == nil {
		t.Error("bad listen accepted")
	}
}

// One data folder, one server: a second is refused at once while the
// first runs (two servers writing one store corrupt it), and may start
// once the first has shut down.
func TestDataDirHeldByOneServer(t *testing.T) {
	dir := t.TempDir()
	first, err := Start(Config{DataDir: dir, InProcess: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Start(Config{DataDir: dir, InProcess: true}); !errors.Is(err, ErrDataDirInUse) {
		t.Fatalf("a second server on the same folder: %v, want ErrDataDirInUse", err)
	}
	first.Shutdown()
	again, err := Start(Config{DataDir: dir, InProcess: true})
	if err != nil {
		t.Fatalf("after the first shut down: %v", err)
	}
	again.Shutdown()
}

// A listen address something else holds is refused at once, not after
// the wait for the server to come up.
func TestListenAddressTaken(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// ErrListen comes from the check before the server starts; the
	// server's own failure would be a wait that ends "not ready".
	if _, err := Start(Config{DataDir: t.TempDir(), Listen: l.Addr().String()}); !errors.Is(err, ErrListen) {
		t.Fatalf("taken address: %v, want ErrListen", err)
	}
}
