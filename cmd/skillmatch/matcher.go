package main

import (
	"flag"

	"github.com/skillmatch/skillmatch/shared/app"
)

// matcherFlags registers the matcher flags every command that matches
// shares (app.MatcherFlags).
func matcherFlags(fs *flag.FlagSet) *app.MatcherFlags {
	mf := &app.MatcherFlags{}
	mf.Register(fs)
	return mf
}
