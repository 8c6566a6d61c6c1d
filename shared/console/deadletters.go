package console

import (
	"net/http"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// DeadRow is one dead letter as the page shows it.
type DeadRow struct {
	Seq                   uint64
	At                    time.Time
	Stage, Reason, Caller string
	TaskID, Subject       string
	Deliveries            uint64
	// Payload is the original message as text, cut to the console's cap
	// (PayloadSize is the original's full size).
	Payload     string
	PayloadSize int
	Cut         bool
}

// Group counts dead letters of one stage and reason.
type Group struct {
	Stage, Reason string
	Count         int
	Last          time.Time
}

type deadView struct {
	page
	Stage, Reason string
	Rows          []DeadRow
	Groups        []Group
	Read, Matched int
	Stored        uint64
	Limit         int
}

// payloadText is a payload as text: invalid UTF-8 replaced, at most n bytes.
func payloadText(p []byte, n int) (string, bool) {
	cut := len(p) > n
	if cut {
		p = p[:n]
	}
	return strings.ToValidUTF8(string(p), string(utf8.RuneError)), cut
}

var (
	quotedRe = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	numberRe = regexp.MustCompile(`\b\d+(?:\.\d+)?\b`)
)

// reasonGroup is the reason without what varies between dead letters of
// one kind (quoted values such as task ids, numbers), so that they group;
// a reason longer than a line is cut.
func reasonGroup(reason string) string {
	r := quotedRe.ReplaceAllString(reason, `"…"`)
	r = numberRe.ReplaceAllString(r, "N")
	return clipText(r, 160)
}

func (s *Server) deadLettersPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := deadView{page: s.page(r, "deadletters", "Dead letters"), Stage: strings.TrimSpace(q.Get("stage")),
		Reason: strings.TrimSpace(q.Get("reason")), Limit: s.cfg.PageSize}
	groups := map[[2]string]*Group{}
	var rows []DeadRow
	err := pipeline.ReadStream(r.Context(), s.cfg.JS, s.cfg.Streams.DeadLetters, pipeline.Range{Latest: s.cfg.DeadLetters},
		func(m jetstream.Msg, md *jetstream.MsgMetadata) {
			v.Read++
			dl, err := wire.DecodeDeadLetter(m.Data())
			if err != nil {
				// Not a dead letter we can read: shown as such, never dropped.
				dl = &wire.DeadLetter{Stage: "?", Reason: "unreadable dead letter: " + err.Error(), Subject: m.Subject(),
					Payload: m.Data(), PayloadSize: len(m.Data())}
			}
			rg := reasonGroup(dl.Reason)
			k := [2]string{dl.Stage, rg}
			g := groups[k]
			if g == nil {
				g = &Group{Stage: dl.Stage, Reason: rg}
				groups[k] = g
			}
			g.Count++
			g.Last = md.Timestamp
			if (v.Stage != "" && v.Stage != dl.Stage) || (v.Reason != "" && !strings.Contains(dl.Reason, v.Reason)) {
				return
			}
			v.Matched++
			text, cut := payloadText(dl.Payload, s.cfg.PayloadBytes)
			rows = append(rows, DeadRow{Seq: md.Sequence.Stream, At: md.Timestamp, Stage: dl.Stage, Reason: clipText(dl.Reason, 2000),
				Caller: dl.Caller, TaskID: dl.TaskID, Subject: dl.Subject, Deliveries: dl.Deliveries,
				Payload: text, PayloadSize: dl.PayloadSize, Cut: cut || dl.Truncated})
		})
	if err != nil {
		s.fail(w, r, "reading the dead letters", err)
		return
	}
	// Newest first, one page.
	for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
		rows[i], rows[j] = rows[j], rows[i]
	}
	if len(rows) > s.cfg.PageSize {
		rows = rows[:s.cfg.PageSize]
	}
	v.Rows = rows
	for _, g := range groups {
		v.Groups = append(v.Groups, *g)
	}
	sort.Slice(v.Groups, func(i, j int) bool {
		a, b := v.Groups[i], v.Groups[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Stage+a.Reason < b.Stage+b.Reason
	})
	if st, err := s.cfg.JS.Stream(r.Context(), s.cfg.Streams.DeadLetters); err == nil {
		if info, err := st.Info(r.Context()); err == nil {
			v.Stored = info.State.Msgs
		}
	}
	s.render(w, r, "deadletters", &v)
}
