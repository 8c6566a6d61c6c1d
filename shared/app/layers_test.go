package app

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/skillmatch/skillmatch/shared/"

// layers lists the top folders of ./shared from the bottom up: a package
// may import packages of its own layer or of a lower one, never a higher.
var layers = []string{"a2a", "retrieval", "match", "learn", "pipeline", "discovery", "frontdoor", "console", "app"}

func layerOf(t *testing.T, rel string) int {
	t.Helper()
	top, _, _ := strings.Cut(rel, "/")
	for i, l := range layers {
		if l == top {
			return i
		}
	}
	t.Fatalf("package %s is in no layer: put it under one of %v", rel, layers)
	return -1
}

// heavy are the packages that only app/retrieval of the composition root
// may import: package app is linked into every binary, and the stage
// services other than the retriever must stay without them
// (TestServicesLinkOnlyWhatTheyUse).
var heavy = map[string]bool{"retrieval/embed": true, "retrieval/weaviateindex": true}

// TestLayers reads every non-test Go file of ./shared and fails on an
// import of a higher layer, so the architecture seen in `ls shared` is the
// one the code has, and on an import of the retrieval stack from package
// app. Tests may reach up: an integration test of the Weaviate index runs
// it under the matcher and the pipeline.
func TestLayers(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			layerOf(t, e.Name()) // every top folder is a layer
		}
	}
	fset := token.NewFileSet()
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		from := layerOf(t, rel)
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			dep, ok := strings.CutPrefix(p, module)
			if !ok {
				continue
			}
			checked++
			if rel == "app" && heavy[dep] {
				t.Errorf("%s imports %s: package app is in every binary; only app/retrieval may link the retrieval stack", filepath.Base(path), dep)
			}
			if to := layerOf(t, dep); to > from {
				t.Errorf("%s imports %s: layer %s may not import the higher layer %s", filepath.Base(path), dep, layers[from], layers[to])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("only %d imports checked: is the module path %q right?", checked, module)
	}
}
