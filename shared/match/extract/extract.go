package extract

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skillmatch/skillmatch/shared/a2a/mediatype"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
)

// Limits on what a requirement keeps of the task.
const (
	// DefaultHistory is how many earlier user turns History keeps.
	DefaultHistory = 3
	// DefaultMaxNeed caps Need and each history entry, in characters, cut
	// at a word boundary: a pasted document must not drown the request
	// that came with it.
	DefaultMaxNeed = 2000
)

// FromTask extracts the requirement of a task with a fixed rule set: the
// same task always gives the same requirement, so evaluations are
// repeatable and a surprising filter can be traced to the words that caused
// it. It does not validate: feed it tasks from task.Parse. A nil task has
// no requirement.
//
// Output types and streaming come from the explicit constraints when the
// task sets them and from the message's own words otherwise; earlier turns
// never add constraints, since a follow-up may have changed its mind.
func FromTask(t *task.Task) Requirement {
	if t == nil {
		return Requirement{}
	}
	r := Requirement{
		TaskID:    t.ID,
		DataClass: strings.ToLower(strings.TrimSpace(t.Caller.DataClass)),
		CallerID:  t.Caller.ID,
		Tenant:    t.Caller.Tenant,
		// Clone keeps nil as nil: nil means "not filtered on security",
		// empty means "a caller with no scopes".
		Scopes: slices.Clone(t.Caller.Scopes),
	}

	// Data parts are left out of Need even when they carry text fields:
	// the need stays in the user's words, and structured payloads would
	// pull retrieval toward whichever skill mentions their field names.
	text := messageText(&t.Message)
	r.History = history(t.History)
	need := Unrouted(Clean(text, DefaultMaxNeed))
	if len(t.History) == 0 {
		// A first message: an agent's earlier turn is a conversation too,
		// whose offer a reply answers.
		r.Need = AskedFirst(need)
	} else {
		r.Need = Asked(need)
	}
	r.InputTypes = inputTypes(t.Message.Parts)

	var toks []token
	if len(t.Constraints.AcceptedOutputTypes) > 0 {
		r.OutputTypes = normalizeTypes(t.Constraints.AcceptedOutputTypes)
	}
	if len(r.OutputTypes) == 0 {
		toks = tokenize(text)
		out, loose := outputTypes(toks)
		r.OutputTypes = describesFiles(out, r.InputTypes)
		r.OutputsLoose = loose && len(r.OutputTypes) > 0
	}
	if t.Constraints.Streaming != nil {
		r.Streaming = *t.Constraints.Streaming
	} else {
		if toks == nil {
			toks = tokenize(text)
		}
		r.Streaming = wantsStreaming(toks)
	}
	return r
}

// messageText joins the message's text parts.
func messageText(m *task.Message) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if p.File != nil || p.Data != nil || strings.TrimSpace(p.Text) == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Text)
	}
	return b.String()
}

// history returns the text of the last o.history turns that are not the
// agent's, oldest first. The agent's own turns are left out: the follow-up
// is the user's, and an agent's question would read as part of the need.
func history(turns []task.Message) []string {
	var out []string
	for i := len(turns) - 1; i >= 0 && len(out) < DefaultHistory; i-- {
		if turns[i].Role == "agent" {
			continue
		}
		if s := Clean(messageText(&turns[i]), DefaultMaxNeed); s != "" {
			out = append(out, s)
		}
	}
	slices.Reverse(out)
	return out
}

// Clean collapses runs of white space, drops control and invisible format
// characters (zero-width spaces, bidi overrides: they hide text from the
// person reading a log) and caps the result at max characters, cut at a word
// boundary when one is near.
func Clean(s string, max int) string {
	var b strings.Builder
	b.Grow(min(len(s), 4*max))
	space, n := false, 0
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r), r == utf8.RuneError:
			continue
		}
		if space {
			if n+1 >= max {
				break
			}
			b.WriteByte(' ')
			n++
			space = false
		}
		if n >= max {
			// Cut mid-word: back up to the last space if it is close.
			out := b.String()
			if i := strings.LastIndexByte(out, ' '); i > 0 && len(out)-i < 64 {
				out = out[:i]
			}
			return out
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// normalizeTypes cleans explicit output types; anything that is not a
// concrete media type is dropped (task.Parse rejects those up front).
func normalizeTypes(in []string) []string {
	var out []string
	for _, s := range in {
		if mt, ok := mediatype.Concrete(s); ok {
			out = append(out, mt)
		}
	}
	return sortedSet(out)
}

func sortedSet(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	slices.Sort(s)
	return slices.Compact(s)
}

// describesFiles drops the formats the text named (out) when the task's
// own files are of one of them: "Attached is my reading list as a CSV"
// and "my fit note is attached as a PDF" say what the files are, not what
// to send back. Read as wanted outputs they removed every skill of their
// catalogs (text in, text out): 17 requests of the hostile sets were
// abstained on with no skill passing the filters. Formats a caller
// declares (AcceptedOutputTypes) are never dropped.
func describesFiles(out, inputs []string) []string {
	for _, t := range out {
		if slices.Contains(inputs, t) {
			return nil
		}
	}
	return out
}
