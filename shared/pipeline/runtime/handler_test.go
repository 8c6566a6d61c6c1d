package runtime

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestChainOrder(t *testing.T) {
	var trace []string
	tag := func(name string) Middleware {
		return func(next Handler) Handler {
			return func(ctx context.Context, in Msg) (Result, error) {
				trace = append(trace, name)
				return next(ctx, in)
			}
		}
	}
	h := func(context.Context, Msg) (Result, error) { trace = append(trace, "h"); return Result{}, nil }
	for _, c := range []struct {
		mw   []Middleware
		want string
	}{
		{nil, "h"},
		{[]Middleware{tag("a")}, "a h"},
		{[]Middleware{tag("a"), tag("b"), tag("c")}, "a b c h"},
	} {
		trace = nil
		if _, err := Chain(h, c.mw...)(context.Background(), Msg{}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(trace, " "); got != c.want {
			t.Errorf("ran %q, want %q", got, c.want)
		}
	}
}

func TestBadInput(t *testing.T) {
	cause := errors.New("no task")
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"wraps", cause, "bad input: no task"},
		{"once", BadInput(cause), "bad input: no task"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := BadInput(c.err)
			if !errors.Is(err, ErrBadInput) || !errors.Is(err, cause) || err.Error() != c.want {
				t.Errorf("BadInput = %v", err)
			}
		})
	}
}

func TestKeepAliveNilSafe(t *testing.T) {
	Msg{}.KeepAlive() // no InProgress: nothing to call
	n := 0
	Msg{InProgress: func() { n++ }}.KeepAlive()
	if n != 1 {
		t.Errorf("InProgress called %d times", n)
	}
}

func TestResultEmit(t *testing.T) {
	for _, c := range []struct {
		name string
		msg  any
		want string // the output's data; "" = bad input
	}{
		{"encodes", map[string]int{"n": 1}, `{"n":1}`},
		{"NaN is bad input", map[string]float64{"p": math.NaN()}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Result{TaskID: "t-1", Out: []Output{{Subject: "first"}}}.Emit("s", "t-1/s", c.msg)
			if res.TaskID != "t-1" {
				t.Errorf("task id %q", res.TaskID)
			}
			if c.want == "" {
				if !errors.Is(err, ErrBadInput) || len(res.Out) != 1 {
					t.Errorf("err = %v, %d outputs; want bad input and the first output only", err, len(res.Out))
				}
				return
			}
			if err != nil || len(res.Out) != 2 || string(res.Out[1].Data) != c.want || res.Out[1].Subject != "s" || res.Out[1].MsgID != "t-1/s" {
				t.Errorf("err = %v, outputs %+v", err, res.Out)
			}
		})
	}
}

type seen struct {
	stage, dead string
	outs        int
	err         error
}

type recorder struct{ got []seen }

func (r *recorder) Handled(stage string, _ time.Duration, res Result, dead string, err error) {
	r.got = append(r.got, seen{stage, dead, len(res.Out), err})
}

// Observe sees every delivery as the chain left it: published, dead-
// lettered by PoisonQueue, or failed.
func TestObserve(t *testing.T) {
	rec := &recorder{}
	h := Chain(func(_ context.Context, in Msg) (Result, error) {
		switch string(in.Data) {
		case "bad":
			return Result{}, BadInput(errors.New("no"))
		case "down":
			return Result{}, errors.New("down")
		}
		return Result{Out: []Output{{Subject: "x"}}}, nil
	}, Observe("s", rec), PoisonQueue("s", nil))
	for _, d := range []string{"ok", "bad", "down"} {
		_, _ = h(context.Background(), Msg{Data: []byte(d)})
	}
	if len(rec.got) != 3 || rec.got[0].outs != 1 || rec.got[1].dead == "" || rec.got[1].outs != 1 || rec.got[2].err == nil || rec.got[0].stage != "s" {
		t.Errorf("observed %+v", rec.got)
	}
}

// Carry hands the origin stage's ack subject on, and the later stages'
// Skillmatch-* headers; a caller's headers on a submission are claims and
// never reach the stage messages.
func TestCarry(t *testing.T) {
	out := func(context.Context, Msg) (Result, error) {
		return Result{Out: []Output{{Subject: "next"}}}, nil
	}
	for _, c := range []struct {
		name   string
		origin bool
		in     Msg
		want   map[string]string
	}{
		{"origin stage sets its delivery as the origin", true,
			Msg{Reply: "$JS.ACK.SUBMISSIONS.extractor.1.2.3.4.0"},
			map[string]string{HeaderOrigin: "$JS.ACK.SUBMISSIONS.extractor.1.2.3.4.0"}},
		{"origin stage drops a caller's headers", true,
			Msg{Reply: "$JS.ACK.SUBMISSIONS.extractor.1.2.3.4.0", Header: map[string][]string{
				HeaderOrigin: {"$JS.ACK.SUBMISSIONS.extractor.9.9.9.9.0"}, "Skillmatch-Claim": {"x"}}},
			map[string]string{HeaderOrigin: "$JS.ACK.SUBMISSIONS.extractor.1.2.3.4.0", "Skillmatch-Claim": ""}},
		{"later stage carries the origin and its peers", false,
			Msg{Header: map[string][]string{HeaderOrigin: {"$JS.ACK.SUBMISSIONS.extractor.1.2.3.4.0"},
				"Skillmatch-Fingerprint": {"fp"}, "Other": {"y"}}},
			map[string]string{HeaderOrigin: "$JS.ACK.SUBMISSIONS.extractor.1.2.3.4.0", "Skillmatch-Fingerprint": "fp", "Other": ""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Carry(c.origin)(out)(context.Background(), c.in)
			if err != nil {
				t.Fatal(err)
			}
			h := res.Out[0].Header
			for k, want := range c.want {
				got := ""
				if v := h[k]; len(v) > 0 {
					got = v[0]
				}
				if got != want {
					t.Errorf("header %s = %q, want %q", k, got, want)
				}
			}
		})
	}
}
