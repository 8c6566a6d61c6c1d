package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/pipeline/batch"
	"github.com/skillmatch/skillmatch/shared/pipeline/client"
	"github.com/skillmatch/skillmatch/shared/pipeline/natsbox"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
)

// bigCatalog copies the example catalog until it has at least n skills,
// each copy under new agent ids.
func bigCatalog(tb testing.TB, n int) *catalog.Catalog {
	base, errs := catalog.LoadDir(exampleDir())
	if len(errs) > 0 {
		tb.Fatal(errs)
	}
	var agents []catalog.Agent
	skills := 0
	for copyN := 0; skills < n; copyN++ {
		for _, a := range base.Agents {
			c := *a.Card
			c.ID = fmt.Sprintf("%s-%02d", c.ID, copyN)
			c.Skills = slices.Clone(c.Skills)
			agents = append(agents, catalog.Agent{Card: &c, Status: a.Status})
			skills += len(c.Skills)
		}
	}
	return catalog.New(agents...)
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkPipeline measures the embedded pipeline over about 1,000 skills
// next to the in-process core on the same tasks: end-to-end latency with
// one task in flight (median, p99) and throughput with all tasks (3,000;
// SKILLMATCH_BENCH_TASKS sets another number) published at once. It runs
// the pipeline three times in one run: on the default store ("default-"),
// and on a server that fsyncs every write (sync_interval always, as
// deploy/nats and run --sync-always configure it, with the deciders' group
// commit) with the flood published two ways: one by one, each submission
// its own publish in flight ("synced-"), and by 64 concurrent submitters
// through a client that group-commits their submissions
// ("synced-grouped-"). It reports the ratios of the synced throughputs to
// the default's, "writes/task", the synced messages each task cost, and
// "cpu-ms/task", the CPU time (stages and server) each flooded task cost,
// which, unlike the rates, holds on a machine others load too,
// "msgs/task", the messages the server took in and sent out per flooded
// task, "first-ms", when the flood's first decision came, and, with
// group commit, "decisions/batch", how many decisions shared each atomic
// batch's fsync in the flood. Run: go
// test -run '^$' -bench Pipeline -benchtime 1x -count 5 ./shared/pipeline/
func BenchmarkPipeline(b *testing.B) {
	cat := bigCatalog(b, 1000)
	m, err := match.New(cat, match.WithEmbedder(embed.Default()))
	if err != nil {
		b.Fatal(err)
	}
	n := 3000
	if v, err := strconv.Atoi(os.Getenv("SKILLMATCH_BENCH_TASKS")); err == nil && v > 0 {
		n = v
	}
	tasks := genTasks(m, n, 9)
	ctx := context.Background()
	for range b.N {
		// In process.
		var inproc []time.Duration
		t0 := time.Now()
		for _, tk := range tasks {
			s := time.Now()
			if _, err := m.Match(ctx, tk); err != nil {
				b.Fatal(err)
			}
			inproc = append(inproc, time.Since(s))
		}
		inprocRate := float64(len(tasks)) / time.Since(t0).Seconds()
		b.ReportMetric(float64(len(cat.Skills())), "skills")
		b.ReportMetric(ms(percentile(inproc, 0.5)), "inproc-p50-ms")
		b.ReportMetric(ms(percentile(inproc, 0.99)), "inproc-p99-ms")
		b.ReportMetric(inprocRate, "inproc-tasks/s")

		rates := map[string]float64{}
		for _, store := range []struct {
			name          string
			sync, grouped bool
		}{{"default", false, false}, {"synced", true, false}, {"synced-grouped", true, true}} {
			// SKILLMATCH_BENCH_STORES=default,synced runs only those.
			if only := os.Getenv("SKILLMATCH_BENCH_STORES"); only != "" && !slices.Contains(strings.Split(only, ","), store.name) {
				continue
			}
			pipe, rate, writes, cpu := benchPipelineRun(ctx, b, m, tasks, store.sync, store.grouped)
			b.ReportMetric(cpu, store.name+"-cpu-ms/task")
			if store.sync {
				b.ReportMetric(writes, store.name+"-writes/task")
			}
			b.ReportMetric(ms(percentile(pipe, 0.5)), store.name+"-p50-ms")
			b.ReportMetric(ms(percentile(pipe, 0.99)), store.name+"-p99-ms")
			b.ReportMetric(rate, store.name+"-tasks/s")
			rates[store.name] = rate
		}
		if rates["default"] > 0 {
			b.ReportMetric(rates["synced"]/rates["default"], "synced/default")
			b.ReportMetric(rates["synced-grouped"]/rates["default"], "synced-grouped/default")
		}
	}
}

// benchPipelineRun starts a server (fsyncing every write when sync) and
// the stages, then measures latency with one task in flight (the first
// 300 tasks) and throughput with all tasks published at once. writes is
// the messages per task the streams that sync every write stored (file
// streams not in the async persist mode, buckets included): what a task
// costs in fsyncs under sync_interval always (consumer acks apart, which
// the server writes at most ten times a second).
func benchPipelineRun(ctx context.Context, b *testing.B, m *match.Matcher, tasks []*task.Task, sync, grouped bool) (pipe []time.Duration, rate, writes, cpuPerTask float64) {
	srv, err := natsbox.Start(natsbox.Config{DataDir: b.TempDir(), InProcess: true, SyncAlways: sync})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Shutdown()
	nc, js := connectJS(b, srv)
	defer nc.Close()
	cfg := testConfig(b)
	cfg.Workers = 1
	cfg.BackOff = []time.Duration{30 * time.Second}
	// SKILLMATCH_BENCH_INFLIGHT=1 measures synchronous publishing;
	// SKILLMATCH_BENCH_TASKS_SYNCED=1 syncs the stage messages too
	// (Config.TasksSynced), the alternative the README compares.
	if v, err := strconv.Atoi(os.Getenv("SKILLMATCH_BENCH_INFLIGHT")); err == nil {
		cfg.MaxInFlight = v
	}
	cfg.TasksSynced = os.Getenv("SKILLMATCH_BENCH_TASKS_SYNCED") == "1"
	// The synced store group-commits the deciders' writes, as run
	// --sync-always does (SKILLMATCH_BENCH_GROUP=0: not).
	cfg.GroupCommit = sync && os.Getenv("SKILLMATCH_BENCH_GROUP") != "0"
	if v, err := strconv.Atoi(os.Getenv("SKILLMATCH_BENCH_DECIDERS")); err == nil {
		cfg.DeciderWorkers = v
	}
	g, err := StartAll(ctx, js, NewSnapshots(m), cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer g.Stop()
	arrived := make(chan string, len(tasks))
	sub, err := nc.Subscribe(wire.SubjectDecisions, func(msg *nats.Msg) {
		var d struct {
			TaskID string `json:"taskId"`
		}
		_ = json.Unmarshal(msg.Data, &d)
		arrived <- d.TaskID
	})
	if err != nil {
		b.Fatal(err)
	}
	defer sub.Unsubscribe() //nolint:errcheck
	// One task in flight.
	n := 0
	for i, tk := range tasks[:min(300, len(tasks))] {
		lt := *tk
		lt.ID = fmt.Sprintf("lat-%04d", i)
		s := time.Now()
		if _, err := Publish(ctx, js, &lt); err != nil {
			b.Fatal(err)
		}
		for id := range arrived {
			if id == lt.ID {
				break
			}
		}
		pipe = append(pipe, time.Since(s))
		n++
	}
	// Flood.
	commits := func() batch.Stats { return batch.Stats{} }
	if ids, ok := g.Decider.cfg.Decided.(*TaskIDs); ok && ids.group != nil {
		commits = ids.group.Stats
	}
	before := commits()
	stopProf := profileFlood(b, store(sync, grouped))
	msgs0 := serverMsgs(b, srv)
	cpu0 := cpuTime()
	t0 := time.Now()
	if grouped {
		c := client.New(js, client.WithGroupCommit())
		const submitters = 64
		for s := range submitters {
			go func() {
				for i := s; i < len(tasks); i += submitters {
					ft := *tasks[i]
					ft.ID = fmt.Sprintf("flood-%04d", i)
					if _, err := c.Publish(ctx, &ft); err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
	} else {
		for i, tk := range tasks {
			ft := *tk
			ft.ID = fmt.Sprintf("flood-%04d", i)
			raw, _ := json.Marshal(wire.TaskSubmitted{V: wire.Version, Task: mustJSON(&ft)})
			if _, err := js.PublishAsync(wire.SubjectSubmitted, raw); err != nil {
				b.Fatal(err)
			}
		}
	}
	for n := 0; n < len(tasks); {
		select {
		case <-arrived:
			if n++; n == 1 {
				// How long the flood's first task took: on a synced
				// server, mostly the wait for the burst of submissions to
				// be written (nats-server delivers none of a stream's
				// messages while it stores a burst it received).
				b.ReportMetric(ms(time.Since(t0)), store(sync, grouped)+"-first-ms")
			}
		case <-time.After(120 * time.Second):
			b.Fatalf("flood: %d of %d decided", n, len(tasks))
		}
	}
	rate = float64(len(tasks)) / time.Since(t0).Seconds()
	cpuPerTask = ms(cpuTime()-cpu0) / float64(len(tasks))
	stopProf()
	// Messages the server took in and sent out (publishes, acks, pull
	// requests, deliveries, replies) per flooded task: its work, counted,
	// which unlike the rates holds on a loaded machine.
	b.ReportMetric(float64(serverMsgs(b, srv)-msgs0)/float64(len(tasks)), store(sync, grouped)+"-msgs/task")
	if after := commits(); after.Batches > before.Batches {
		// How widely the decisions' atomic batches shared their fsyncs.
		b.ReportMetric(float64(after.Batched-before.Batched)/float64(after.Batches-before.Batches), store(sync, grouped)+"-decisions/batch")
	}

	n += len(tasks)
	var stored uint64
	for info := range js.ListStreams(ctx).Info() {
		if info.Config.Storage == jetstream.FileStorage && info.Config.PersistMode != jetstream.AsyncPersistMode {
			stored += info.State.LastSeq
		}
	}
	return pipe, rate, float64(stored) / float64(n), cpuPerTask
}

// serverMsgs is how many messages the server has taken in and sent out.
func serverMsgs(b *testing.B, srv *natsbox.Server) int64 {
	v, err := srv.NATS().Varz(nil)
	if err != nil {
		b.Fatal(err)
	}
	return v.InMsgs + v.OutMsgs
}

// cpuTime is the CPU time the process (stages and embedded server) has
// used so far, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// store names a benchPipelineRun configuration as BenchmarkPipeline does.
func store(sync, grouped bool) string {
	switch {
	case grouped:
		return "synced-grouped"
	case sync:
		return "synced"
	}
	return "default"
}

// profileFlood profiles the flood when SKILLMATCH_BENCH_PROFILE names a
// directory: <store>.cpu, its CPU profile, and <store>.wall.NNNN,
// goroutine profiles taken every 50 ms, which show where the goroutines
// wait (fsyncs, round trips, locks, channels) as well as where they run:
// the off-CPU side a CPU profile misses. go tool pprof merges them when
// given all: go tool pprof -top pipeline.test dir/synced.wall.*. It
// returns the function that stops profiling.
func profileFlood(b *testing.B, name string) (stop func()) {
	dir := os.Getenv("SKILLMATCH_BENCH_PROFILE")
	if dir == "" {
		return func() {}
	}
	cpu, err := os.Create(filepath.Join(dir, name+".cpu"))
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		b.Fatal(err)
	}
	done, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s.wall.%04d", name, i)))
			if err != nil {
				b.Error(err)
				return
			}
			_ = pprof.Lookup("goroutine").WriteTo(f, 0)
			_ = f.Close()
		}
	}()
	return func() {
		pprof.StopCPUProfile()
		_ = cpu.Close()
		close(done)
		<-sampled
	}
}

func mustJSON(t *task.Task) json.RawMessage {
	b, err := json.Marshal(t)
	if err != nil {
		panic(err)
	}
	return b
}

// BenchmarkStages runs one task through the four matching handlers in
// process, with the wire encoding between them but no NATS: what the
// pipeline costs in CPU beyond the core (compare BenchmarkMatchInProcess).
// Run: go test -run '^$' -bench 'Stages|MatchInProcess' ./shared/pipeline/
func BenchmarkStages(b *testing.B) {
	m := testMatcher(b)
	s := newTestStages(m)
	tasks := genTasks(m, 500, 5)
	msgs := make([][]byte, len(tasks))
	for i, tk := range tasks {
		msgs[i], _ = json.Marshal(wire.TaskSubmitted{V: wire.Version, Task: mustJSON(tk)})
	}
	ctx := context.Background()
	handlers := []Handler{s.Extract, s.Retrieve, s.Rerank, s.Decide}
	i := 0
	for b.Loop() {
		in := Msg{Subject: wire.SubjectSubmitted, Data: msgs[i%len(msgs)]}
		i++
		for _, h := range handlers {
			r, err := h(ctx, in)
			if err != nil {
				b.Fatal(err)
			}
			if len(r.Out) == 0 {
				break
			}
			in = Msg{Subject: r.Out[0].Subject, Data: r.Out[0].Data}
		}
	}
}

// BenchmarkMatchInProcess is the core on the same tasks as BenchmarkStages.
func BenchmarkMatchInProcess(b *testing.B) {
	m := testMatcher(b)
	tasks := genTasks(m, 500, 5)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		if _, err := m.Match(ctx, tasks[i%len(tasks)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkStageCodecs reads and writes the two largest stage messages,
// Shortlisted and Ranked as the stages make them, with encoding/json
// ("json") and with the package wire's one-pass codecs ("wire"), in one
// run, so that a loaded machine slows both alike. Run: go test -run '^$'
// -bench StageCodecs -count 5 ./shared/pipeline/
func BenchmarkStageCodecs(b *testing.B) {
	m := testMatcher(b)
	s := newTestStages(m)
	ctx := context.Background()
	var sls [][]byte
	var rks [][]byte
	for _, tk := range genTasks(m, 200, 5) {
		raw, _ := json.Marshal(wire.TaskSubmitted{V: wire.Version, Task: mustJSON(tk)})
		in := Msg{Subject: wire.SubjectSubmitted, Data: raw}
		for _, h := range []Handler{s.Extract, s.Retrieve, s.Rerank} {
			r, err := h(ctx, in)
			if err != nil {
				b.Fatal(err)
			}
			in = Msg{Subject: r.Out[0].Subject, Data: r.Out[0].Data}
			switch in.Subject {
			case wire.SubjectShortlisted:
				sls = append(sls, in.Data)
			case wire.SubjectRanked:
				rks = append(rks, in.Data)
			}
		}
	}
	slMsgs := make([]*wire.Shortlisted, len(sls))
	rkMsgs := make([]*wire.Ranked, len(rks))
	for i := range sls {
		slMsgs[i], _ = wire.DecodeShortlisted(sls[i])
		rkMsgs[i], _ = wire.DecodeRanked(rks[i])
	}
	for _, c := range []struct {
		name string
		f    func(i int) error
	}{
		{"decode/json", func(i int) error {
			var sl wire.Shortlisted
			var rk wire.Ranked
			return errors.Join(json.Unmarshal(sls[i], &sl), json.Unmarshal(rks[i], &rk))
		}},
		{"decode/wire", func(i int) error {
			_, err1 := wire.DecodeShortlisted(sls[i])
			_, err2 := wire.DecodeRanked(rks[i])
			return errors.Join(err1, err2)
		}},
		{"encode/json", func(i int) error {
			_, err1 := json.Marshal(slMsgs[i])
			_, err2 := json.Marshal(rkMsgs[i])
			return errors.Join(err1, err2)
		}},
		{"encode/wire", func(i int) error {
			_, err1 := wire.EncodeShortlisted(slMsgs[i])
			_, err2 := wire.EncodeRanked(rkMsgs[i])
			return errors.Join(err1, err2)
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if err := c.f(i % len(sls)); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
