package cardtrust

import (
	"math/bits"
	"strings"
)

// anchorKind names one list of anchors: words of two letters or more,
// lower-case ASCII letters, one of which a text must hold before a
// costlier check reads it (the directive regexp, the selector regexp,
// ordersBySignals, claimedIn). A text is scanned once for every list it
// is asked about: each card text of an index build was scanned four or
// five times, one list at a time, and the scans were 38% of the trust
// checks' time on the 10,000-skill benchmark.
type anchorKind uint8

const (
	directiveKind anchorKind = 1 << iota // directiveAnchors, anywhere in a word
	selectorKind                         // selectorAnchors, at a word's start
	catalogKind                          // catalogAnchors, at a word's start
	actKind                              // actAnchors, at a word's start
	claimKind                            // claimAnchors, at a word's start
	kindCount     = iota
)

// midWordKinds are the lists whose anchors count inside a word, not
// only at its start.
const midWordKinds = directiveKind

// anchorTable holds every list. A place is ruled out by one lookup of its
// first three letters before any anchor is compared (on the benchmark's
// texts a scan took 30% less time so; by the first two letters, 5% less:
// most words start like some anchor).
type anchorTable struct {
	byFirst [kindCount][26][]string
	two     [26 * 26]anchorKind      // the lists holding each anchor of two letters
	three   [26 * 26 * 26]anchorKind // the lists holding a longer anchor of these first three letters
}

var anchors = newAnchorTable(map[anchorKind][]string{
	directiveKind: directiveAnchors,
	selectorKind:  selectorAnchors,
	catalogKind:   catalogAnchors,
	actKind:       actAnchors,
	claimKind:     claimAnchors,
})

func newAnchorTable(lists map[anchorKind][]string) *anchorTable {
	var t anchorTable
	for kind, words := range lists {
		n := kindIndex(kind)
		for _, w := range words {
			if len(w) < 2 || strings.IndexFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) >= 0 {
				panic("anchors: " + w + " is not a lower-case word of two letters or more")
			}
			t.byFirst[n][w[0]-'a'] = append(t.byFirst[n][w[0]-'a'], w)
			k := int(w[0]-'a')*26 + int(w[1]-'a')
			if len(w) == 2 {
				t.two[k] |= kind
				continue
			}
			t.three[k*26+int(w[2]-'a')] |= kind
		}
	}
	return &t
}

// kindIndex is the number of a list of one kind.
func kindIndex(kind anchorKind) int {
	for n := range kindCount {
		if kind == 1<<n {
			return n
		}
	}
	panic("anchors: not one kind of list")
}

// anchorsIn is the lists of want of which text holds an anchor, in any
// case (inside a word too for midWordKinds, else at a word's start), all
// of want for text holding a non-ASCII byte, which the costlier checks
// must judge: Unicode case folding is not byte by byte.
func anchorsIn(text string, want anchorKind) anchorKind {
	return anchors.in(text, want)
}

func (t *anchorTable) in(text string, want anchorKind) anchorKind {
	var found anchorKind
	inWord := false // the byte before is an ASCII letter or digit
	for i := 0; i < len(text); i++ {
		c := text[i]
		a := letterOf[c]
		if a >= 26 {
			if c >= 0x80 {
				return want
			}
			inWord = '0' <= c && c <= '9'
			continue
		}
		open := want &^ found
		if inWord {
			open &= midWordKinds
		}
		inWord = true
		if open == 0 || i+1 >= len(text) {
			continue
		}
		b := letterOf[text[i+1]]
		if b >= 26 {
			continue
		}
		k := int(a)*26 + int(b)
		found |= t.two[k] & open
		if i+2 >= len(text) {
			continue
		}
		l := letterOf[text[i+2]]
		if l >= 26 {
			continue
		}
		for maybe := t.three[k*26+int(l)] & open &^ found; maybe != 0; maybe &= maybe - 1 {
			n := lowestKind(maybe)
			if t.startsWith(n, text[i:]) {
				found |= 1 << n
			}
		}
		if found == want {
			return found
		}
	}
	return found
}

// letterOf is each byte's letter as 0-25, in either case, or 26 for any
// other byte.
var letterOf = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case 'a' <= c && c <= 'z':
			t[c] = uint8(c - 'a')
		case 'A' <= c && c <= 'Z':
			t[c] = uint8(c - 'A')
		default:
			t[c] = 26
		}
	}
	return t
}()

// lowestKind is the number of the lowest list in kinds.
func lowestKind(kinds anchorKind) int { return bits.TrailingZeros8(uint8(kinds)) }

// startsWith says whether text, which starts with a letter, starts with
// one of list n's anchors in any case. Bytes are folded as ASCII: a
// non-ASCII byte matches no anchor's letter, and the scan that meets it
// answers for the whole text.
func (t *anchorTable) startsWith(n int, text string) bool {
next:
	for _, a := range t.byFirst[n][letterOf[text[0]]] {
		if len(text) < len(a) {
			continue
		}
		for j := 1; j < len(a); j++ {
			if text[j]|0x20 != a[j] {
				continue next
			}
		}
		return true
	}
	return false
}
