package extract

import (
	"slices"
	"strings"
	"unicode"

	"github.com/skillmatch/skillmatch/shared/a2a/mediatype"
)

// Output types and streaming are read from the words of the request. Both
// become hard filters, so a false positive removes the right skill while a
// miss only leaves the ranking to the text: the rules below prefer to miss.
//
// A format word (csv, "a PDF report", image/png) counts as an output request
// only when a trigger governs it:
//
//   - a preposition: "as a CSV", "into a PDF", "in CSV format", "convert …
//     to markdown", "reply with JSON", "in the form of a table";
//   - a verb that asks for something: "send me a JSON summary", "give me a
//     csv", "return markdown", "produce a PDF report", "I'd like an mp3".
//
// Between the trigger and the format only a few words may stand, and never a
// determiner that points at something that already exists ("this pdf", "the
// attached csv": those are inputs) nor a preposition or conjunction that
// starts another phrase ("a summary of a pdf", "export and summarise a pdf").
// After the format must come the end of the clause, a noun for a produced
// thing (report, summary, file) or a joining word; "a JSON parser" or "a PDF
// reader" is a tool, not a format.

// token is a lower-cased word, or a clause boundary: punct is "," for a comma
// (a list may continue across it) and "." for anything that ends a clause.
type token struct {
	s     string
	punct string
}

func (t token) word() string {
	if t.punct != "" {
		return ""
	}
	return t.s
}

// tokenize splits text into lower-cased words and boundaries. Words keep the
// inner characters of media types, file names and contractions
// ("image/svg+xml", "report.pdf", "don't").
func tokenize(text string) []token {
	var toks []token
	var b strings.Builder
	flush := func() {
		w := b.String()
		b.Reset()
		// Trailing joiners belong to the sentence, not the word: "csv." is
		// "csv" and the end of a clause.
		end := ""
		for w != "" {
			c := w[len(w)-1]
			if isLetterOrDigit(c) {
				break
			}
			if c == '.' {
				end = "."
			}
			w = w[:len(w)-1]
		}
		w = strings.TrimLeftFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if w != "" {
			toks = append(toks, token{s: w})
		}
		if end != "" {
			toks = append(toks, token{s: end, punct: end})
		}
	}
	for _, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		case r == '’':
			b.WriteByte('\'')
		case strings.ContainsRune("/+.-_'&*", r):
			b.WriteRune(r)
		case r == ',':
			flush()
			toks = append(toks, token{s: ",", punct: ","})
		case strings.ContainsRune(";:!?()[]{}\"“”<>|", r):
			flush()
			toks = append(toks, token{s: ".", punct: "."})
		default:
			flush()
		}
	}
	flush()
	return toks
}

func isLetterOrDigit(c byte) bool {
	return c >= 0x80 || 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
}

// format is what a format word or phrase asks for.
type format struct {
	types []string
	// prepOnly words are formats only after a preposition: "as text" but not
	// "send me a text"; "to speech" but not "a speech".
	prepOnly bool
	// noIn words are not formats after "in": "in a word" is an idiom.
	noIn bool
	// bare words are formats only without an article: "as text" is a
	// format, "as a text" is a message.
	bare bool
	// thing words name what is made as well as its format: "aerial photos
	// of the roof", "slides in advance" (see Requirement.OutputsLoose).
	thing bool
}

var (
	imageTypes = []string{"image/gif", "image/jpeg", "image/png", "image/webp"}
	// pictureTypes add drawings: "as a picture" or "as an image" is
	// answered by an SVG org chart or diagram as well as by a bitmap, and
	// a skill that produces only SVG would otherwise be filtered out of
	// such a request. A photo stays a bitmap.
	pictureTypes = append(slices.Clip(imageTypes), "image/svg+xml")
	audioTypes   = []string{"audio/mpeg", "audio/ogg", "audio/wav"}
	videoTypes   = []string{"video/mp4", "video/quicktime", "video/webm"}
)

// formats maps format words, and the first word of two-word phrases (see
// phrases), to what they ask for. Generic words ("image", "spreadsheet")
// ask for any of a family: an output matches when the skill produces one.
var formats = func() map[string]format {
	m := map[string]format{
		"markdown":     {types: []string{"text/markdown"}},
		"excel":        {types: []string{mediatype.Xlsx}},
		"spreadsheet":  {types: []string{"text/csv", mediatype.Xlsx}},
		"powerpoint":   {types: []string{mediatype.Pptx}},
		"image":        {types: pictureTypes, thing: true},
		"picture":      {types: pictureTypes, thing: true},
		"photo":        {types: imageTypes, thing: true},
		"audio":        {types: audioTypes, thing: true},
		"video":        {types: videoTypes, thing: true},
		"text":         {types: []string{"text/plain"}, prepOnly: true, bare: true},
		"speech":       {types: audioTypes, prepOnly: true, bare: true},
		"word":         {types: []string{mediatype.Docx}, prepOnly: true, noIn: true, bare: true},
		"plaintext":    {types: []string{"text/plain"}},
		"slides":       {types: []string{mediatype.Pptx}, thing: true},
		"presentation": {types: []string{mediatype.Pptx}, prepOnly: true},
	}
	// File extensions that are also names of formats people ask for.
	for _, ext := range strings.Fields(`pdf csv tsv json txt md html xml yaml yml png jpg jpeg gif
		webp svg mp3 wav ogg flac m4a mp4 webm mov zip docx xlsx xls pptx ics rtf`) {
		m[ext] = format{types: []string{mediatype.OfExtension(ext)}}
	}
	return m
}()

// phrases are two-word formats, keyed by their first word.
var phrases = map[string]map[string][]string{
	"plain":     {"text": {"text/plain"}},
	"word":      {"document": {mediatype.Docx}, "doc": {mediatype.Docx}, "file": {mediatype.Docx}},
	"ms":        {"word": {mediatype.Docx}, "excel": {mediatype.Xlsx}},
	"microsoft": {"word": {mediatype.Docx}, "excel": {mediatype.Xlsx}, "powerpoint": {mediatype.Pptx}},
	"slide":     {"deck": {mediatype.Pptx}},
}

// topLevelTypes are the registered top-level media types; a word like
// "and/or" has the shape of a media type but is not one.
var topLevelTypes = set(`application audio font image message model multipart text video`)

// formatAt reports the format phrase starting at toks[i] and the index after
// it, or ok false.
func formatAt(toks []token, i int) (f format, end int, ok bool) {
	w := toks[i].word()
	if w == "" {
		return format{}, i, false
	}
	if i+1 < len(toks) {
		if next, ok := phrases[w][toks[i+1].word()]; ok {
			return format{types: next}, i + 2, true
		}
	}
	if f, ok := formats[w]; ok {
		return f, i + 1, true
	}
	// Plurals: "pdfs", "csvs", "images".
	if s, ok := strings.CutSuffix(w, "s"); ok {
		if f, ok := formats[s]; ok && !f.prepOnly {
			return f, i + 1, true
		}
	}
	if strings.IndexByte(w, '/') > 0 {
		if mt, ok := mediatype.Concrete(w); ok {
			if top, _, _ := strings.Cut(mt, "/"); topLevelTypes[top] {
				return format{types: []string{mt}}, i + 1, true
			}
		}
	}
	return format{}, i, false
}

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

var (
	// Verbs whose object is what the user wants back.
	askVerbs = set(`send give return produce generate create make export output render deliver
		provide prepare draft write email e-mail compose compile draw get download attach share
		save want need like prefer require`)
	// Of those, the ones that express a wish: no subject check ("I want a
	// csv" asks; "I will send a csv" offers).
	wishVerbs = set(`want need like prefer require`)
	// Verbs whose object is the source, and which take "to <format>".
	convertVerbs = set(`convert export save write output transform turn change render dump download
		format reformat translate transcode transcribe compile print publish serialize serialise
		encode rewrite`)
	// Verbs that make "in <format>" an output request ("reply in json",
	// but not "errors in json files").
	inVerbs = set(`send give return produce generate create make export output render deliver
		provide prepare draft write compose compile draw get save put reply respond answer
		summarise summarize list explain describe show present display tell report format express
		convert rewrite translate`)
	// Words between a trigger and its format that point at something that
	// already exists: what follows is an input.
	referential = set(`the this that these those my our your his her its their attached uploaded
		enclosed existing original following previous above below same such`)
	// Words that start another phrase: a format after them belongs to it.
	// (The prepositions that can be triggers are handled before these.)
	stoppers = set(`from for about on at by than via against per between without within
		under over through using inside onto upon and or but then so because if when while
		whether`)
	// Words allowed between a preposition and its format: "as a single CSV".
	prepFillers = set(`a an one single plain valid clean proper standard simple nice nicely
		structured well-formed machine-readable downloadable printable separate new`)
	// Words between a verb and its format that do not count against the
	// limit: "send me back a csv".
	freeFillers = set(`a an some me us back one`)
	// Nouns for a produced thing, allowed after the format.
	outputNouns = set(`report reports summary summaries file files document documents doc docs
		export exports version versions copy copies table tables sheet sheets spreadsheet output
		outputs response responses answer answers result results chart charts graph graphs list
		lists digest overview breakdown dump payload object objects array record records extract
		snapshot image images picture pictures photo audio recording clip video transcript deck
		slides presentation attachment download feed page pages body reply schema format formatted
		form structure string blob preview thumbnail invoice invoices receipt receipts letter memo
		certificate brochure flyer poster resume statement statements ticket tickets label labels
		manual guide newsletter`)
	// Joining words allowed after the format.
	connectors = set(`and or please so instead only too also with of for that which containing
		including listing showing summarizing summarising from about on by per where i we if when
		now back using in at each rather not but then as`)
	// After "in <format>", only these may follow: "in json format", "reply in
	// json, please" but not "errors in json files".
	inFollow = set(`please and or so instead only too rather now if for with not but then file`)
	// Words that make a generic format word something else: a "docker
	// image" is not a picture, a "disk image" not a photo.
	techModifiers = set(`docker container disk vm os iso system machine oci base boot ami cloud
		virtual kernel`)
	// First-person subjects: "I will send a PDF" offers, it does not ask.
	firstPerson = set(`i we i'll we'll i've we've i'd we'd i'm we're`)
	negations   = set(`no not never without dont don't doesnt doesn't cannot can't won't`)
)

// outputTypes returns the media types the text asks to receive.
func outputTypes(toks []token) (types []string, loose bool) {
	var out []string
	loose = true
	for i := 0; i < len(toks); {
		f, end, ok := formatAt(toks, i)
		if !ok {
			i++
			continue
		}
		asked, byPrep := asksFor(toks, i, end, f)
		if !asked {
			i = end
			continue
		}
		out = append(out, f.types...)
		loose = loose && f.thing && !byPrep
		// A list continues the request: "as CSV, JSON or XML".
		for {
			j := end
			joined := false
			for j < len(toks) && (toks[j].punct == "," || toks[j].s == "and" || toks[j].s == "or" || toks[j].s == "a" || toks[j].s == "an") {
				joined = joined || toks[j].s != "a" && toks[j].s != "an"
				j++
			}
			if !joined || j >= len(toks) {
				break
			}
			g, e, ok := formatAt(toks, j)
			if !ok || g.prepOnly || !followsWell(toks, j, e) {
				break
			}
			out = append(out, g.types...)
			loose = loose && g.thing
			end = e
		}
		i = end
	}
	return sortedSet(out), loose && len(out) > 0
}

// asksFor reports whether the format phrase toks[start:end] is governed by an
// output trigger, and whether that trigger is a preposition ("as a PDF",
// "into slides") rather than a verb ("I need slides").
func asksFor(toks []token, start, end int, f format) (asked, byPrep bool) {
	if start > 0 {
		prev := toks[start-1].s
		if f.bare && (prev == "a" || prev == "an") || techModifiers[prev] {
			return false, false
		}
	}
	freeOnly, counted := true, 0
	for k := start - 1; k >= 0; k-- {
		if toks[k].punct != "" {
			return false, false
		}
		w := toks[k].s
		switch {
		case w == "as" || w == "into" || w == "to" || w == "in" || w == "with" || w == "of":
			if !freeOnly || negated(toks, k) || !prepTrigger(toks, k, start, end, f) {
				return false, false
			}
			return true, true
		case askVerbs[w]:
			return verbTrigger(toks, k, start, end, f), false
		case referential[w], stoppers[w]:
			return false, false
		}
		if !prepFillers[w] {
			freeOnly = false
		}
		if !freeFillers[w] {
			counted++
			if counted > 2 {
				return false, false
			}
		}
	}
	return false, false
}

// verbTrigger checks the rules of the verb at toks[k] governing the format
// toks[start:end].
func verbTrigger(toks []token, k, start, end int, f format) bool {
	w := toks[k].s
	if f.prepOnly || negated(toks, k) || !followsWell(toks, start, end) || isSource(toks, end) {
		return false
	}
	next := toks[k+1].s // k < start, so k+1 exists
	switch {
	case w == "like":
		// "I'd like a CSV", not "something like a CSV".
		return k > 0 && (toks[k-1].s == "would" || toks[k-1].s == "i'd" || toks[k-1].s == "we'd")
	case wishVerbs[w]:
		return true
	case w == "get" && next != "me" && next != "us":
		// "get me a csv" asks; "you get a csv" describes.
		return false
	case next == "you" || next == "them" || next == "him" || next == "her":
		// "I'll send you a PDF" gives something to someone else.
		return false
	}
	return !offered(toks, k)
}

// offered reports whether the verb at k has a first-person subject, so that
// the sentence offers rather than asks: "I will send a PDF", "we can export
// a CSV". A wish in between keeps it a request: "I want to generate a PDF",
// "I'd like you to send a CSV".
func offered(toks []token, k int) bool {
	for j := k - 1; j >= 0 && j >= k-3; j-- {
		w := toks[j].s
		switch {
		case toks[j].punct != "":
			return false
		case w == "to" && j > 0 && (wishVerbs[toks[j-1].s] || toks[j-1].s == "you"):
			return false
		case firstPerson[w]:
			return true
		}
	}
	return false
}

// prepTrigger checks the rules of the preposition at toks[k] governing the
// format toks[start:end].
func prepTrigger(toks []token, k, start, end int, f format) bool {
	prev := ""
	if k > 0 {
		prev = toks[k-1].word()
	}
	switch toks[k].s {
	case "as":
		// "such as PDFs" and "as well as" list examples.
		if prev == "such" || prev == "well" {
			return false
		}
	case "into":
	case "to":
		// "convert … to markdown", "from csv to json".
		if !before(toks, k, 8, convertVerbs) && !fromFormat(toks, k) {
			return false
		}
	case "in":
		if f.noIn {
			return false
		}
		if end >= len(toks) || toks[end].punct != "" {
			return before(toks, k, 8, inVerbs)
		}
		next := toks[end].s
		if next == "format" || next == "form" {
			return true
		}
		return inFollow[next] && before(toks, k, 8, inVerbs)
	case "with":
		// "reply with JSON"; otherwise "with" starts an input ("help with a csv").
		if prev != "reply" && prev != "respond" && prev != "answer" && prev != "back" {
			return false
		}
	case "of":
		// "in the form of a table".
		if prev != "form" && prev != "shape" {
			return false
		}
	}
	return followsWell(toks, start, end) && !isSource(toks, end)
}

// followsWell reports whether what follows the format leaves it a format:
// the end of the clause, a produced thing or a joining word.
func followsWell(toks []token, start, end int) bool {
	if end >= len(toks) || toks[end].punct != "" {
		return true
	}
	w := toks[end].s
	if outputNouns[w] || connectors[w] {
		return true
	}
	_, _, isFormat := formatAt(toks, end)
	return isFormat
}

// isSource reports whether the format is followed by "into" or "to
// <format>": in "make a csv into a pdf" the csv is the input.
func isSource(toks []token, end int) bool {
	if end >= len(toks) {
		return false
	}
	switch toks[end].s {
	case "into":
		return true
	case "to":
		j := end + 1
		for j < len(toks) && (toks[j].s == "a" || toks[j].s == "an") {
			j++
		}
		if j < len(toks) {
			_, _, ok := formatAt(toks, j)
			return ok
		}
	}
	return false
}

// fromFormat reports whether "to" at k closes "from <format> to".
func fromFormat(toks []token, k int) bool {
	for j := k - 1; j >= 0 && j >= k-3; j-- {
		if toks[j].s == "from" {
			_, end, ok := formatAt(toks, j+1)
			return ok && end == k
		}
	}
	return false
}

// before reports whether a word of the set stands within n words before k,
// in the same clause.
func before(toks []token, k, n int, words map[string]bool) bool {
	for j := k - 1; j >= 0 && j >= k-n; j-- {
		if toks[j].punct == "." {
			return false
		}
		if words[toks[j].s] {
			return true
		}
	}
	return false
}

// negated reports whether a negation stands within three words before k in
// the same clause: "don't send me a pdf", "no need to stream".
func negated(toks []token, k int) bool {
	for j := k - 1; j >= 0 && j >= k-3; j-- {
		if toks[j].punct != "" {
			return false
		}
		w := toks[j].s
		if negations[w] || strings.HasSuffix(w, "n't") {
			return true
		}
	}
	return false
}

var (
	// Things one asks to have streamed: "stream the results".
	streamObjects = set(`results result output outputs updates update progress response responses
		answer answers tokens events logs changes text summary analysis transcript status`)
	streamFillers = set(`the me us it them back its all any partial`)
	// Nouns after "live", "real-time", "streaming", "incremental" that mean a
	// flow of updates rather than a thing ("live music", "streaming service").
	updateNouns = set(`updates update progress results output feedback status events responses
		response feed replies tokens`)
	// Words before "streaming" that ask for it: "with streaming".
	streamingCues = set(`with via use using enable need want require prefer`)
)

// wantsStreaming reports whether the text asks for results as they come:
// "stream the results", "live updates", "as it happens", "real-time
// progress", "keep me posted".
func wantsStreaming(toks []token) bool {
	word := func(i int) string {
		if i < len(toks) {
			return toks[i].word()
		}
		return ""
	}
	for i, t := range toks {
		if t.punct != "" {
			continue
		}
		hit := false
		switch t.s {
		case "stream", "streamed":
			j := i + 1
			back := false
			for j < i+3 && streamFillers[word(j)] {
				back = back || word(j) == "back"
				j++
			}
			hit = back || streamObjects[word(j)]
		case "streaming":
			hit = updateNouns[word(i+1)] || (i > 0 && streamingCues[toks[i-1].s])
		case "live", "real-time", "realtime", "incremental":
			hit = updateNouns[word(i+1)]
		case "real":
			hit = word(i+1) == "time" && updateNouns[word(i+2)]
		case "progress":
			hit = word(i+1) == "updates" || word(i+1) == "update"
		case "as":
			// "as it happens", "as they happen", "as you go", "as results come in".
			n1, n2 := word(i+1), word(i+2)
			hit = (n1 == "it" || n1 == "they" || n1 == "you" || n1 == "results" || n1 == "things") &&
				(n2 == "happens" || n2 == "happen" || n2 == "goes" || n2 == "go" || n2 == "come" || n2 == "comes" || n2 == "arrive" || n2 == "progress" || n2 == "progresses")
		case "keep":
			n1, n2 := word(i+1), word(i+2)
			hit = (n1 == "me" || n1 == "us") && (n2 == "posted" || n2 == "updated" || n2 == "informed")
		}
		if hit && !negated(toks, i) {
			return true
		}
	}
	return false
}
