package remoteembed_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/skillmatch/skillmatch/shared/retrieval/modelapi"
	"github.com/skillmatch/skillmatch/shared/retrieval/modelapi/modelapitest"
	"github.com/skillmatch/skillmatch/shared/retrieval/remoteembed"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

func newEmbedder(t *testing.T, srv *modelapitest.Server, cfg remoteembed.Config) *remoteembed.Embedder {
	t.Helper()
	cfg.Client.URL = modelapi.Endpoint(srv.BaseURL(), "embeddings")
	if cfg.Model == "" {
		cfg.Model = "hash-bow"
	}
	e, err := remoteembed.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestLearnsTheDimensionAndNamesTheModel(t *testing.T) {
	srv := modelapitest.New()
	defer srv.Close()
	e := newEmbedder(t, srv, remoteembed.Config{})
	if e.Dim() != modelapitest.Dim || e.ID() != "openai:hash-bow" {
		t.Errorf("Dim %d, ID %q", e.Dim(), e.ID())
	}
}

func TestBatchesAndKeepsOrder(t *testing.T) {
	srv := modelapitest.New()
	defer srv.Close()
	e := newEmbedder(t, srv, remoteembed.Config{Dim: modelapitest.Dim, Batch: 4, Client: modelapi.Client{Key: "sk-test"}})
	texts := []string{"book a flight", "weather in lisbon", "translate this", "reconcile invoices", "pay my bill",
		"track a parcel", "review my code", "set an alarm", "find a restaurant", "convert pdf"}
	vs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.Batches(); !slices.Equal(got, []int{4, 4, 2}) {
		t.Errorf("batches %v, want [4 4 2]", got)
	}
	for i, text := range texts {
		if c := vector.Cosine(vs[i], modelapitest.Vector(text)); c < 0.9999 {
			t.Errorf("vector %d (%q) is not its text's: cosine %v", i, text, c)
		}
	}
	for _, k := range srv.Keys() {
		if k != "Bearer sk-test" {
			t.Errorf("Authorization %q, want the key as a bearer token", k)
		}
	}
}

func TestDocumentsAreCachedByContentQueriesAreNot(t *testing.T) {
	srv := modelapitest.New()
	defer srv.Close()
	e := newEmbedder(t, srv, remoteembed.Config{Dim: modelapitest.Dim})
	ctx := context.Background()
	card := []string{"weather forecast for a city", "will it rain tomorrow", "weather forecast for a city"}
	if _, err := e.EmbedDocuments(ctx, card); err != nil {
		t.Fatal(err)
	}
	if n := srv.Embedded("weather forecast for a city"); n != 1 {
		t.Errorf("a repeated text was embedded %d times, want once", n)
	}
	// The card changes one example: only that text is sent again.
	before := srv.TextsEmbedded()
	vs, err := e.EmbedDocuments(ctx, []string{"weather forecast for a city", "is it going to snow"})
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.TextsEmbedded() - before; got != 1 || srv.Embedded("is it going to snow") != 1 {
		t.Errorf("after one example changed %d texts were embedded, want 1", got)
	}
	vs[0][0] = 42 // the caller's to change: the cache must not see it
	again, _ := e.EmbedDocuments(ctx, []string{"weather forecast for a city"})
	if again[0][0] == 42 {
		t.Error("a caller's change to a cached vector leaked into the cache")
	}
	for range 2 {
		if _, err := e.Embed(ctx, []string{"what is the weather"}); err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.Embedded("what is the weather"); n != 2 {
		t.Errorf("a query was embedded %d times for two tasks, want 2 (queries are not cached)", n)
	}
}

func TestRetriesThenGivesUpAsUnavailable(t *testing.T) {
	srv := modelapitest.New()
	defer srv.Close()
	e := newEmbedder(t, srv, remoteembed.Config{Dim: modelapitest.Dim, Client: modelapi.Client{Retries: 2}})
	srv.FailNext(2)
	if _, err := e.Embed(context.Background(), []string{"hello"}); err != nil {
		t.Fatalf("two 503s then an answer, with two retries: %v", err)
	}
	srv.FailNext(3)
	_, err := e.Embed(context.Background(), []string{"hello"})
	if !errors.Is(err, vector.ErrUnavailable) {
		t.Fatalf("three 503s with two retries: %v, want ErrUnavailable", err)
	}
	srv.Close()
	start := time.Now()
	if _, err := e.Embed(context.Background(), []string{"hello"}); !errors.Is(err, vector.ErrUnavailable) {
		t.Errorf("server gone: %v, want ErrUnavailable", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("giving up on a closed server took %v", took)
	}
}

func TestTimeoutIsUnavailable(t *testing.T) {
	srv := modelapitest.New()
	defer srv.Close()
	e := newEmbedder(t, srv, remoteembed.Config{Dim: modelapitest.Dim, Client: modelapi.Client{Retries: -1}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	time.Sleep(time.Millisecond)
	if _, err := e.Embed(ctx, []string{"hello"}); !errors.Is(err, vector.ErrUnavailable) {
		t.Errorf("past the deadline: %v, want ErrUnavailable", err)
	}
}

func TestRefusesAWrongDimension(t *testing.T) {
	srv := modelapitest.New()
	defer srv.Close()
	e := newEmbedder(t, srv, remoteembed.Config{Dim: 32})
	if _, err := e.Embed(context.Background(), []string{"hello"}); !errors.Is(err, remoteembed.ErrBadAnswer) {
		t.Errorf("64-d vectors for a 32-d embedder: %v, want ErrBadAnswer", err)
	}
}

// A build that fails half way keeps the batches that arrived: the next
// attempt sends only the rest.
func TestFailedBuildResumes(t *testing.T) {
	srv := modelapitest.New()
	defer srv.Close()
	e := newEmbedder(t, srv, remoteembed.Config{Dim: modelapitest.Dim, Batch: 2, Client: modelapi.Client{Retries: -1}})
	texts := []string{"one", "two", "three", "four", "five", "six"}
	srv.DownAfter(2) // two batches of two, then an outage
	if _, err := e.EmbedDocuments(context.Background(), texts); !errors.Is(err, vector.ErrUnavailable) {
		t.Fatalf("outage in the third batch: %v, want ErrUnavailable", err)
	}
	srv.SetDown(false)
	before := srv.TextsEmbedded()
	if _, err := e.EmbedDocuments(context.Background(), texts); err != nil {
		t.Fatal(err)
	}
	if got := srv.TextsEmbedded() - before; got != 2 {
		t.Errorf("after the outage %d texts were sent, want the 2 never embedded", got)
	}
}
