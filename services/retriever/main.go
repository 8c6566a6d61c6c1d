// Command skillmatch-retriever runs the retriever stage of the skillmatch pipeline
// against an external NATS JetStream; run more replicas to scale out (they
// share one durable consumer). Run it with --help for the flags. It is the
// one stage service that shortlists, so the only one that links the
// retrieval stack (GloVe, the Weaviate client).
package main

import (
	"os"

	"github.com/skillmatch/skillmatch/shared/app/retrieval"
	"github.com/skillmatch/skillmatch/shared/pipeline"
)

func main() { os.Exit(retrieval.ServiceMain(pipeline.StageRetriever, os.Args[1:])) }
