// Command skillmatch-reranker runs the reranker stage of the skillmatch pipeline
// against an external NATS JetStream; run more replicas to scale out (they
// share one durable consumer). Run it with --help for the flags.
package main

import (
	"os"

	"github.com/skillmatch/skillmatch/shared/app"
	"github.com/skillmatch/skillmatch/shared/pipeline"
)

func main() { os.Exit(app.ServiceMain(pipeline.StageReranker, os.Args[1:])) }
