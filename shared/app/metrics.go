package app

import (
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/runtime"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// Metrics are a process's Prometheus metrics, served on /metrics beside
// the health probes: what each stage handled and how long it took, the
// decisions by action, the dead letters by stage and reason, which
// stages hold their deliveries, the catalog and the calibration in use.
type Metrics struct {
	reg       *prometheus.Registry
	handled   *prometheus.CounterVec
	took      *prometheus.HistogramVec
	decisions *prometheus.CounterVec
	dead      *prometheus.CounterVec
	door      *prometheus.CounterVec
	doorTook  *prometheus.HistogramVec
	degraded  *prometheus.CounterVec
	examples  *prometheus.CounterVec
}

// NewMetrics registers the metrics; Watch adds those read from a group.
func NewMetrics() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.handled = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "skillmatch_stage_handled_total",
		Help: "Deliveries each stage handled, by result: ok, dead_letter or error (retried or held)."}, []string{"stage", "result"})
	m.took = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "skillmatch_stage_seconds",
		Help:    "Time a stage's handler took for one delivery.",
		Buckets: []float64{.00005, .0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .5}}, []string{"stage"})
	m.decisions = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "skillmatch_decisions_total",
		Help: "Decisions published, by action (delegate, plan, clarify, abstain); the abstention rate is abstain over all."}, []string{"action"})
	m.dead = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "skillmatch_dead_letters_total",
		Help: "Messages a stage dead-lettered, by the first words of the reason."}, []string{"stage", "reason"})
	m.door = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "skillmatch_frontdoor_requests_total",
		Help: "Requests a front door (a2a, nats) answered, by result: the decision's action, rejected, invalid, no_decision, unauthenticated."},
		[]string{"door", "result"})
	m.doorTook = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "skillmatch_frontdoor_seconds",
		Help:    "Time from a front-door request to its answer (the whole pipeline, for a decision).",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 15}}, []string{"door"})

	m.degraded = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "skillmatch_degraded_total",
		Help: "Tasks a stage handled without its remote model (down, refused or over its time budget), by component:\n" +
			"embedder (retrieved with BM25 alone) or reranker (ranked by the built-in reranker)."}, []string{"component"})
	m.examples = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "skillmatch_examples_total",
		Help: "Verified successes reported on the skill their task was delegated to, by what they taught the catalog:\n" +
			"learned (the request became an example of the skill), known (it was one already), untrusted (refused: the\n" +
			"caller is not trusted to teach) or withheld (refused: confidential data, no text kept)."}, []string{"result"})
	m.reg.MustRegister(m.handled, m.took, m.decisions, m.dead, m.door, m.doorTook, m.degraded, m.examples,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

var (
	_ runtime.Observer         = (*Metrics)(nil)
	_ pipeline.ExampleObserver = (*Metrics)(nil)
)

// ExampleOutcome implements pipeline.ExampleObserver.
func (m *Metrics) ExampleOutcome(result string) { m.examples.WithLabelValues(result).Inc() }

// Handled implements runtime.Observer.
func (m *Metrics) Handled(stage string, took time.Duration, res runtime.Result, deadLetter string, err error) {
	m.took.WithLabelValues(stage).Observe(took.Seconds())
	switch {
	case err != nil:
		m.handled.WithLabelValues(stage, "error").Inc()
		return
	case deadLetter != "":
		m.handled.WithLabelValues(stage, "dead_letter").Inc()
		m.dead.WithLabelValues(stage, reasonClass(deadLetter)).Inc()
		return
	}
	m.handled.WithLabelValues(stage, "ok").Inc()
	for _, outs := range [][]runtime.Output{res.Out, res.Stored} {
		for _, o := range outs {
			if action, ok := wire.ActionOfDecision(o.Subject); ok {
				m.decisions.WithLabelValues(action).Inc()
			}
		}
	}
}

// Degraded counts a task that fell back to the built-in path
// (MatcherFlags.OnDegraded).
func (m *Metrics) Degraded(component string) { m.degraded.WithLabelValues(component).Inc() }

// reasonClass keeps a label's values few: the reason up to its first
// colon (e.g. "bad input: bad message"), at most 48 bytes.
func reasonClass(reason string) string {
	reason = strings.TrimPrefix(reason, "bad input: ")
	if i := strings.IndexByte(reason, ':'); i > 0 {
		reason = reason[:i]
	}
	if len(reason) > 48 {
		reason = reason[:48]
	}
	return reason
}

// Watch adds the gauges read from a running group: which stages hold
// their deliveries, the catalog's size and the calibration revision.
func (m *Metrics) Watch(g *pipeline.Group, snaps *pipeline.Snapshots) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "skillmatch_stages_holding",
		Help: "Stages holding their deliveries because a dependency (Weaviate) is unavailable."},
		func() float64 { return float64(len(g.NotReady())) }))
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "skillmatch_catalog_skills",
		Help: "Skills in the catalog snapshot the matching stages use (0 before one is loaded)."},
		func() float64 {
			if mt := snaps.Matcher(); mt != nil {
				return float64(mt.Index().Len())
			}
			return 0
		}))
	if g.Reranker != nil {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "skillmatch_calibration_revision",
			Help: "Model bucket revision of the calibration the reranker applies (0: the model's own)."},
			func() float64 { return float64(g.Reranker.CalibrationRevision()) }))
	}
}

// FrontDoorAnswered implements a2aserver.Observer.
func (m *Metrics) FrontDoorAnswered(door, result string, took time.Duration) {
	m.door.WithLabelValues(door, result).Inc()
	if result != "unauthenticated" {
		m.doorTook.WithLabelValues(door).Observe(took.Seconds())
	}
}

// Handler serves the metrics.
func (m *Metrics) Handler() http.Handler { return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}) }
