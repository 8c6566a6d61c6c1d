// Package modelapitest is a model server for tests: an OpenAI-compatible
// /v1/embeddings on loopback whose vectors are deterministic (hashed bag of
// words: texts that share words are similar), which counts what it was
// asked, can fail on demand, and serves whatever other routes a test adds
// (a chat stub, a scoring stub).
package modelapitest

import (
	"encoding/json"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
)

// Dim is the length of the vectors the server returns.
const Dim = 64

// Server is the test model server.
type Server struct {
	*httptest.Server
	mux *http.ServeMux

	mu       sync.Mutex
	texts    map[string]int
	batches  []int
	failNext int
	down     bool
	budget   int // requests still served before going down; <0: no limit
	keys     []string
}

// New starts a server on loopback; Close stops it.
func New() *Server {
	s := &Server{mux: http.NewServeMux(), texts: map[string]int{}, budget: -1}
	s.mux.HandleFunc("POST /v1/embeddings", s.embeddings)
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Handle adds a route ("POST /v1/chat/completions").
func (s *Server) Handle(pattern string, h http.HandlerFunc) { s.mux.HandleFunc(pattern, h) }

// BaseURL is the API's base ("http://127.0.0.1:port/v1").
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// FailNext makes the next n requests answer 503.
func (s *Server) FailNext(n int) {
	s.mu.Lock()
	s.failNext = n
	s.mu.Unlock()
}

// SetDown makes every request answer 503 (true) or be served (false).
func (s *Server) SetDown(down bool) {
	s.mu.Lock()
	s.down = down
	s.mu.Unlock()
}

// DownAfter serves n more requests, then answers 503 to every one: an
// outage in the middle of a batched build.
func (s *Server) DownAfter(n int) {
	s.mu.Lock()
	s.budget = n
	s.mu.Unlock()
}

// Embedded says how many times text was embedded.
func (s *Server) Embedded(text string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.texts[text]
}

// TextsEmbedded is the number of texts embedded so far, repeats included.
func (s *Server) TextsEmbedded() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.texts {
		n += c
	}
	return n
}

// Batches are the sizes of the embeddings requests served, in order.
func (s *Server) Batches() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.batches...)
}

// Keys are the Authorization headers of the requests received.
func (s *Server) Keys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.keys...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.keys = append(s.keys, r.Header.Get("Authorization"))
	if s.budget == 0 {
		s.down, s.budget = true, -1
	}
	fail := s.down || s.failNext > 0
	if s.failNext > 0 {
		s.failNext--
	}
	if !fail && s.budget > 0 {
		s.budget--
	}
	s.mu.Unlock()
	if fail {
		http.Error(w, `{"error":"overloaded"}`, http.StatusServiceUnavailable)
		return
	}
	s.mux.ServeHTTP(w, r)
}

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	out := struct {
		Object string `json:"object"`
		Data   []item `json:"data"`
		Model  string `json:"model"`
	}{Object: "list", Model: req.Model}
	s.mu.Lock()
	s.batches = append(s.batches, len(req.Input))
	for _, t := range req.Input {
		s.texts[t]++
	}
	s.mu.Unlock()
	// Answer in reverse order: clients must place vectors by index.
	for i := len(req.Input) - 1; i >= 0; i-- {
		out.Data = append(out.Data, item{Object: "embedding", Index: i, Embedding: Vector(req.Input[i])})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// Vector is the server's embedding of text: its analysed terms hashed
// into Dim buckets, normalised (zero for a text without terms).
func Vector(text string) []float32 {
	v := make([]float32, Dim)
	for _, t := range analyze.Terms(text) {
		h := fnv.New32a()
		h.Write([]byte(t))
		v[h.Sum32()%Dim]++
	}
	var n float64
	for _, x := range v {
		n += float64(x * x)
	}
	if n > 0 {
		for i := range v {
			v[i] /= float32(math.Sqrt(n))
		}
	}
	return v
}
