# skillmatch — build, test, evaluate.
# `make test` is the one command that runs every test (CI runs exactly it).

GO        ?= go
BIN       := bin/skillmatch
MODULES   := ./shared/... ./cmd/skillmatch/... ./services/extractor/... ./services/retriever/... \
             ./services/reranker/... ./services/decider/... ./services/feedback/... \
             ./services/console/... ./services/frontdoor/...
GOLDEN    ?= ../shared/golden
MODEL     ?= bin/clinc150.model.json
WEAVIATE_VERSION ?= v1.35.2

.PHONY: all build run test vet check-modules bench fuzz eval-clinc eval-a2a eval-transfer default-model weaviate-build clean help

all: build

help: ## list targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-15s %s\n", $$1, $$2}'

build: ## build bin/skillmatch
	$(GO) build -o $(BIN) ./cmd/skillmatch

run: build ## run the pipeline on the embedded NATS server with the example catalog
	$(BIN) run

vet:
	$(GO) vet $(MODULES)

# Each module on its own (GOWORK=off), from its own go.mod and go.sum: what
# `go install` of a service outside this repo needs. About 30 s with a warm
# build cache; the module cache must hold the requirements (the proxy is
# asked otherwise).
check-modules: ## build every module alone, without go.work
	scripts/check-modules.sh

# The Weaviate integration tests run a real server built from source into
# ~/.cache/skillmatch (about 6 min the first time, then reused).
weaviate-build: ## build the Weaviate server for the integration tests
	WEAVIATE_VERSION=$(WEAVIATE_VERSION) scripts/weaviate.sh build

# The Weaviate tests run on their own, after the rest: a Weaviate import
# keeps both cores busy, and the pipeline tests restart a NATS server on a
# timetable.
test: vet check-modules weaviate-build ## run every test (every module also builds on its own)
	$(GO) test -count=1 -timeout 20m $$($(GO) list $(MODULES) | grep -v /weaviateindex)
	$(GO) test -count=1 -timeout 20m ./shared/retrieval/weaviateindex/...
	# The race detector over the runner, group commit and the matcher's
	# concurrent use (the whole library passed it on 2026-12-04; the
	# pipeline package alone takes three minutes under it).
	$(GO) test -race -count=1 -timeout 20m ./shared/pipeline/runtime/ ./shared/pipeline/batch/ ./shared/match/

bench: ## run the benchmarks (one decision at 1k/10k/100k skills, index build, hot paths)
	$(GO) test -run '^$$' -bench . -benchmem $(MODULES)

FUZZTIME ?= 30s
# Every fuzz test, as package:function: the readers of untrusted input
# (cards, registries, signatures, tasks, A2A requests, stage messages,
# model replies) and the text handling that requests and cards reach.
FUZZ = a2a/card:FuzzParse a2a/card:FuzzClean a2a/task:FuzzParse \
	a2a/endpoint:FuzzCheckURL a2a/mediatype:FuzzNormalize match/extract:FuzzAsked \
	discovery/discover:FuzzNormalizeURL discovery/discover:FuzzParseRegistry \
	discovery/signature:FuzzCanonicalize discovery/signature:FuzzVerify discovery/signature:FuzzParseJWKS \
	frontdoor/a2aserver:FuzzTaskOf match:FuzzMatch match:FuzzCatalogCard match/cardtrust:FuzzMayDirect match/cardtrust:FuzzMayTalkToSelector match/cardtrust:FuzzAnchorsIn \
	match/plan:FuzzSplit match/llmrerank:FuzzParse match/extract:FuzzUnrouted match:FuzzFoldKey \
	match/cardtrust:FuzzWords match/cardtrust:FuzzSpamHashes match/cardtrust:FuzzIdentifierSpeaks match/cardtrust:FuzzFold match/cardtrust:FuzzSentences match/cardtrust:FuzzScriptsExchange match/cardtrust:FuzzClaimsAndBribes match/cardtrust:FuzzShapes match:FuzzFacadeNamed match:FuzzUniversalLists match/textclass:FuzzTrainScores \
	pipeline/wire:FuzzStringsAt pipeline/wire:FuzzScanStageMessages pipeline/wire:FuzzScanRetrieval \
	pipeline/wire:FuzzUnquote pipeline/wire:FuzzDecodeDecision pipeline/wire:FuzzDecoders \
	retrieval/analyze:FuzzWords retrieval/analyze:FuzzIsStopword retrieval/bm25:FuzzIndexedTermsMatchAnalyze \
	retrieval/embed:FuzzWrittenPlain

fuzz: ## run every fuzz test for FUZZTIME each (default 30s; 42 tests, about 21 minutes)
	@FUZZTIME=$(FUZZTIME) GO=$(GO) scripts/fuzz.sh $(FUZZ)

$(MODEL): build
	$(BIN) fit --set $(GOLDEN)/clinc150 --split train -o $(MODEL)

eval-clinc: $(MODEL) ## fit on clinc150 train, evaluate on dev (needs the team's golden sets beside the repo)
	$(BIN) eval --set $(GOLDEN)/clinc150 --split dev --model $(MODEL)

eval-a2a: build ## evaluate the built-in model on a2a-samples (needs the golden sets)
	$(BIN) eval --set $(GOLDEN)/a2a-samples --split dev

eval-transfer: build ## fit on the other golden sets, evaluate on each dev set, beside the built-in model and plain BM25
	GOLDEN=$(GOLDEN) BIN=$(BIN) scripts/eval-transfer.sh

default-model: build ## refit the built-in domain-neutral model (weights and calibration only) on clinc150 train
	$(BIN) fit --set $(GOLDEN)/clinc150 --split train --examples=false --both-text-regimes --calibration-no-match-weight 1 -o shared/match/model/default.json

clean:
	rm -rf bin
