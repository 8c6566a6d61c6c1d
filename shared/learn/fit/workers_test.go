package fit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
)

// The rerankers are trained side by side, each alone: the model is the
// same byte for byte whatever the workers.
func TestFitWorkersSameModel(t *testing.T) {
	set := loadSet(t)
	var models [][]byte
	for _, workers := range []int{1, 2, 4} {
		m, err := Fit(context.Background(), set, Config{Split: "train", Examples: true, Folds: 3, Workers: workers})
		if err != nil {
			t.Fatalf("workers %d: %v", workers, err)
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, b)
	}
	for i, b := range models[1:] {
		if !bytes.Equal(b, models[0]) {
			t.Errorf("the model fitted with %d workers differs from the one fitted with 1", []int{2, 4}[i])
		}
	}
}

func TestTrainEach(t *testing.T) {
	errA, errB := errors.New("a"), errors.New("b")
	for _, workers := range []int{1, 2, 3, 9} {
		var calls [5]atomic.Int32
		var dones []int
		err := trainEach(5, workers, func(k int) error {
			calls[k].Add(1)
			switch k {
			case 3:
				return errB
			case 1:
				return errA
			}
			return nil
		}, func(done int) { dones = append(dones, done) })
		if err != errA {
			t.Errorf("workers %d: error %v, want the lowest k's (a)", workers, err)
		}
		for k := range calls {
			if n := calls[k].Load(); n != 1 {
				t.Errorf("workers %d: k=%d trained %d times", workers, k, n)
			}
		}
		if !slices.Equal(dones, []int{1, 2, 3, 4, 5}) {
			t.Errorf("workers %d: done told %v, want 1 to 5 in order", workers, dones)
		}
	}
}
