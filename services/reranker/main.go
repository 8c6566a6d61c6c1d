// Command skillmatch-reranker runs the reranker stage of the skillmatch pipeline
// against an external NATS JetStream; run more replicas to scale out (they
// share one durable consumer). Run it with --help for the flags.
package main

import (
	"os"

	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/service"
)

func main() { os.Exit(service.Main(pipeline.StageReranker, os.Args[1:])) }
