package app

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The stage services link only what they use: the GloVe vectors (package
// embed, ~9 MB in the binary) and the Weaviate client go into the
// retriever, the one service that shortlists, and into no other. A stage
// that imports them again, directly or through a package it starts to
// use, fails here by name.
func TestServicesLinkOnlyWhatTheyUse(t *testing.T) {
	heavy := []string{
		"github.com/skillmatch/skillmatch/shared/retrieval/embed",
		"github.com/skillmatch/skillmatch/shared/retrieval/weaviateindex",
		"github.com/weaviate/weaviate-go-client/",
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		service string
		heavy   bool
	}{{"extractor", false}, {"reranker", false}, {"decider", false}, {"feedback", false}, {"frontdoor", false}, {"retriever", true}, {"console", true}} {
		cmd := exec.Command("go", "list", "-deps", "./services/"+tc.service)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps ./services/%s: %v\n%s", tc.service, err, out)
		}
		deps := strings.Fields(string(out))
		found := map[string]bool{}
		for _, d := range deps {
			for _, h := range heavy {
				if d == h || (strings.HasSuffix(h, "/") && strings.HasPrefix(d, h)) {
					found[h] = true
				}
			}
		}
		for _, h := range heavy {
			if found[h] != tc.heavy {
				t.Errorf("services/%s links %s: %v, want %v (%d deps)", tc.service, strings.TrimSuffix(h, "/"), found[h], tc.heavy, len(deps))
			}
		}
	}
}
