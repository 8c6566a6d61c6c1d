package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match/calibrate"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/match/filter"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

type decisionsView struct {
	page
	Filter  Filter
	Rows    []Summary
	Matched int
	// Stored is how many decisions the stream holds; Kept how many the
	// console follows in memory.
	Stored  uint64
	Kept    int
	LastSeq uint64
	Limit   int
	// Older is the sequence an older page starts before (0: no older
	// decision is followed).
	Older uint64
}

// filterOf reads a decisions filter from r's query; a "before" that is
// no stream sequence is refused, not read as none.
func filterOf(r *http.Request) (Filter, error) {
	q := r.URL.Query()
	before, err := sequenceParam(q, "before")
	return Filter{Caller: strings.TrimSpace(q.Get("caller")), Action: strings.TrimSpace(q.Get("action")),
		Agent: strings.TrimSpace(q.Get("agent")), Before: before}, err
}

// sequenceParam is query parameter name as a stream sequence, 0 when it
// is absent.
func sequenceParam(q url.Values, name string) (uint64, error) {
	v := q.Get(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s=%.40q: want a decision's stream sequence", name, v)
	}
	return n, nil
}

func (s *Server) decisionsPage(w http.ResponseWriter, r *http.Request) {
	f, err := filterOf(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	v := decisionsView{page: s.page(r, "decisions", "Live decisions"), Filter: f, Limit: s.cfg.PageSize}
	v.LastSeq = s.tail.LastSeq()
	v.Rows, v.Matched = s.tail.Latest(f, s.cfg.PageSize)
	if v.Matched > len(v.Rows) {
		v.Older = v.Rows[len(v.Rows)-1].Seq
	}
	v.Kept = s.cfg.Recent
	if st, err := s.cfg.JS.Stream(r.Context(), s.cfg.Streams.Decisions); err == nil {
		if info, err := st.Info(r.Context()); err == nil {
			v.Stored = info.State.Msgs
		}
	}
	s.render(w, r, "decisions", &v)
}

// decisionEvents streams the decisions passing the filter as server-sent
// events ("decision", JSON of a Summary), starting after the sequence
// `since` (the last the page showed), so none falls between the page and
// its stream.
func (s *Server) decisionEvents(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	f, err := filterOf(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	since, err := sequenceParam(r.URL.Query(), "since")
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ch, cancel := s.tail.Subscribe()
	defer cancel()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	send := func(sm Summary) bool {
		if sm.Seq <= since || !f.Match(&sm) {
			return true
		}
		since = sm.Seq
		data, _ := json.Marshal(sm)
		if _, err := fmt.Fprintf(w, "event: decision\nid: %d\ndata: %s\n\n", sm.Seq, data); err != nil {
			return false
		}
		return true
	}
	backlog, _ := s.tail.Latest(f, s.cfg.PageSize)
	slices.Reverse(backlog)
	for _, sm := range backlog {
		if !send(sm) {
			return
		}
	}
	fmt.Fprint(w, ": connected\n\n")
	fl.Flush()
	ping := time.NewTicker(15 * time.Second)
	defer ping.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-ping.C:
			if _, err := fmt.Fprint(w, ": ping\n\n"); err != nil {
				return
			}
			fl.Flush()
		case sm, open := <-ch:
			if !open || !send(sm) {
				return
			}
			fl.Flush()
		}
	}
}

// TraceRow is one shortlisted candidate of a recomputed trace.
type TraceRow struct {
	Key, AgentName, SkillName string
	Fused, BM25, Dense        int
	Score, Prob               float64
	Demoted                   bool
	Reason                    string
}

// Trace is a decision's explain trace: what the pipeline's ranked message
// carried, and the filters and retrieval recomputed for the same task.
type Trace struct {
	// RankedSeq is the TASKS sequence of the reranker's message for the
	// task (0: not found, e.g. past the stream's retention).
	RankedSeq  uint64
	Candidates []decide.Option
	TaskText   string
	TaskJSON   string
	Caller     string
	// Recomputed: the requirement, the filters' removals and the
	// retrieval ranks, by the console's current matcher.
	Recomputed  bool
	Requirement *extract.Requirement
	Searched    int
	Rejections  []filter.Rejection
	Shortlist   []TraceRow
	Fingerprint string
	SameCatalog bool
	Calibration string
	Error       string
}

type decisionView struct {
	page
	Seq      uint64
	Subject  string
	Caller   string
	Stored   time.Time
	Decision *wire.Decision
	Request  string
	// StepRequests are a plan's requests, one per step, indented.
	StepRequests []string
	Trace        Trace
}

func (s *Server) decisionPage(w http.ResponseWriter, r *http.Request) {
	seq, err := strconv.ParseUint(r.PathValue("seq"), 10, 64)
	if err != nil || seq == 0 {
		http.Error(w, "a decision is named by its stream sequence", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	st, err := s.cfg.JS.Stream(ctx, s.cfg.Streams.Decisions)
	if err != nil {
		s.fail(w, r, "opening the decisions stream", err)
		return
	}
	raw, err := st.GetMsg(ctx, seq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		http.Error(w, fmt.Sprintf("no decision at sequence %d (deleted, or past the stream's end)", seq), http.StatusNotFound)
		return
	}
	if err != nil {
		s.fail(w, r, "reading the decision", err)
		return
	}
	d, err := wire.DecodeDecision(raw.Data)
	if err != nil {
		http.Error(w, fmt.Sprintf("message %d is not a decision: %v", seq, err), http.StatusUnprocessableEntity)
		return
	}
	caller, _ := wire.CallerOfDecision(raw.Subject)
	v := decisionView{page: s.page(r, "decisions", "Decision "+d.TaskID), Seq: seq, Subject: raw.Subject, Caller: caller,
		Stored: raw.Time, Decision: d}
	if d.Request != nil {
		if b, err := json.MarshalIndent(d.Request, "", "  "); err == nil {
			v.Request = clipText(string(b), 16<<10)
		}
	}
	for _, r := range d.StepRequests {
		if b, err := json.MarshalIndent(r, "", "  "); err == nil {
			v.StepRequests = append(v.StepRequests, clipText(string(b), 16<<10))
		}
	}
	at := d.DecidedAt
	if at.IsZero() {
		at = raw.Time
	}
	v.Trace = s.trace(ctx, caller, d, at)
	s.render(w, r, "decision", &v)
}

// rankedScanLimit bounds the TASKS messages read to find a decision's
// ranked message.
const rankedScanLimit = 50000

// rankedWindows are how long before its decision a task's ranked message
// is looked for: the decider usually follows the reranker within
// milliseconds, but a held or redelivered task may wait minutes.
var rankedWindows = []time.Duration{10 * time.Second, 10 * time.Minute}

// findRanked looks for the reranker's message of a caller's task in the
// tasks stream, from shortly before the decision: its Nats-Msg-Id names
// the caller, the task and the step.
func (s *Server) findRanked(ctx context.Context, caller, taskID string, at time.Time) (*wire.Ranked, uint64, error) {
	st, err := s.cfg.JS.Stream(ctx, s.cfg.Streams.Tasks)
	if err != nil {
		return nil, 0, err
	}
	for _, w := range rankedWindows {
		rk, seq, err := scanRanked(ctx, st, pipeline.MsgID(caller, taskID, "ranked"), at.Add(-w), at)
		if rk != nil || err != nil {
			return rk, seq, err
		}
	}
	return nil, 0, nil
}

// scanRanked reads the ranked messages stored from `from` until shortly
// after `at` (at most rankedScanLimit) for the one with the message id.
func scanRanked(ctx context.Context, st jetstream.Stream, want string, from, at time.Time) (*wire.Ranked, uint64, error) {
	cons, err := st.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{FilterSubjects: []string{wire.SubjectRanked},
		DeliverPolicy: jetstream.DeliverByStartTimePolicy, OptStartTime: &from})
	if err != nil {
		return nil, 0, err
	}
	scanned := 0
	for scanned < rankedScanLimit {
		batch, err := cons.FetchNoWait(500)
		if err != nil {
			return nil, 0, err
		}
		got := 0
		for m := range batch.Messages() {
			got++
			md, err := m.Metadata()
			if err != nil {
				continue
			}
			if m.Headers().Get(jetstream.MsgIDHeader) == want {
				rk, err := wire.DecodeRanked(m.Data())
				return rk, md.Sequence.Stream, err
			}
			if md.Timestamp.After(at.Add(time.Minute)) || md.NumPending == 0 {
				return nil, 0, nil
			}
		}
		scanned += got
		if got == 0 {
			if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
				return nil, 0, err
			}
			return nil, 0, nil
		}
	}
	return nil, 0, nil
}

// trace builds a decision's explain trace.
func (s *Server) trace(ctx context.Context, caller string, d *wire.Decision, at time.Time) Trace {
	var tr Trace
	rk, seq, err := s.findRanked(ctx, caller, d.TaskID, at)
	switch {
	case err != nil:
		tr.Error = "could not read the tasks stream: " + err.Error()
		return tr
	case rk == nil:
		tr.Error = "the task's ranked message is no longer in the tasks stream (past its retention), so the trace cannot be recomputed"
		return tr
	}
	tr.RankedSeq, tr.Candidates = seq, rk.Candidates
	t, err := task.Parse(rk.Task)
	if err != nil {
		tr.Error = "the task in the ranked message does not parse: " + err.Error()
		return tr
	}
	tr.Caller = t.Caller.ID
	var texts []string
	for _, p := range t.Message.Parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	tr.TaskText = clipText(strings.Join(texts, "\n"), 8<<10)
	if b, err := json.MarshalIndent(json.RawMessage(rk.Task), "", "  "); err == nil {
		tr.TaskJSON = clipText(string(b), 16<<10)
	}
	m := s.cfg.Matcher()
	if m == nil {
		tr.Error = "no matcher is built yet, so the filters and retrieval cannot be recomputed"
		return tr
	}
	tr.Recomputed = true
	tr.Fingerprint = pipeline.SnapshotFingerprint(m)
	tr.SameCatalog = tr.Fingerprint == d.Catalog
	req := m.Extract(t)
	tr.Requirement = &req
	tr.Rejections = m.Rejections(&req)
	sl, err := m.Shortlist(ctx, &req)
	if err != nil {
		tr.Error = "recomputing the shortlist: " + err.Error()
		return tr
	}
	tr.Searched = sl.Retrieval.Allowed
	cal, calNote := s.calibration(ctx)
	tr.Calibration = calNote
	ranked, err := m.RankCalibrated(ctx, &req, sl, cal)
	if err != nil {
		tr.Error = "recomputing the ranking: " + err.Error()
		return tr
	}
	for _, c := range ranked {
		row := TraceRow{Fused: c.FusedRank, BM25: c.BM25Rank, Dense: c.DenseRank, Score: c.Score, Prob: c.Prob,
			Demoted: c.Demoted, Reason: c.Reason}
		if c.Entry != nil {
			row.Key, row.AgentName, row.SkillName = c.Entry.Key, c.Entry.AgentName, c.Entry.Name
		}
		tr.Shortlist = append(tr.Shortlist, row)
	}
	return tr
}

// calibration is the calibration the reranker applies now: the refitted
// one in the model bucket, else the model's own (nil).
func (s *Server) calibration(ctx context.Context) (calibrate.Calibrator, string) {
	kv, err := s.cfg.JS.KeyValue(ctx, s.cfg.ModelBucket)
	if err != nil {
		return nil, "the model's own calibration (model bucket unreadable: " + err.Error() + ")"
	}
	e, err := kv.Get(ctx, wire.ModelKeyCalibration)
	if err != nil {
		return nil, "the model's own calibration (no refit published)"
	}
	var m calibrate.Model
	if err := json.Unmarshal(e.Value(), &m); err != nil {
		return nil, "the model's own calibration (the published refit does not decode)"
	}
	return m, fmt.Sprintf("the refitted calibration (%s, model bucket revision %d)", m.Method(), e.Revision())
}
