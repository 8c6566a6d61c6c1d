package app

import (
	"flag"
	"fmt"
	"time"

	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/llmrerank"
	"github.com/skillmatch/skillmatch/shared/match/model"
	"github.com/skillmatch/skillmatch/shared/match/rerank"
	"github.com/skillmatch/skillmatch/shared/match/systemone"
	"github.com/skillmatch/skillmatch/shared/retrieval/modelapi"
)

// Bring your own model: the flags of a remote embedder and a remote
// reranker. Keys never go on the command line (ps, shell history): they
// come from SKILLMATCH_EMBEDDER_KEY / SKILLMATCH_RERANKER_KEY or a file.
const (
	EmbedderKeyEnv = "SKILLMATCH_EMBEDDER_KEY"
	RerankerKeyEnv = "SKILLMATCH_RERANKER_KEY"
)

// RemoteFlags are the remote model flags, part of MatcherFlags.
type RemoteFlags struct {
	Embedder        string
	EmbedderURL     string
	EmbedderModel   string
	EmbedderKeyFile string
	EmbedderDim     int
	EmbedderBatch   int
	EmbedderTimeout time.Duration
	EmbedderBudget  time.Duration

	Reranker           string
	RerankerURL        string
	RerankerModel      string
	RerankerKeyFile    string
	RerankerAuthHeader string
	RerankerTimeout    time.Duration
	RerankerBudget     time.Duration
	RerankerThreshold  float64
}

// RemoteFlagNames are the flags RemoteFlags.Register defines.
var RemoteFlagNames = []string{"embedder", "embedder-url", "embedder-model", "embedder-key-file", "embedder-dim",
	"embedder-batch", "embedder-timeout", "embedder-budget", "reranker", "reranker-url", "reranker-model",
	"reranker-key-file", "reranker-auth-header", "reranker-timeout", "reranker-budget", "reranker-threshold"}

// Register defines the remote model flags on fs.
func (r *RemoteFlags) Register(fs *flag.FlagSet) {
	fs.StringVar(&r.Embedder, "embedder", "glove", "dense retrieval embedder: glove (built in, no network) or openai (an OpenAI-compatible\n"+
		"/v1/embeddings server: Ollama, vLLM, Text Embeddings Inference, llama.cpp; key in "+EmbedderKeyEnv+")")
	fs.StringVar(&r.EmbedderURL, "embedder-url", "", "--embedder openai: the API's base URL, e.g. http://127.0.0.1:11434/v1")
	fs.StringVar(&r.EmbedderModel, "embedder-model", "", "--embedder openai: the embedding model's name, e.g. nomic-embed-text")
	fs.StringVar(&r.EmbedderKeyFile, "embedder-key-file", "", "file holding the embedder's API key (when "+EmbedderKeyEnv+" is unset)")
	fs.IntVar(&r.EmbedderDim, "embedder-dim", 0, "the embedder's vector length (0: ask the server once at start)")
	fs.IntVar(&r.EmbedderBatch, "embedder-batch", 64, "most texts per embeddings request")
	fs.DurationVar(&r.EmbedderTimeout, "embedder-timeout", 10*time.Second, "time limit of one embeddings request (retried twice with backoff)")
	fs.DurationVar(&r.EmbedderBudget, "embedder-budget", 3*time.Second, "time a task's query embedding may take, retries included; past it the task\n"+
		"is retrieved with BM25 alone and its decision says degraded")
	fs.StringVar(&r.Reranker, "reranker", "learned", "reranker: learned (built in), llm (an OpenAI-compatible /v1/chat/completions model\n"+
		"judging the shortlist) or systemone (a System One-style relevance-scoring API); key in "+RerankerKeyEnv)
	fs.StringVar(&r.RerankerURL, "reranker-url", "", "--reranker llm: the API's base URL (http://host:port/v1); systemone: the scoring endpoint")
	fs.StringVar(&r.RerankerModel, "reranker-model", "", "--reranker llm: the chat model's name; systemone: the model alias (default jev-latest)")
	fs.StringVar(&r.RerankerKeyFile, "reranker-key-file", "", "file holding the reranker's API key (when "+RerankerKeyEnv+" is unset)")
	fs.StringVar(&r.RerankerAuthHeader, "reranker-auth-header", "", "header that carries the reranker's key as is (default: Authorization: Bearer KEY)")
	fs.DurationVar(&r.RerankerTimeout, "reranker-timeout", 10*time.Second, "time limit of one reranker request")
	// Well inside the stages' ack wait (--backoff's first delay, 30s), so
	// a slow model never gets a delivery redelivered while it is ranked.
	fs.DurationVar(&r.RerankerBudget, "reranker-budget", 15*time.Second, "time the remote reranker may take for a task, retries included; past it,\n"+
		"or when it fails, the built-in reranker ranks and the decision says degraded")
	fs.Float64Var(&r.RerankerThreshold, "reranker-threshold", 0.6, "--reranker systemone: lowest relevance (0-1) a skill is kept at; under it its fit is 0")
}

// Validate checks the remote flags; empty kinds are the built-in ones.
func (r *RemoteFlags) Validate() error {
	if r.Embedder == "" {
		r.Embedder = "glove"
	}
	if r.Reranker == "" {
		r.Reranker = "learned"
	}
	switch r.Embedder {
	case "glove":
	case "openai":
		if r.EmbedderURL == "" || r.EmbedderModel == "" {
			return fmt.Errorf("%w: --embedder openai needs --embedder-url and --embedder-model", ErrUsage)
		}
	default:
		return fmt.Errorf("%w: --embedder %q: want glove or openai", ErrUsage, r.Embedder)
	}
	switch r.Reranker {
	case "learned":
	case "llm":
		if r.RerankerURL == "" || r.RerankerModel == "" {
			return fmt.Errorf("%w: --reranker llm needs --reranker-url and --reranker-model", ErrUsage)
		}
	case "systemone":
		if r.RerankerURL == "" {
			return fmt.Errorf("%w: --reranker systemone needs --reranker-url", ErrUsage)
		}
	default:
		return fmt.Errorf("%w: --reranker %q: want learned, llm or systemone", ErrUsage, r.Reranker)
	}
	if r.EmbedderBatch < 0 || r.EmbedderDim < 0 || r.EmbedderTimeout < 0 || r.EmbedderBudget < 0 || r.RerankerTimeout < 0 || r.RerankerBudget < 0 {
		return fmt.Errorf("%w: --embedder-batch, --embedder-dim, the timeouts and the budgets cannot be negative", ErrUsage)
	}
	if r.RerankerThreshold < 0 || r.RerankerThreshold > 1 {
		return fmt.Errorf("%w: --reranker-threshold %v: want 0 to 1", ErrUsage, r.RerankerThreshold)
	}
	return nil
}

// EmbedderClient is the HTTP client of --embedder openai, its key read.
func (r *RemoteFlags) EmbedderClient() (modelapi.Client, error) {
	key, err := modelapi.ReadKey(EmbedderKeyEnv, r.EmbedderKeyFile)
	if err != nil {
		return modelapi.Client{}, fmt.Errorf("embedder: %w", err)
	}
	return modelapi.Client{URL: modelapi.Endpoint(r.EmbedderURL, "embeddings"), Key: key, Timeout: r.EmbedderTimeout}, nil
}

// RemoteEmbedderID is the id --embedder openai's vectors carry (as
// remoteembed.Embedder.ID), "" for the built-in embedder.
func (r *RemoteFlags) RemoteEmbedderID() string {
	if r.Embedder != "openai" {
		return ""
	}
	return "openai:" + r.EmbedderModel
}

// rerankerOptions are the matcher options of a remote reranker: none for
// the learned one.
func (r *RemoteFlags) rerankerOptions(mdl *model.Model) ([]match.Option, error) {
	if r.Reranker == "learned" {
		return nil, nil
	}
	rr, err := r.RemoteReranker()
	if err != nil {
		return nil, err
	}
	return []match.Option{match.WithRemoteReranker(rr, mdl.RemoteCalibration(r.Reranker), r.RerankerBudget)}, nil
}

// RemoteReranker builds the --reranker llm or systemone client.
func (r *RemoteFlags) RemoteReranker() (rerank.Reranker, error) {
	key, err := modelapi.ReadKey(RerankerKeyEnv, r.RerankerKeyFile)
	if err != nil {
		return nil, fmt.Errorf("reranker: %w", err)
	}
	c := modelapi.Client{Key: key, Header: r.RerankerAuthHeader, Timeout: r.RerankerTimeout}
	switch r.Reranker {
	case "llm":
		c.URL = modelapi.Endpoint(r.RerankerURL, "chat/completions")
		return orNil(llmrerank.New(llmrerank.Config{Client: c, Model: r.RerankerModel}))
	case "systemone":
		c.URL = r.RerankerURL
		return orNil(systemone.New(systemone.Config{Client: c, Model: r.RerankerModel, Threshold: r.RerankerThreshold}))
	}
	return nil, fmt.Errorf("%w: --reranker %q has no remote client", ErrUsage, r.Reranker)
}

// orNil keeps a failed constructor's typed nil out of the interface.
func orNil[R rerank.Reranker](r R, err error) (rerank.Reranker, error) {
	if err != nil {
		return nil, err
	}
	return r, nil
}
