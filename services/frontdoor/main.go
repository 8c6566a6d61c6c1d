// Command skillmatch-frontdoor serves skillmatch's front doors in front of
// a running pipeline: an A2A agent (Agent Card, SendMessage over JSON-RPC
// and HTTP+JSON, callers authenticated by bearer token or client
// certificate) and the NATS micro service skillmatch (request-reply on
// skillmatch.match). Run it with --help for the flags.
package main

import (
	"os"

	"github.com/skillmatch/skillmatch/shared/app"
)

func main() { os.Exit(app.FrontDoorMain(os.Args[1:])) }
