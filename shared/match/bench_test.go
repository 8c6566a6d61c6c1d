package match_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
	"github.com/skillmatch/skillmatch/shared/retrieval/index"
	"github.com/skillmatch/skillmatch/shared/retrieval/vector"
)

// Benchmarks of the whole in-process path over synthetic catalogs.
//
//	go test -run '^$' -bench 'Decision|IndexBuild' -benchtime 300x ./shared/match/
//
// BenchmarkDecision reports ns/op plus the median and 99th percentile of
// single decisions ("p50-µs", "p99-µs"), the CPU time a decision costs
// on all threads ("cpu-µs/op"), the median of each stage
// ("retrieve-p50-µs" with the filters and word alignment, "rerank-p50-µs",
// "decide-p50-µs"), and the fraction of tasks whose
// shortlist equals the one an exact float32 scan of every vector gives
// ("identical"; the int8 first pass is exact by construction, so anything
// below 1 is a bug); BenchmarkIndexBuild reports how many skills a second
// the matcher indexes ("skills/s") and per second of CPU on all threads
// ("skills/cpu-s", what a loaded machine changes least).
//
// Catalogs are generated deterministically (fixed seeds) from the word
// lists at the end of this file: agents of 10 skills, each skill with a
// name, a 15-25 word description, 3 tags and 2-3 examples, a mix of media
// types, a few secured skills and a few degraded, down or external agents.

const (
	skillsPerAgent = 10
	benchTasks     = 200
)

func BenchmarkDecision(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("skills=%d", n), func(b *testing.B) {
			m := benchMatcher(b, n)
			tasks := synthTasks(benchTasks)
			ctx := context.Background()
			lat := make([]time.Duration, b.N)
			var stages [3][]time.Duration // retrieve (with the filters), rerank, decide
			for i := range stages {
				stages[i] = make([]time.Duration, b.N)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := range b.N {
				t0 := time.Now()
				res, err := m.Match(ctx, tasks[i%len(tasks)])
				if err != nil {
					b.Fatal(err)
				}
				lat[i] = time.Since(t0)
				stages[0][i], stages[1][i], stages[2][i] = res.Timings.Retrieve, res.Timings.Rerank, res.Timings.Decide
			}
			b.StopTimer()
			b.ReportMetric(micros((cpuTime()-cpu0)/time.Duration(b.N)), "cpu-µs/op")
			slices.Sort(lat)
			b.ReportMetric(micros(percentile(lat, 50)), "p50-µs")
			b.ReportMetric(micros(percentile(lat, 99)), "p99-µs")
			for i, name := range []string{"retrieve", "rerank", "decide"} {
				slices.Sort(stages[i])
				b.ReportMetric(micros(percentile(stages[i], 50)), name+"-p50-µs")
			}
			b.ReportMetric(identicalShortlists(b, m, tasks), "identical")
		})
	}
}

func BenchmarkIndexBuild(b *testing.B) {
	for _, n := range []int{10000} {
		b.Run(fmt.Sprintf("skills=%d", n), func(b *testing.B) {
			cat := benchCatalog(n)
			embed.Default().EmbedText("warm up") // load the vectors outside the timer
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for range b.N {
				if _, err := match.New(cat, match.WithEmbedder(embed.Default())); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "skills/s")
			b.ReportMetric(float64(n*b.N)/(cpuTime()-cpu0).Seconds(), "skills/cpu-s")
		})
	}
}

// identicalShortlists is the fraction of tasks whose shortlist (candidates
// in order, with their dense scores, and the nearest neighbours) equals the
// one retrieved with the exact float32 scan of every vector.
func identicalShortlists(b *testing.B, m *match.Matcher, tasks []*task.Task) float64 {
	mem, ok := m.Index().(*index.Memory)
	if !ok {
		b.Fatalf("index is a %T, not the memory index", m.Index())
	}
	ref, err := match.New(m.Catalog(), match.WithEmbedder(embed.Default()),
		match.WithIndex(func([]index.Doc, vector.Embedder) (index.Index, error) { return mem.ExactDense(), nil }))
	if err != nil {
		b.Fatal(err)
	}
	ctx, same := context.Background(), 0
	for _, t := range tasks {
		req := m.Extract(t)
		got, err := m.Shortlist(ctx, &req)
		if err != nil {
			b.Fatal(err)
		}
		want, err := ref.Shortlist(ctx, &req)
		if err != nil {
			b.Fatal(err)
		}
		if reflect.DeepEqual(got.Retrieval.Candidates, want.Retrieval.Candidates) &&
			reflect.DeepEqual(got.Retrieval.Neighbors, want.Retrieval.Neighbors) {
			same++
		}
	}
	return float64(same) / float64(len(tasks))
}

// cpuTime is the CPU time the process has used (user and system, every
// thread): on a machine others load too, CPU per decision varies far less
// than its wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// percentile of sorted durations (nearest rank).
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p/100*float64(len(sorted)-1) + 0.5)
	return sorted[i]
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// The testing package runs a benchmark function more than once (N=1, then
// the requested N): catalogs and matchers are built once per size.
var bench struct {
	sync.Mutex
	cats     map[int]*catalog.Catalog
	matchers map[int]*match.Matcher
}

func benchCatalog(skills int) *catalog.Catalog {
	bench.Lock()
	defer bench.Unlock()
	if c, ok := bench.cats[skills]; ok {
		return c
	}
	if bench.cats == nil {
		bench.cats = map[int]*catalog.Catalog{}
	}
	c := synthCatalog(skills)
	bench.cats[skills] = c
	return c
}

func benchMatcher(b *testing.B, skills int) *match.Matcher {
	cat := benchCatalog(skills)
	bench.Lock()
	defer bench.Unlock()
	if m, ok := bench.matchers[skills]; ok {
		return m
	}
	if bench.matchers == nil {
		bench.matchers = map[int]*match.Matcher{}
	}
	before := heapInUse()
	t0 := time.Now()
	m, err := match.New(cat, match.WithEmbedder(embed.Default()))
	if err != nil {
		b.Fatal(err)
	}
	took := time.Since(t0)
	codes := 0
	if mem, ok := m.Index().(*index.Memory); ok {
		codes = mem.CodeBytes()
	}
	// Served matchers are warmed before they serve (app's builders): the
	// decisions measured are those of a matcher in service.
	t1 := time.Now()
	m.Warm()
	warmed := time.Since(t1)
	b.Logf("built the index of %d skills in %v and warmed it in %v; it holds %.0f MB of heap (catalog apart), %.1f MB of them int8 codes",
		skills, took.Round(time.Millisecond), warmed.Round(time.Millisecond), float64(heapInUse()-before)/(1<<20), float64(codes)/(1<<20))
	bench.matchers[skills] = m
	return m
}

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// ---------------------------------------------------------------------------
// Synthetic catalogs and tasks.

type gen struct{ r *rand.Rand }

func newGen(seed uint64) *gen { return &gen{rand.New(rand.NewPCG(seed, 0x5eed))} }

func (g *gen) pick(list []string) string { return list[g.r.IntN(len(list))] }

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

var (
	inputSets = [][]string{
		{"text/plain"},
		{"text/plain", "application/pdf"},
		{"application/pdf", "text/html", "text/plain"},
		{"text/csv", "application/json", "text/plain"},
		{"image/*", "application/pdf"},
		{"audio/*"},
		{"*/*"},
		{"text/plain", "application/json"},
	}
	outputSets = [][]string{
		{"text/plain"},
		{"application/json"},
		{"text/plain", "text/markdown"},
		{"image/png", "image/svg+xml"},
		{"application/pdf", "text/plain"},
		{"text/csv", "application/json"},
	}
)

func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// synthCatalog builds ceil(skills/10) agents of 10 skills, deterministically.
func synthCatalog(skills int) *catalog.Catalog {
	g := newGen(uint64(skills))
	agents := make([]catalog.Agent, 0, (skills+skillsPerAgent-1)/skillsPerAgent)
	for i := 0; i*skillsPerAgent < skills; i++ {
		domain := g.pick(benchDomains)
		c := &card.Card{
			ID:                 fmt.Sprintf("agent-%06d", i),
			Name:               title(g.pick(benchAdjectives)) + " " + title(domain) + " " + title(g.pick(benchNouns)),
			Description:        "Works for " + domain + " teams.",
			Version:            "1.0.0",
			Streaming:          g.chance(0.3),
			DefaultInputModes:  inputSets[g.r.IntN(len(inputSets))],
			DefaultOutputModes: outputSets[g.r.IntN(len(outputSets))],
			SecuritySchemes:    []string{"oauth"},
		}
		if g.chance(0.1) {
			c.Security = []card.Requirement{{"oauth": {domain + ".read"}}}
		}
		for j := 0; j < skillsPerAgent && i*skillsPerAgent+j < skills; j++ {
			c.Skills = append(c.Skills, g.skill(j, domain))
		}
		st := catalog.DefaultStatus
		switch x := g.r.Float64(); {
		case x < 0.01:
			st.Health = catalog.Down
		case x < 0.06:
			st.Health = catalog.Degraded
		case x < 0.09:
			st.External, st.Clearance = true, catalog.Public
		case x < 0.3:
			st.Clearance = catalog.Confidential
		}
		agents = append(agents, catalog.Agent{Card: c, Status: st})
	}
	return catalog.New(agents...)
}

func (g *gen) skill(j int, domain string) card.Skill {
	verb, adj, noun, noun2 := g.pick(benchVerbs), g.pick(benchAdjectives), g.pick(benchNouns), g.pick(benchNouns)
	s := card.Skill{
		ID:          fmt.Sprintf("s%02d-%s-%s", j, verb, noun),
		Name:        title(verb) + " " + adj + " " + noun,
		Description: g.description(domain, verb, adj, noun, noun2),
		Tags:        []string{domain, noun, noun2},
	}
	for range 2 + g.r.IntN(2) {
		s.Examples = append(s.Examples, g.example(domain, verb, adj, noun, noun2))
	}
	if g.chance(0.2) {
		s.InputModes = inputSets[g.r.IntN(len(inputSets))]
	}
	if g.chance(0.1) {
		s.OutputModes = outputSets[g.r.IntN(len(outputSets))]
	}
	if g.chance(0.03) {
		s.Security = []card.Requirement{{"oauth": {domain + ".read", domain + ".write"}}}
		s.HasSecurity = true
	}
	return s
}

// description is 15 to 25 words about the skill.
func (g *gen) description(domain, verb, adj, noun, noun2 string) string {
	n := 15 + g.r.IntN(11)
	w := []string{"Helps", domain, "teams", verb, adj, noun}
	for len(w) < n {
		switch g.r.IntN(5) {
		case 0:
			w = append(w, "and", g.pick(benchVerbs), noun2)
		case 1:
			w = append(w, "from", g.pick(benchAdjectives), g.pick(benchNouns))
		case 2:
			w = append(w, "for", g.pick(benchDomains), g.pick(benchNouns))
		case 3:
			w = append(w, "with", g.pick(benchAdjectives), g.pick(benchNouns), "and", g.pick(benchNouns))
		default:
			w = append(w, "across", g.pick(benchPlaces), "every", g.pick(benchTimes))
		}
	}
	return strings.Join(w[:n], " ") + "."
}

func (g *gen) example(domain, verb, adj, noun, noun2 string) string {
	switch g.r.IntN(4) {
	case 0:
		return "please " + verb + " the " + adj + " " + noun + " for our " + domain + " team"
	case 1:
		return verb + " " + noun + " from " + title(g.pick(benchPlaces)) + " by " + g.pick(benchTimes)
	case 2:
		return "can you " + verb + " the " + noun2 + " and " + noun + " " + g.pick(benchTimes)
	default:
		return "I need to " + verb + " " + g.pick(benchAdjectives) + " " + noun2 + " for " + g.pick(benchNouns)
	}
}

// synthTasks are requests in the catalog's vocabulary, some with files,
// accepted output types, caller scopes or a data class.
func synthTasks(n int) []*task.Task {
	g := newGen(7)
	out := make([]*task.Task, n)
	for i := range out {
		verb, adj, noun, domain := g.pick(benchVerbs), g.pick(benchAdjectives), g.pick(benchNouns), g.pick(benchDomains)
		var text string
		switch i % 4 {
		case 0:
			text = "please " + verb + " the " + adj + " " + noun + " for the " + domain + " team in " + title(g.pick(benchPlaces))
		case 1:
			text = "can you " + verb + " our " + noun + " and " + g.pick(benchNouns) + " before " + g.pick(benchTimes)
		case 2:
			text = "I need someone to " + verb + " " + adj + " " + noun + " from " + g.pick(benchNouns) + " records"
		default:
			text = verb + " " + noun
		}
		t := &task.Task{ID: fmt.Sprintf("bench-%03d", i), Message: task.Message{Role: "user", Parts: []task.Part{{Text: text}}}}
		switch i % 10 {
		case 1:
			t.Message.Parts = append(t.Message.Parts, task.Part{File: &task.File{Name: "report.pdf", MediaType: "application/pdf"}})
		case 4:
			t.Message.Parts = append(t.Message.Parts, task.Part{File: &task.File{Name: "data.csv", MediaType: "text/csv"}})
		case 7:
			t.Message.Parts = append(t.Message.Parts, task.Part{File: &task.File{Name: "photo.png", MediaType: "image/png"}})
		}
		if i%7 == 0 {
			t.Constraints.AcceptedOutputTypes = []string{"application/json"}
		}
		switch i % 9 {
		case 2:
			t.Caller.Scopes = []string{}
		case 5:
			t.Caller.Scopes = []string{domain + ".read"}
		}
		if i%6 == 3 {
			t.Caller.DataClass = catalog.Confidential
		}
		out[i] = t
	}
	return out
}

func TestSynthCatalogShape(t *testing.T) {
	a, b := synthCatalog(1000), synthCatalog(1000)
	if len(a.Agents) != 100 {
		t.Fatalf("%d agents for 1000 skills, want 100", len(a.Agents))
	}
	secured := 0
	for i, ref := range a.Skills() {
		s := ref.Skill
		if other := b.Skills()[i].Skill; !slices.Equal(s.Tags, other.Tags) || s.Description != other.Description {
			t.Fatalf("generator is not deterministic at skill %d", i)
		}
		if n := len(strings.Fields(s.Description)); n < 15 || n > 25 {
			t.Errorf("%s: description of %d words", ref.Key(), n)
		}
		if len(s.Tags) != 3 || len(s.Examples) < 2 || len(s.Examples) > 3 || s.Name == "" {
			t.Errorf("%s: %d tags, %d examples, name %q", ref.Key(), len(s.Tags), len(s.Examples), s.Name)
		}
		if s.HasSecurity {
			secured++
		}
	}
	if secured == 0 {
		t.Error("no secured skill")
	}
	if len(benchVerbs)+len(benchNouns)+len(benchAdjectives) < 2000 {
		t.Errorf("vocabulary of %d words", len(benchVerbs)+len(benchNouns)+len(benchAdjectives))
	}
	// Most of the vocabulary is known to the embedder.
	e, unknown := embed.Default(), 0
	for _, w := range benchNouns {
		if slices.Max(e.EmbedText(w)) == 0 && slices.Min(e.EmbedText(w)) == 0 {
			unknown++
		}
	}
	if unknown > len(benchNouns)/10 {
		t.Errorf("%d of %d nouns unknown to the embedder", unknown, len(benchNouns))
	}
	// Tasks match without error and mostly find candidates.
	m := newMatcher(t, a)
	found := 0
	for _, tk := range synthTasks(benchTasks) {
		if res := mustMatch(t, m, tk); len(res.Ranked) > 0 {
			found++
		}
	}
	if found < benchTasks/2 {
		t.Errorf("only %d of %d synthetic tasks found a candidate", found, benchTasks)
	}
}

// ---------------------------------------------------------------------------
// Vocabulary: about 3,000 common English words, written for this file.

func words(s string) []string { return strings.Fields(s) }

var (
	// benchVerbs: 580 words
	benchVerbs = words(`
accept access adjust allocate analyze annotate answer anonymize approve archive arrange assemble assess assign
audit authorize automate balance benchmark book brief budget build calculate calibrate cancel capture
categorize certify change chart check classify clean close coach collect combine compare compile complete
compose compress compute configure confirm connect consolidate convert coordinate copy correct count create
curate cut debug decide decode deduplicate define delete deliver deploy describe design detect determine
develop diagnose digitize dispatch distribute document download draft edit enrich encrypt enforce enroll
estimate evaluate examine exchange execute expand explain export extract fetch file filter finalize find fix
flag forecast format forward gather generate grade group guide handle highlight hire identify illustrate
import improve index inform inspect install integrate interpret interview investigate invoice issue itemize
label launch list locate log maintain manage map mark match measure merge migrate minimize moderate monitor
move negotiate normalize notify observe obtain onboard open optimize order organize outline package pair parse
pay plan plot predict prepare present preview price print prioritize process produce profile promote proofread
propose protect publish purchase qualify query rank rate read rebalance recommend reconcile record recover
redact reduce refund register reject release remind remove rename render renew reorder repair replace reply
report request reschedule reserve reset resolve respond restore retrieve return review revise rewrite route
run sample save scan schedule score screen search segment select send sequence settle share ship shorten sign
simulate sort split standardize store stream submit suggest summarize supervise survey suspend sync tag test
track train transcribe transfer translate troubleshoot tune update upgrade upload validate verify visualize
watch weigh write abandon absorb accelerate accommodate accompany accumulate achieve acknowledge acquire
activate adapt add address administer admit adopt advance advertise advise advocate affect afford aggregate
agree aim alert align allow alter amend amplify anticipate apologize appeal appear apply appoint appreciate
argue arrive ask attach attend attract backup ban bargain bill block borrow brainstorm browse buy cache calm
carry cast celebrate chase choose cite claim clarify clear collaborate comment commit communicate compete
complain comply conduct conserve consider consult contact contribute control cook cover crop crawl customize
dedicate defend delay delegate demonstrate deny depend deposit derive destroy dictate direct disable discover
discuss dismiss display divide donate double drive earn educate eliminate embed emphasize employ enable
encourage engage enhance ensure enter equip escalate establish exclude exercise expedite explore express
facilitate feed finance fit focus follow forbid forget forgive freeze fulfill fund gain grant greet grow hedge
help hold host hunt ignore implement include increase influence initiate insert insist inspire insure intend
introduce invest invite join judge justify keep lease lend lift limit load lock lower maximize mentor mine mix
modify motivate multiply name navigate nominate obey offer operate oppose outsource overlook own paint
participate pass patch perform permit persuade photograph pick pitch place play pledge point polish post
postpone practice praise pray preserve prevent prove provide pull pursue push quote raise reach react realize
recall receive recognize recruit recycle refer reflect refuse regulate reinforce relate relax rely remain
repay repeat replicate represent require rescue research resize resume retain retire reveal revoke reward ride
rotate sail satisfy scale secure seek sell serve set shape shift shoot show sing sketch skip slice smooth
solve speak specify spend spread stabilize stage start stimulate stop strengthen study subscribe succeed
supply support surround sustain swap switch tackle take teach tell terminate thank tolerate trace trade
transform travel treat trigger trim trust type underline undertake unify unlock unpack use value vary vote
walk warn wash weld win withdraw witness work wrap
`)

	// benchNouns: 1832 words
	benchNouns = words(`
abstract account accounts activity address adjustment agenda agreement alert allowance amendment amount
analysis announcement anomaly answer applicant application appointment approval archive article assessment
asset assignment attachment attendance audience audit author availability backlog backup badge balance bank
banner batch benefit benefits bid bill billing biography blog board bonus booking brand brief brochure budget
bug building bulletin bundle calendar call campaign candidate capacity caption card cargo carrier case cash
catalog category certificate change channel chapter chart chat checklist claim class clause client clinic code
collection column comment commission committee company compensation complaint compliance component contact
container content contract contractor conversation cost course coverage credit crew customer dashboard data
database deadline deal debt decision deck defect delivery department deposit description design detail device
diagram diet directory discount dispute document domain donation draft driver duty earnings email employee
engine entry equipment error estimate event evidence exam exception expense experiment export facility factory
feature fee feedback field file finding fleet flight folder forecast form formula freight fund funding game
gift goal grade grant graph guest guide handbook headline health hotel hours household idea image incident
income index inquiry inspection installation instruction insurance interview inventory investment invitation
invoice issue item itinerary job journal key keyword label lab language law lead lease lecture ledger lesson
letter license limit line link listing loan location log logo loss machine mail maintenance manual map margin
market material meal measurement medication meeting member memo menu message metric milestone minutes model
module mortgage network newsletter note notice number objective offer office order organization outage outline
owner package page parcel part participant partner passenger password patient payment payroll pension
performance permit phone photo pipeline plan player policy portfolio position post poster premium presentation
price priority procedure process product profile profit program project promotion property proposal prospect
protocol purchase quality quarter query question quote rate rating receipt recipe record recording recruit
refund region registration regulation release rent repair report request requirement research reservation
resource response result resume retirement return revenue review reward risk room route salary sale sample
schedule schema score screen script season section security segment seminar sensor server service session
setting shift shipment shipping signature site size skill slide software source speaker specification spending
sponsor spreadsheet staff standard statement station status stock store story strategy student study
subscriber subscription summary supplier supply survey symptom system table target task tax team template
tenant term test text theme thread ticket timeline timesheet title topic tour trade traffic training
transaction transcript transfer translation trend trip tuition update upgrade user vacancy vacation vehicle
vendor version video visa visit visitor volunteer voucher warehouse warning warranty website webinar weight
word workflow workshop accident agent aircraft airline album allergy ambulance analyst apartment appeal
appliance architecture army artist asthma athlete attorney auction autumn baby bakery bandwidth bar bath
battery beach bed bicycle bird birthday blood boat body bone book border bottle box brain bread bridge bus
business cabinet cable cafe cake camera camp cancer capital car career cat cell chair champion cheese chemical
chicken child church cinema circuit city climate clothing cloud coach coast coffee college color community
computer concert conference consumer cookie corn cotton council country county court cow crime crop culture
currency cycle dance dentist desert desk dessert diabetes diagnosis dinner disease doctor dog door drink drug
earthquake economy editor election electricity elevator energy engineer environment exercise family farm
fashion father festival film fire fish floor flower food football forest fruit fuel furniture garage garden
gas gene glass gold government graduate grocery gym hair hardware harvest heart highway history hobby holiday
horse hospital house housing hurricane ice illness industry infection infrastructure ingredient injury insect
island jacket jewelry journey juice kitchen lake laptop lawyer leather library light lunch magazine mall
manager manufacturer marriage meat medicine memory metal milk mine mobile money monitor morning mother motor
mountain movie museum music nurse nutrition ocean oil opera orchestra painting paper parent park parking
pharmacy physician piano pilot pizza planet plant plastic pollution port pregnancy printer prison professor
publisher radio rail rain recycling restaurant rice river road robot roof salad salt satellite school science
sea seed shoe shop singer skin sky sleep snow soccer soil soldier song soup space sport spring stadium star
steel storm stream street stress sugar summer sun surgery tea teacher technology telephone television
temperature tennis theater therapy tire tobacco tool tooth tourism tourist tower town toy tractor train
transport travel tree truck tunnel university vaccine valley vegetable village violence virus vitamin wage
wall war water wave weather wedding wheat wind window wine winter wood wool worker yard youth zoo ability
absence academy acceptance accessory accommodation accountant achievement acid acquisition action actor
addition administration admission adult advantage adventure advertisement advice advisor affair afternoon age
agency aid aim air airport alarm alcohol algorithm alliance alternative ambassador angle animal ankle
anniversary anxiety apology app appetite apple approach area argument arm arrival art aspect assembly
assistance assistant association assumption atmosphere attack attempt attention attitude attraction auditor
aunt authority award awareness background bag balcony ball band bandage bargain base basement basis basket
battle beauty bedroom beer beginning behavior belief bell belt benchmark bike billboard biology blanket block
blueprint booklet boot boss bottom boundary bowl brake branch breakfast breath brick broadcast brother brush
bucket buffer bulb burden button buyer cabin calculation calculator campus canal candle canvas cap captain
carbon carpet carriage cartoon cashier castle catalogue ceiling celebration cemetery center ceremony chain
chairman challenge chamber champagne chance chancellor character charge charity checkout chef chemistry chest
chip choice cigarette circle citizen civilian classroom clerk cliff clock cluster coal coat cocktail coin
collar colleague combination comedy comfort command commerce commitment communication comparison competition
competitor complexity composer concept concern conclusion condition confidence configuration confirmation
conflict confusion connection consent consequence consideration constraint construction consultant
consultation contest context continent contribution control convention conversion cook copy copyright corner
corporation correction correspondent corridor cottage counselor counter couple courage courier cousin craft
creature creativity crisis criteria critic criticism crowd crystal cup cupboard curriculum curtain curve
cushion custody damage danger darkness date daughter daylight dealer death debate decade decline decoration
decrease default definition degree delay delegate demand democracy demonstration density departure dependency
deployment depression depth deputy descent desire destination destruction detective development diamond
dictionary difference difficulty dimension diploma direction director disaster discipline discovery discussion
dish disk display distance distribution district diversity division divorce dock documentary dollar donor dose
drama drawer drawing dream dress driveway drop dust eagle ear earth ease edge edition education effect
efficiency effort egg elbow element elephant emergency emotion emphasis empire employer employment encounter
end enemy engagement enquiry enterprise enthusiasm entrance envelope episode equation equity era escape essay
establishment estate ethics evening evaluation examination example excitement excuse executive exhibition
existence exit expansion expectation expedition experience expert expertise explanation exposure expression
extension extent eye fabric face failure faith fame fan fare farmer fault favor fear feast federation fence
fiction figure filter finance finger finish firm fitness flag flavor flood flow flu fluid focus fog fold
forehead formation fortune forum foundation fountain fraction fragment frame framework fraud freedom frequency
friend friendship frontier frost function funeral gallery gap gate gathering gear gender generation genre
gesture ghost girl glove glue god governor grain grammar grandfather grandmother grass gravity ground growth
guarantee guard guidance guitar gun habit half hall hallway hammer hand handle happiness harbor harm hat
headquarters hearing heat height helicopter helmet hero highlight hill hint hip historian hole home homework
honey honor hook hope horizon host hostage humor hunger hunter husband hypothesis identity illustration
imagination immigrant immigration impact implementation import impression improvement incentive inch incidence
increase independence indication inflation influence inheritance initiative innovation input insight inspector
instance institution instructor instrument integration integrity intelligence intention interest interface
interior internet interpretation interval introduction invasion invention investor jar jaw joint joke judge
judgment jungle jury justice kid king kingdom knee knife knowledge ladder lady lamp land landlord landscape
lane laser laughter lawn layer leader leadership league leave leg legislation leisure lemon length lens level
liability liberty lid lifestyle lift limitation lip liquid literature lobby lock logic loyalty luck luggage
luxury magnet maid majority makeup mammal management mandate manner mansion manufacturing marble marketing
mask mass master match mate mathematics matter maximum mayor meaning mechanism medal media melody mention
mentor merchant merger mess metaphor method middle midnight mileage military mind minimum minister minority
minute mirror mission mistake mixture mode moment momentum monument mood moon motion motivation mouse mouth
muscle mystery myth nail narrative nation navy neck negotiation neighbor neighborhood nerve nest news night
noise noon norm north nose novel nucleus nut oak obligation observation occasion occupation offense officer
operation operator opinion opponent opportunity option orange origin outcome outfit output oven overview
oxygen pace pain paint pair palace pan panel panic parade paragraph parliament passage passion passport pasta
pastry path patience pattern pause peace peak pen penalty pencil pepper percentage perception period
permission person perspective pet phase phenomenon philosophy phrase physics picture piece pig pile pillow pin
pipe pitch place plate platform pleasure plot pocket poem poet poetry point poison pole police politics poll
pool population porch portion portrait possibility potato pound poverty powder power practice praise prayer
preference preparation prescription presence president press pressure prevention pride priest prince princess
principle prize probability problem producer production profession progress promise proof proportion
prosecutor protection protein protest province psychology pub publication punishment pupil purpose puzzle
qualification quantity queen quest rabbit race radiation railroad range ratio reaction reader reality reason
rebel reception recession recognition recommendation reduction reference reflection reform refrigerator regime
relation relationship relative relief religion remark remedy reminder rental replacement reporter
representative republic reputation rescue reserve resident resolution respect rest restriction retailer
revolution rhythm rifle ring rise ritual rival rock role romance root rope rose rule rumor runway sack sail
salmon sanctuary sand sandwich satisfaction sauce saving scale scandal scenario scene scholar scholarship
scope scratch sculpture secretary sector seller senate senator sense sentence sequence series servant
settlement shadow shame shape shareholder sheep sheet shelf shell shelter sheriff shirt shock shore shoulder
shower sibling sight signal silence silk sink sister situation sketch ski skirt slave sleeve slope smell smile
smoke snack society sock sofa solution son soul sound south spirit spokesman spot spouse spray stability stack
stage stair stake stamp stance statue steak stem step stick stomach stone stop storage stranger strength
stretch strike string structure struggle studio style subject substance suburb success suit suite sum summit
supermarket supplement supporter surface surgeon surprise surrounding survival survivor suspect sweater
swimming switch symbol sympathy syndrome tablet tail tale talent tank tape taste taxpayer teaching teammate
tear technique teenager telescope temple tendency tension tent territory terror testimony textbook texture
theory thing thought threat throat thumb tide tie timber tissue toilet tomato tone tongue torch total touch
towel tradition tragedy trail trainer transition trap treasure treatment treaty trial triangle tribe trick
trophy trouble trust truth tube tune turn tutor twin type umbrella uncle unit universe usage vacuum value van
variable variation variety venture venue verdict vessel veteran victim victory view viewer violation vision
vocabulary voice volume vote voter wallet wardrobe wealth weapon wheel whale whisper wife wildlife willingness
wing winner wire wisdom witness woman wonder workplace wrist writer writing yield
`)

	// benchAdjectives: 684 words
	benchAdjectives = words(`
accurate active actual additional administrative advanced annual anonymous approved automatic available
average basic better big brief broken busy careful central certain cheap clean clear clinical close commercial
common complete complex confidential consistent corporate critical current custom daily dark detailed
different digital direct domestic due early easy economic effective electronic empty entire environmental
essential existing expensive external extra fair familiar final financial first fixed foreign formal former
free frequent fresh full future general global good great green gross hard healthy heavy high historical
hourly huge important individual industrial initial inner international internal key large late latest legal
light likely live local long low main major manual medical minor missing mobile modern monthly multiple
national natural necessary negative net new next nice normal official old online open operational optional
original outstanding overdue particular past pending personal physical popular positive possible potential
practical previous primary private professional proper public quarterly quick random rapid raw real recent
recurring regional regular relevant remote required residential responsible retail right rough safe scheduled
seasonal second secure senior separate serious shared short simple single slow small social special specific
stable standard strategic strict strong successful sudden suitable technical temporary terrible total typical
unique unpaid upcoming urgent useful usual valid various visual weekly whole wide written wrong yearly young
ancient angry beautiful bitter blank bold brave bright calm cold colorful comfortable cool crowded cultural
cute dangerous deep delicious dirty dry dusty elegant emotional exact famous fast fat flat flexible friendly
funny gentle giant golden happy helpful honest hot humble intense junior kind lazy little loud lovely lucky
medium mild narrow nervous noisy odd orange organic patient perfect pink plain polite poor powerful pretty
proud purple quiet rare red rich round royal rural sad scientific sharp shiny silent silver smooth soft solid
sour spicy square steep sticky strange sweet tall thick thin tiny tired tough tropical ugly urban vast violent
warm wealthy weird wet white wild wise wooden absent absolute abstract academic acceptable accessible adequate
adjacent advisory affordable aggressive alert alive alternative ambitious ample analytical apparent
appropriate artificial asleep attractive authentic automated aware awful balanced bare beneficial binding
biological blind bottom brilliant broad budgetary capable casual chemical chronic civil classic coastal
cognitive coherent collective comparable compatible competitive comprehensive compulsory conceptual concrete
conditional conservative considerable constant constitutional contemporary continuous conventional convenient
correct costly creative criminal crucial curious decent decisive defensive definite deliberate democratic
dense dependent desirable desperate distant distinct diverse dominant double dramatic dual dynamic eager
eastern educational efficient elderly electric electrical eligible emerging empirical encouraging endless
enormous equal equivalent ethical ethnic everyday evident exceptional excessive exciting exclusive experienced
experimental explicit extensive extreme fabulous faithful false federal fellow feminine fiscal flawless fond
forthcoming fortunate frank fundamental generous genetic genuine graphic grateful guilty handy harsh hidden
holy horizontal hostile ideal identical illegal immediate immune imperial implicit impossible impressive
inclusive incomplete independent indirect indoor inevitable informal innocent innovative instant institutional
intellectual intelligent interactive interested interim intermediate invisible isolated joint judicial
juvenile lasting leading lean legislative lengthy liberal lifelong linear liquid literary logical loose loyal
magnetic mandatory marginal marine massive mature maximum meaningful mechanical mental mere metropolitan mid
military minimal minimum mixed moderate modest moral municipal mutual naked native naval neat neutral nominal
northern notable novel nuclear numerous objective obvious occasional offensive ongoing optimal oral ordinary
outdoor overall overseas painful parallel parental partial passive peaceful peculiar permanent persistent
pleasant plenty pointed political portable precise predictable pregnant preliminary premium prescribed
presidential prime prior probable productive profitable profound progressive prominent prospective protective
provincial psychological punctual pure radical rational readable realistic reasonable rear relaxed reliable
religious reluctant renewable representative resistant respective revolutionary rigid robust romantic rotten
routine rude sacred scarce sensible sensitive sequential severe sexual shallow sheer significant silly similar
sincere skilled slight smart sole sophisticated southern sovereign spare spatial spiritual spontaneous stark
statistical steady sterile structural stupid subsequent substantial subtle sufficient superb superior supreme
surgical surplus suspicious sustainable symbolic systematic tactical tangible tender terminal territorial
theoretical thorough tidy tight tremendous trivial true ultimate unable uncertain underground unfair
unfamiliar unhappy uniform unknown unlikely unusual upper upset valuable variable verbal vertical viable
vibrant virtual visible vital vocal voluntary vulnerable western wireless worthy
`)

	// benchDomains: 74 words
	benchDomains = words(`
accounting advertising aerospace agriculture analytics architecture automotive aviation banking biotech
construction consulting cybersecurity defense design education energy engineering entertainment environment
facilities fashion finance fitness food gaming government healthcare hospitality hr insurance investment
journalism legal logistics manufacturing maritime marketing media mining music nonprofit nursing operations
payroll pharmacy photography procurement publishing purchasing radiology railway realestate recruiting
research retail robotics sales science security shipping software sports supply telecom tourism trading
training transport travel utilities veterinary warehousing wholesale
`)

	// benchPlaces: 74 words
	benchPlaces = words(`
amsterdam athens atlanta austin bangkok barcelona beijing berlin bogota boston brisbane brussels budapest
cairo calgary chicago copenhagen dallas delhi denver detroit dubai dublin edinburgh frankfurt geneva glasgow
hamburg helsinki houston istanbul jakarta johannesburg kyoto lagos lima lisbon liverpool london madrid
manchester manila melbourne miami milan montreal moscow mumbai munich nairobi naples osaka oslo ottawa paris
perth philadelphia phoenix prague rome santiago seattle seoul shanghai singapore stockholm sydney taipei tokyo
toronto vancouver vienna warsaw zurich
`)

	// benchTimes: 35 words
	benchTimes = words(`
today tomorrow tonight yesterday monday tuesday wednesday thursday friday saturday sunday morning afternoon
evening week weekend month quarter year january february march april may june july august september october
november december spring summer autumn winter
`)
)
