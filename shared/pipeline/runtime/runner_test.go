package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/skillmatch/skillmatch/shared/pipeline/natsbox"
	"github.com/skillmatch/skillmatch/shared/pipeline/natsbox/natsboxtest"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
)

// Streams of the runner tests: inputs on in.>, outputs on out.>, dead
// letters where the pipeline keeps them, and the max-deliveries
// advisories of the input stream.
const (
	streamIn   = "IN"
	streamOut  = "OUT"
	streamDL   = "DEADLETTER"
	streamAdv  = "ADVISORIES"
	subjectIn  = "in.msg"
	subjectOut = "out.msg"
)

// embedded starts an in-process server with the test streams and returns
// a JetStream client and a context, all closed at the end of the test.
func embedded(t *testing.T, timeout time.Duration) (jetstream.JetStream, context.Context) {
	t.Helper()
	_, _, js := natsboxtest.Start(t, natsbox.Config{InProcess: true})
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	for _, sc := range []jetstream.StreamConfig{
		{Name: streamIn, Subjects: []string{"in.>"}},
		{Name: streamOut, Subjects: []string{"out.>"}},
		{Name: streamDL, Subjects: []string{wire.SubjectDeadLetters}},
		{Name: streamAdv, Subjects: []string{"$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + streamIn + ".*"}},
	} {
		if _, err := js.CreateOrUpdateStream(ctx, sc); err != nil {
			t.Fatal(err)
		}
	}
	return js, ctx
}

// quick keeps redeliveries and retries short.
func quick(log *zap.Logger) Config {
	return Config{MaxDeliver: 4, BackOff: []time.Duration{time.Second, time.Second, time.Second}, Retry: 200 * time.Millisecond,
		Duplicates: time.Minute, Log: log}
}

func publishIn(ctx context.Context, t *testing.T, js jetstream.JetStream, ids ...string) {
	t.Helper()
	for _, id := range ids {
		data, _ := json.Marshal(map[string]string{"taskId": id})
		if _, err := js.Publish(ctx, subjectIn, data, jetstream.WithMsgID(id)); err != nil {
			t.Fatal(err)
		}
	}
}

// echo publishes one output per input, named after its task id.
func echo(_ context.Context, in Msg) (Result, error) {
	id := TaskIDOf(in.Data)
	return Result{TaskID: id, Out: []Output{{Subject: subjectOut, Data: []byte(id), MsgID: "out/" + id}}}, nil
}

// streamMsgs is every message of a stream, in order (deleted ones left
// out).
func streamMsgs(t *testing.T, js jetstream.JetStream, name string) []*jetstream.RawStreamMsg {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []*jetstream.RawStreamMsg
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue // deleted
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// waitFor polls cond until it holds, failing after timeout.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func count(ctx context.Context, js jetstream.JetStream, name string) uint64 {
	s, err := js.Stream(ctx, name)
	if err != nil {
		return 0
	}
	info, err := s.Info(ctx)
	if err != nil {
		return 0
	}
	return info.State.Msgs
}

func consumerInfo(ctx context.Context, t *testing.T, js jetstream.JetStream, stream, name string) *jetstream.ConsumerInfo {
	t.Helper()
	c, err := js.Consumer(ctx, stream, name)
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// A handler that panics on one message dead-letters that message at
// once, with the panic text in the reason, and the stage goes on handling
// the next ones; with the workers publishing and with the publishers.
func TestRunnerPanicDeadLetters(t *testing.T) {
	for _, inFlight := range []int{-1, 0} {
		t.Run(fmt.Sprintf("MaxInFlight=%d", inFlight), func(t *testing.T) {
			js, ctx := embedded(t, 30*time.Second)
			core, logs := observer.New(zapcore.InfoLevel)
			cfg := quick(zap.New(core))
			cfg.MaxInFlight = inFlight
			r := NewRunner(js, cfg)
			var poisoned atomic.Int32
			run, err := r.Start(ctx, Stage{Name: "s", Stream: streamIn, Handle: func(ctx context.Context, in Msg) (Result, error) {
				if TaskIDOf(in.Data) == "poison" {
					poisoned.Add(1)
					var m []int
					_ = m[len(in.Data)] // a handler bug: index out of range
				}
				return echo(ctx, in)
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer run.Stop()

			publishIn(ctx, t, js, "a", "poison", "b", "c")
			waitFor(t, 10*time.Second, "3 outputs and a dead letter", func() bool {
				return count(ctx, js, streamOut) == 3 && count(ctx, js, streamDL) == 1
			})
			publishIn(ctx, t, js, "d")
			waitFor(t, 10*time.Second, "the next output", func() bool { return count(ctx, js, streamOut) == 4 })

			dls := streamMsgs(t, js, streamDL)
			dl, err := wire.DecodeDeadLetter(dls[0].Data)
			if err != nil {
				t.Fatal(err)
			}
			if dls[0].Subject != wire.SubjectDeadLetter("s", "", "poison") || dl.Stage != "s" || dl.TaskID != "poison" ||
				!strings.Contains(dl.Reason, "handler panic: runtime error: index out of range") ||
				dl.Stream != streamIn || dl.StreamSeq != 2 || dl.Deliveries != 1 || string(dl.Payload) != `{"taskId":"poison"}` {
				t.Errorf("dead letter on %s: %+v", dls[0].Subject, dl)
			}
			var outs []string
			for _, m := range streamMsgs(t, js, streamOut) {
				outs = append(outs, string(m.Data))
			}
			// The publishers store outputs side by side, in about the
			// order they were handled: each input's output, once.
			slices.Sort(outs)
			if got := strings.Join(outs, " "); got != "a b c d" {
				t.Errorf("outputs %q, want a b c d", got)
			}
			if n := poisoned.Load(); n != 1 {
				t.Errorf("the panicking message was handled %d times, want once (not retried, not redelivered)", n)
			}
			waitFor(t, 5*time.Second, "every input settled", func() bool {
				return consumerInfo(ctx, t, js, streamIn, "s").NumAckPending == 0
			})
			if info := consumerInfo(ctx, t, js, streamIn, "s"); info.NumRedelivered != 0 || info.NumPending != 0 {
				t.Errorf("consumer: %d redelivered, %d pending", info.NumRedelivered, info.NumPending)
			}
			if n := logs.FilterMessage("dead-lettered").Len(); n != 1 {
				t.Errorf("%d 'dead-lettered' lines, want 1", n)
			}
		})
	}
}

// While the stage's dependency is unavailable for longer than all the
// redelivery backoffs together, its deliveries are held, not retried nor
// redelivered nor dead-lettered; when it answers again they are handled
// once each, in order (their outputs are stored by the stage's
// publishers side by side, so in about that order).
func TestRunnerHoldsWhileUnavailable(t *testing.T) {
	js, ctx := embedded(t, 40*time.Second)
	core, logs := observer.New(zapcore.InfoLevel)
	cfg := quick(zap.New(core))
	cfg.BackOff = []time.Duration{400 * time.Millisecond, 400 * time.Millisecond, 400 * time.Millisecond}
	cfg.Retry = 100 * time.Millisecond
	r := NewRunner(js, cfg)
	var down atomic.Bool
	var attemptsDown atomic.Int32
	var mu sync.Mutex
	var handled []string // in the order the handler took them, once up
	unavailable := fmt.Errorf("test backend: %w", index.ErrUnavailable)
	run, err := r.Start(ctx, Stage{Name: "s", Stream: streamIn,
		Handle: func(ctx context.Context, in Msg) (Result, error) {
			if down.Load() {
				attemptsDown.Add(1)
				return Result{TaskID: TaskIDOf(in.Data)}, unavailable
			}
			mu.Lock()
			handled = append(handled, TaskIDOf(in.Data))
			mu.Unlock()
			return echo(ctx, in)
		},
		Ready: func(context.Context) error {
			if down.Load() {
				return unavailable
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Stop()

	publishIn(ctx, t, js, "a")
	waitFor(t, 5*time.Second, "the first output", func() bool { return count(ctx, js, streamOut) == 1 })
	down.Store(true)
	var ids []string
	for i := range 20 {
		ids = append(ids, fmt.Sprintf("t-%02d", i))
	}
	publishIn(ctx, t, js, ids...)
	waitFor(t, 5*time.Second, "a held delivery", func() bool { return !run.Ready() })
	time.Sleep(3 * time.Second) // twice the whole redelivery budget (4 x 400 ms)
	if run.Ready() {
		t.Error("Ready while the dependency is down")
	}
	if n := count(ctx, js, streamOut); n != 1 {
		t.Errorf("%d outputs while down, want 1", n)
	}
	if n := attemptsDown.Load(); n > 2 {
		t.Errorf("%d attempts while down: held deliveries must wait for Ready, not retry", n)
	}

	down.Store(false)
	waitFor(t, 15*time.Second, "every output", func() bool { return count(ctx, js, streamOut) == 21 })
	mu.Lock()
	got := strings.Join(handled[1:], " ")
	mu.Unlock()
	if want := strings.Join(ids, " "); got != want {
		t.Errorf("handled after the hold\n  %s\nwant, in order,\n  %s", got, want)
	}
	outs := map[string]bool{}
	for _, m := range streamMsgs(t, js, streamOut)[1:] {
		outs[string(m.Data)] = true
	}
	for _, id := range ids {
		if !outs[id] {
			t.Errorf("no output of %s", id)
		}
	}
	waitFor(t, 5*time.Second, "every input acked", func() bool {
		return consumerInfo(ctx, t, js, streamIn, "s").NumAckPending == 0
	})
	if info := consumerInfo(ctx, t, js, streamIn, "s"); info.NumRedelivered != 0 {
		t.Errorf("%d deliveries redelivered, want 0: held deliveries must be kept alive", info.NumRedelivered)
	}
	if n := count(ctx, js, streamDL); n != 0 {
		t.Errorf("%d dead letters, want none", n)
	}
	if !run.Ready() {
		t.Error("not Ready after the dependency came back")
	}
	if a, b := logs.FilterMessageSnippet("not ready").Len(), logs.FilterMessageSnippet("ready again").Len(); a != 1 || b != 1 {
		t.Errorf("%d 'not ready' and %d 'ready again' lines, want one each", a, b)
	}
}

// A deferred ack waits for the handler's effect, keeping the delivery
// alive past its ack wait; an error gives the message back.
func TestRunnerDeferredAck(t *testing.T) {
	js, ctx := embedded(t, 30*time.Second)
	cfg := quick(zap.NewNop())
	cfg.BackOff = []time.Duration{300 * time.Millisecond}
	cfg.MaxDeliver, cfg.Retry = 3, 100*time.Millisecond
	r := NewRunner(js, cfg)
	done := make(chan chan error, 4)
	var handled atomic.Int32
	run, err := r.Start(ctx, Stage{Name: "s", Stream: streamIn, Handle: func(_ context.Context, in Msg) (Result, error) {
		handled.Add(1)
		ch := make(chan error, 1)
		done <- ch
		return Result{TaskID: TaskIDOf(in.Data), Defer: ch}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Stop()
	publishIn(ctx, t, js, "a")
	first := <-done
	time.Sleep(time.Second) // three ack waits
	if info := consumerInfo(ctx, t, js, streamIn, "s"); info.NumAckPending != 1 || info.NumRedelivered != 0 {
		t.Errorf("while deferred: %d ack pending, %d redelivered; want 1, 0", info.NumAckPending, info.NumRedelivered)
	}
	first <- errors.New("published by another replica")
	second := <-done // given back: delivered again at once
	second <- nil
	waitFor(t, 5*time.Second, "the ack", func() bool { return consumerInfo(ctx, t, js, streamIn, "s").NumAckPending == 0 })
	if n := handled.Load(); n != 2 {
		t.Errorf("handled %d times, want 2", n)
	}
}

// A message whose handler keeps failing is Nak'd MaxDeliver times, then
// the dead-letter stage turns the max-deliveries advisory into its dead
// letter, with the original payload fetched from the stream.
func TestRunnerDeadLetterStage(t *testing.T) {
	js, ctx := embedded(t, 30*time.Second)
	cfg := quick(zap.NewNop())
	cfg.MaxDeliver, cfg.BackOff, cfg.Retry = 3, []time.Duration{150 * time.Millisecond, 150 * time.Millisecond}, 30*time.Millisecond
	r := NewRunner(js, cfg)
	var calls atomic.Int32
	flaky, err := r.Start(ctx, Stage{Name: "flaky", Stream: streamIn, Handle: func(_ context.Context, in Msg) (Result, error) {
		calls.Add(1)
		return Result{TaskID: TaskIDOf(in.Data)}, errors.New("backend down")
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer flaky.Stop()
	dl, err := r.Start(ctx, r.DeadLetterStage(streamAdv, streamOut))
	if err != nil {
		t.Fatal(err)
	}
	defer dl.Stop()
	publishIn(ctx, t, js, "f-1")
	waitFor(t, 15*time.Second, "the dead letter", func() bool { return count(ctx, js, streamDL) == 1 })
	msgs := streamMsgs(t, js, streamDL)
	d, err := wire.DecodeDeadLetter(msgs[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	if msgs[0].Subject != wire.SubjectDeadLetter("flaky", "", "f-1") || d.Stage != "flaky" || d.TaskID != "f-1" ||
		string(d.Payload) != `{"taskId":"f-1"}` || d.Deliveries != 3 || !strings.Contains(d.Reason, "3 deliveries") || d.Subject != subjectIn {
		t.Errorf("dead letter on %s: %+v", msgs[0].Subject, d)
	}
	flaky.Stop()
	if n := calls.Load(); n < 3 {
		t.Errorf("handler ran %d times, want at least 3 (one per delivery)", n)
	}
}

// A task's origin: the origin stage leaves its input unacked once its
// output is stored, the output carries the input's ack subject, and the
// final stage acks it once its own output is stored (a dead letter
// terminates it). A task whose middle message is lost runs again from its
// origin after the origin's ack wait; the final stage's outputs and the
// dead letters carry no origin.
func TestRunnerOrigin(t *testing.T) {
	js, ctx := embedded(t, 30*time.Second)
	r := NewRunner(js, quick(zap.NewNop()))
	first, err := r.Start(ctx, Stage{Name: "first", Stream: streamIn, Origin: true, MaxDeliver: -1,
		BackOff: []time.Duration{3 * time.Second},
		Handle: func(_ context.Context, in Msg) (Result, error) {
			id := TaskIDOf(in.Data)
			// The delivery in the id: a run again is a new message.
			return Result{TaskID: id, Out: []Output{{Subject: "out.mid", Data: in.Data, MsgID: fmt.Sprintf("mid/%s/%d", id, in.Delivery)}}}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Stop()
	origins := func() *jetstream.ConsumerInfo { return consumerInfo(ctx, t, js, streamIn, "first") }
	publishIn(ctx, t, js, "a", "bad", "lost")
	waitFor(t, 5*time.Second, "three middle messages", func() bool { return count(ctx, js, streamOut) == 3 })
	time.Sleep(200 * time.Millisecond)
	if info := origins(); info.NumAckPending != 3 {
		t.Fatalf("origins: %d ack pending, want 3 (left for the final stage)", info.NumAckPending)
	}
	mids := streamMsgs(t, js, streamOut)
	for _, m := range mids {
		if o := m.Header.Get(HeaderOrigin); OriginSeq(m.Header) == 0 || !strings.HasPrefix(o, "$JS.ACK."+streamIn+".first.") {
			t.Errorf("middle message %s: origin %q", m.Data, o)
		}
	}
	// A crash loses the middle message of "lost".
	s, err := js.Stream(ctx, streamOut)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteMsg(ctx, mids[2].Sequence); err != nil {
		t.Fatal(err)
	}
	var ends atomic.Int32
	last, err := r.Start(ctx, Stage{Name: "last", Stream: streamOut, Filter: "out.mid", Final: true,
		Handle: func(_ context.Context, in Msg) (Result, error) {
			id := TaskIDOf(in.Data)
			if id == "bad" {
				return Result{TaskID: id}, BadInput(errors.New("refused"))
			}
			ends.Add(1)
			return Result{TaskID: id, Out: []Output{{Subject: "out.end", Data: in.Data, MsgID: "end/" + id}}}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer last.Stop()
	waitFor(t, 10*time.Second, "every origin settled", func() bool {
		info := origins()
		return info.NumAckPending == 0 && info.AckFloor.Stream == 3
	})
	if n := ends.Load(); n != 2 {
		t.Errorf("final stage ended %d tasks, want 2 (a, and lost once run again)", n)
	}
	if info := origins(); info.Delivered.Consumer != 4 {
		t.Errorf("origins delivered %d times, want 4 (lost twice)", info.Delivered.Consumer)
	}
	var endsSeen, dls int
	for _, m := range streamMsgs(t, js, streamOut) {
		if m.Subject == "out.end" {
			endsSeen++
			if m.Header.Get(HeaderOrigin) != "" {
				t.Errorf("a final output carries the origin %q", m.Header.Get(HeaderOrigin))
			}
		}
	}
	for _, m := range streamMsgs(t, js, streamDL) {
		dls++
		if len(m.Header) > 0 && m.Header.Get(HeaderOrigin) != "" {
			t.Errorf("a dead letter carries the origin")
		}
	}
	if endsSeen != 2 || dls != 1 {
		t.Errorf("%d ends, %d dead letters; want 2, 1", endsSeen, dls)
	}
}

// A stage whose input callers write (outcomes) never settles an origin its
// input names: a caller could otherwise name another caller's pending
// submission and have it terminated by sending a bad message.
func TestRunnerCallerInputNamesNoOrigin(t *testing.T) {
	for _, callerInput := range []bool{true, false} {
		t.Run(fmt.Sprintf("callerInput=%v", callerInput), func(t *testing.T) {
			js, ctx := embedded(t, 30*time.Second)
			r := NewRunner(js, quick(zap.NewNop()))
			first, err := r.Start(ctx, Stage{Name: "first", Stream: streamIn, Origin: true, MaxDeliver: -1,
				Handle: func(_ context.Context, in Msg) (Result, error) {
					id := TaskIDOf(in.Data)
					return Result{TaskID: id, Out: []Output{{Subject: "out.mid", Data: in.Data, MsgID: "mid/" + id}}}, nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			defer first.Stop()
			publishIn(ctx, t, js, "victim")
			waitFor(t, 5*time.Second, "the victim's middle message", func() bool { return count(ctx, js, streamOut) == 1 })
			victim := streamMsgs(t, js, streamOut)[0].Header.Get(HeaderOrigin)

			claims, err := r.Start(ctx, Stage{Name: "claims", Stream: streamOut, Filter: "out.claim", CallerInput: callerInput,
				Handle: func(_ context.Context, in Msg) (Result, error) {
					return Result{TaskID: TaskIDOf(in.Data)}, BadInput(errors.New("refused"))
				}})
			if err != nil {
				t.Fatal(err)
			}
			defer claims.Stop()
			forged := &nats.Msg{Subject: "out.claim", Data: []byte(`{"taskId":"claim"}`), Header: nats.Header{HeaderOrigin: {victim}}}
			if _, err := js.PublishMsg(ctx, forged); err != nil {
				t.Fatal(err)
			}
			waitFor(t, 5*time.Second, "the claim dead-lettered", func() bool { return count(ctx, js, streamDL) == 1 })
			time.Sleep(300 * time.Millisecond)
			pending := consumerInfo(ctx, t, js, streamIn, "first").NumAckPending
			if callerInput && pending != 1 {
				t.Errorf("the victim's submission: %d ack pending, want 1 (a caller's header terminated it)", pending)
			}
			if !callerInput && pending != 0 {
				// The control: a stage message's origin is honoured.
				t.Errorf("control: %d ack pending, want 0", pending)
			}
		})
	}
}

// A delivery whose handler finishes as the stage stops is acked before
// Stop returns: its work is done, and an ack given up because the stage's
// context was cancelled would only have it redelivered and handled again
// after a restart ("ack failed: context canceled" under load at every
// shutdown).
func TestRunnerStopAcksWhatItFinished(t *testing.T) {
	js, ctx := embedded(t, 20*time.Second)
	core, logs := observer.New(zapcore.InfoLevel)
	r := NewRunner(js, quick(zap.New(core)))
	started := make(chan struct{})
	var once sync.Once
	run, err := r.Start(ctx, Stage{Name: "s", Stream: streamIn,
		Handle: func(hctx context.Context, in Msg) (Result, error) {
			once.Do(func() { close(started) })
			<-hctx.Done() // still working when Stop comes; done as it does
			return Result{TaskID: TaskIDOf(in.Data)}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	publishIn(ctx, t, js, "a")
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("the handler never ran")
	}
	run.Stop()
	info := consumerInfo(ctx, t, js, streamIn, "s")
	if info.NumAckPending != 0 || info.AckFloor.Stream != 1 {
		t.Errorf("after Stop: %d deliveries pending an ack, ack floor %d; want 0 and 1", info.NumAckPending, info.AckFloor.Stream)
	}
	if n := logs.FilterMessage("ack failed").Len(); n != 0 {
		t.Errorf("%d 'ack failed' lines at Stop, want none", n)
	}
}
