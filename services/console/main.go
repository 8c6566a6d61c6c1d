// Command skillmatch-console serves the read-only operator console of a
// skillmatch deployment (catalog, live decisions, dead letters,
// calibration) from its NATS streams and buckets. Run it with --help for
// the flags.
package main

import (
	"os"

	"github.com/skillmatch/skillmatch/shared/app/retrieval"
)

func main() { os.Exit(retrieval.ConsoleMain(os.Args[1:])) }
