package pipeline

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

func TestReadStream(t *testing.T) {
	_, js, ctx := serve(t, 30*time.Second)
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "R", Subjects: []string{"r.>"}}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 10; i++ {
		subj := "r.a"
		if i%2 == 0 {
			subj = "r.b"
		}
		if _, err := js.Publish(ctx, subj, []byte(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		r    Range
		want []string
	}{
		{"all", Range{}, []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}},
		{"latest 3", Range{Latest: 3}, []string{"8", "9", "10"}},
		{"latest more than there are", Range{Latest: 50}, []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}},
		{"from 4 to 6", Range{FromSeq: 4, ToSeq: 6}, []string{"4", "5", "6"}},
		{"from past the end", Range{FromSeq: 11}, nil},
		{"one subject", Range{Subjects: []string{"r.b"}}, []string{"2", "4", "6", "8", "10"}},
		{"one subject to 5", Range{Subjects: []string{"r.a"}, ToSeq: 5}, []string{"1", "3", "5"}},
		{"before everything", Range{ToTime: time.Now().Add(-time.Hour)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			err := ReadStream(ctx, js, "R", tt.r, func(m jetstream.Msg, _ *jetstream.MsgMetadata) { got = append(got, string(m.Data())) })
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("read %v, want %v", got, tt.want)
			}
		})
	}
	if err := ReadStream(ctx, js, "NOPE", Range{}, func(jetstream.Msg, *jetstream.MsgMetadata) {}); err == nil {
		t.Error("a missing stream read without error")
	}
}
