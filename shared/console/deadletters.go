package console

import (
	"context"
	"math"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nats-io/nats.go"
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
	from, err := startWithin(r.Context(), s.cfg.JS, s.cfg.Streams.DeadLetters, s.cfg.DeadLetters, deadLetterBudget)
	if err != nil {
		s.fail(w, r, "reading the dead letters", err)
		return
	}
	if from == 0 {
		from = math.MaxUint64 // an empty stream: nothing to read
	}
	err = pipeline.ReadStream(r.Context(), s.cfg.JS, s.cfg.Streams.DeadLetters, pipeline.Range{FromSeq: from},
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

// deadLetterBudget bounds the bytes one page reads: a dead letter carries
// up to 512 KiB of the original, and any caller can make one, so the
// latest 500 could otherwise be 250 MiB.
const deadLetterBudget = 16 << 20

// startWithin returns the sequence from which the latest n messages of
// the stream, at most budget bytes together, begin (0: the stream is
// empty). It reads only their headers, which carry each one's size.
func startWithin(ctx context.Context, js jetstream.JetStream, stream string, n, budget int) (uint64, error) {
	st, err := js.Stream(ctx, stream)
	if err != nil {
		return 0, err
	}
	info, err := st.Info(ctx)
	if err != nil {
		return 0, err
	}
	first, last := info.State.FirstSeq, info.State.LastSeq
	if info.State.Msgs == 0 || last < first {
		return 0, nil
	}
	start := first
	if last >= uint64(n) && last-uint64(n)+1 > start {
		start = last - uint64(n) + 1
	}
	cons, err := st.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverByStartSequencePolicy,
		OptStartSeq: start, HeadersOnly: true})
	if err != nil {
		return 0, err
	}
	type sized struct {
		seq  uint64
		size int
	}
	var all []sized
	for done := false; !done; {
		batch, err := cons.FetchNoWait(500)
		if err != nil {
			return 0, err
		}
		got := 0
		for m := range batch.Messages() {
			got++
			md, err := m.Metadata()
			if err != nil {
				continue
			}
			size, _ := strconv.Atoi(m.Headers().Get(nats.MsgSize))
			all = append(all, sized{md.Sequence.Stream, size})
			done = done || md.Sequence.Stream >= last || md.NumPending == 0
		}
		if got == 0 {
			break
		}
	}
	if len(all) == 0 {
		return 0, nil
	}
	from, total := all[len(all)-1].seq, 0
	for i := len(all) - 1; i >= 0; i-- {
		if total += all[i].size; total > budget && i < len(all)-1 {
			break
		}
		from = all[i].seq
	}
	return from, nil
}
