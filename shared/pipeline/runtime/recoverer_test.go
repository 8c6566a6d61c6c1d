package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestRecoverer(t *testing.T) {
	transient := errors.New("backend down")
	for _, c := range []struct {
		name    string
		h       Handler
		data    string
		wantID  string
		wantErr string // "" = no error
		bad     bool
	}{
		{name: "passes results", h: func(context.Context, Msg) (Result, error) {
			return Result{TaskID: "t-1", Out: []Output{{Subject: "s"}}}, nil
		}, wantID: "t-1"},
		{name: "passes errors", h: func(context.Context, Msg) (Result, error) {
			return Result{TaskID: "t-2"}, transient
		}, wantID: "t-2", wantErr: "backend down"},
		{name: "panic is bad input", data: `{"taskId":"t-3"}`, h: func(context.Context, Msg) (Result, error) {
			panic("index out of range")
		}, wantID: "t-3", wantErr: "handler panic: index out of range", bad: true},
		{name: "panic with an error", data: `not json`, h: func(context.Context, Msg) (Result, error) {
			panic(errors.New("nil map"))
		}, wantErr: "handler panic: nil map", bad: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Chain(c.h, Recoverer())(context.Background(), Msg{Data: []byte(c.data)})
			if res.TaskID != c.wantID {
				t.Errorf("task id %q, want %q", res.TaskID, c.wantID)
			}
			switch {
			case c.wantErr == "" && err != nil:
				t.Errorf("err = %v", err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Errorf("err = %v, want %q", err, c.wantErr)
			case errors.Is(err, ErrBadInput) != c.bad:
				t.Errorf("err = %v: bad input %v, want %v", err, !c.bad, c.bad)
			}
		})
	}
}
