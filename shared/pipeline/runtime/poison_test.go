package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

func TestPoisonQueue(t *testing.T) {
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	in := Msg{Subject: "skillmatch.task.extracted", Data: []byte(`{"v":1,"taskId":"t-9"}`), Stream: "TASKS", Seq: 42, Delivery: 2}
	transient := errors.New("backend down")
	ok := Result{TaskID: "t-9", Out: []Output{{Subject: "skillmatch.task.shortlisted", MsgID: "x"}}}
	for _, c := range []struct {
		name    string
		res     Result
		err     error
		wantErr error
		dead    string // the dead letter's reason; "" = passed through
	}{
		{name: "success passes", res: ok},
		{name: "transient passes", res: Result{TaskID: "t-9"}, err: transient, wantErr: transient},
		{name: "bad input is dead-lettered", res: Result{TaskID: "t-9"}, err: BadInput(errors.New("no shortlist")),
			dead: "bad input: no shortlist"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := func(context.Context, Msg) (Result, error) { return c.res, c.err }
			res, err := Chain(h, PoisonQueue("retriever", func() time.Time { return at }))(context.Background(), in)
			if !errors.Is(err, c.wantErr) || (c.wantErr == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, c.wantErr)
			}
			if res.TaskID != "t-9" {
				t.Errorf("task id %q, want t-9", res.TaskID)
			}
			if c.dead == "" {
				if res.poison != "" || len(res.Out) != len(c.res.Out) {
					t.Errorf("result changed: %+v", res)
				}
				return
			}
			if len(res.Out) != 1 || res.poison != c.dead {
				t.Fatalf("result %+v, want one dead letter", res)
			}
			o := res.Out[0]
			if o.Subject != wire.SubjectDeadLetter("retriever", "", "t-9") || o.MsgID != "dl/retriever/TASKS/42" {
				t.Errorf("dead letter on %s as %s", o.Subject, o.MsgID)
			}
			dl, err := wire.DecodeDeadLetter(o.Data)
			if err != nil {
				t.Fatal(err)
			}
			if dl.Stage != "retriever" || dl.Reason != c.dead || dl.TaskID != "t-9" || dl.Subject != in.Subject ||
				string(dl.Payload) != string(in.Data) || dl.Stream != "TASKS" || dl.StreamSeq != 42 || dl.Deliveries != 2 ||
				!dl.At.Equal(at) || dl.At.Location() != time.UTC {
				t.Errorf("dead letter %+v", dl)
			}
		})
	}
}

// Recoverer inside PoisonQueue: a panic reaches the dead letters with its
// text, as in the runner's chain.
func TestPoisonQueueOfPanic(t *testing.T) {
	h := func(context.Context, Msg) (Result, error) { panic("boom") }
	res, err := Chain(h, PoisonQueue("x", nil), Retry(time.Second), Recoverer())(context.Background(),
		Msg{Data: []byte(`{"taskId":"t-1"}`), Stream: "S", Seq: 1, Delivery: 1})
	if err != nil || len(res.Out) != 1 || res.TaskID != "t-1" {
		t.Fatalf("res %+v, err %v", res, err)
	}
	dl, err := wire.DecodeDeadLetter(res.Out[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	if dl.Reason != "bad input: handler panic: boom" || dl.TaskID != "t-1" || dl.Deliveries != 1 {
		t.Errorf("dead letter %+v", dl)
	}
}

// TaskIDOf finds the task of any pipeline message, also one nested
// deeper than the JSON decoder allows, so its dead letter names it.
func TestTaskIDOf(t *testing.T) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	for data, want := range map[string]string{
		`{"taskId":"t-1"}`:                          "t-1",
		`{"v":1,"task":{"id":"t-2"}}`:               "t-2",
		`{"id":"t-3","message":{}}`:                 "t-3",
		`{"junk":` + deep + `,"id":"t-4"}`:          "t-4",
		`{"task":{"junk":` + deep + `,"id":"t-5"}}`: "t-5",
		`not json`: "",
	} {
		if got := TaskIDOf([]byte(data)); got != want {
			t.Errorf("TaskIDOf(%.40s…) = %q, want %q", data, got, want)
		}
	}
}
