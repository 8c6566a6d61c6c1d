package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/learn/examples"
	"github.com/skillmatch/skillmatch/shared/pipeline/runtime"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// setupExamples creates the learned-examples bucket, or updates it to
// this config.
func setupExamples(ctx context.Context, js jetstream.JetStream, cfg Config) error {
	bucket := cfg.ExamplesBucket
	if bucket == "" {
		bucket = wire.BucketExamples
	}
	return setupBucket(ctx, js, cfg, "examples", jetstream.KeyValueConfig{Bucket: bucket,
		Description: "skillmatch examples learned from trusted callers' verified successes, per catalog and skill"})
}

// ExamplesKV opens the learned-examples bucket (wire.BucketExamples if
// bucket is "").
func ExamplesKV(ctx context.Context, js jetstream.JetStream, bucket string) (jetstream.KeyValue, error) {
	return openBucket(ctx, js, "examples", bucket, wire.BucketExamples)
}

// Examples are one catalog's learned examples in the examples bucket:
// per skill a list, deduplicated and capped (learn/examples), each
// change a compare-and-set so that replicas of the feedback stage and an
// operator's removal never overwrite each other.
type Examples struct {
	kv      jetstream.KeyValue
	catalog string
	cap     int
}

// NewExamples is the store of the learned examples of the catalog whose
// bucket is catalog (wire.BucketCatalog if ""), limit per skill
// (examples.DefaultCap if <= 0).
func NewExamples(kv jetstream.KeyValue, catalog string, limit int) *Examples {
	if catalog == "" {
		catalog = wire.BucketCatalog
	}
	if limit <= 0 {
		limit = examples.DefaultCap
	}
	return &Examples{kv: kv, catalog: catalog, cap: limit}
}

// exampleObserver is o when it also hears examples (ExampleObserver).
func exampleObserver(o runtime.Observer) ExampleObserver {
	eo, _ := o.(ExampleObserver)
	return eo
}

// maxCAS bounds the attempts of one change that keep losing the
// compare-and-set.
const maxCAS = 16

// Add makes text an example of skill ("<agent>/<skill>") and says whether
// the list changed (not when it is already there or cleans to nothing).
func (s *Examples) Add(ctx context.Context, skill, text string) (bool, error) {
	return s.change(ctx, skill, func(list []string) ([]string, bool) { return examples.Add(list, text, s.cap) })
}

// Remove drops text from skill's examples, every one when all, and says
// how many went.
func (s *Examples) Remove(ctx context.Context, skill, text string, all bool) (int, error) {
	n := 0
	_, err := s.change(ctx, skill, func(list []string) ([]string, bool) {
		if all {
			n = len(list)
			return nil, n > 0
		}
		out, ok := examples.Remove(list, text)
		n = len(list) - len(out)
		return out, ok
	})
	return n, err
}

// change applies f to skill's list with a compare-and-set, again on a
// conflict; an emptied list deletes the key.
func (s *Examples) change(ctx context.Context, skill string, f func([]string) ([]string, bool)) (bool, error) {
	key := wire.ExamplesKey(s.catalog, skill)
	for range maxCAS {
		var list []string
		var rev uint64
		e, err := s.kv.Get(ctx, key)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted):
		case err != nil:
			return false, fmt.Errorf("examples of %s: read: %w", skill, err)
		default:
			le, err := wire.DecodeLearnedExamples(key, e.Value())
			if err != nil {
				return false, fmt.Errorf("examples of %s: revision %d: %w", skill, e.Revision(), err)
			}
			list, rev = le.Examples, e.Revision()
		}
		out, changed := f(list)
		if !changed {
			return false, nil
		}
		switch {
		case len(out) == 0 && rev > 0:
			err = s.kv.Delete(ctx, key, jetstream.LastRevision(rev))
		case len(out) == 0:
			return false, nil
		default:
			data, merr := json.Marshal(wire.LearnedExamples{V: wire.Version, Skill: skill, Examples: out})
			if merr != nil {
				return false, merr
			}
			if rev == 0 {
				_, err = s.kv.Create(ctx, key, data)
			} else {
				_, err = s.kv.Update(ctx, key, data, rev)
			}
		}
		if errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch) || isWrongLastSequence(err) {
			continue // another writer got there first: apply f to its list
		}
		if err != nil {
			return false, fmt.Errorf("examples of %s: write: %w", skill, err)
		}
		return true, nil
	}
	return false, fmt.Errorf("examples of %s: %d writers in a row got there first", skill, maxCAS)
}

// isWrongLastSequence recognises the stream's refusal of a message whose
// expected last (subject) sequence is not the current one: a lost
// compare-and-set of a delete, or a decision already stored for its task.
func isWrongLastSequence(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}

// List reads the catalog's learned examples: skill key to examples,
// oldest first. A value that does not decode is reported in errs and
// left out.
func (s *Examples) List(ctx context.Context) (ex map[string][]string, errs []error, err error) {
	lister, err := s.kv.ListKeysFiltered(ctx, wire.ExamplesPrefix(s.catalog))
	if err != nil {
		return nil, nil, fmt.Errorf("examples: list: %w", err)
	}
	ex = map[string][]string{}
	for key := range lister.Keys() {
		e, err := s.kv.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
			continue
		}
		if err != nil {
			return nil, errs, fmt.Errorf("examples: read %s: %w", key, err)
		}
		le, err := wire.DecodeLearnedExamples(key, e.Value())
		if err != nil {
			errs = append(errs, fmt.Errorf("examples %s revision %d: %w", key, e.Revision(), err))
			continue
		}
		ex[le.Skill] = le.Examples
	}
	return ex, errs, nil
}

// examplesState is a catalog's learned examples as a watch sees them.
type examplesState struct {
	catalog string
	ex      map[string][]string
	errs    []error
}

func (s *examplesState) apply(e jetstream.KeyValueEntry) {
	skill, ok := wire.ExamplesSkill(s.catalog, e.Key())
	if !ok {
		return // another catalog's
	}
	delete(s.ex, skill)
	if e.Operation() != jetstream.KeyValuePut {
		return
	}
	le, err := wire.DecodeLearnedExamples(e.Key(), e.Value())
	if err != nil {
		s.errs = append(s.errs, fmt.Errorf("learned examples %s revision %d: %w", e.Key(), e.Revision(), err))
		return
	}
	s.ex[le.Skill] = le.Examples
}

// snapshot is a copy the matcher may keep.
func (s *examplesState) snapshot() map[string][]string {
	out := make(map[string][]string, len(s.ex))
	for k, v := range s.ex {
		out[k] = v
	}
	return out
}
