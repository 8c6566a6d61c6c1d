package card

import (
	"html"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Card text is written by whoever runs the agent and ends up in retrieval
// indexes and, through the reranker, possibly in prompts. The sanitiser keeps
// what a human would read as the text and drops what only a renderer or a
// model would see: markup, invisible characters, layout. It never rewrites
// words: "ignore previous instructions" stays, as plain text, because
// deciding what is an injection is the consumer's job, not the reader's.

// cleanInfo says what clean removed, so the caller can note it.
type cleanInfo struct {
	markup    bool // HTML/XML tags or markdown markup removed
	invisible int  // control, format, private-use or unassigned characters removed
}

// clean returns s as plain single-line text: entities decoded, invisible
// characters removed, markdown and HTML/XML markup stripped, whitespace
// collapsed. The order matters: invisible characters go before markup so
// that "<scr\u200bipt>" is still seen as a tag, and markdown goes before
// tags so that removing markdown cannot assemble a new tag ("<`b`>").
func clean(s string) (string, cleanInfo) {
	var info cleanInfo
	// Entities are decoded to a fixed point (bounded) so that "&amp;lt;b&amp;gt;"
	// cannot smuggle a tag past the stripper.
	for range 3 {
		if !strings.ContainsRune(s, '&') {
			break
		}
		u := html.UnescapeString(s)
		if u == s {
			break
		}
		s = u
	}
	s, info.invisible = removeInvisible(s)
	var md, tags bool
	s, md = stripMarkdown(s)
	s, tags = stripTags(s)
	info.markup = md || tags
	return collapseSpace(s), info
}

// cleanPlain is for identifiers and URLs: it removes invisible characters
// and surrounding space but leaves markup characters alone ("*/*", "a_b").
func cleanPlain(s string) string {
	s, _ = removeInvisible(s)
	return collapseSpace(s)
}

// removeInvisible drops every rune that is not a letter, mark, number,
// punctuation, symbol or separator (controls, format characters such as
// zero-width and bidi overrides, Unicode tag characters, private use,
// unassigned), plus the few visible-category runes that render as nothing
// and are used to hide text. Whitespace controls become spaces. The count
// excludes them: a newline is layout, not an attempt to hide anything.
func removeInvisible(s string) (string, int) {
	n := 0
	for _, r := range s {
		if !keepRune(r) {
			n++
		}
	}
	if n == 0 && !strings.ContainsAny(s, "\t\r\v\f") {
		return s, 0
	}
	var b strings.Builder
	b.Grow(len(s))
	removed := 0
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteByte('\n')
		case r == '\t' || r == '\r' || r == '\v' || r == '\f' || r == 0x85:
			b.WriteByte(' ')
		case keepRune(r):
			b.WriteRune(r)
		default:
			removed++
		}
	}
	return b.String(), removed
}

func keepRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t' || r == '\r' || r == '\v' || r == '\f' || r == 0x85:
		return true
	case r < 0x20 || r == 0x7f:
		return false
	case r < 0x7f:
		return true
	case r == utf8.RuneError:
		// Invalid UTF-8 was already replaced by the JSON decoder; the
		// replacement character carries no text.
		return false
	case isHiddenRune(r):
		return false
	}
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z)
}

// isHiddenRune lists runes whose category looks like text but that render
// as nothing: variation selectors (also used to smuggle bytes), the
// combining grapheme joiner and the Hangul and Khmer fillers.
func isHiddenRune(r rune) bool {
	switch {
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF:
		return true
	}
	switch r {
	case 0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0:
		return true
	}
	return false
}

// collapseSpace replaces every run of Unicode white space (NBSP, em space,
// line separators included) by one ASCII space and trims the ends.
func collapseSpace(s string) string {
	if !needsCollapse(s) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

func needsCollapse(s string) bool {
	prevSpace := true // leading space needs trimming
	for _, r := range s {
		sp := unicode.IsSpace(r)
		if sp && (prevSpace || r != ' ') {
			return true
		}
		prevSpace = sp
	}
	return prevSpace && s != ""
}

// truncate cuts s to at most max runes, on a rune boundary, and reports the
// original rune count when it cut.
func truncate(s string, max int) (string, int, bool) {
	if len(s) <= max { // bytes >= runes, so this is a fast path
		return s, 0, false
	}
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s, 0, false
	}
	i, count := 0, 0
	for i = range s {
		if count == max {
			break
		}
		count++
	}
	return strings.TrimRightFunc(s[:i], unicode.IsSpace), n, true
}

// stripMarkdown removes markdown markup that carries no words: heading and
// quote markers, bullets, rules, fences, table pipes, emphasis runs,
// backticks, and link targets (the link text stays). It works line by line
// because block markers only mean something at the start of a line.
// Characters that are part of words or media types ("host_agent", "*/*",
// "#ClimateChange", "C++") are left alone.
func stripMarkdown(s string) (string, bool) {
	if !strings.ContainsAny(s, "#>*_~`[|-+=") {
		return s, false
	}
	changed := false
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		out := mdLine(line)
		if out != line {
			changed = true
			lines[i] = out
		}
	}
	if !changed {
		return s, false
	}
	return strings.Join(lines, "\n"), true
}

func mdLine(line string) string {
	t := strings.TrimLeft(line, " \t")
	if t == "" {
		return line
	}
	if isRuleLine(t) {
		return ""
	}
	if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
		return "" // a fence line holds only the fence and a language tag
	}
	block := false
	// Block markers, possibly stacked ("> - item").
	for t != "" {
		switch {
		case t[0] == '#':
			n := 0
			for n < len(t) && t[n] == '#' {
				n++
			}
			if n <= 6 && (n == len(t) || t[n] == ' ' || t[n] == '\t') {
				t, block = strings.TrimLeft(t[n:], " \t"), true
				continue
			}
		case t[0] == '>':
			t, block = strings.TrimLeft(t[1:], " \t"), true
			continue
		case (t[0] == '-' || t[0] == '*' || t[0] == '+') && len(t) > 1 && (t[1] == ' ' || t[1] == '\t'):
			t, block = strings.TrimLeft(t[2:], " \t"), true
			continue
		case t[0] == '|':
			t, block = strings.ReplaceAll(t, "|", " "), true
		}
		break
	}
	out := mdInline(t)
	if !block && out == t {
		return line // nothing was markup; keep the original spacing
	}
	return out
}

// isRuleLine reports a thematic break, setext underline or table separator:
// a line of only "-*_=|:+" and spaces with at least three rule characters.
func isRuleLine(t string) bool {
	rules := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '-', '*', '_', '=':
			rules++
		case '|', ':', '+', ' ', '\t':
		default:
			return false
		}
	}
	return rules >= 3
}

// mdInline strips inline markdown from one line.
func mdInline(t string) string {
	if !strings.ContainsAny(t, "*_~`[") {
		return t
	}
	var b strings.Builder
	b.Grow(len(t))
	for i := 0; i < len(t); {
		c := t[i]
		switch c {
		case '`':
			i++
			continue
		case '!', '[':
			start := i
			if c == '!' {
				if i+1 >= len(t) || t[i+1] != '[' {
					break
				}
				start = i + 1
			}
			// A link starts a word: "matrix[0][1]" is an index, not a link.
			if i > 0 && (classAt(t, i, true) == word || t[i-1] == ']') {
				break
			}
			if text, next, ok := mdLink(t, start); ok {
				b.WriteString(text)
				i = next
				continue
			}
		case '*', '_', '~':
			j := i
			for j < len(t) && t[j] == c {
				j++
			}
			if (c != '~' || j-i >= 2) && isEmphasisRun(t, i, j) {
				i = j
				continue
			}
			b.WriteString(t[i:j])
			i = j
			continue
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// mdLink matches "[text](target)" or "[text][ref]" at t[open] == '[' and
// returns the text. The scans stop at the first character that cannot be
// inside, which keeps the whole pass linear on hostile input.
func mdLink(t string, open int) (text string, next int, ok bool) {
	closeText := -1
	for k := open + 1; k < len(t); k++ {
		if t[k] == '[' {
			return "", 0, false
		}
		if t[k] == ']' {
			closeText = k
			break
		}
	}
	if closeText < 0 || closeText+1 >= len(t) {
		return "", 0, false
	}
	var end byte
	switch t[closeText+1] {
	case '(':
		end = ')'
	case '[':
		end = ']'
	default:
		return "", 0, false
	}
	for k := closeText + 2; k < len(t); k++ {
		switch t[k] {
		case end:
			return t[open+1 : closeText], k + 1, true
		case '(', '[', ' ':
			if t[k] == ' ' && end == ')' {
				continue // a link title: (url "title")
			}
			return "", 0, false
		}
	}
	return "", 0, false
}

// isEmphasisRun reports whether the run t[i:j] of '*', '_' or '~' is
// emphasis markup, using CommonMark's flanking rules: a run that can only
// open or only close is markup; one that could do both ("5*3",
// "snake_case") or neither ("a * b") is text. A run touching '/' is always
// text, so media types ("*/*", "image/*") survive.
func isEmphasisRun(t string, i, j int) bool {
	prev, next := classAt(t, i, true), classAt(t, j, false)
	if prev == slash || next == slash {
		return false
	}
	left := next != space && (next == word || prev != word)
	right := prev != space && (prev == word || next != word)
	return left != right
}

const (
	space = iota // white space, or the start or end of the line
	word         // letter or digit
	punct        // anything else
	slash
)

func classAt(t string, k int, before bool) int {
	var r rune
	switch {
	case before && k == 0, !before && k >= len(t):
		return space
	case before:
		r, _ = utf8.DecodeLastRuneInString(t[:k])
	default:
		r, _ = utf8.DecodeRuneInString(t[k:])
	}
	switch {
	case r == '/':
		return slash
	case unicode.IsSpace(r):
		return space
	case unicode.IsLetter(r) || unicode.IsDigit(r):
		return word
	}
	return punct
}

// stripTags removes HTML/XML tags, comments, processing instructions,
// doctype and CDATA markers, and the content of script and style elements
// (code, not text). It follows the HTML tokenizer: a tag runs to the next
// '>' outside a quoted attribute value, so it never backtracks and stays
// linear on hostile input. A '<' with no '>' anywhere after it cannot start
// a tag and stays text, as does a '<' before a space or digit ("a < b",
// "x<5"); text that is tag-shaped goes, as it would in a browser
// ("x<y and y>z" reads "xz"). Block-level tags become a space so words on
// either side stay apart.
//
// The output holds no tag by the same rules, so cleaning again changes
// nothing: a removed tag right after a literal '<' leaves a space behind,
// or "<<b>a>" would become "<a>".
func stripTags(s string) (string, bool) {
	if !strings.ContainsRune(s, '<') {
		return s, false
	}
	lower := LowerASCII(s)
	lastGT := strings.LastIndexByte(s, '>')
	var b strings.Builder
	b.Grow(len(s))
	changed, cdata := false, false
	drop := func(space bool) {
		changed = true
		if space || strings.HasSuffix(b.String(), "<") {
			b.WriteByte(' ')
		}
	}
	for i := 0; i < len(s); {
		if s[i] != '<' {
			j := strings.IndexByte(s[i:], '<')
			if j < 0 {
				b.WriteString(s[i:])
				break
			}
			b.WriteString(s[i : i+j])
			i += j
			continue
		}
		rest := lower[i:]
		if strings.HasPrefix(rest, "<!--") {
			end := strings.Index(rest[4:], "-->")
			drop(true)
			if end < 0 {
				return b.String(), true // an unterminated comment hides the rest
			}
			i += 4 + end + 3
			continue
		}
		if i > lastGT {
			b.WriteString(s[i:]) // no '>' left: no tag can start here
			break
		}
		switch {
		case strings.HasPrefix(rest, "<![cdata["):
			cdata = true
			drop(false)
			i += len("<![cdata[")
			continue
		case strings.HasPrefix(rest, "<!"), strings.HasPrefix(rest, "<?"):
			// Doctype, processing instruction or bogus comment: to the next '>'.
			drop(true)
			i += strings.IndexByte(rest, '>') + 1
			continue
		}
		if end, name, closing, url, ok := scanTag(s, i); ok {
			if url != "" {
				b.WriteString(url) // an autolink: keep the address as text
				changed = true
				i = end
				continue
			}
			drop(blockTags[name])
			if end < 0 {
				return b.String(), true // EOF inside a quoted value
			}
			i = end
			if !closing && (name == "script" || name == "style") {
				k := strings.Index(lower[i:], "</"+name)
				if k < 0 {
					return b.String(), true
				}
				i += k
			}
			continue
		}
		b.WriteByte('<')
		i++
	}
	if cdata {
		// CDATA content is text; only its closing marker goes.
		return strings.ReplaceAll(b.String(), "]]>", " "), true
	}
	return b.String(), changed
}

// scanTag reads a tag starting at s[i] == '<', which the caller knows has
// a '>' somewhere after it. As in the HTML tokenizer, '<' followed by a
// letter, or by '/' and anything, opens a tag whatever comes next
// ("<a<b>" is one tag named "a<b"), and quoted attribute values may hold
// '>'. ok is false when s[i] does not open a tag. end is -1 when the input
// ends inside a quoted value: the rest is then part of the tag. An autolink
// ("<https://example.com>") is returned as url.
func scanTag(s string, i int) (end int, name string, closing bool, url string, ok bool) {
	k := i + 1
	if k < len(s) && s[k] == '/' {
		closing = true
		k++
	} else if k >= len(s) || !isASCIILetter(s[k]) {
		return 0, "", false, "", false
	}
	start := k
	for k < len(s) && !isTagNameEnd(s[k]) {
		k++
	}
	name = LowerASCII(s[start:k])
	if !closing && strings.HasSuffix(name, ":") && strings.HasPrefix(s[k:], "//") {
		if e := strings.IndexAny(s[k:], "> \t\n<"); e >= 0 && s[k+e] == '>' {
			return k + e + 1, "", false, s[start : k+e], true
		}
	}
	for k < len(s) {
		switch c := s[k]; c {
		case '>':
			return k + 1, name, closing, "", true
		case '"', '\'':
			// A quote delimits an attribute value only right after '=';
			// elsewhere it is a stray character ("<a title=it's>").
			if !afterEquals(s, start, k) {
				k++
				continue
			}
			q := strings.IndexByte(s[k+1:], c)
			if q < 0 {
				return -1, name, closing, "", true
			}
			k += q + 2
		default:
			k++
		}
	}
	return -1, name, closing, "", true
}

func isTagNameEnd(c byte) bool {
	return c == '>' || c == '/' || c == ' ' || c == '\t' || c == '\n' || c == '\f'
}

func afterEquals(s string, start, k int) bool {
	for k--; k > start; k-- {
		switch s[k] {
		case ' ', '\t', '\n':
			continue
		case '=':
			return true
		}
		return false
	}
	return false
}

var blockTags = map[string]bool{
	"address": true, "article": true, "aside": true, "blockquote": true, "br": true,
	"dd": true, "div": true, "dl": true, "dt": true, "figcaption": true, "figure": true,
	"footer": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"header": true, "hr": true, "li": true, "main": true, "nav": true, "ol": true,
	"p": true, "pre": true, "section": true, "table": true, "td": true, "th": true,
	"tr": true, "ul": true,
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// LowerASCII lower-cases ASCII letters only, so byte offsets stay aligned
// with the original string: strings.ToLower may change a text's length
// ("İ" lowers to one byte, "Ⱥ" to three, an invalid byte to U+FFFD).
func LowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
