package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/learn/eval"
	"github.com/skillmatch/skillmatch/shared/learn/golden"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

func cmdReplay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("replay", "replay [--from SEQ|TIME] [--to SEQ|TIME] [--nats URL]",
		"Replays the tasks submitted to a pipeline (the "+wire.SubjectSubmitted+" messages of the\n"+
			"submissions stream) through the current matcher, built in this process from the catalog\n"+
			"bucket "+wire.BucketCatalog+", and prints how many tasks it would delegate, plan, clarify and\n"+
			"abstain on. Where the outcomes stream carries labels for a task (an outcome's rightSkill,\n"+
			"\"none\" for no skill; or a successful outcome, whose skill was then right) it prints the\n"+
			"eval figures on those tasks.\n"+
			"Nothing is published: the running pipeline is not disturbed.\n\n"+
			"--from and --to take a stream sequence (42), a time (2026-11-29T10:00:00Z or 2026-11-29)\n"+
			"or a duration back from now (24h); both ends are inclusive. The submissions stream keeps tasks\n"+
			"for its max age (`skillmatch run --tasks-max-age`, default 7 days).", stderr)
	nf := addNATSFlags(fs)
	from := fs.String("from", "", "first task to replay: SEQ, TIME or a duration ago (default: the first in the stream)")
	to := fs.String("to", "", "last task to replay: SEQ, TIME or a duration ago (default: the last now in the stream)")
	submissionsStream := fs.String("stream-submissions", pipeline.DefaultStreams.Submissions, "submissions stream")
	outcomesStream := fs.String("stream-outcomes", pipeline.DefaultStreams.Outcomes, "outcomes stream")
	bucket := fs.String("bucket", wire.BucketCatalog, "catalog KV bucket")
	timeout := fs.Duration("timeout", 10*time.Minute, "time limit for the whole replay")
	mf := matcherFlags(fs)
	var asJSON jsonFlag
	asJSON.Register(fs, "print the catalog, counts and eval figures")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: replay takes no arguments (got %q)", errUsage, pos[0])
	}
	now := time.Now()
	lo, err := parseBound(*from, now)
	if err != nil {
		return fmt.Errorf("%w: --from: %v", errUsage, err)
	}
	hi, err := parseBound(*to, now)
	if err != nil {
		return fmt.Errorf("%w: --to: %v", errUsage, err)
	}
	if lo.after(hi) {
		return fmt.Errorf("%w: --from %s is after --to %s: no task can be in between", errUsage, *from, *to)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	nc, js, kv, err := nf.connectCatalog(ctx, "skillmatch replay", *bucket)
	if err != nil {
		return err
	}
	defer nc.Close()
	cat, rev, errs := pipeline.LoadCatalogKV(ctx, kv)
	for _, e := range errs {
		fmt.Fprintf(stderr, "catalog entry skipped: %v\n", e)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	build, err := mf.Builder(nil)
	if err != nil {
		return err
	}
	m, err := build(cat)
	if err != nil {
		return err
	}
	if !asJSON.On() {
		fmt.Fprintf(stdout, "catalog: bucket %s revision %d, %d agents, %d skills\n", *bucket, rev, len(cat.Agents), len(cat.Skills()))
	}
	res, err := replay(ctx, js, m, *submissionsStream, *outcomesStream, lo, hi)
	if err != nil {
		return err
	}
	if asJSON.On() {
		return asJSON.Write(stdout, res.document(*bucket, rev))
	}
	res.print(stdout)
	return nil
}

// replayDocument is `replay --json`.
type replayDocument struct {
	Catalog struct {
		Bucket   string `json:"bucket"`
		Revision uint64 `json:"revision"`
		Agents   int    `json:"agents"`
		Skills   int    `json:"skills"`
	} `json:"catalog"`
	FirstSeq  uint64                `json:"firstSeq"`
	LastSeq   uint64                `json:"lastSeq"`
	Tasks     int                   `json:"tasks"`
	Invalid   int                   `json:"invalid"`
	Repeated  int                   `json:"repeated"`
	Decisions map[decide.Action]int `json:"decisions"`
	Labelled  int                   `json:"labelled"`
	Failures  int                   `json:"failures"`
	// Report has eval --json's figures; null without labelled outcomes.
	Report *eval.Report `json:"report"`
}

func (r *replayResult) document(bucket string, rev uint64) *replayDocument {
	d := &replayDocument{FirstSeq: r.FirstSeq, LastSeq: r.LastSeq, Tasks: r.Tasks, Invalid: r.Invalid, Repeated: r.Repeated,
		Decisions: map[decide.Action]int{decide.Delegate: 0, decide.Clarify: 0, decide.Abstain: 0},
		Labelled:  r.Labelled, Failures: r.Failures, Report: r.Report}
	d.Catalog.Bucket, d.Catalog.Revision, d.Catalog.Agents, d.Catalog.Skills = bucket, rev, r.Agents, r.Skills
	for a, n := range r.Actions {
		d.Decisions[a] = n
	}
	return d
}

// bound is one end of a replay range: a sequence or a time (zero: open).
type bound struct {
	seq uint64
	at  time.Time
}

// after says whether lower bound b leaves nothing up to upper bound hi:
// both sequences or both times, b past hi. A sequence and a time are not
// compared (the stream maps one to the other).
func (b bound) after(hi bound) bool {
	switch {
	case b.seq > 0 && hi.seq > 0:
		return b.seq > hi.seq
	case !b.at.IsZero() && !hi.at.IsZero():
		return b.at.After(hi.at)
	}
	return false
}

func parseBound(s string, now time.Time) (bound, error) {
	if s == "" {
		return bound{}, nil
	}
	if n, err := strconv.ParseUint(s, 10, 64); err == nil {
		if n == 0 {
			return bound{}, errors.New("sequences start at 1")
		}
		return bound{seq: n}, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return bound{at: t}, nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return bound{at: now.Add(-d)}, nil
	}
	return bound{}, fmt.Errorf("%q: want a sequence number, an RFC 3339 time, a date or a duration", s)
}

// replayResult is what a replay found.
type replayResult struct {
	FirstSeq, LastSeq uint64
	Tasks             int // distinct valid tasks replayed
	Invalid           int // submitted messages the extractor would dead-letter
	Repeated          int // task ids seen again in the range (replayed once)
	Actions           map[decide.Action]int
	// Labelled counts the tasks an outcome labels; Failures the tasks
	// whose only outcomes are failures without a right skill (not scored).
	Labelled, Failures int
	Report             *eval.Report // nil without labels
	Agents, Skills     int          // of the catalog replayed on
}

func (r *replayResult) print(w io.Writer) {
	if r.Tasks+r.Invalid == 0 {
		fmt.Fprintln(w, "no submitted tasks in the range")
		return
	}
	fmt.Fprintf(w, "replayed %d tasks (submissions stream seq %d-%d", r.Tasks, r.FirstSeq, r.LastSeq)
	if r.Invalid > 0 {
		fmt.Fprintf(w, "; %d invalid, dead-lettered by the extractor", r.Invalid)
	}
	if r.Repeated > 0 {
		fmt.Fprintf(w, "; %d repeated ids counted once", r.Repeated)
	}
	fmt.Fprintln(w, ")")
	fmt.Fprintf(w, "  decisions            %d delegate, %d clarify, %d abstain",
		r.Actions[decide.Delegate], r.Actions[decide.Clarify], r.Actions[decide.Abstain])
	if n := r.Actions[decide.Plan]; n > 0 {
		fmt.Fprintf(w, ", %d plan", n)
	}
	fmt.Fprintln(w)
	if r.Report == nil {
		fmt.Fprintln(w, "no labelled outcomes for these tasks: no eval figures")
		if r.Failures > 0 {
			fmt.Fprintf(w, "(%d tasks have only failed outcomes without a rightSkill, which do not say what was right)\n", r.Failures)
		}
		return
	}
	fmt.Fprintf(w, "labelled by outcomes: %d tasks", r.Labelled)
	if r.Failures > 0 {
		fmt.Fprintf(w, " (%d more have only failed outcomes without a rightSkill: not scored)", r.Failures)
	}
	fmt.Fprintln(w)
	printReport(w, "replay", "labelled", r.Agents, r.Skills, r.Report)
}

// label is what the outcomes say was right for a task.
type label struct {
	right   string // expected skill key; "" = no skill fits
	known   bool   // right is known
	failure bool   // only failures seen
}

// readLabels reads the outcomes stream into labels by decision id. A
// rightSkill beats a success, and a later outcome beats an earlier one of
// the same kind.
func readLabels(ctx context.Context, js jetstream.JetStream, stream string) (map[string]*label, error) {
	out := map[string]*label{}
	fromRight := map[string]bool{}
	err := readStream(ctx, js, stream, nil, bound{}, bound{}, func(m jetstream.Msg, _ *jetstream.MsgMetadata) {
		data := m.Data()
		o, err := wire.DecodeOutcome(data)
		if err != nil {
			return
		}
		id := o.DecisionID
		if o.TaskID != "" && id == "" {
			caller, _ := wire.CallerOf(wire.SubjectOutcome, m.Subject())
			id = wire.DecisionID(caller, o.TaskID)
		}
		l := out[id]
		if l == nil {
			l = &label{}
			out[id] = l
		}
		switch {
		case o.RightSkill != "":
			l.right, l.known, l.failure = o.RightSkill, true, false
			if o.RightSkill == "none" {
				l.right = ""
			}
			fromRight[id] = true
		case o.Success && !fromRight[id]:
			l.right, l.known, l.failure = o.Skill, true, false
		case !o.Success && !l.known:
			l.failure = true
		}
	})
	return out, err
}

// readStream reads the stream in the range with pipeline.ReadStream.
func readStream(ctx context.Context, js jetstream.JetStream, name string, filter []string, lo, hi bound,
	fn func(jetstream.Msg, *jetstream.MsgMetadata)) error {
	return pipeline.ReadStream(ctx, js, name, pipeline.Range{Subjects: filter, FromSeq: lo.seq, FromTime: lo.at, ToSeq: hi.seq, ToTime: hi.at}, fn)
}

// replay runs the submitted tasks in the range through m and scores the
// labelled ones.
func replay(ctx context.Context, js jetstream.JetStream, m *match.Matcher, submissions, outcomesStream string, lo, hi bound) (*replayResult, error) {
	labels, err := readLabels(ctx, js, outcomesStream)
	if err != nil {
		return nil, err
	}
	r := &replayResult{Actions: map[decide.Action]int{}, Agents: len(m.Catalog().Agents), Skills: m.Index().Len()}
	seen := map[string]bool{}
	var outs []eval.Outcome
	var matchErr error
	err = readStream(ctx, js, submissions, wire.SubjectsSubmitted, lo, hi, func(msg jetstream.Msg, md *jetstream.MsgMetadata) {
		data := msg.Data()
		if matchErr != nil {
			return
		}
		if r.FirstSeq == 0 {
			r.FirstSeq = md.Sequence.Stream
		}
		r.LastSeq = md.Sequence.Stream
		sub, err := wire.DecodeTaskSubmitted(data)
		if err != nil {
			r.Invalid++
			return
		}
		t, err := task.Parse(sub.Task)
		if err != nil {
			r.Invalid++
			return
		}
		// As the extractor does: the caller is the subject's.
		caller, err := wire.CallerOf(wire.SubjectSubmitted, msg.Subject())
		if err != nil {
			r.Invalid++
			return
		}
		t.Caller.ID = caller
		if seen[t.ID] {
			r.Repeated++
			return
		}
		seen[t.ID] = true
		start := time.Now()
		res, err := m.Match(ctx, t)
		if err != nil {
			matchErr = fmt.Errorf("task %s: %w", t.ID, err)
			return
		}
		lat := time.Since(start)
		r.Tasks++
		r.Actions[res.Decision.Action]++
		l := labels[wire.DecisionID(caller, t.ID)]
		switch {
		case l == nil:
			return
		case !l.known:
			r.Failures++
			return
		}
		r.Labelled++
		outs = append(outs, eval.OutcomeOf(m.Policy(), &golden.Task{ID: t.ID, Expected: l.right}, res, lat))
	})
	if err != nil {
		return nil, err
	}
	if matchErr != nil {
		return nil, matchErr
	}
	if len(outs) > 0 {
		r.Report = eval.Score(outs)
	}
	return r, nil
}
