package extract

import (
	"slices"
	"strings"
	"unicode"
)

// Asked is text (cleaned, as Clean leaves it) without its sentences that
// only turn something down: "Nah, I don't want to reserve anything yet. I
// need return flights to Oslo first" asks for the flights, and a declining
// first sentence's "reserve" has taken such a request to a flight booking,
// or made a plan of the booking and the search. A sentence that declines
// and then asks ("I don't want to book yet, just find me flights") is
// kept, and so is the whole text when every sentence declines: what it
// turns down is all there is to match.
func Asked(text string) string { return leaveOut(text, declined) }

// AskedFirst is Asked for the first message of a conversation, which
// also leaves out the sentences that only reply to an offer (acknowledgings,
// putOffs): with no earlier turn they answer nothing, and their words
// ("That sounds nice, but I've changed my mind. Change 250 pounds into yen")
// only pull the request elsewhere. In a conversation they stay: they tell
// the reader an offer was taken or turned down.
func AskedFirst(text string) string { return leaveOut(text, replies) }

// leaveOut is text without the sentences drop says to leave out, or text
// itself when it drops none or all of them: what they say is then all
// there is to match.
func leaveOut(text string, drop func(sentence string) bool) string {
	return leaveOutParts(text, splitSentences(text), drop)
}

// leaveOutParts is text's parts without those drop says to leave out,
// joined by spaces, or text itself when it drops none or all of them.
func leaveOutParts(text string, parts []string, drop func(part string) bool) string {
	if len(parts) < 2 {
		return text
	}
	kept := slices.DeleteFunc(slices.Clone(parts), drop)
	if len(kept) == 0 || len(kept) == len(parts) {
		return text
	}
	return strings.Join(kept, " ")
}

// replies says whether a sentence only takes, declines or puts off an
// offer (onlyOpening). Thanks are no reply: closing a first message, they
// are manners.
func replies(sentence string) bool {
	return onlyOpening(sentence, func(w []string) bool {
		return opensDeclining(w) || opens(w, putOffs) || opens(w, acknowledgings) && !opens(w, thanks)
	})
}

var thanks = [][]string{{"thank", "you"}, {"thanks"}}

// splitSentences cuts text after each ".", "!" or "?" that a space
// follows, keeping the marks.
func splitSentences(text string) []string { return cutAfter(text, ".!?", false) }

// declinings open a clause that turns down something to do, naming it:
// "I don't want to reserve anything yet". Those that turn down a thing ("I
// don't want subtitles") state what is wanted of the job, and the bare
// ones ("Not right now", "Maybe later") name no other job and tell the
// conversation's reader that an offer was turned down: both stay.
var declinings = [][]string{
	{"i", "do", "not", "want", "to"}, {"i", "don't", "want", "to"}, {"i", "dont", "want", "to"},
	{"i", "do", "not", "wish", "to"}, {"i", "don't", "wish", "to"}, {"i", "dont", "wish", "to"},
	{"i", "would", "rather", "not"}, {"i'd", "rather", "not"},
}

// putOffs turn an offer down without naming anything ("Maybe at a later
// time", "Not right now"): no task, but the need keeps them (see
// declinings).
var putOffs = [][]string{
	{"not", "now"}, {"not", "right", "now"}, {"not", "yet"}, {"not", "at", "the", "moment"},
	{"not", "today"}, {"maybe", "later"}, {"maybe", "at", "a", "later"}, {"maybe", "some", "other"},
	{"perhaps", "later"}, {"perhaps", "at", "a", "later"}, {"maybe", "another"}, {"perhaps", "another"},
	{"no", "thanks"}, {"no", "thank", "you"}, {"never", "mind"}, {"nevermind"},
	{"i", "changed", "my", "mind"}, {"i've", "changed", "my", "mind"},
}

// AsksNothing says whether a sentence asks for nothing, clause by clause
// (onlyOpening), so that it is no part of a plan whatever skill its
// words name:
//   - it turns something down: a job (declinings) or an offer, naming
//     nothing (putOffs: "Maybe at a later time", put before a question
//     about the weather, was a plan of a film's show times and the
//     weather);
//   - it answers what was offered before (acknowledgings: "Sounds good to
//     me", where "sounds" names a music player's skill);
//   - it states a detail of what another sentence asks (statesDetail: "I
//     have 3 suitcases to check", where "check" names a balance check);
//   - it tells what the caller is doing or how they are, the occasion of
//     what another sentence asks (statesCircumstance: a family's
//     vacation, told before the rental car they need, was a plan of a
//     house search and the car);
//   - it tells when others will travel or be somewhere (statesSchedule:
//     "put the 19 passengers up in a hotel overnight - the aircraft has
//     gone tech and they'll fly at 08:00" was a plan of the hotel and a
//     pet's travel).
//
// The clauses may mix them ("Sounds fine, but I've changed my mind"); one
// that asks ("Sounds good, book it") keeps the sentence.
func AsksNothing(sentence string) bool {
	return onlyOpening(sentence, func(w []string) bool {
		return opensDeclining(w) || opens(w, putOffs) || opens(w, acknowledgings) || statesDetail(w) || statesCircumstance(w) || statesSchedule(w) || statesReference(w)
	})
}

// interjections may open a clause that asks nothing ("No, ...", "Yeah,
// that sounds good", "but I've changed my mind").
var interjections = map[string]bool{"no": true, "nah": true, "nope": true, "well": true, "ok": true,
	"okay": true, "actually": true, "sorry": true, "hmm": true, "oh": true, "alright": true,
	"hi": true, "hello": true, "hey": true,
	"yes": true, "yeah": true, "yep": true, "yup": true, "sure": true, "wow": true, "but": true}

// asides carry nothing asked for: a clause of them after a declining one
// ("Nah, I don't want to order it today, actually") adds no request.
var asides = map[string]bool{"actually": true, "thanks": true, "thank": true, "you": true, "though": true,
	"anyway": true, "now": true, "right": true, "yet": true, "just": true, "for": true, "the": true,
	"moment": true, "at": true, "this": true, "time": true, "please": true, "really": true, "sorry": true}

// declined says whether a sentence only turns something to do down
// (onlyOpening).
func declined(sentence string) bool { return onlyOpening(sentence, opensDeclining) }

// onlyOpening says whether sentence says only what opener reads: its
// first clause opens so, after any interjections, and each clause after
// it opens so too (interjections aside) or is asides only.
func onlyOpening(sentence string, opener func([]string) bool) bool {
	clauses := strings.FieldsFunc(sentence, func(r rune) bool { return r == ',' || r == ';' })
	first := true
	for _, c := range clauses {
		w := clauseWords(c)
		switch {
		case len(w) == 0:
		case first:
			w = skipInterjections(w, opener)
			if len(w) > 0 && !opener(w) {
				return false
			}
			first = len(w) == 0
		case !opener(skipInterjections(w, opener)) && slices.ContainsFunc(w, func(s string) bool { return !asides[s] }):
			return false
		}
	}
	return !first
}

// skipInterjections is words without the interjections that open them,
// unless opener reads them as they are ("no thanks").
func skipInterjections(words []string, opener func([]string) bool) []string {
	for len(words) > 0 && !opener(words) && interjections[words[0]] {
		words = words[1:]
	}
	return words
}

// acknowledgings open a clause that answers what was offered before,
// asking for nothing: "That sounds like a lovely place to stay", "Thank
// you very much", "Sounds good to me".
var acknowledgings = [][]string{
	{"sounds"}, {"that", "sounds"}, {"this", "sounds"}, {"it", "sounds"}, {"that", "works"},
	{"that", "will", "work"}, {"that", "would", "work"}, {"that", "should", "work"},
	{"that's", "fine"}, {"that's", "good"}, {"that's", "great"}, {"that's", "perfect"},
	{"that", "is", "fine"}, {"that", "is", "good"}, {"that", "is", "great"}, {"that", "is", "perfect"},
	{"thank", "you"}, {"thanks"}, {"you've", "been"}, {"you", "have", "been"},
}

// clauseWords are a clause's words and numbers in lower case, without
// punctuation around them, curly apostrophes read as straight ones.
func clauseWords(clause string) []string {
	var out []string
	for _, f := range strings.Fields(strings.ToLower(strings.ReplaceAll(clause, "’", "'"))) {
		if w := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' }); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// opensDeclining says whether words start with a declining of something
// to do: one of a state ("I don't want to be exhausted on the road") says
// what the caller wants of the job.
func opensDeclining(words []string) bool {
	n := openingLen(words, declinings)
	return n > 0 && n < len(words) && words[n] != "be"
}

// statesDetail says whether words open a statement of what the caller
// has ("I have 3 suitcases to check", "I've got a weekend away coming
// up"), not of a duty ("I have to renew my passport"), or a count of what
// is needed ("I need 2 rooms", "I'll need four business class seats": how
// many of what another sentence asks for, while "rooms" names a booking
// skill of its own).
func statesDetail(w []string) bool {
	switch {
	case opens(w, possessions):
		n := openingLen(w, possessions)
		if n < len(w) && w[n] == "got" {
			n++ // "I have got"
		}
		return n >= len(w) || w[n] != "to"
	case opens(w, needs):
		n := openingLen(w, needs)
		return len(w) > n && isCount(w[n])
	}
	return false
}

// statesReference says whether words only give a reference: a label of
// at most two words and the numbers or codes it names ("Card WL 2900 3318
// 0456", "Ref 44821"), what another sentence's request is about. A plan
// made a step of hostile44's library card number, delegated to replacing
// the card.
func statesReference(w []string) bool {
	if len(w) == 0 || len(w) > 6 || !hasDigit(w[len(w)-1]) {
		return false
	}
	label := 0
	for _, s := range w {
		if !hasDigit(s) {
			label++
		}
	}
	return label <= 2
}

func hasDigit(s string) bool { return strings.ContainsFunc(s, unicode.IsDigit) }

// possessions open a statement of what the caller has; needs one of
// what is needed, which counts it when a number follows.
var (
	possessions = [][]string{{"i", "have"}, {"we", "have"}, {"i've", "got"}, {"we've", "got"}, {"i", "got"}}
	needs       = [][]string{{"i", "need"}, {"we", "need"}, {"i'll", "need"}, {"we'll", "need"}, {"i", "will", "need"}, {"we", "will", "need"}}
)

// statesCircumstance says whether words open a statement of what the
// caller is doing or how they are, which asks for nothing itself: "I'm
// going on a trip", "Hi I'm having friends over for a cookout", "I am
// tired of crowded trains", "My wife and I are visiting Sydney". Only the
// occasions of an errand count (occasions). A problem is an ask ("I'm
// locked out", "I'm having trouble with my login"), and so are what
// opens an ask ("I'm looking for", "I'm going to book", "I'm planning to
// fly"), and what would be a job of its own in some catalog ("I'm moving
// house", "I'm taking Friday off", "I'm leaving the company"). The need
// keeps such sentences (Asked): "I'm hungry. Is there a good noodle bar
// nearby?" leans on them, and leaving them out of it lost 3 right
// delegations on sgd's train split.
func statesCircumstance(w []string) bool {
	n := subjectLen(w)
	if n == 0 || n >= len(w) || slices.ContainsFunc(w[n:], func(s string) bool { return asking[s] }) {
		return false
	}
	verb, rest := w[n], w[n+1:]
	switch {
	case !occasions[verb]:
		return false
	case len(rest) == 0:
		return true
	case verb == "going" || verb == "planning":
		return rest[0] != "to" // "going to book", "planning to fly": an ask
	case verb == "having":
		if (rest[0] == "a" || rest[0] == "an" || rest[0] == "some") && len(rest) > 1 {
			rest = rest[1:]
		}
		return !problems[rest[0]] // "having trouble", "having an issue"
	}
	return true
}

// statesSchedule says whether words open a statement of when someone
// else will travel or be somewhere ("they'll fly at 08:00", "she will
// arrive on Monday", "it'll be for 3 people"): the arrangements around
// what another part asks, not an ask. An asking word after it makes one
// ("they'll need a wheelchair at the gate", "he'll want a window seat").
func statesSchedule(w []string) bool {
	n := openingLen(w, othersWill)
	if n == 0 || n >= len(w) || !schedules[w[n]] {
		return false
	}
	return !slices.ContainsFunc(w[n:], func(s string) bool { return asking[s] })
}

// othersWill open a statement of what someone else will do; schedules
// are the verbs after it that tell a time or place, not a job.
var (
	othersWill = [][]string{{"they'll"}, {"they", "will"}, {"he'll"}, {"he", "will"}, {"she'll"}, {"she", "will"},
		{"it'll"}, {"it", "will"}}
	schedules = map[string]bool{"be": true, "fly": true, "leave": true, "arrive": true, "depart": true, "land": true,
		"travel": true, "return": true, "stay": true, "start": true}
)

// subjectLen is how many words open words as the caller saying what they
// are or do: "I am", "I'm", "we're", "my sister and I are", "me and my
// wife are"; 0 for none.
func subjectLen(w []string) int {
	if n := openingLen(w, beings); n > 0 {
		return n
	}
	// "my sister and i are", "our two kids and i are", "me and my wife are"
	for i := 2; i < min(len(w), 6); i++ {
		if w[i] != "are" {
			continue
		}
		switch {
		case (w[0] == "my" || w[0] == "our") && w[i-2] == "and" && w[i-1] == "i":
			return i + 1
		case w[0] == "me" && w[1] == "and" && i >= 3:
			return i + 1
		}
	}
	return 0
}

// beings open a first-person statement of being or doing.
var beings = [][]string{{"i", "am"}, {"i'm"}, {"im"}, {"we", "are"}, {"we're"}}

// asking are words that make a clause an ask wherever they stand: "We're
// visiting Rome and we need a hotel near the station".
var asking = map[string]bool{"need": true, "want": true, "like": true, "please": true, "can": true,
	"could": true, "would": true, "will": true, "i'll": true, "we'll": true, "i'd": true, "we'd": true,
	"help": true, "find": true, "book": true, "search": true, "looking": true, "get": true, "reserve": true}

// occasions are the words after a subject (subjectLen) that tell an
// occasion or a state, not an errand.
var occasions = map[string]bool{
	"going": true, "planning": true, "having": true, "travelling": true, "traveling": true,
	"visiting": true, "heading": true, "flying": true, "driving": true, "staying": true,
	"coming": true, "attending": true, "hosting": true, "throwing": true, "celebrating": true,
	"tired": true, "bored": true, "hungry": true, "thirsty": true,
}

// problems after "having" make a statement a report of a problem: an ask.
var problems = map[string]bool{"trouble": true, "problem": true, "problems": true, "issue": true,
	"issues": true, "difficulty": true, "difficulties": true, "error": true, "errors": true, "no": true}

// isCount says whether a word is a number: digits, or a number word up
// to twelve.
func isCount(w string) bool {
	if w != "" && strings.Trim(w, "0123456789") == "" {
		return true
	}
	return numberWords[w]
}

var numberWords = map[string]bool{"one": true, "two": true, "three": true, "four": true, "five": true, "six": true,
	"seven": true, "eight": true, "nine": true, "ten": true, "eleven": true, "twelve": true, "zero": true}

// opens says whether words start with one of openings.
func opens(words []string, openings [][]string) bool { return openingLen(words, openings) > 0 }

// openingLen is how many words the longest of openings that words start
// with has, 0 for none.
func openingLen(words []string, openings [][]string) int {
	n := 0
	for _, o := range openings {
		if len(words) >= len(o) && slices.Equal(words[:len(o)], o) {
			n = max(n, len(o))
		}
	}
	return n
}
