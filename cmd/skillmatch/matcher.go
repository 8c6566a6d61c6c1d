package main

import (
	"flag"

	"github.com/skillmatch/skillmatch/shared/app"
	"github.com/skillmatch/skillmatch/shared/app/retrieval"
)

// matcherFlags registers the matcher flags every command that matches
// shares (app.MatcherFlags), with the retrieval stack: the command
// shortlists.
func matcherFlags(fs *flag.FlagSet) *app.MatcherFlags { return retrieval.MatcherFlags(fs) }
