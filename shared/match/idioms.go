package match

import "regexp"

// An idiom says in common words what cards say in one term: "can I get my
// money back?" asks for a refund without the word, and a refund skill's
// card rarely says "money back". Each idiom's term joins the query the
// retrievers search and the reranker reads, as carryTopic's words do; the
// plain-BM25 baseline of an evaluation searches QueryText alone, so the
// added term counts as skillmatch's work.
var idioms = []struct {
	says *regexp.Regexp
	term string
}{
	// "money back", "the money back", "money straight back". Over the
	// 108 hostile sets (45 requests say it) top-1 +7, right delegations
	// +4, wrong ones -1: two withdrawn, one added ("our trip to Canada is
	// off - how do I get my money back?", which no skill of its catalog
	// takes, went to an insurer's premium refund). No golden request says
	// it.
	{regexp.MustCompile(`(?i)\bmoney\s+(?:\w+\s+)?back\b`), "refund"},
}

// withIdioms is query q with the term of each idiom it says added.
func withIdioms(q string) string {
	for _, id := range idioms {
		if id.says.MatchString(q) {
			q += " " + id.term
		}
	}
	return q
}
