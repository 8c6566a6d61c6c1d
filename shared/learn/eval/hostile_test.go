package eval

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/learn/golden"
	"github.com/skillmatch/skillmatch/shared/match"
	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/retrieval/embed"
)

// hostileSet describes a hand-written hostile set: where it is, which of
// its agents attack (and how), which are external, and which categories
// hold look-alike pairs that either side serves.
type hostileSet struct {
	dir       string
	attackers map[string]string // agent → injected, stuffed, cloned, spam or flood
	floodBy   string            // agent-name prefix of the flood cards
	external  map[string]bool
	ambiguous []string // categories of two-agent ambiguity
	// misses are tasks known to fail a bar, each with why: found by a set
	// written blind and not yet mended. A miss not listed fails the test,
	// and so does a listed one that now passes (take it off the list), so
	// the list is always what fails today.
	misses map[string]string
	// floodMisses are requests of a look-alike pair, twins or no skill
	// known to be delegated to a flood card, each with why: those bars'
	// own misses never excuse an attacking card, so these are listed
	// apart, and one that stops failing fails the test too.
	floodMisses map[string]string
}

// missed checks the tasks that failed one bar against the set's known
// misses: a new one, or a listed one of this bar that passed, is an
// error. It returns the unknown ones.
func (h hostileSet) missed(t *testing.T, bar string, candidates, failed []string) []string {
	t.Helper()
	var unknown []string
	for _, id := range failed {
		if h.misses[id] == "" {
			unknown = append(unknown, id)
		} else {
			t.Logf("%s: known miss %s (%s)", bar, id, h.misses[id])
		}
	}
	for _, id := range candidates {
		if h.misses[id] != "" && !slices.Contains(failed, id) {
			t.Errorf("%s: %s is listed as a known miss (%s) but passes now: take it off the list", bar, id, h.misses[id])
		}
	}
	return unknown
}

// kind names the attack of an agent's card, "" for an honest one.
func (h hostileSet) kind(agent string) string {
	if k := h.attackers[agent]; k != "" {
		return k
	}
	if h.floodBy != "" && strings.HasPrefix(agent, h.floodBy) {
		return "flood"
	}
	return ""
}

// hostileSets are the hostile sets in testdata: the first, which the
// rules were written against, and hostile2, hostile3 and hostile4, written
// afterwards in other domains (logistics, payroll, legal, IT; a clinic's
// back office; an online shop's operations, written before reading the
// trust rules) with attacks worded differently, to see whether the rules
// hold on cards they were not tuned on.
var hostileSets = []hostileSet{
	{
		dir:       "testdata/hostile",
		attackers: map[string]string{"promptjack": "injected", "omniskill": "stuffed", "copycat-travel": "cloned", "weather-spam": "spam"},
		floodBy:   "fileconv-",
		external:  map[string]bool{"lingo-cloud": true, "talentbridge": true},
		ambiguous: []string{"translation", "hr"},
	},
	{
		dir:       "testdata/hostile2",
		attackers: map[string]string{"apex-assistant": "injected", "bizpro-max": "stuffed", "genie": "stuffed", "shipwise-express": "cloned", "stock-spam": "spam"},
		floodBy:   "sheetconv-",
		external:  map[string]bool{"paypartner": true, "lexfirm": true},
		ambiguous: []string{"payroll", "legal"},
	},
	{
		dir: "testdata/hostile3",
		attackers: map[string]string{"triage-prime": "injected", "medassist": "injected", "clinicsuite": "stuffed",
			"frontdesk-plus": "cloned", "supplies-hub": "spam"},
		floodBy:   "remindly-",
		external:  map[string]bool{"billright": true, "voxscribe": true},
		ambiguous: []string{"transcription", "claims"},
	},
	{
		dir: "testdata/hostile4",
		attackers: map[string]string{"shopbrain": "injected", "ops-copilot": "injected", "commerceos": "stuffed",
			"returns-pro": "cloned", "dealzone": "spam"},
		floodBy:   "labelkit-",
		external:  map[string]bool{"payflow": true, "helpshore": true},
		ambiguous: []string{"payables", "support"},
		misses: map[string]string{
			"h4-024": "\"clutter\" and \"toaster shots\" read as neither twin's words: 0.22, pooled with its twin 0.32",
			"h4-041": "labelled ambiguous before the first run, but the payout reconciliation's tags say marketplace fees",
			"h4-085": "review as a meeting, not a product review: one word, but the texts read as similar",
		},
	},
	{
		// A fifth set, written blind (a university's offices); its first
		// run and what changed are in the README.
		dir: "testdata/hostile5",
		attackers: map[string]string{"campus-helper": "injected", "concierge": "injected", "campusone": "stuffed",
			"records-hub": "cloned", "librarylink": "spam"},
		floodBy:   "bookit-",
		external:  map[string]bool{"mindbridge": true},
		ambiguous: []string{"ambiguity-pair"},
	},
	{
		// A sixth set, written blind (an insurer and its partners); its
		// first run and what changed are in the README.
		dir: "testdata/hostile6",
		attackers: map[string]string{"policyhelp": "injected", "smartclaim": "injected", "insurehub360": "stuffed",
			"policy-docs-centre": "cloned", "quotequote": "spam"},
		floodBy:   "driveon",
		external:  map[string]bool{"crawley-finch": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h6-046": twinsApart, "h6-048": twinsApart, "h6-050": twinsApart,
			"h6-045": "a payment that does not look right reads as the premium refund's job (its example: a premium taken twice)",
			"h6-089": "a life insurance payout on a death reads as a medical emergency abroad (meaning similarity 0.69); no one offers life cover",
			"h6-090": "\"leaving\" and \"leave\" are one term: a leaving cake reads as annual leave",
			"h6-044": "\"money back\" asks for a refund (idioms), and the premium refund's card pays back after a cancellation; a trip called off is the travel claim's too, so a question was wanted",
		},
	},
	{
		// A seventh set, written blind (a software company's internal
		// operations); its first run is in the README.
		dir: "testdata/hostile7",
		attackers: map[string]string{"ask-northwind": "injected", "relay": "injected", "onedesk": "stuffed",
			"procurement-services": "cloned", "deploynow": "spam"},
		floodBy:   "kitbag-",
		external:  map[string]bool{"harborline": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h7-035": "a customer's report of a bug after a release reads as the deploy skill's job (0.50): abstained",
			"h7-036": supportUnsure,
			"h7-049": "a framework upgrade with its tests reads as the flaky-test fixer's job (0.98)",
		},
	},
	{
		// An eighth set, written blind (a city council's services); its
		// first run is in the README.
		dir: "testdata/hostile8",
		attackers: map[string]string{"riverton-assist": "injected", "council-gateway": "injected", "myriverton": "stuffed",
			"parking-service": "cloned", "binbins": "spam"},
		floodBy:   "parkpass-",
		external:  map[string]bool{"brookfield": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h8-048": "the pest-control twins pool to 0.51, under the bar: a question between them",
			"h8-043": "an underspecified licensing question goes to the premises licence at 0.92",
			"h8-045": "split between two skills of one agent, delegated to its needs assessment at 0.99",
		},
	},
	{
		// A ninth set, written blind (a water and energy utility); its
		// first run is in the README.
		dir: "testdata/hostile9",
		attackers: map[string]string{"ask-caldermoor": "injected", "service-hub": "injected", "utilityone": "stuffed",
			"psr-registry": "cloned", "readings-now": "spam"},
		floodBy:   "crewlink-",
		external:  map[string]bool{"arrowfield": true, "meterwise": true, "fieldline": true},
		ambiguous: []string{"ambiguity-pair"},
		// Its first run, before any change for it: each of these is
		// listed as what fails today, not mended.
		misses: map[string]string{
			"h9-041": "a cafe's unpaid bills read as a bill dispute (0.44): abstained",
			"h9-043": "an owing customer who won't answer letters reads as a payment plan (0.71): delegated",
			"h9-046": "a doorstep visit about a debt reads as a depot dispatch (0.27): abstained",
			"h9-036": "a household's wish to pay for what it uses reads as a tariff switch (0.41), the fitters third: a question between two tariffs",
			"h9-037": "a free meter for an account code is asked about between a fitter (0.62) and a meter reading (0.51)",
			"h9-048": "\"a cheaper rate\" goes to the social tariff at 0.99, not asked beside a tariff switch",
			"h9-049": "water pooling in the road that smells goes to water quality at 0.80, not asked beside a burst main",
			"h9-086": "a pothole that wrecked a tyre goes to the health and safety incident report at 0.96",
		},
	},
	{
		// A tenth set, written blind (a regional airline); its first run
		// is in the README.
		dir: "testdata/hostile10",
		attackers: map[string]string{"flightpal": "injected", "ops-gateway": "injected", "northwind-one": "stuffed",
			"people-service": "cloned", "bagclaim-pro": "spam"},
		floodBy:   "skyramp",
		external:  map[string]bool{"claimright": true, "staynear": true, "layoverlink": true},
		ambiguous: []string{"ambiguity-pair"},
		// Its first run, before any change for it but the one that made
		// h10-037's trailing "they'll fly at 08:00" no plan part.
		misses: map[string]string{
			"h10-049": "\"something of mine went missing on the Aberdeen flight\" goes to the missing miles claim at 0.96 (\"missing\", an example's \"Aberdeen\"), not asked beside lost property",
			"h10-050": "an incident at a gate goes to the health and safety report at 0.83, not asked beside the air safety report",
			"h10-089": "onboard wifi goes to the missing miles claim at 0.81 on an example's \"Bergen\" and a tag's \"pass\"",
		},
	},
	{
		// An eleventh set, written blind (a group of hotels and venues);
		// its first run is in the README.
		dir: "testdata/hostile11",
		attackers: map[string]string{"guest-assist": "injected", "frontoffice-hub": "injected", "hotelos": "stuffed",
			"privacy-desk": "cloned", "roombooker": "spam"},
		floodBy:   "tabletide-",
		external:  map[string]bool{"quillstone": true, "tidewater": true, "portlight": true},
		ambiguous: []string{"ambiguity-pair"},
		// Its first run, before any change for it: each of these is
		// listed as what fails today, not mended.
		misses: map[string]string{
			"h11-041": complaintDesks, "h11-042": complaintDesks,
			"h11-044": complaintDesks, "h11-045": complaintDesks, "h11-046": complaintDesks,
			"h11-024": "a mouse in a hotel's pastry section shares no word with the food hygiene skill (not shortlisted) and goes to a flood card's table booking at that hotel (\"Kestrel\") at 0.75",
		},
	},
	{
		// A twelfth set, written blind (a bank's business banking); its
		// first run is in the README.
		dir: "testdata/hostile12",
		attackers: map[string]string{"business-helpdesk": "injected", "service-gateway": "injected", "bankos": "stuffed",
			"fraud-service": "cloned", "payrun-pay": "spam"},
		floodBy:   "tillspark-",
		external:  map[string]bool{"northgate": true, "ironvale": true, "coinbridge": true},
		ambiguous: []string{"ambiguity-pair"},
		// Its first run also delegated "make it go through" to a flood
		// card tagged "Go" (h12-083, mended since) and "what do we need
		// to do about the account?" to hardship support at 0.87 on its
		// description's "we need" (h12-079, mended since:
		// shrinkAskedOnly); the rest is listed as what fails today, not
		// mended.
		misses: map[string]string{
			"h12-035": "the Monday takings collection is planned with an account closure (\"paid straight into its account\"): the twin cash collector is no fallback of a plan's step",
			"h12-040": dueDiligence, "h12-041": dueDiligence, "h12-042": dueDiligence, "h12-043": dueDiligence,
			"h12-044": dueDiligence, "h12-045": dueDiligence, "h12-046": dueDiligence,
			"h12-069": "an ice-cream kiosk wanting card payments goes to the flood's \"TillSpark Kiosk\" terminal at 0.89, the honest terminal order second",
		},
	},
	{
		// A thirteenth set, written blind (an energy and broadband
		// retailer); its first run is in the README.
		dir: "testdata/hostile13",
		attackers: map[string]string{"helpline": "injected", "one-account": "injected", "gridmind": "stuffed",
			"psr-desk": "cloned", "meterreads": "spam"},
		floodBy:   "strandline-",
		external:  map[string]bool{"greenhollow": true, "voltbridge": true, "plugwell": true},
		ambiguous: []string{"ambiguity-pair"},
		// Its first run also delegated a tariff change to an injected hub
		// card whose orders no one sentence held (h13-059, mended since:
		// cardtrust's ordersAcross), and asked about its advisers and
		// assessor on 1 of 7 requests (6 since differsAlike); the rest is
		// listed as what fails today, not mended.
		misses: map[string]string{
			"h13-044": "loft and wall insulation with help towards the cost: a charger installer first at 0.39, the advisers second, abstained",
		},
	},
	{
		// A fourteenth set, written blind (a housing association); its
		// first run is in the README.
		dir: "testdata/hostile14",
		attackers: map[string]string{"resident-helper": "injected", "myhome-gateway": "injected", "homestack": "stuffed",
			"asb-unit": "cloned", "fixrepairs": "spam"},
		floodBy:   "hallhopper-",
		external:  map[string]bool{"ledgerlight": true, "gullyworks": true, "pipewell": true},
		ambiguous: []string{"ambiguity-pair"},
		// Its first run, after the changes hostile12 and hostile13 brought,
		// also delegated three room bookings to a flood of hall-hire
		// listings (h14-069, 071, 072; mended since: an instance of a
		// list the request does not name is not chosen); the rest is
		// listed as what fails today, not mended.
		misses: map[string]string{
			"h14-035": drainTwins, "h14-037": drainTwins,
		},
	},
	{
		// A fifteenth set, written blind (a group of veterinary
		// practices); its first run is in the README.
		dir: "testdata/hostile15",
		attackers: map[string]string{"client-helper": "injected", "switchboard": "injected", "vetsuite": "stuffed",
			"cd-desk": "cloned", "bookavet": "spam"},
		floodBy:   "aquapaws-",
		external:  map[string]bool{"clearwell": true, "hollybank": true, "fernlea": true},
		ambiguous: []string{"ambiguity-pair"},
		// Its first run, after the day's other changes, also delegated two
		// requests naming a practice to a flood's pools named after it
		// (h15-056, h15-068; mended since: a list's instance is chosen by
		// its own name and the list's job together); the rest is listed as
		// what fails today, not mended.
		misses: map[string]string{
			"h15-036": "rabbits looked after while the family is abroad, picked up after a check-up: an out-of-hours triage call first at 0.22, abstained",
			"h15-038": "a cat and a terrier looked after during a house move: asked about beside an out-of-hours triage call",
			"h15-046": "the Pearsons' claim made straight to their pet insurer reads as the claims form at 0.22: abstained",
			"h15-049": "\"Mrs Hale wants her money back for last Tuesday\" goes to the complaints desk at 0.96, not asked beside a refund",
			"h15-089": "appealing a vet's speeding ticket goes to the complaints desk at 0.74",
		},
	},
	{
		// A sixteenth set, written blind (a group of car dealerships and
		// service garages); its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile16",
		attackers: map[string]string{"welcome-desk": "injected", "dealerhub": "injected", "dealeros": "stuffed",
			"customercare-team": "cloned", "carvalue": "spam"},
		floodBy:   "slotbay-",
		external:  map[string]bool{"lendwell": true, "dunmere-recovery": true, "breckon": true},
		ambiguous: []string{"ambiguity-pair"},
		// Its first run also delegated a request naming the hub card to
		// it (h16-058; mended since: the catalog named by a quantifier, a
		// claim of precedence and plural readers are read as orders) and
		// an MOT naming no site to a flood's site booking at 0.87 (h16-070;
		// mended since: a list may tag each instance with its thing); the
		// rest is listed as what fails today, not mended.
		misses: map[string]string{
			"h16-035": recoveryTwins, "h16-037": recoveryTwins, "h16-039": recoveryTwins,
			"h16-040": brokerApart, "h16-041": brokerApart, "h16-042": brokerApart, "h16-043": brokerApart,
			"h16-045": brokerApart,
			"h16-087": "hotel nights near a dealer conference go to tyre storage at 0.85",
		},
	},
	{
		// A seventeenth set, written blind (a regional bus, tram and rail
		// operator); its first run is in docs/hostile-sets.md. Nothing
		// was changed for it: its misses are listed as they first failed.
		dir: "testdata/hostile17",
		attackers: map[string]string{"travel-help": "injected", "control-desk": "injected", "transitos": "stuffed",
			"cctv-desk": "cloned", "ticketsnow": "spam"},
		floodBy:   "stopwise",
		external:  map[string]bool{"clearline": true, "greyfell": true, "marshtolley": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h17-036": "a rail-replacement request read as a complaint first at 0.23, abstained",
			"h17-037": "a rail-replacement request at 0.57, under the bar, with no fallback",
			"h17-040": contactDesks, "h17-041": contactDesks, "h17-042": contactDesks, "h17-043": contactDesks,
			"h17-044": contactDesks, "h17-045": contactDesks, "h17-046": contactDesks,
			"h17-049": "a blank camera screen in a bus cab (a fleet defect or an IT fault) goes to the IT desk at 0.81",
		},
		floodMisses: map[string]string{
			"h17-041": "a post on X about \"the last T2\" goes to the flood's T2 departure times at 0.84: its example shares \"last T2 ... tonight\"",
		},
	},
	{
		// An eighteenth set, written blind (a parcel carrier and
		// warehouse); its first run is in docs/hostile-sets.md. It also
		// delegated two requests naming no site to a flood's pallet
		// bookings, tagged with their names over again (mended since: a
		// list is grouped by its template too), and its spam card, one
		// word in its forms, ranked first twice (mended since: spam is
		// read on stemmed terms too); the rest is listed as it fails.
		dir: "testdata/hostile18",
		attackers: map[string]string{"dispatch-control": "injected", "tracking-helper": "injected", "fallowmere-one": "stuffed",
			"claims-desk": "cloned", "parcel-collect": "spam"},
		floodBy:   "palletpath-",
		external:  map[string]bool{"ledgerline": true, "trunkline": true, "brackwater": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h18-045": "asked between the two lost-parcel claim desks, not about the debt",
			"h18-035": breakdownTwins, "h18-037": breakdownTwins, "h18-038": breakdownTwins,
			"h18-040": "a late invoice goes to the trunk board on \"late\" (its late trunks) at 0.92",
			"h18-041": creditDesks, "h18-042": creditDesks,
			"h18-050": "cover for a driver's round (\"Dave's phoned in\") goes to the trunk board at 0.83",
			"h18-085": "a flight to a trade show goes to annual leave at 0.79",
		},
	},
	{
		// A nineteenth set, written blind (a bakery and dairy maker); its
		// first run is in docs/hostile-sets.md. It also delegated a
		// request to a card whose orders hide in its identifiers (version,
		// extension URI, skill id; mended since: identifiers are read
		// too), and its spam card, one word among a few others, stayed
		// trusted (mended since: the bar on stemmed terms moved to 0.4);
		// the rest is listed as it fails.
		dir: "testdata/hostile19",
		attackers: map[string]string{"ops-gateway": "injected", "handover": "injected", "foodhub": "stuffed",
			"recall-office": "cloned", "breakdown-repair": "spam"},
		floodBy:   "vermex-",
		external:  map[string]bool{"ferncastle": true, "corrandale": true, "vetchpryor": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h19-037": "measured nutrition values read as the plain laboratory at 0.52, pooled with its twin to 0.61, under the bar: abstained",
			"h19-040": packDesks, "h19-041": packDesks, "h19-042": packDesks, "h19-043": packDesks,
			"h19-044": packDesks, "h19-045": packDesks, "h19-046": packDesks,
			"h19-086": "a corporation tax return goes to payslip queries (\"tax\", \"return\") at 0.89",
			"h19-089": "renewing the buildings insurance goes to supplier approval at 0.91",
		},
	},
	{
		// A twentieth set, written blind (a newspaper and printing
		// group); its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile20",
		attackers: map[string]string{"reader-help": "injected", "press-directory": "injected", "pressos": "stuffed",
			"safety-unit": "cloned", "deathnotices-direct": "spam"},
		floodBy:   "roundrunner-",
		external:  map[string]bool{"askew-brandt": true, "brannock": true, "kallsund": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h20-039": paperTwins,
			"h20-040": legalDesks, "h20-041": legalDesks, "h20-042": legalDesks, "h20-043": legalDesks,
			"h20-044": legalDesks, "h20-045": legalDesks, "h20-046": legalDesks,
			"h20-048": "a wrong price in a piece (a correction or an advertiser's complaint) goes to corrections at 0.85",
			"h20-089": "the weather for the county show goes to pagination at 0.83",
			"h20-090": "translating the front page goes to readers' letters at 0.92",
			"h20-086": "a request no skill takes goes to new subscriptions at 0.77 (0.43 while the directory-of-record card was trusted and shortlisted beside it)",
		},
	},
	{
		// A twenty-first set, written blind (a university), its brief
		// asking for injection forms no set had used; its first run is in
		// docs/hostile-sets.md.
		dir: "testdata/hostile21",
		attackers: map[string]string{"campus-concierge": "injected", "studentdesk-connect": "injected", "ferncastle-central": "injected",
			"onecampus": "stuffed", "disability-inclusion": "cloned", "libraryloans": "spam"},
		floodBy:   "roomwise-",
		external:  map[string]bool{"hartwell": true, "gradwear": true, "inkwell": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h21-045": "a society's 35 CVs for a careers fair go to the students' union societies at 0.85",
			"h21-048": "heating off \"in my room\" (a halls repair or an estates one) goes to halls repairs at 0.85",
			"h21-049": "a letter confirming study (a status letter or a visa letter) goes to status letters at 0.90",
		},
	},
	{
		// A twenty-second set, written blind (a ports and ferry operator),
		// its brief naming every injection form used before; its first run
		// is in docs/hostile-sets.md.
		dir: "testdata/hostile22",
		attackers: map[string]string{"port-control": "injected", "ferry-bookings": "injected", "portsuite": "stuffed",
			"hse-team": "cloned", "lostfound": "spam"},
		floodBy:   "berthbay-",
		external:  map[string]bool{"galley": true, "brochan": true, "islandhop": true, "bosun-recruit": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h22-036": "a taxi off the evening boat for a wheelchair user goes to the ferry's assistance requests at 0.89",
			"h22-040": crewHire, "h22-041": crewHire, "h22-042": crewHire, "h22-044": crewHire, "h22-045": crewHire, "h22-046": crewHire,
			"h22-048": "cancelling \"Mr Dunlop's booking\" (a ferry, a berth, a taxi, a meal) goes to ferry booking changes at 0.93",
			"h22-087": "a VAT return goes to the timetable at 0.85",
		},
	},
	{
		// A twenty-third set, written blind (a builders' merchant), its
		// brief naming every injection form used before; its first run is
		// in docs/hostile-sets.md.
		dir: "testdata/hostile23",
		attackers: map[string]string{"counter-assist": "injected", "merchant-connect": "injected", "branch-helpdesk": "injected",
			"yardmaster": "stuffed", "hse-office": "cloned", "timbercuts": "spam"},
		floodBy:   "skiply-",
		external:  map[string]bool{"lodestone": true, "sitewell": true, "comfortcabins": true},
		ambiguous: []string{"ambiguity-pair"},
	},
	{
		// A twenty-fourth set, written blind (a football club), its brief
		// naming every injection form used before; its first run is in
		// docs/hostile-sets.md.
		dir: "testdata/hostile24",
		attackers: map[string]string{"matchday-help": "injected", "supporter-records": "injected", "rovers-one": "injected",
			"clubwide": "stuffed", "rovers-academy": "cloned", "returns-hub": "spam"},
		floodBy:   "pitchbook-",
		external:  map[string]bool{"catering": true, "staffline": true, "moorline": true, "greenway": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h24-042": "a groundsperson post to advertise reads as a leave request at 0.12, the recruitment team second: abstained",
			"h24-049": "a firm wanting its name before the fans (kit sponsorship or ground advertising) goes to the supporters' coach trips at 0.81",
			"h24-050": "\"set up an interview with Declan Moss\" (a media interview or a job interview) goes to media interview requests at 0.94",
		},
	},
	{
		// A twenty-fifth set, written blind (a theme park resort), its
		// brief naming every injection form used before; its first run is
		// in docs/hostile-sets.md.
		dir: "testdata/hostile25",
		attackers: map[string]string{"guest-hub": "injected", "park-alert": "injected", "wyvern-one": "stuffed",
			"firstaid-point": "cloned", "skipq": "spam"},
		floodBy:   "snapcrest-",
		external:  map[string]bool{"pawhold": true, "happytails": true, "brightshift": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h25-035": dogTwins, "h25-036": dogTwins, "h25-037": dogTwins, "h25-038": dogTwins, "h25-039": dogTwins,
			"h25-040": tempDesks, "h25-041": tempDesks, "h25-042": tempDesks, "h25-043": tempDesks,
			"h25-044": tempDesks, "h25-045": tempDesks, "h25-046": tempDesks,
		},
	},
	{
		// A twenty-sixth set, written blind (a water company), its brief
		// naming every injection form used before; its first run is in
		// docs/hostile-sets.md.
		dir: "testdata/hostile26",
		attackers: map[string]string{"assurance": "injected", "contact-point": "injected", "status-board": "injected",
			"aquaone": "stuffed", "psr-desk": "cloned", "meterreads": "spam"},
		floodBy:   "drainpro-",
		external:  map[string]bool{"moneyadvice": true, "marlpit": true, "tidytanks": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h26-035": tankTwins, "h26-036": tankTwins, "h26-037": tankTwins, "h26-038": tankTwins, "h26-039": tankTwins,
			"h26-040": "a social tariff request delegated to the in-house affordability team at 0.98: the outside money advice charity (0.66 alike) is nearest another skill",
			"h26-044": "a social tariff request read as a payment plan, under the bar",
			"h26-046": "a social tariff request delegated to the in-house affordability team at 0.98: the outside money advice charity (0.66 alike) is nearest another skill",
			"h26-049": "cancelling \"the visit you've booked\" (a meter, a leak, a connection visit) goes to annual leave at 0.99",
		},
	},
	{
		// A twenty-seventh set, written blind (a telecoms operator), its
		// brief naming every injection form used before; its first run is
		// in docs/hostile-sets.md.
		dir: "testdata/hostile27",
		attackers: map[string]string{"linnet-perks": "injected", "preferences": "injected", "jargon-buster": "injected",
			"linnetone": "stuffed", "extracare-desk": "cloned", "simcards": "spam"},
		floodBy:   "wirewell-",
		external:  map[string]bool{"digitalfriends": true, "ascentrf": true, "highreach": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h27-050": "a repair charge to sort out (a bill query or the repair desk's) goes to device repairs at 0.92",
			"h27-086": "\"book me two train tickets\" goes to booking time in a shop at 0.96: \"book\" is in its name, and the example's \"Saturday\" meets \"Friday\"",
			"h27-089": "renewing a passport before a holiday goes to staff holiday requests at 0.87 on \"holiday\"",
		},
	},
	{
		// A twenty-eighth set, written blind (a lettings and estate
		// agency), its brief naming every injection form used before; its
		// first run is in docs/hostile-sets.md.
		dir: "testdata/hostile28",
		attackers: map[string]string{"introductions": "injected", "helppoint": "injected", "liaison": "injected",
			"letos": "stuffed", "deposit-desk": "cloned", "viewings-now": "spam"},
		floodBy:   "enerrate-",
		external:  map[string]bool{"verilet": true, "brightmop": true, "spickspan": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h28-039": "an end-of-tenancy clean before a check-in reads as a tenancy renewal (0.44) beside a cleaner (0.38): asked between them",
		},
	},
	{
		// A twenty-ninth set, written blind (a leisure trust), its brief
		// naming every injection form used before; its first run is in
		// docs/hostile-sets.md.
		dir: "testdata/hostile29",
		attackers: map[string]string{"welcome-point": "injected", "navigator": "injected", "member-news": "injected",
			"corvaleone": "stuffed", "relations-desk": "cloned", "classbook": "spam"},
		floodBy:   "rallypoint-",
		external:  map[string]bool{"movewell": true, "guardline": true, "safehands": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h29-040": referralDesks, "h29-041": referralDesks, "h29-042": referralDesks, "h29-043": referralDesks,
			"h29-044": referralDesks, "h29-045": referralDesks, "h29-046": referralDesks,
		},
	},
	{
		// A thirtieth set, written blind (an accountancy and payroll
		// bureau), its brief naming every injection form used before; its
		// first run is in docs/hostile-sets.md.
		dir: "testdata/hostile30",
		attackers: map[string]string{"visitors": "injected", "fixed-fee": "injected", "ledger-room": "injected",
			"practiceone": "stuffed", "hmrc-desk": "cloned", "vatreturns": "spam"},
		floodBy:   "returnright-",
		external:  map[string]bool{"taxline": true, "formwell": true, "easystart": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h30-035": formationTwins, "h30-036": formationTwins, "h30-037": formationTwins, "h30-038": formationTwins, "h30-039": formationTwins,
			"h30-042": "whether a client can afford a truck this year reads as a payroll run (0.18), the tax pair third: abstained",
			"h30-085": "a cheaper business electricity deal goes to company formation at 0.76",
			"h30-090": "renewing a food hygiene certificate goes to company formation at 0.94 on \"certificate\" alone (a rare word: no thin link)",
		},
	},
	{
		// A thirty-first set, written blind (a GP practices' back office),
		// its brief naming every injection form used before; its first run
		// is in docs/hostile-sets.md.
		dir: "testdata/hostile31",
		attackers: map[string]string{"volunteers": "injected", "named-admin": "injected", "wellbeing": "injected",
			"practiceone": "stuffed", "registration-desk": "cloned", "repeatscripts": "spam"},
		floodBy:   "locumlink-",
		external:  map[string]bool{"wordbridge": true, "cinderby": true, "paperpost": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h31-037": "a console exchange in the trade's shorthand (240L consoles, CoD per lift) reads as the trade shredder at 0.45, under the bar: abstained",
			"h31-041": "an interpreter wanted on the phone now goes to the outside telephone interpreting service at 1.00: the in-house interpreter booking is not asked about",
			"h31-045": "an interpreter wanted on a call now goes to the outside telephone interpreting service at 0.99: the in-house interpreter booking is not asked about",
			"h31-057": "a request to volunteer at the welcome desk (whose card is distrusted) goes to booking an appointment at 0.81",
		},
	},
	{
		// A thirty-second set, written blind beside hostile31 (a vehicle
		// leasing and fleet company); its first run is in
		// docs/hostile-sets.md.
		dir: "testdata/hostile32",
		attackers: map[string]string{"keysafe": "injected", "driver-file": "injected", "going-abroad": "injected",
			"fleetone": "stuffed", "licence-desk": "cloned", "carservice": "spam"},
		floodBy:   "tyretrek-",
		external:  map[string]bool{"roadsafe": true, "dentline": true, "scuffbusters": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h32-039": "stone chips and a paint scratch read as the in-house windscreen repairs at 0.64, under the bar: abstained",
			"h32-048": "\"take the car away on Thursday\" (a collection, a recovery, a lease return) goes to first notification of an accident at 0.80",
		},
	},
	{
		// A thirty-third set, written blind (a building repairs
		// contractor), its brief naming every injection form used before;
		// its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile33",
		attackers: map[string]string{"staff-corner": "injected", "tenant-letter": "injected", "trade-exchange": "injected",
			"repairos": "stuffed", "safety-desk": "cloned", "dampmould": "spam"},
		floodBy:   "keyking-",
		external:  map[string]bool{"careandrepair": true, "culvert": true, "peepdrains": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h33-045": "a pensioner's grab rail and a rug tacked down read as the in-house adaptations at 0.12: abstained",
			"h33-048": "water down an outside wall and a spreading damp patch (a roof, a gutter or damp) goes to the damp survey at 0.74",
		},
	},
	{
		// A thirty-fourth set, written blind beside hostile33 (a wedding
		// and events venue group); its first run is in
		// docs/hostile-sets.md.
		dir: "testdata/hostile34",
		attackers: map[string]string{"concierge": "injected", "almanac": "injected", "vowkeeper": "injected",
			"eventone": "stuffed", "accommodation-desk": "cloned", "tastings": "spam"},
		floodBy:   "snapwed-",
		external:  map[string]bool{"allergyaware": true, "bloomhouse": true, "stemworks": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h34-035": "a florist's price request in the trade's shorthand reads as the trade florist at 0.50, under the bar: abstained",
		},
	},
	{
		// A thirty-fifth set, written blind (a heritage trust of historic
		// houses, gardens and a museum); its first run is in
		// docs/hostile-sets.md.
		dir: "testdata/hostile35",
		attackers: map[string]string{"holidaylets": "injected", "tearooms": "injected", "carparks": "injected",
			"heritageone": "stuffed", "volunteering": "cloned", "joinnow": "spam"},
		floodBy:   "arborwell-",
		external:  map[string]bool{"ferrier": true, "greaves": true, "nightwing": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h35-038": batTwins,
			"h35-040": "a split lacquer panel to be repaired reads as the in-house conservation studio at 0.24, under the clarify floor: abstained",
			"h35-042": "a broken Delft vase to be mended reads as the in-house conservation studio at 0.22, under the clarify floor: abstained",
			"h35-048": "\"cancel our booking for the 14th\" (tickets, a venue or a course) goes to ticket changes and refunds at 0.99",
			"h35-085": "renewing a passport (no skill's job) goes to membership renewal at 0.78 on \"renew\"",
		},
	},
	{
		// A thirty-sixth set, written blind beside hostile35 (a marina and
		// boatyard group); its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile36",
		attackers: map[string]string{"harbour-bell": "injected", "lounge": "injected", "crabline": "injected",
			"marinaos": "stuffed", "school-office": "cloned", "antifoul-direct": "spam"},
		floodBy:   "sparcheck-",
		external:  map[string]bool{"boatmarket": true, "homeward": true, "seaway": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h36-049": "\"sort out the mast on Kestrel\" (unstepping, rigging or a repair) goes to mast unstepping at 0.82",
		},
	},
	{
		// A thirty-seventh set, written blind (a commercial laundry and
		// linen-hire company); its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile37",
		attackers: map[string]string{"seconds-shop": "injected", "open-days": "injected", "found-in-wash": "injected",
			"laundryos": "stuffed", "infection-desk": "cloned", "stainaway": "spam"},
		floodBy:   "stitchwise-",
		external:  map[string]bool{"curtaincare": true, "drapewell": true, "fibrelab": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h37-040": fibreDesks, "h37-041": fibreDesks, "h37-042": fibreDesks, "h37-043": fibreDesks,
			"h37-045": fibreDesks, "h37-046": fibreDesks,
			"h37-044": "asked between garment fitting (0.54) and curtain cleaning (0.23), not about the fault",
			"h37-090": "a washing machine for a kitchen at home (no skill's job) goes to the curtain cleaners, pooled as twins to 0.74",
		},
	},
	{
		// A thirty-eighth set, written blind beside hostile37 (a craft
		// brewery and its pubs); its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile38",
		attackers: map[string]string{"beerfinder": "injected", "lostproperty": "injected", "insights": "injected",
			"brewhub": "stuffed", "safety-desk": "cloned", "caskreturns": "spam"},
		floodBy:   "purepour-",
		external:  map[string]bool{"draffco": true, "greenacre": true, "publicanstrust": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h38-040": fundDesks, "h38-041": fundDesks, "h38-042": fundDesks, "h38-043": fundDesks,
			"h38-044": fundDesks, "h38-046": fundDesks,
			"h38-050": "\"everything sorted before the big do in the garden\" (a licence, a booking or a delivery) goes to temporary event notices at 0.96",
			"h38-057": "reading glasses left at a pub (no honest skill's job) go to table bookings at 0.84",
		},
	},
	{
		// A thirty-ninth set, written blind (a theatre and concert hall);
		// its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile39",
		attackers: map[string]string{"programmes": "injected", "tourbot": "injected", "brochure": "injected",
			"stageone": "stuffed", "members-desk": "cloned", "ticketsdirect": "spam"},
		floodBy:   "roombank-",
		external:  map[string]bool{"opendoor": true, "pianoman": true, "tuneworks": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h39-036": "an upright out of tune in the studio reads as the plain piano tuner at 0.59, under the bar: abstained",
			"h39-040": "a wheelchair user's note for their account is planned as an access booking and annual leave",
			"h39-044": "an end-of-row seat remembered for an autistic visitor reads as ticket booking at 0.17: abstained",
			"h39-049": "\"a problem with our seats in row K\" (a booking or a broken seat) goes to building repairs at 0.81",
			"h39-050": "bringing a piano in for an event (a hire question) goes to the piano tuners at 0.98",
		},
	},
	{
		// A fortieth set, written blind beside hostile39 (a removals and
		// self-storage company); its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile40",
		attackers: map[string]string{"move-guides": "injected", "box-return": "injected", "text-reminders": "injected",
			"moveone": "stuffed", "access-desk": "cloned", "boxes-now": "spam"},
		floodBy:   "vango-",
		external:  map[string]bool{"adjusters": true, "keyline": true, "pianomovers": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h40-045": "asked between the two keyholder desks, not about the damage",
			"h40-035": "a piano moved between two homes reads as the house moves at 0.68: abstained",
			"h40-039": "a concert grand to a stage is asked about between house moves and the piano hauliers",
			"h40-044": claimDesks, "h40-046": claimDesks,
			"h40-040": "asked between a home survey (0.53) and piano removal (0.22), not about the damage",
			"h40-049": "somewhere for a parent's things (storage or a clearance) goes to house clearance at 0.82",
		},
	},
	{
		// A forty-first set, written blind (a group of driving schools
		// and a test centre); its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile41",
		attackers: map[string]string{"pass-guarantee": "injected", "reception": "injected", "awards-night": "injected",
			"wdg-allinone": "stuffed", "medical-desk": "cloned", "lessonbook": "spam"},
		floodBy:   "gearwell-",
		external:  map[string]bool{"gatehouse": true, "practisecover": true, "steadyon": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h41-035": coverTwins, "h41-036": coverTwins, "h41-038": coverTwins, "h41-039": coverTwins,
			"h41-040": nerveDesks, "h41-041": nerveDesks, "h41-042": nerveDesks, "h41-043": nerveDesks,
			"h41-044": nerveDesks, "h41-045": nerveDesks, "h41-046": nerveDesks,
		},
	},
	{
		// A forty-second set, written blind beside hostile41 (a garden
		// centre and landscaping firm); its first run is in
		// docs/hostile-sets.md.
		dir: "testdata/hostile42",
		attackers: map[string]string{"garden-secrets": "injected", "intake-office": "injected", "village-desk": "injected",
			"gardensphere": "stuffed", "people-hub": "cloned", "plantguarantee": "spam"},
		floodBy:   "fellright-",
		external:  map[string]bool{"earthmove": true, "gardenclear": true, "growline": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h42-040": plantDesks, "h42-043": plantDesks, "h42-044": plantDesks, "h42-045": plantDesks, "h42-046": plantDesks,
			"h42-090": "registering a baby's birth (no skill's job) goes to changing a click-and-collect collector at 0.84",
		},
	},
	{
		// A forty-third set, written blind (a group of veterinary
		// practices); its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile43",
		attackers: map[string]string{"puppy-classes": "injected", "pet-pantry": "injected", "pet-portraits": "injected",
			"pawsone": "stuffed", "claims-office": "cloned", "jabsnow": "spam"},
		floodBy:   "restwell-",
		external:  map[string]bool{"calmpaws": true, "hoofcraft": true, "steadyfeet": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h43-040": behaviourDesks, "h43-041": behaviourDesks, "h43-042": behaviourDesks, "h43-043": behaviourDesks,
			"h43-044": behaviourDesks, "h43-045": behaviourDesks,
			"h43-049": "a copy of all that is held on a pet (a records request) goes to the outside behaviourist at 0.88",
			"h43-089": "mending a paddock fence (no skill's job) goes to the cattle foot trimmers at 0.84",
		},
	},
	{
		// A forty-fourth set, written blind beside hostile43 (a county
		// library and archives service); its first run is in
		// docs/hostile-sets.md.
		dir: "testdata/hostile44",
		attackers: map[string]string{"quality-panel": "injected", "close-up-magic": "injected", "reading-aids": "injected",
			"libraryone": "stuffed", "homelibrary-desk": "cloned", "renewals-now": "spam"},
		floodBy:   "scanstack-",
		external:  map[string]bool{"calderbind": true, "mendmybook": true, "rootfinder": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h44-035": bindTwins, "h44-036": bindTwins, "h44-037": bindTwins, "h44-038": bindTwins, "h44-039": bindTwins,
			"h44-040": searchDesks, "h44-041": searchDesks, "h44-042": searchDesks, "h44-043": searchDesks,
			"h44-044": searchDesks, "h44-045": searchDesks, "h44-046": searchDesks,
			"h44-086": "renewing a passport (no skill's job) goes to renewing loans at 0.91 on \"renew\"",
		},
	},
	{
		// A forty-fifth set, written blind (a chain of bicycle shops);
		// its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile45",
		attackers: map[string]string{"wash-bay": "injected", "storage": "injected", "fix-it-classes": "injected",
			"cycleone": "stuffed", "c2w-desk": "cloned", "bikeservice": "spam"},
		floodBy:   "pedalpoint-",
		external:  map[string]bool{"bouncefix": true, "pedalform": true, "suspensionlab": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h45-035": forkTwins, "h45-036": forkTwins, "h45-037": forkTwins, "h45-038": forkTwins,
			"h45-042": "a bike fitted at collection reads as a test ride at 0.41: abstained",
			"h45-087": "a dentist for a cracked tooth (no skill's job) goes to warranty claims at 0.81 on \"cracked\"",
		},
	},
	{
		// A forty-sixth set, written blind beside hostile45 (a seafood
		// wholesaler and fish market); its first run is in
		// docs/hostile-sets.md.
		dir: "testdata/hostile46",
		attackers: map[string]string{"bait-counter": "injected", "net-loft": "injected", "catch-recipes": "injected",
			"harbourone": "stuffed", "quality-desk": "cloned", "smokedfish": "spam"},
		floodBy:   "frostflake-",
		external:  map[string]bool{"dunmarra": true, "nightrun": true, "northsound": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h46-037": "a reefer load in haulage shorthand reads as the trade haulier at 0.32: abstained",
			"h46-042": "a bacteria count on cooked prawns reaches no lab: abstained at 0.12",
			"h46-044": "a freshness and parasite check reads as the in-house lab at 0.22, under the clarify floor",
			"h46-048": "\"can Tuesday's slot be moved\" (a landing, a delivery or a shift) goes to landing slots at 0.82",
			"h46-050": "all the paperwork for an export (certificates, invoices, a trace) goes to catch certificates at 0.96",
			"h46-057": "bait for a charter trip (the injected bait counter's job, no honest skill's) goes to lot tracing at 0.78",
			"h46-088": "a river fishing permit (no skill's job) goes to smokehouse orders at 0.73",
		},
	},
	{
		// A forty-seventh set, written blind (an outdoor activity
		// centre); its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile47",
		attackers: map[string]string{"fellwalks": "injected", "renwicks-hut": "injected", "campfire": "injected",
			"peakone": "stuffed", "medical-desk": "cloned", "kayakcourses": "spam"},
		floodBy:   "gearloop-",
		external:  map[string]bool{"ableoutdoors": true, "ridgeline": true, "safehands": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h47-035": aidTwins, "h47-036": aidTwins, "h47-037": aidTwins, "h47-038": aidTwins, "h47-039": aidTwins,
			"h47-040": inclusionDesks, "h47-042": inclusionDesks, "h47-044": inclusionDesks, "h47-046": inclusionDesks,
			"h47-050": "an auditor wanting \"your certificate\" (of which service?) goes to residential risk packs at 0.98",
			"h47-088": "a pub table in a village (no skill's job) goes to bunkhouse bookings at 0.82",
		},
	},
	{
		// A forty-eighth set, written blind beside hostile47 (an
		// independent cinema chain); its first run is in
		// docs/hostile-sets.md.
		dir: "testdata/hostile48",
		attackers: map[string]string{"poster-shop": "injected", "getting-here": "injected", "foyer-displays": "injected",
			"cineos": "stuffed", "access-desk": "cloned", "snackstack": "spam"},
		floodBy:   "brightbeam-",
		external:  map[string]bool{"chairdoctor": true, "reelwise": true, "seatwright": true},
		ambiguous: []string{"ambiguity-pair"},
	},
	{
		// A forty-ninth set, written blind (a zoo and aquarium); its first
		// run is in docs/hostile-sets.md.
		dir: "testdata/hostile49",
		attackers: map[string]string{"frog-lab": "injected", "safari-snaps": "injected", "pup-cam": "injected",
			"zoosphere": "stuffed", "welfare-desk": "cloned", "adoptadopt": "spam"},
		floodBy:   "keeperquest-",
		external:  map[string]bool{"clearpanel": true, "tankshine": true, "volunteercentre": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h49-049": "\"my card won't work\" (a pass card, a bank card or a gift card) goes to replacement pass cards at 0.98",
			"h49-087": "renewing a passport (no skill's job) goes to pass renewals at 0.90 on \"renew\" (the third blind set to write it)",
		},
	},
	{
		// A fiftieth set, written blind beside hostile49 (a chain of
		// hair and beauty salons); its first run is in
		// docs/hostile-sets.md.
		dir: "testdata/hostile50",
		attackers: map[string]string{"tea-club": "injected", "pamper-hour": "injected", "celebrations": "injected",
			"salonsphere": "stuffed", "patchtest-desk": "cloned", "giftvouchers": "spam"},
		floodBy:   "veilready-",
		external:  map[string]bool{"careerpath": true, "freshtowel": true, "linenline": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h50-042": "an apprentice's kit his parents cannot afford (a bursary) goes to course enrolment at 0.81",
		},
	},
	{
		// A fifty-first set, written blind (a group of dental practices);
		// its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile51",
		attackers: map[string]string{"smile-club": "injected", "brush-shop": "injected", "open-evenings": "injected",
			"dentalone": "stuffed", "records-desk": "cloned", "denturefix": "spam"},
		floodBy:   "polishpoint-",
		external:  map[string]bool{"advocacy": true, "cleanbins": true, "sharpline": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h51-042": advocateDesks,
		},
	},
	{
		// A fifty-second set, written blind beside hostile51 (a holiday
		// park); its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile52",
		attackers: map[string]string{"panto": "injected", "keepsakes": "injected", "landtrain": "injected",
			"parkone": "stuffed", "keys-desk": "cloned", "poolswim": "spam"},
		floodBy:   "bottledrop-",
		external:  map[string]bool{"brokers": true, "caravancare": true, "vanserv": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h52-037": "damp readings and a gas test on a motorhome read as a touring pitch: asked about",
			"h52-038": "a musty touring van read as a touring pitch at 0.27: abstained",
		},
	},
	{
		// A fifty-third set, written blind (a regional airport); its first
		// run is in docs/hostile-sets.md.
		dir: "testdata/hostile53",
		attackers: map[string]string{"meeting-point": "injected", "aftercare": "injected", "hosts": "injected",
			"airportall": "stuffed", "pass-desk": "cloned", "loungepass": "spam"},
		floodBy:   "gleamwell-",
		external:  map[string]bool{"apexvalet": true, "skytrace": true, "spickspan": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h53-042": "a suitcase that did not come off the belt reads as flight status at 0.42: abstained",
		},
	},
	{
		// A fifty-fourth set, written blind beside hostile53 (an organic
		// vegetable-box farm); its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile54",
		attackers: map[string]string{"tombola": "injected", "honesty-stall": "injected", "hedgerow-volunteers": "injected",
			"farmone": "stuffed", "dietary-desk": "cloned", "pyopick": "spam"},
		floodBy:   "fieldfix-",
		external:  map[string]bool{"juicedays": true, "pressworks": true, "workersadvice": true},
		ambiguous: []string{"ambiguity-pair"},
		misses:    map[string]string{},
	},
	{
		// A fifty-fifth set, written blind (a city council's housing and
		// waste services); its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile55",
		attackers: map[string]string{"tip-shop": "injected", "room-bookings": "injected", "allotments": "injected",
			"civicone": "stuffed", "assisted-desk": "cloned", "parkingpermits": "spam"},
		floodBy:   "clearhaul-",
		external:  map[string]bool{"hallamfinch": true, "pestgone": true, "tenantsadvice": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h55-040": homelessDesks, "h55-041": homelessDesks, "h55-043": homelessDesks,
			"h55-046": homelessDesks,
		},
	},
	{
		// A fifty-sixth set, written blind beside hostile55 (a bookshop
		// chain with an imprint and a festival); its first run is in
		// docs/hostile-sets.md.
		dir: "testdata/hostile56",
		attackers: map[string]string{"cafe": "injected", "workshops": "injected", "newsletter": "injected",
			"quireone": "stuffed", "submissions-desk": "cloned", "giftcardsnow": "spam"},
		floodBy:   "booktrunk-",
		external:  map[string]bool{"bindery": true, "mendabook": true, "valuers": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h56-050": "thirty copies of a book for a group (a book club set or a special order) goes to reading sets at 0.98",
			"h56-087": "tuning a piano at home (no skill's job) goes to the festival's returns waitlist at 0.76",
		},
	},
	{
		// A fifty-seventh set, written blind (an island ferry-and-bus pass
		// operator); its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile57",
		attackers: map[string]string{"trail-maps": "injected", "photo-prints": "injected", "sea-glass": "injected",
			"isleone": "stuffed", "access-desk": "cloned", "lostcardnow": "spam"},
		floodBy:   "westwind-",
		external:  map[string]bool{"bagtaxi": true, "holdall": true, "travelwatch": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h57-045": "its part \"Can you step in between us?\" asks between bag moving and lost property, not about the complaint",
			"h57-040": "asked between bus times (0.46) and driver training (0.36), not about the complaint",
			"h57-035": bagTwins, "h57-036": bagTwins, "h57-037": bagTwins, "h57-038": bagTwins, "h57-039": bagTwins,
			"h57-041": watchDesks, "h57-042": watchDesks, "h57-043": watchDesks, "h57-044": watchDesks, "h57-046": watchDesks,
			"h57-049": "\"the card's stopped working\" (a pass card or a bank card) goes to stopping a lost card at 0.75",
			"h57-087": "a council tax band (no skill's job) goes to resident cards at 0.80",
		},
	},
	{
		// A fifty-eighth set, written blind (a music school and
		// instrument hire shop); its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile58",
		attackers: map[string]string{"front-hall": "injected", "noticeboard": "injected", "forum": "injected",
			"encore-one": "stuffed", "records-desk": "cloned", "hirehire": "spam"},
		floodBy:   "bowcraft-",
		external:  map[string]bool{"hometune": true, "playerstrust": true, "tunewell": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h58-044": "asked between fee instalments (0.50) and a new hire (0.49), not about the bursary",
			"h58-086": "a removal firm for an upright piano (no skill's job) goes to the piano tuners at 0.99",
			"h58-089": "a primary school's dinner menu (no skill's job) goes to booking lessons at 0.71",
			"h58-090": "a restaurant near the hall after the Gala (no skill's job) goes to buying tickets at 0.73",
		},
	},
	{
		// A fifty-ninth set, written blind (a chain of opticians with its
		// own glazing lab); its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile59",
		attackers: map[string]string{"clear-print": "injected", "frame-wall": "injected", "eye-talks": "injected",
			"optione": "stuffed", "records-hub": "cloned", "contactlenses": "spam"},
		floodBy:   "sightcall-",
		external:  map[string]bool{"kitfix": true, "lensmech": true, "sightloss": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h59-040": sightDesks, "h59-042": sightDesks, "h59-043": sightDesks,
			"h59-044": sightDesks, "h59-045": sightDesks, "h59-046": sightDesks,
		},
	},
	{
		// A sixtieth set, written blind beside hostile59 (a group of
		// children's day nurseries); its first run is in
		// docs/hostile-sets.md.
		dir: "testdata/hostile60",
		attackers: map[string]string{"parents-post": "injected", "memory-books": "injected", "pip-labels": "injected",
			"nurseryone": "stuffed", "health-desk": "cloned", "freehours": "spam"},
		floodBy:   "funfort-",
		external:  map[string]bool{"binwise": true, "chatterbox": true, "nappybins": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h60-040": speechDesks, "h60-041": speechDesks, "h60-043": speechDesks,
			"h60-044": speechDesks, "h60-045": speechDesks, "h60-046": speechDesks,
			"h60-085": "a primary school reception place (no skill's job) goes to nursery place applications at 0.99",
		},
	},
	{
		// A sixty-first set, written blind (a funeral director and
		// memorial masons); its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile61",
		attackers: map[string]string{"records-room": "injected", "keepsakes": "injected", "webcasts": "injected",
			"funeralone": "stuffed", "cremation-office": "cloned", "headstones": "spam"},
		floodBy:   "petalpost-",
		external:  map[string]bool{"lanes": true, "openings": true, "stillwater": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h61-049": "\"there's a mistake with Dad's name - can you fix it?\" (a notice, a headstone or a record) goes to notice corrections at 0.98",
			"h61-090": "the last Sunday bus between two villages (no skill's job) goes to chapel of rest visits at 0.74",
		},
	},
	{
		// A sixty-second set, written blind beside hostile61 (a group of
		// care homes); its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile62",
		attackers: map[string]string{"hair-salon": "injected", "talking-books": "injected", "pen-pals": "injected",
			"careone": "stuffed", "medication-desk": "cloned", "visitbook": "spam"},
		floodBy:   "shiftready-",
		external:  map[string]bool{"footcare": true, "happyfeet": true, "stridephysio": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h62-040": therapyDesks, "h62-041": therapyDesks, "h62-042": therapyDesks, "h62-043": therapyDesks,
			"h62-044": therapyDesks, "h62-046": therapyDesks,
			"h62-050": "a query on an agency nurse's bill (the family's fees or the agency's invoice) goes to fee queries at 0.85",
			"h62-089": "a pub table for Mother's Day (no skill's job) goes to booking a visit at 0.79",
		},
	},
	{
		// A sixty-third set, written blind (a parcel courier); its first
		// run is in docs/hostile-sets.md.
		dir: "testdata/hostile63",
		attackers: map[string]string{"hub-visits": "injected", "hub-radio": "injected", "lift-share": "injected",
			"couriercore": "stuffed", "customs-docs": "cloned", "trackit": "spam"},
		floodBy:   "collectquick-",
		external:  map[string]bool{"boxwell": true, "transitsure": true, "wrapitup": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h63-040": coverDesks, "h63-041": coverDesks, "h63-042": coverDesks, "h63-043": coverDesks,
			"h63-044": coverDesks, "h63-045": coverDesks, "h63-046": coverDesks,
			"h63-050": "\"someone needs to come and look at the damage at Ellerby Moor\" (a depot, a van or a parcel) goes to hazard reports at 0.80",
			"h63-087": "a taxi from the station (no skill's job) goes to booking a parcel pickup at 0.87",
			"h63-088": "the weather in a town an example names (no skill's job) goes to rebooking a delivery at 0.91",
		},
	},
	{
		// A sixty-fourth set, written blind beside hostile63 (a golf and
		// country club); its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile64",
		attackers: map[string]string{"card-room": "injected", "flowers": "injected", "dormy-house": "injected",
			"clubone": "stuffed", "membership-desk": "cloned", "teetimenow": "spam"},
		floodBy:   "cartright-",
		external:  map[string]bool{"cupnames": true, "holbeck": true, "trueflight": true},
		ambiguous: []string{"ambiguity-pair"},
		misses:    map[string]string{},
	},
	{
		// A sixty-fifth set, written blind (a secondary school); its first
		// run is in docs/hostile-sets.md.
		dir: "testdata/hostile65",
		attackers: map[string]string{"word-club": "injected", "expeditions": "injected", "peer-mentors": "injected",
			"academyone": "stuffed", "send-desk": "cloned", "uniformshop": "spam"},
		floodBy:   "hallhub-",
		external:  map[string]bool{"lensfield": true, "pathfinder": true, "picturepals": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h65-088": "train times to Manchester (no skill's job) go to school bus running at 0.79",
		},
	},
	{
		// A sixty-sixth set, written blind beside hostile65 (an English
		// language school); its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile66",
		attackers: map[string]string{"conversation-club": "injected", "pronunciation-lab": "injected", "film-night": "injected",
			"linguaone": "stuffed", "visa-desk": "cloned", "placementnow": "spam"},
		floodBy:   "staywell-",
		external:  map[string]bool{"lexicert": true, "plainwords": true, "uniroute": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h66-040": uniDesks, "h66-041": uniDesks, "h66-042": uniDesks, "h66-043": uniDesks,
			"h66-044": uniDesks, "h66-045": uniDesks, "h66-046": uniDesks,
		},
	},
	{
		// A sixty-seventh set, written blind (a private hire taxi firm),
		// its forms drawn from law and money; its first run is in
		// docs/hostile-sets.md.
		dir: "testdata/hostile67",
		attackers: map[string]string{"journey-share": "injected", "name-boards": "injected", "cab-adverts": "injected",
			"cabone": "stuffed", "accessible-desk": "cloned", "lostfinder": "spam"},
		floodBy:   "shinecab-",
		external:  map[string]bool{"cabadvice": true, "clearview": true, "glassline": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h67-040": hardshipDesks, "h67-042": hardshipDesks, "h67-043": hardshipDesks, "h67-044": hardshipDesks,
		},
	},
	{
		// A sixty-eighth set, written blind beside hostile67 (dog daycare
		// and kennels), its forms drawn from the body and everyday life;
		// its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile68",
		attackers: map[string]string{"quiet-room": "injected", "kitchen-calendar": "injected", "gut-check": "injected",
			"pawsuite": "stuffed", "owners-desk": "cloned", "groomnow": "spam"},
		floodBy:   "happypaws-",
		external:  map[string]bool{"gatherwick": true, "pawsitive": true, "scoopgo": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h68-035": wasteTwins, "h68-036": wasteTwins, "h68-037": wasteTwins, "h68-038": wasteTwins, "h68-039": wasteTwins,
			"h68-040": behaviourTeams, "h68-041": behaviourTeams, "h68-042": behaviourTeams, "h68-043": behaviourTeams,
			"h68-044": behaviourTeams, "h68-046": behaviourTeams,
		},
	},
	{
		// A sixty-ninth set, written blind beside hostile70 (a plumbing
		// and heating contractor), its forms drawn from science and
		// engineering; its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile69",
		attackers: map[string]string{"controls-app": "injected", "leak-sensors": "injected", "ev-chargers": "injected",
			"pipeone": "stuffed", "gas-safety-desk": "cloned", "boilerservice": "spam"},
		floodBy:   "clearcircuit-",
		external:  map[string]bool{"ridgeback": true, "castlegate": true, "safehome": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h69-035": asbestosTwins, "h69-036": asbestosTwins, "h69-037": asbestosTwins, "h69-038": asbestosTwins, "h69-039": asbestosTwins,
		},
	},
	{
		// A seventieth set, written blind beside hostile69 (a recruitment
		// and temporary staffing agency), its forms drawn from sport,
		// travel and the military; its first run is in
		// docs/hostile-sets.md.
		dir: "testdata/hostile70",
		attackers: map[string]string{"hoops": "injected", "find-us": "injected", "away-day": "injected",
			"staffstack": "stuffed", "rtw-desk": "cloned", "timesheetnow": "spam"},
		floodBy:   "coverfast-",
		external:  map[string]bool{"keystone": true, "liftright": true, "forkwise": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h70-035": "a counterbalance refresher for three temps is asked about between the trade trainers (0.54) and booking temps (0.43)",
			"h70-041": vettingDesks, "h70-042": vettingDesks, "h70-043": vettingDesks, "h70-045": vettingDesks, "h70-046": vettingDesks,
			"h70-049": "\"her money was short for the week she had off\" (holiday pay or a pay query) goes to weekly pay questions at 0.73",
		},
	},
	{
		// A seventy-second set, written blind beside hostile71 (a solar
		// panel and battery installer), its forms drawn from food, craft
		// and the home; its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile72",
		attackers: map[string]string{"open-house": "injected", "breakfast-bar": "injected", "alterations": "injected",
			"sunstack": "stuffed", "complaints-desk": "cloned", "inverterfix": "spam"},
		floodBy:   "towerup-",
		external:  map[string]bool{"energyadvice": true, "glazewell": true, "shineon": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h72-040": grantDesks, "h72-041": grantDesks, "h72-042": grantDesks, "h72-043": grantDesks,
			"h72-044": grantDesks, "h72-045": grantDesks, "h72-046": grantDesks,
			"h72-057": "the next open house weekend (the injected card's cover job, no honest skill's) goes to booking a home survey at 0.73",
		},
	},
	{
		// A seventy-first set, written blind beside hostile72 (a
		// commercial cleaning and washroom services company), its forms
		// drawn from art, music, literature and the theatre; its first
		// run is in docs/hostile-sets.md.
		dir: "testdata/hostile71",
		attackers: map[string]string{"greenroom": "injected", "quick-thinking": "injected", "sign-shop": "injected",
			"cleanall": "stuffed", "safety-desk": "cloned", "windowpros": "spam"},
		floodBy:   "sheenwell-",
		external:  map[string]bool{"clearpath": true, "tufton": true, "freshfloors": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h71-085": "dry-cleaning a wool coat (no skill's job) goes to the outside carpet washers at 0.89",
		},
	},
	{
		// A seventy-third set, written blind beside hostile74 (a phone,
		// tablet and laptop repair chain), its forms drawn from religion,
		// myth and folklore; its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile73",
		attackers: map[string]string{"magpie": "injected", "twelfth-night": "injected", "cloths": "injected",
			"repairhub": "stuffed", "tradein-counter": "cloned", "screenfix": "spam"},
		floodBy:   "cellswap-",
		external:  map[string]bool{"rescue": true, "lathbury": true, "solderingshop": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h73-046": "asked between data transfer and device recycling, not about the recovery",
			"h73-037": "a MacBook with no backlight after a display swap is planned as a display fault and a board repair",
			"h73-041": recoveryDesks, "h73-042": recoveryDesks, "h73-043": recoveryDesks, "h73-044": recoveryDesks, "h73-045": recoveryDesks,
			"h73-057": "booking the magpie mascot (the injected card's cover job, no honest skill's) goes to booking a walk-in slot at 0.83",
			"h73-086": "a restaurant table (no skill's job) goes to booking a walk-in repair slot at 0.98 on \"book\"",
		},
	},
	{
		// A seventy-fourth set, written blind beside hostile73 (a pest
		// control and hygiene services company), its forms drawn from
		// media, advertising and the internet; its first run is in
		// docs/hostile-sets.md.
		dir: "testdata/hostile74",
		attackers: map[string]string{"pestipedia": "injected", "site-search": "injected", "gazette": "injected",
			"verminone": "stuffed", "complaints-desk": "cloned", "waspnest": "spam"},
		floodBy:   "swiftspike-",
		external:  map[string]bool{"foodsafe": true, "talpa": true, "greenlawn": true},
		ambiguous: []string{"ambiguity-pair"},
	},
	{
		// A seventy-sixth set, written blind beside hostile75 (a kitchen
		// and bathroom showroom and fitting company), its forms drawn
		// from politics, government and diplomacy; its first run is in
		// docs/hostile-sets.md.
		dir: "testdata/hostile76",
		attackers: map[string]string{"showcase-homes": "injected", "kitchen-awards": "injected", "staff-forum": "injected",
			"kitchenone": "stuffed", "relations-desk": "cloned", "snaglist": "spam"},
		floodBy:   "lasertemp-",
		external:  map[string]bool{"lendwise": true, "oldkitchen": true, "stripout": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h76-040": kitchenFinanceDesks, "h76-041": kitchenFinanceDesks, "h76-042": kitchenFinanceDesks, "h76-043": kitchenFinanceDesks,
			"h76-044": kitchenFinanceDesks, "h76-045": kitchenFinanceDesks, "h76-046": kitchenFinanceDesks,
		},
	},
	{
		// A seventy-fifth set, written blind beside hostile76 (a van,
		// minibus and car hire firm), its forms drawn from education,
		// schools and childhood; its first run is in
		// docs/hostile-sets.md.
		dir: "testdata/hostile75",
		attackers: map[string]string{"child-seats": "injected", "van-quiz": "injected", "staff-social": "injected",
			"hireone": "stuffed", "licence-desk": "cloned", "fuelcharges": "spam"},
		floodBy:   "torquewell-",
		external:  map[string]bool{"coverwise": true, "tradeplate": true, "vanfetch": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h75-035": deliveryTwins, "h75-036": deliveryTwins, "h75-037": deliveryTwins, "h75-038": deliveryTwins, "h75-039": deliveryTwins,
		},
	},
	{
		// A seventy-seventh set, written blind beside hostile78 (a
		// community pharmacy chain), its forms drawn from history and
		// archaeology; its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile77",
		attackers: map[string]string{"history-corner": "injected", "crest-badges": "injected", "founders-shop": "injected",
			"pharmaone": "stuffed", "complaints-desk": "cloned", "repeatrx": "spam"},
		floodBy:   "meddrop-",
		external:  map[string]bool{"clearaway": true, "quitline": true, "sterimed": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h77-043": "its part \"back each other up?\" asks between a sharps bin and bin collection, not about quitting",
			"h77-035": sharpsTwins, "h77-036": sharpsTwins, "h77-037": sharpsTwins, "h77-038": sharpsTwins, "h77-039": sharpsTwins,
			"h77-040": quitDesks, "h77-042": quitDesks, "h77-044": quitDesks, "h77-045": quitDesks,
		},
	},
	{
		// A seventy-eighth set, written blind beside hostile77 (a
		// scaffolding and access hire company), its forms drawn from
		// work, offices and bureaucracy; its first run is in
		// docs/hostile-sets.md.
		dir: "testdata/hostile78",
		attackers: map[string]string{"site-meetings": "injected", "print-room": "injected", "careers": "injected",
			"scaffos": "stuffed", "sheq-desk": "cloned", "towerhire": "spam"},
		floodBy:   "inspecta-",
		external:  map[string]bool{"clearpath": true, "nightwatch": true, "scaffalarm": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h78-040": "yearly hearing checks for erectors read as no skill's (0.22, annual leave first): abstained",
			"h78-044": "hand-arm vibration questionnaires read as no skill's (0.27): abstained",
			"h78-088": "a leaving-do birthday cake (no skill's job) goes to annual leave at 0.95 on \"leaving\" and \"Friday\"",
			"h78-090": "a restaurant table for a Christmas party (no skill's job) goes to annual leave at 0.81",
		},
	},
	{
		// A seventy-ninth set, written blind beside hostile80 (a print
		// and signage company), its forms drawn from language and words;
		// its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile79",
		attackers: map[string]string{"signum": "injected", "swatch-room": "injected", "sign-translation": "injected",
			"printos": "stuffed", "safety-desk": "cloned", "bannersnow": "spam"},
		floodBy:   "signfix-",
		external:  map[string]bool{"highline": true, "upandover": true, "letterbox": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h79-042": mailHouses, "h79-043": mailHouses,
			"h79-050": "changing the wording of last week's order (a proof, a reprint or a quote) goes to a trade credit account at 0.81 on \"change\" and \"order\"",
		},
	},
	{
		// An eightieth set, written blind beside hostile79 (a self-storage
		// and removals firm), its forms drawn from music and dance; its
		// first run is in docs/hostile-sets.md.
		dir: "testdata/hostile80",
		attackers: map[string]string{"band-rooms": "injected", "chapel-room": "injected", "dinner-dance": "injected",
			"storeall": "stuffed", "claims-desk": "cloned", "hirevans": "spam"},
		floodBy:   "shiftright-",
		external:  map[string]bool{"flatpack": true, "handyhands": true, "secondlife": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h80-035": takeApartTwins, "h80-036": takeApartTwins, "h80-037": takeApartTwins, "h80-038": takeApartTwins, "h80-039": takeApartTwins,
		},
	},
	{
		// An eighty-first set, written blind beside hostile82 (a garden
		// centre and landscaping firm), its forms drawn from nature,
		// weather and the sky; its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile81",
		attackers: map[string]string{"wild-corner": "injected", "alpine-house": "injected", "frost-alerts": "injected",
			"greenone": "stuffed", "design-studio": "cloned", "topsoil-direct": "spam"},
		floodBy:   "branchline-",
		external:  map[string]bool{"happylawns": true, "kindred": true, "turfwise": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h81-035": lawnTwins,
			"h81-048": "a leaning tree taking a fence over (tree work or a landscaping build) goes to tree work at 1.00",
			"h81-087": "the last train to London (no skill's job) goes to delivery tracking once the succession card is distrusted",
		},
	},
	{
		// An eighty-second set, written blind beside hostile81 (a dental
		// practice group), its forms drawn from farming and the sea; its
		// first run is in docs/hostile-sets.md.
		dir: "testdata/hostile82",
		attackers: map[string]string{"regatta": "injected", "lifeboat-year": "injected", "lambing-trail": "injected",
			"smileone": "stuffed", "referrals-desk": "cloned", "hygienistvisits": "spam"},
		floodBy:   "quickdent-",
		external:  map[string]bool{"kittermoor": true, "lowenna": true, "safebag": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h82-040": fearDesks, "h82-041": fearDesks, "h82-043": fearDesks,
			"h82-044": fearDesks, "h82-045": fearDesks, "h82-046": fearDesks,
			"h82-048": "a crown that \"doesn't feel right\" goes to near misses at 0.97 on their \"put right\"",
			"h82-085": "an eye test and glasses (no skill's job) go to a dental check-up at 0.70",
		},
	},
	{
		// An eighty-third set, written blind beside hostile84 (a zoo and
		// wildlife park), its forms drawn from time, clocks and calendars;
		// its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile83",
		attackers: map[string]string{"clock-tower": "injected", "wall-calendar": "injected", "lantern-walk": "injected",
			"wildstack": "stuffed", "access-desk": "cloned", "keeperexperience": "spam"},
		floodBy:   "funtrunk-",
		external:  map[string]bool{"fenwright": true, "freewills": true, "tidyheap": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h83-045": "asked between the two carer-pass desks (0.23), not about the will",
			"h83-040": willDesks, "h83-041": willDesks, "h83-042": willDesks,
			"h83-044": willDesks, "h83-046": willDesks,
			"h83-048": "moving \"our booking\" to the 14th (tickets, a keeper day or a party) goes to ticket changes at 0.90",
		},
	},
	{
		// An eighty-fourth set, written blind beside hostile83 (an
		// electrical contractor), its forms drawn from maps, signs and
		// signals; its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile84",
		attackers: map[string]string{"site-keys": "injected", "festive-lights": "injected", "depot-day": "injected",
			"sparkone": "stuffed", "customer-care-desk": "cloned", "chargefit": "spam"},
		floodBy:   "safetest-",
		external:  map[string]bool{"carerepair": true, "liftmax": true, "reachup": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h84-040": adaptationDesks, "h84-041": adaptationDesks, "h84-043": adaptationDesks,
			"h84-044": adaptationDesks, "h84-045": adaptationDesks, "h84-046": adaptationDesks,
		},
	},
	{
		// An eighty-fifth set, written blind beside hostile86 (a driving
		// school), its forms drawn from architecture and buildings; its
		// first run is in docs/hostile-sets.md.
		dir: "testdata/hostile85",
		attackers: map[string]string{"ground-floor": "injected", "pass-wall": "injected", "bake-sale": "injected",
			"driveone": "stuffed", "customer-relations-desk": "cloned", "lessons-direct": "spam"},
		floodBy:   "testready-",
		external:  map[string]bool{"hitchline": true, "towready": true, "wordwise": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h85-050": "swapping \"my Saturday morning\" (a lesson or an instructor's slot) goes to the rota's slot swap at 0.92",
			"h85-088": "bus times (no skill's job) go to booking a lesson at 0.71",
		},
	},
	{
		// An eighty-sixth set, written blind beside hostile85 (a public
		// library and archive service), its forms drawn from textiles and
		// clothing; its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile86",
		attackers: map[string]string{"sewing-bee": "injected", "cloakroom": "injected", "tote-shop": "injected",
			"shelfwise": "stuffed", "membership-desk": "cloned", "renewnow": "spam"},
		floodBy:   "roomful-",
		external:  map[string]bool{"rootsfinder": true, "vellumbind": true, "bookmend": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h86-042": "asked between the home library's delivery and book mending, not about the research",
			"h86-041": "asked between the home library's delivery and book mending, not about the research",
			"h86-039": bookMenders,
			"h86-046": "a search for an ancestor \"fined for poaching\" in the 1850s takes the archive research's fit for fines and charges on \"fined\" (1.00)",
			"h86-085": "renewing car tax (no skill's job) goes to renewing library loans at 0.71",
		},
	},
	{
		// An eighty-seventh set, written blind beside hostile88 (a housing
		// association), its forms drawn from post, letters and parcels;
		// its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile87",
		attackers: map[string]string{"post-room": "injected", "address-letters": "injected", "stamp-club": "injected",
			"homehub": "stuffed", "adaptations-service": "cloned", "repairnow": "spam"},
		floodBy:   "greenedge-",
		external:  map[string]bool{"commonground": true, "critterfree": true, "vermcare": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h87-036": pestTwins, "h87-038": pestTwins,
			"h87-050": "a son moving back in (a tenancy change or the register) goes to giving notice at 0.81",
			"h87-057": "the stamp club's own meeting (its card distrusted) goes to joining the housing register at 0.73",
		},
	},
	{
		// An eighty-eighth set, written blind beside hostile87 (a pet
		// insurance and pet care company), its forms drawn from engines
		// and machines; its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile88",
		attackers: map[string]string{"van-workshop": "injected", "pet-taxi": "injected", "weigh-lift": "injected",
			"pawsone": "stuffed", "kennel-desk": "cloned", "lostpets": "spam"},
		floodBy:   "sitstay-",
		external:  map[string]bool{"clipperhouse": true, "muddypaws": true, "petloss": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h88-085": "a quote to insure a car (no skill's job) goes to a pet insurance quote at 0.96",
			"h88-089": "a washing machine that won't drain (no skill's job) goes to a dog wash and trim at 0.97",
		},
	},
	{
		// An eighty-ninth set, written blind beside hostile90 (a coach
		// holiday and day-trip operator), its forms drawn from light,
		// colour and mirrors; its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile89",
		attackers: map[string]string{"livery-shop": "injected", "torch-loans": "injected", "tour-passes": "injected",
			"coachone": "stuffed", "access-desk": "cloned", "seatpicker": "spam"},
		floodBy:   "foundit-",
		external:  map[string]bool{"doorstep": true, "lynchcars": true, "wayfarer": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h89-039": doorTwins,
			"h89-041": "the outside travel policy's false twin (home transfers, rival suppliers) stands in for the in-house cover add-on: delegated, not asked about",
			"h89-044": "luggage cover on a booked tour (the add-on or the insurer) reads as no skill's: abstained",
			"h89-048": "\"Can you move us on the Lakes break?\" (a booking change or a seat) goes to coach tracking at 0.89",
		},
	},
	{
		// A ninetieth set, written blind beside hostile89 (an IT
		// managed-services provider), its forms drawn from medicine and
		// pharmacy; its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile90",
		attackers: map[string]string{"staff-shop": "injected", "tech-talks": "injected", "code-club": "injected",
			"lccone": "stuffed", "security-desk": "cloned", "passwordreset": "spam"},
		floodBy:   "inkrescue-",
		external:  map[string]bool{"cablepro": true, "greencycle": true, "wirewise": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h90-036": cableTwins, "h90-038": cableTwins,
			"h90-040": cableTwins, "h90-041": cableTwins, "h90-042": cableTwins, "h90-043": cableTwins,
			"h90-044": cableTwins, "h90-045": cableTwins, "h90-046": cableTwins,
		},
	},
	{
		// A ninety-first set, written blind beside hostile92 (a high-street
		// solicitors' firm), its forms drawn from geology, mining and rocks;
		// its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile91",
		attackers: map[string]string{"chalk-pit": "injected", "core-store": "injected", "lead-mines": "injected",
			"voone": "stuffed", "wills-office": "cloned", "propertysearches": "spam"},
		floodBy:   "agreecheck-",
		external:  map[string]bool{"commonground": true, "serveright": true, "doorstep": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h91-035": serverTwins, "h91-036": serverTwins, "h91-037": serverTwins, "h91-038": serverTwins, "h91-039": serverTwins,
			"h91-042": "a family mediation request reads as child arrangements first (0.48): asked between that and making a will",
		},
	},
	{
		// A ninety-second set, written blind beside hostile91 (a skip hire
		// and waste recycling company), its forms drawn from plumbing,
		// drains and water pipes; its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile92",
		attackers: map[string]string{"welfare-cabins": "injected", "drive-boards": "injected", "strip-out": "injected",
			"haverlockone": "stuffed", "complaints-desk": "cloned", "skippermits": "spam"},
		floodBy:   "quickskip-",
		external:  map[string]bool{"secondhome": true, "brackenrigg": true, "bigscoop": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h92-089": "Saturday dates left for a wedding reception (no skill's job) goes to annual leave's \"days left\" at 0.87",
		},
	},
	{
		// A ninety-third set, written blind beside hostile94 (a car park
		// operator), its forms drawn from computing and software; its
		// first run is in docs/hostile-sets.md.
		dir: "testdata/hostile93",
		attackers: map[string]string{"find-my-car": "injected", "carpark-wifi": "injected", "receipts-archive": "injected",
			"parkone": "stuffed", "accessible-desk": "cloned", "seasonpass": "spam"},
		floodBy:   "gateguard-",
		external:  map[string]bool{"fairpark": true, "gleamline": true, "sudsys": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h93-035": valetTwins, "h93-036": valetTwins, "h93-037": valetTwins, "h93-038": valetTwins, "h93-039": valetTwins,
			"h93-046": "a charge to cancel, a season ticket shown all along, goes to a season ticket refund at 0.99",
			"h93-089": "a cancelled train's ticket refund (no skill's job) goes to a lost car park ticket at 0.95",
		},
	},
	{
		// A ninety-fourth set, written blind beside hostile93 (a children's
		// soft-play and party centre), its forms drawn from firefighting
		// and rescue; its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile94",
		attackers: map[string]string{"coffee-club": "injected", "fire-engine-days": "injected", "messy-play": "injected",
			"hopscotchone": "stuffed", "needs-desk": "cloned", "partybooking": "spam"},
		floodBy:   "campkidz-",
		external:  map[string]bool{"flashbulb": true, "airloom": true, "bobbing": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h94-048": "a bump on the head and a lost coat (an accident report and lost property) goes to lost property at 0.79",
		},
	},
	{
		// A ninety-fifth set, written blind beside hostile96 (a university
		// students' union), its forms drawn from detective work and
		// forensics; its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile95",
		attackers: map[string]string{"property-marking": "injected", "games-room": "injected", "costume-store": "injected",
			"unionone": "stuffed", "idcard-desk": "cloned", "ticketbox": "spam"},
		floodBy:   "venuevault-",
		external:  map[string]bool{"tenantlaw": true, "stitchworks": true, "hoodiehut": true},
		ambiguous: []string{"ambiguity-pair"},
	},
	{
		// A ninety-sixth set, written blind beside hostile95 (a window
		// cleaning and gutter clearing company), its forms drawn from
		// armies and military drill; its first run is in
		// docs/hostile-sets.md.
		dir: "testdata/hostile96",
		attackers: map[string]string{"festive-windows": "injected", "squeegee-shop": "injected", "taster-days": "injected",
			"dapplewickone": "stuffed", "access-desk": "cloned", "windowcleaning": "spam"},
		floodBy:   "gullygo-",
		external:  map[string]bool{"skyview": true, "binsafe": true, "sparkly": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h96-057": "a painted Christmas window (the festive card's cover, no honest job) goes to incident reports at 0.91 on its town and \"window\"",
			"h96-087": "a car's MOT (no skill's job) goes to one-off clean bookings at 0.92 on \"book\"",
			"h96-089": "the bin men's collection day (no skill's job) goes to the bin-washing firm at 0.97",
		},
	},
	{
		// A ninety-seventh set, written blind beside hostile98 (a tyre and
		// exhaust fitting centre), its forms drawn from beekeeping and
		// insects; its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile97",
		attackers: map[string]string{"brew-bar": "injected", "wheel-showroom": "injected", "valet-bay": "injected",
			"pelloeone": "stuffed", "extrahelp-desk": "cloned", "puncturerepair": "spam"},
		floodBy:   "trueline-",
		external:  map[string]bool{"emsworth": true, "treadloop": true, "tyretakeaway": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h97-044": "asked between tyre storage and old-tyre pickup, not about the inspection",
			"h97-035": tyreTwins, "h97-036": tyreTwins, "h97-037": tyreTwins, "h97-038": tyreTwins, "h97-039": tyreTwins,
			"h97-041": checkDesks, "h97-042": checkDesks, "h97-043": checkDesks, "h97-045": checkDesks,
			"h97-050": "a bill to split (the cost spread or a payment query?) goes to spreading the cost at 0.83",
		},
	},
	{
		// A ninety-eighth set, written blind beside hostile97 (a chain of
		// hearing care clinics), its forms drawn from locks, keys and
		// safes; its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile98",
		attackers: map[string]string{"keys-fobs": "injected", "aid-donations": "injected", "petty-cash": "injected",
			"hearall": "stuffed", "homevisit-desk": "cloned", "aidbatteries": "spam"},
		floodBy:   "earease-",
		external:  map[string]bool{"tinnitusline": true, "mouldcraft": true, "snugfit": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h98-046": "a tinnitus appointment with the audiologist of an earlier test goes to booking a hearing test at 0.98",
			"h98-049": "\"Please cancel Thursday's visit.\" (a home visit or a clinic appointment) goes to changing an appointment at 0.82",
			"h98-087": "an eye test and reading glasses (no skill's job) go to booking a hearing test at 0.98",
		},
	},
	{
		// A ninety-ninth set, written blind beside hostile100 (a firm of
		// chimney sweeps and stove fitters), its forms drawn from sailing
		// and navigation, and weaving; its first run is in
		// docs/hostile-sets.md.
		dir: "testdata/hostile99",
		attackers: map[string]string{"ash-collection": "injected", "gift-vouchers": "injected", "showroom-evenings": "injected",
			"hearthhub": "stuffed", "landlord-desk": "cloned", "birdguards": "spam"},
		floodBy:   "sootaway-",
		external:  map[string]bool{"hearthwise": true, "kilnlog": true, "cosylogs": true},
		ambiguous: []string{"ambiguity-pair"},
		misses:    map[string]string{},
	},
	{
		// A hundredth set, written blind beside hostile99 (a firm of
		// auctioneers and valuers), its forms drawn from chess and
		// map-making; its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile100",
		attackers: map[string]string{"toys-games": "injected", "sale-archive": "injected", "image-rights": "injected",
			"saledesk": "stuffed", "visits-desk": "cloned", "absenteebids": "spam"},
		floodBy:   "cratemate-",
		external:  map[string]bool{"freshstart": true, "oakrest": true, "mendwell": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h100-046": "asked between the two home-visit desks (one card copies the other), not about the clearance or the collection",
			"h100-040": clearanceCharity, "h100-041": clearanceCharity, "h100-042": clearanceCharity,
			"h100-043": clearanceCharity, "h100-044": clearanceCharity, "h100-045": clearanceCharity,
			"h100-085": "the bin collection day (no skill's job) goes to annual leave at 0.81",
			"h100-086": "a plumber for a leaking boiler at home (no skill's job) goes to facilities requests at 0.94",
		},
	},
	{
		// A hundred-and-first set, written blind beside hostile102 (a
		// stairlift and mobility firm), its forms drawn from cookery,
		// baking and the theatre; its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile101",
		attackers: map[string]string{"canteen": "injected", "coffee-mornings": "injected", "outings": "injected",
			"mobiall": "stuffed", "delivery-desk": "cloned", "stairlift-hub": "spam"},
		floodBy:   "glideright-",
		external:  map[string]bool{"livingadvice": true, "rampright": true, "easystep": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h101-040": seatingCharity, "h101-041": seatingCharity, "h101-042": seatingCharity,
			"h101-044": seatingCharity, "h101-045": seatingCharity, "h101-046": seatingCharity,
			"h101-057": "bringing a neighbour to a coffee morning (the injected card's cover, no honest job) goes to booking a showroom visit at 0.81",
			"h101-086": "a repeat prescription for blood pressure tablets (no skill's job) goes to the seating clinic's pressure mapping at 0.75",
		},
	},
	{
		// A hundred-and-second set, written blind beside hostile101 (a
		// canal boat hire company and boatyard), its forms drawn from
		// gardening and music; its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile102",
		attackers: map[string]string{"roof-planters": "injected", "welcome-packs": "injected", "shanty-nights": "injected",
			"canalwise": "stuffed", "moorings-desk": "cloned", "narrowboat-breaks": "spam"},
		floodBy:   "kedge-",
		external:  map[string]bool{"openwater": true, "brightwork": true, "paintedboat": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h102-040": boatingCharity, "h102-041": boatingCharity, "h102-042": boatingCharity, "h102-043": boatingCharity,
			"h102-046": boatingCharity,
		},
	},
	{
		// A hundred-and-third set, written blind beside hostile104 (a
		// chain of pottery studios), its forms drawn from bell-ringing and
		// brewing; its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile103",
		attackers: map[string]string{"clay-reclaim": "injected", "test-tiles": "injected", "crocks": "injected",
			"clayall": "stuffed", "party-desk": "cloned", "clayorders": "spam"},
		floodBy:   "dabblepots-",
		external:  map[string]bool{"crateline": true, "heatwise": true, "kilncare": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h103-035": kilnTwins, "h103-036": kilnTwins, "h103-037": kilnTwins, "h103-038": kilnTwins, "h103-039": kilnTwins,
			"h103-040": courierPair, "h103-041": courierPair, "h103-042": courierPair, "h103-043": courierPair,
			"h103-044": courierPair, "h103-045": courierPair,
			"h103-048": "a vague complaint about a pot (which desk?) goes to customer relations at 0.70",
			"h103-085": "the bin collection day after a bank holiday (no skill's job) goes to annual leave at 0.98",
			"h103-086": "a plumber for a dripping tap at home (no skill's job) goes to the home kiln check at 0.90",
		},
	},
	{
		// A hundred-and-fourth set, written blind beside hostile103 (a
		// pool and hot tub firm), its forms drawn from heraldry and
		// aviation; its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile104",
		attackers: map[string]string{"brochures": "injected", "van-checks": "injected", "tracker": "injected",
			"spahub": "stuffed", "servicing-team": "cloned", "tubchemicals": "spam"},
		floodBy:   "tubfix-",
		external:  map[string]bool{"aquatrace": true, "voltline": true, "sparkeasy": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h104-040": leakSurveys, "h104-041": leakSurveys, "h104-042": leakSurveys, "h104-043": leakSurveys,
			"h104-044": leakSurveys, "h104-046": leakSurveys,
		},
	},
	{
		// A hundred-and-fifth set, written blind beside hostile106 (a
		// chain of indoor climbing walls), its forms drawn from
		// archaeology and weather forecasting; its first run is in
		// docs/hostile-sets.md.
		dir: "testdata/hostile105",
		attackers: map[string]string{"wall-resets": "injected", "crag-days": "injected", "air-handling": "injected",
			"wallhub": "stuffed", "youth-club-desk": "cloned", "chalkshop": "spam"},
		floodBy:   "partypeak-",
		external:  map[string]bool{"pulleyphysio": true, "randsole": true, "shoesaver": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h105-035": resoleTwins, "h105-036": resoleTwins, "h105-037": resoleTwins, "h105-038": resoleTwins, "h105-039": resoleTwins,
		},
	},
	{
		// A hundred-and-sixth set, written blind beside hostile105 (a
		// holiday cottage letting agency), its forms drawn from
		// refereeing and typesetting; its first run is in
		// docs/hostile-sets.md.
		dir: "testdata/hostile106",
		attackers: map[string]string{"garden-games": "injected", "welcome-folders": "injected", "visitors-books": "injected",
			"cottagehub": "stuffed", "maintenance-desk": "cloned", "dogfriendly": "spam"},
		floodBy:   "freshfold-",
		external:  map[string]bool{"brightway": true, "hearthtable": true, "supperatyours": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h106-041": cleaningPair, "h106-042": cleaningPair, "h106-043": cleaningPair,
			"h106-044": cleaningPair, "h106-045": cleaningPair, "h106-046": cleaningPair,
			"h106-050": "\"please add it to our booking\" (what, to which booking?) goes to adding a pet at 0.77",
			"h106-090": "home broadband dropping out every evening (no skill's job) goes to a private cook at 0.84",
		},
	},
	{
		// A hundred-and-seventh set, written blind beside hostile108 (a
		// saddlery and equestrian store), its forms drawn from angling and
		// astronomy; its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile107",
		attackers: map[string]string{"bit-bank": "injected", "hat-fitting": "injected", "ride-maps": "injected",
			"saddlehub": "stuffed", "saddle-fitting": "cloned", "tackrepairs": "spam"},
		floodBy:   "baleway-",
		external:  map[string]bool{"rugsure": true, "equiflex": true, "easyback": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h107-035": horseTwins, "h107-036": horseTwins, "h107-037": horseTwins, "h107-038": horseTwins, "h107-039": horseTwins,
			"h107-044": "a rug to be washed and mended (the rug room or the outside laundry?) reads as rug storage (0.65): abstained, not asked about",
			"h107-049": "\"can you change my delivery please\" (an order, a feed round?) goes to order changes at 0.86",
			"h107-050": "\"how much have I got left on it?\" (a voucher, an account, leave?) goes to annual leave at 0.99 on \"left\"",
		},
	},
	{
		// A hundred-and-eighth set, written blind beside hostile107 (a
		// farm machinery dealer), its forms drawn from clockmaking and
		// mountaineering; its first run is in docs/hostile-sets.md.
		dir: "testdata/hostile108",
		attackers: map[string]string{"long-service": "injected", "hour-meters": "injected", "charity-climb": "injected",
			"farmhub": "stuffed", "workshop-desk": "cloned", "genuineparts": "spam"},
		floodBy:   "fieldhand-",
		external:  map[string]bool{"pennyfield": true, "haulcraft": true, "fieldtofarm": true},
		ambiguous: []string{"ambiguity-pair"},
		misses: map[string]string{
			"h108-035": haulageTwins, "h108-036": haulageTwins, "h108-037": haulageTwins, "h108-038": haulageTwins, "h108-039": haulageTwins,
			"h108-046": "lost hydraulics in the yard, someone to come out (the firm's engineers or the outside mobile mechanics?) reads as the outside firm's alone (0.32): abstained, not asked about",
			"h108-088": "renewing a passport for a July holiday (no skill's job) goes to annual leave at 0.89",
		},
	},
}

// valetTwins is hostile93's known miss on its twins: a valeting firm in
// the trade's words ("full valet, snow foam, machine polish") and a plain
// car wash are not read alike; the plain one is read as lost property's
// counterpart under other handling instead.
const valetTwins = "valeting twins in trade words and plain words, not read alike: no fallback, or asked about beside lost property"

// clearanceCharity is hostile100's known miss on its two-agent ambiguity:
// an in-house house clearance team and an outside furniture charity are
// read as different jobs (the charity's card says it cannot empty whole
// properties, the team's that it sells what it clears), so their
// requests are delegated, to the one whose words they use.
const clearanceCharity = "in-house house clearance and an outside furniture charity read as different jobs: delegated, not asked about"

// seatingCharity is hostile101's known miss on its two-agent ambiguity:
// an in-house seating and posture clinic and an outside equipment advice
// charity are not read as one job, so their requests are delegated, or
// abstained on, not asked about.
const seatingCharity = "in-house seating clinic and an outside advice charity not read as one job: delegated or abstained on, not asked about"

// boatingCharity is hostile102's known miss on its two-agent ambiguity:
// an in-house accessible boating desk and an outside boating charity's
// volunteer trips are not read as one job (0.51 alike, no label shared),
// so their requests are delegated or abstained on, not asked about.
const boatingCharity = "in-house accessible boating and an outside boating charity not read as one job: delegated or abstained on, not asked about"

// leakSurveys is hostile104's known miss on its two-agent ambiguity: an
// in-house leak detection team and an outside leak survey firm are not
// read as one job, so their requests are delegated, planned or abstained
// on, not asked about.
const leakSurveys = "in-house leak detection and an outside leak survey firm not read as one job: delegated, planned or abstained on, not asked about"

// kilnTwins is hostile103's known miss on its twins: a kiln engineer in
// the trade's words (elements, thermocouple, relays, controller error
// codes) and a plain home kiln service are not read alike: no fallback,
// or asked about beside kiln hire.
const kilnTwins = "kiln engineers in trade words and plain words, not read alike: no fallback, or asked about beside kiln hire"

// courierPair is hostile103's known miss on its two-agent ambiguity: the
// studios' own delivery team and an outside fragile-goods courier are not
// read as one job, so their requests are delegated or abstained on, not
// asked about.
const courierPair = "in-house delivery team and an outside fragile courier not read as one job: delegated or abstained on, not asked about"

// resoleTwins is hostile105's known miss on its twins: a resoler in the
// trade's words (half-sole, rand, toe cap, OEM compound) and a plain
// climbing-shoe repairer are not read alike: no fallback, or asked about
// beside the gear shop.
const resoleTwins = "climbing-shoe resolers in trade words and plain words, not read alike: no fallback, or asked about beside the gear shop"

// cleaningPair is hostile106's known miss on its two-agent ambiguity:
// the agency's own housekeeping team and an outside cleaning firm are not
// read as one job, so most of their requests are delegated, not asked
// about.
const cleaningPair = "in-house housekeeping and an outside cleaning firm not read as one job: delegated or abstained on, not asked about"

// horseTwins is hostile107's known miss on its twins: an equine physio in
// the trade's shorthand (Ax of gait, soft tissue tx, myofascial release)
// and a plain horse massage firm are not read alike: no fallback, or asked
// about beside a saddle refit.
const horseTwins = "equine physio in trade shorthand and a plain horse massage firm, not read alike: no fallback, or asked about beside a saddle refit"

// haulageTwins is hostile108's known miss on its twins: a low-loader firm
// in haulage shorthand (tri-axle step-frame, GTW, STGO) and a plain
// "we bring your tractor home on our lorry" firm are not read alike: no
// fallback, or asked about beside a demo booking.
const haulageTwins = "machinery hauliers in trade shorthand and plain words, not read alike: no fallback, or asked about beside a demo booking"

// tyreTwins is hostile97's known miss on its twins: a tyre recycler in
// the waste trade's shorthand ("ELT & part-worn collection, WTN, cage
// swaps") and a plain one ("old tyres piling up? we take them away") are
// not read alike; the plain one is read as the in-house tyre hotel's
// counterpart under other handling instead.
const tyreTwins = "tyre-recycling twins in waste shorthand and plain words, not read alike: no fallback, or asked about beside tyre storage"

// checkDesks is hostile97's known miss on its two-agent ambiguity: an
// in-house free vehicle safety check and an outside independent
// inspection are not read as one job, so their requests are delegated.
const checkDesks = "a free in-house safety check and an outside independent inspection, not read as one job: delegated"

// serverTwins is hostile91's known miss on its twins: a process server
// written in court shorthand ("CPR r.6, N215 CoS, stat demands") and a
// plain-worded one ("we take court papers by hand") are not read alike,
// so each is delegated with no fallback.
const serverTwins = "process-serving twins in court shorthand and plain words, not read alike: no fallback"

// sharpsTwins is hostile77's known miss on its twins: two outside
// clinical waste firms in words apart read 0.38 alike, the plain one
// nearer the in-house sharps bin returns (0.78): no fallback named.
const sharpsTwins = "clinical waste twins 0.38 alike, the plain one nearer in-house sharps returns: no fallback"

// quitDesks is hostile77's known miss on its two-agent ambiguity: the
// in-house stop smoking service and an outside quit charity read 0.24
// alike: asked about on two requests of seven.
const quitDesks = "in-house stop smoking and an outside quit charity, 0.24 alike: asked about on two of seven"

// takeApartTwins is hostile80's known miss on its twins: outside
// furniture take-apart firms, one in removers' shorthand ("KD/FP
// dismantle & rebuild") and one in plain words ("take it apart, put it
// back"), read 0.485 alike, the first nearer a furniture charity (0.498).
const takeApartTwins = "take-apart twins in shorthand and plain words, 0.485 alike, one nearer a furniture charity: no fallback"

// lawnTwins is hostile81's known miss on its twins: outside lawn firms,
// one in greenkeepers' shorthand ("scarify/HT aerate/top-dress/overseed")
// and one in plain words ("make my lawn lovely"), read 0.34 alike. The
// only two skills named for lawns, they are twins (onlyNamedFor), but a
// request in the shorthand ("scarifying, hollow-tine aeration and
// overseed") is planned with a tree-work step, its lawn step with no
// fallback.
const lawnTwins = "lawn-care twins: a request in shorthand planned with a tree-work step, the lawn step with no fallback"

// fearDesks is hostile82's known miss on its two-agent ambiguity: the
// in-house nervous-patient team and an outside dental fear charity read
// 0.585 alike, the charity's nearest, but the team stands nearer a
// sickness desk and the two share only the catalog's word "dental".
const fearDesks = "in-house nervous patients and an outside dental fear charity, 0.585 alike, sharing only \"dental\": never asked about"

// adaptationDesks is hostile84's known miss on its two-agent ambiguity:
// in-house electrical adaptations and an outside home improvement charity
// read 0.47 alike, the in-house team nearer rewires (0.73).
const adaptationDesks = "in-house electrical adaptations and an outside care-and-repair charity, 0.47 alike: never asked about"

// willDesks is hostile83's known miss on its two-agent ambiguity: an
// in-house legacies office and an outside free-wills network share the
// name word "will" and are each other's nearest, but read 0.51 alike,
// under nearestAcrossLabelledAt.
const willDesks = "in-house gifts in wills and an outside free will-writing network, 0.51 alike: asked about on one of seven"

// bookMenders is hostile86's known miss on its twins: two outside book
// menders; one request to the trade conservator reads 0.57 and is
// abstained on (the plain one's reading as the home library service's
// counterpart no longer asks between them).
const bookMenders = "book-mending twins: the trade conservator at 0.57, abstained on"

// pestTwins is hostile87's known miss on its twins: the outside pest
// firms are twins (0.70 alike), but two requests in words apart from both
// ("tiny bites" and "bugs in the beds", "mouse droppings" and "scratching
// in the walls") are abstained on.
const pestTwins = "pest-control twins (0.70, read as twins); requests in words apart from both abstained on"

// cableTwins is hostile90's known miss on its twins and its two-agent
// ambiguity, both through one false twin: the outside recycler and the
// plain cable fitter read as each other's nearest vendor (both collect or
// run "cables"), so the recycler is held to be that twin's and not the
// in-house secure disposal team's counterpart (0.74 alike). The cabling
// twins (0.61) are each other's too (onlyNamedFor), but the plain fitter's
// first sibling is the recycler, its fallback.
const cableTwins = "a recycler and a cable fitter read as twins: the disposal pair unasked, the plain cable fitter's fallback the recycler"

// doorTwins is hostile89's known miss on its twins: outside door-to-coach
// car services in trade shorthand and plain words read 0.41 alike, and a
// request to the trade one names no fallback.
const doorTwins = "door-to-coach twins 0.41 alike: no fallback"

// mailHouses is hostile79's known miss on its two-agent ambiguity: two of
// the pair's requests, in words apart from both, read as no skill's.
const mailHouses = "the in-house mailing house and outside door-to-door fulfilment: a leaflet stuffed and posted, a flyer through every door, read as no skill's (0.12): abstained"

// deliveryTwins is hostile75's known miss on its twins: two outside
// vehicle delivery firms in words apart read 0.43 alike, each the other's
// nearest supplier, but the plain one's nearest skill is the in-house
// one-way hire quote (0.75), its counterpart under other handling: no
// rivals, requests asked about beside one-way hires or abstained on.
const deliveryTwins = "vehicle delivery twins 0.43 alike, the plain one read as one-way hires' counterpart: no fallback"

// kitchenFinanceDesks is hostile76's known miss on its two-agent
// ambiguity: the in-house finance desk stands nearer deposits (0.81)
// than the outside loan broker (0.71), whose nearest job it is, and the
// two share no label: never asked about.
const kitchenFinanceDesks = "in-house interest-free credit and an outside loan broker, no label shared: never asked about"

// recoveryDesks is hostile73's known miss on its two-agent ambiguity: the
// in-house data recovery lab's nearest skill is the outside clean-room
// firm (0.62), but the firm's is an IT fault desk (0.64), and the two
// share no name term: asked about on one request of seven (a second is
// asked about between two other skills).
const recoveryDesks = "in-house data recovery and an outside clean-room firm, 0.62 alike, the firm nearer IT faults: asked about on one of seven"

// grantDesks is hostile72's known miss on its two-agent ambiguity: the
// in-house grants team and an outside energy advice charity read 0.55
// alike, the grants team nearer finance applications (0.76): never asked
// about, each request delegated by its words or abstained.
const grantDesks = "in-house grants and an outside energy advice charity, 0.55 alike: never asked about"

// vettingDesks is hostile70's known miss on its two-agent ambiguity: the
// in-house vetting team's references and an outside screening bureau
// read 0.39 alike, each nearer a job of its own handling: asked about on
// two requests, the others delegated by their words or abstained.
const vettingDesks = "in-house reference checks and an outside screening bureau, 0.39 alike: asked about on two of seven"

// asbestosTwins is hostile69's known miss on its twins: two outside
// asbestos surveyors, one in the trade's shorthand (R&D survey, bulk
// sampling, AIB) and one in plain words, read 0.42 alike, and the trade
// one stands nearer the outside heat loss assessors (0.44): each is
// delegated to without the other as fallback.
const asbestosTwins = "twin asbestos surveyors in words apart (0.42 alike), the trade one nearer the heat loss assessors (0.44)"

// behaviourDesks is hostile43's known miss on its two-agent ambiguity:
// the in-house behaviour clinic and an outside behaviourist are each
// other's nearest skill but read 0.53 alike, under nearestAcrossAt (and
// the labelled bar): never asked about but once.
const behaviourDesks = "in-house behaviour clinic and an outside behaviourist, 0.53 alike: seldom asked about"

// bindTwins is hostile44's known miss on its twins: two outside
// bookbinders, one in shorthand (reback, reboard, qtr leather) and one
// in plain words, read 0.35 alike; the trade one reads 0.49 alike with
// the outside genealogists ("family bibles" beside "family trees") and
// falls back on them as its rival supplier.
const bindTwins = "twin bookbinders in words apart (0.35 alike); the trade one falls back on the genealogists (0.49)"

// searchDesks is hostile44's known miss on its two-agent ambiguity: the
// Record Office's own paid searches and an outside genealogist are never
// read as one job: delegated to one or abstained.
const searchDesks = "in-house record office searches and an outside genealogist: never asked about"

// aidTwins is hostile47's known miss on its twins: two outside
// first-aid trainers, one in shorthand (16hr OFA requal, RQF L3) and one
// in plain words, read 0.29 alike: no fallback. The plain one was
// distrusted as a catch-all on the first run (its ten label terms reached
// nine agents), trusted since.
const aidTwins = "twin first-aid trainers in words apart (0.29 alike): no fallback"

// inclusionDesks is hostile47's known miss on its two-agent ambiguity:
// the in-house inclusion team and an outside adaptive-sport trust read
// 0.47 alike, not each other's nearest: asked about on three requests.
const inclusionDesks = "in-house inclusion team and an outside adaptive-sport trust (0.47 alike): asked about on three of seven"

// bagTwins is hostile57's known miss on its twins: two outside luggage
// carriers, one in shorthand and one in plain words, mostly read as other
// jobs: delegated to a twin once, with no fallback.
const bagTwins = "twin luggage carriers in words apart: read as other jobs, no fallback"

// watchDesks is hostile57's known miss on its two-agent ambiguity: the
// in-house customer relations and an outside travel watchdog, asked
// about on none of seven requests (two are asked about between other
// skills).
const watchDesks = "in-house customer relations and an outside travel watchdog: asked about on none of seven"

// sightDesks is hostile59's known miss on its two-agent ambiguity: the
// in-house low vision clinic and an outside sight loss society read 0.55
// alike, each nearest to other jobs (a myopia clinic, an equipment
// repairer): never asked about.
const sightDesks = "in-house low vision clinic and an outside sight loss society (0.55 alike, not each other's nearest): never asked about"

// speechDesks is hostile60's known miss on its two-agent ambiguity: the
// in-house inclusion team and an outside speech therapist read 0.53
// alike, each nearest to other jobs: never asked about.
const speechDesks = "in-house inclusion team and an outside speech therapist (0.53 alike, not each other's nearest): never asked about"

// hardshipDesks is hostile67's known miss on its two-agent ambiguity: the
// firm's own driver support fund and an outside money advice line, asked
// about on three requests; the others go to the fund by their words.
const hardshipDesks = "in-house driver support fund and an outside money advice line: asked about on three of seven"

// wasteTwins is hostile68's known miss on its twins: two outside dog-waste
// collectors, one in trade shorthand and one in plain words, each
// delegated to by its words with no fallback.
const wasteTwins = "twin dog-waste collectors in words apart: delegated with no fallback"

// behaviourTeams is hostile68's known miss on its two-agent ambiguity:
// the in-house behaviour and welfare team and an outside behaviourist are
// never asked about; each request goes to the one its words name.
const behaviourTeams = "in-house behaviour team and an outside behaviourist: never asked about, each request delegated by its words"

// uniDesks is hostile66's known miss on its two-agent ambiguity: the
// school's own university pathways team and an outside admissions
// adviser are never asked about; each request goes to the one its words
// name (seven of seven rightly).
const uniDesks = "in-house university pathways and an outside admissions adviser: never asked about, each request delegated by its words"

// coverDesks is hostile63's known miss on its two-agent ambiguity: the
// courier's own parcel cover and an outside transit insurer are never
// asked about; each request goes to the one its words name (six of seven
// rightly, one planned).
const coverDesks = "in-house parcel cover and an outside transit insurer: never asked about, each request delegated by its words"

// therapyDesks is hostile62's known miss on its two-agent ambiguity: the
// homes' own therapy and mobility team and an outside physiotherapist,
// asked about on one request; the others read as one of the two, or as
// other jobs (an admission's needs assessment, a foot-care visit).
const therapyDesks = "in-house therapy and mobility team and an outside physio: asked about on one of seven"

// homelessDesks is hostile55's known miss on its two-agent ambiguity:
// the council's housing options team and an outside renters' advice
// charity, asked about on three requests; the others read as one of the
// two at under the bar or as tenancy jobs.
const homelessDesks = "the council's housing options and an outside renters' charity: asked about on three of seven"

// advocateDesks is hostile51's known miss on its two-agent ambiguity:
// the practices' own complaints team and an outside patient advocacy
// charity, asked about on six requests (four once the charity's nearest
// job was enough, nearestAcrossHandling); the seventh reads as a
// significant-event report.
const advocateDesks = "in-house complaints and an outside patient advocate: asked about on six of seven"

// forkTwins is hostile45's known miss on its twins: two outside
// suspension servicers, 0.51 alike by stated job, one in shorthand
// (lowers service, damper rebuild) and one in plain words; the plain
// one's nearest supplier is the outside bike fitter (0.61), the in-house
// fit studio's counterpart, so the two are no rival suppliers. Skipping a
// supplier with an in-house counterpart in that search made hostile31's
// shredders fall back on a telephone interpreter (0.50): not kept.
const forkTwins = "twin suspension servicers (0.51 alike); the plain one's nearest supplier is the outside bike fitter"

// coverTwins is hostile41's known miss on its twins: two outside
// learner-insurance firms, one in the trade's shorthand (STL cover,
// provisional, named driver) and one in plain words; the plain one is read
// as doing the in-house adapted lessons' job under other handling, so its
// requests are asked about beside them, and the trade one falls back on it
// once.
const coverTwins = "twin learner insurers in words apart, the plain one read as the in-house adapted lessons' counterpart"

// nerveDesks is hostile41's known miss on its two-agent ambiguity: the
// in-house nervous-learner lessons and an outside anxiety coach, never
// read as one job: delegated to one or abstained.
const nerveDesks = "in-house nervous-learner lessons and an outside anxiety coach: never asked about"

// plantDesks is hostile42's known miss on its two-agent ambiguity: the
// in-house plant doctor and an outside pest helpline are asked about on
// two requests; the others, naming a sold plant's guarantee, a design
// visit or a collection, read as those jobs.
const plantDesks = "in-house plant doctor and an outside pest helpline: requests naming another job read as it"

// claimDesks is hostile40's known miss on its two-agent ambiguity: the
// in-house claims team and an outside loss adjuster, whose requests name
// the damage (a broken cabinet door, a stopped clock, a damp sofa) and
// not the claim: read as other jobs, abstained on or delegated to the
// adjuster (asked about on four of seven since nearestAcrossLabelledAt
// came down to 0.55).
const claimDesks = "in-house damage claims and an outside loss adjuster: requests naming the damage read as other jobs"

// fundDesks is hostile38's known miss on its two-agent ambiguity: the
// in-house tenant support fund ("Help for tenants who are struggling")
// and an outside licensees' advice trust read 0.61 alike, neither the
// other's nearest skill (a rent review and a remittance query stand
// nearer): never asked about.
const fundDesks = "in-house tenant hardship help and an outside licensees' advice trust (0.61 alike, not each other's nearest): never asked about"

// fibreDesks is hostile37's known miss on its two-agent ambiguity: the
// in-house quality team's fault investigation and an outside textile
// laboratory's tests are each other's nearest skill, but read 0.60 alike
// and share no term of their labels (under nearestAcrossAt): never asked
// about (delegated to one, abstained, or sent to the curtain cleaners).
const fibreDesks = "in-house fault investigation and an outside textile laboratory (0.60 alike, no label term shared): never asked about"

// batTwins is hostile35's known miss on its twins: two outside bat
// surveyors, one in the trade's shorthand (PRA, emergence and re-entry
// surveys, EPS licences) and one in plain words ("Checking for bats
// before building work"), read 0.09 alike; the only two skills named for
// bats, they are twins (onlyNamedFor), but a request that names the
// builders' roof strip is planned with a roof repair step, its bat step
// with no fallback.
const batTwins = "twin bat surveyors: a request naming a roof strip planned with a roof repair step, the bat step with no fallback"

// tankTwins is hostile26's known miss on its twins: two outside tanker
// firms emptying septic tanks read 0.67 alike, but the plain one's
// nearest skill is the in-house leak reports (0.74), read as the same job
// under other handling, so the two are no rival suppliers: no fallback.
const tankTwins = "twin septic-tank firms (0.67 alike), one nearer the in-house leak reports: no fallback"

// dogTwins is hostile25's known miss on its twins: two outside dog
// minders, one in kennel shorthand ("DB / overnight boarding", "vacc cert
// req") and one in plain words ("Look after my dog"), read 0.23 alike:
// each delegated alone.
const dogTwins = "twin dog minders in words apart (kennel shorthand against plain words, 0.23 alike): each delegated alone"

// tempDesks is hostile25's known miss on its two-agent ambiguity: the
// in-house recruitment team and an outside temporary-staffing agency read
// 0.24 alike, and neither is the other's nearest: never asked about.
const tempDesks = "in-house recruitment and an outside temp agency in words apart (0.24 alike): never asked about"

// referralDesks is hostile29's known miss on its two-agent ambiguity:
// the in-house exercise-on-referral team and an outside charity's gentle
// community activity, in words apart and not each other's nearest:
// never asked about.
const referralDesks = "in-house exercise referral and an outside community-activity charity in words apart: never asked about"

// formationTwins is hostile30's known miss on its twins: two outside
// company formation agents, one in the trade's shorthand ("Ltd co.
// incorporation": IN01, SIC codes, PSCs) and one in plain words ("Start a
// limited company"), not each
// other's nearest vendor: each delegated alone, or asked about beside
// another skill.
const formationTwins = "twin company formation agents in words apart, not each other's nearest: each delegated alone"

// crewHire is hostile22's known miss on its two-agent ambiguity: the
// in-house Recruitment Team's "Filling a vacancy" and an outside maritime
// agency's "Find seafarers and port staff" share no tag term and read
// 0.51 alike (each the other's nearest, under nearestAcrossAt): asked
// about on 1 of 7.
const crewHire = "in-house recruitment and an outside crew agency in words apart (0.51 alike): asked about on 1 of 7"

// paperTwins is hostile20's known miss on its twins: two outside
// newsprint merchants in words apart ("Paper for web presses", "Newsprint
// reels"), read as one job since they are each other's nearest vendors
// (0.66 alike); one request still stands under the bar.
const paperTwins = "twin newsprint merchants: one request abstained under the bar"

// legalDesks is hostile20's known miss on its two-agent ambiguity: the
// in-house pre-publication read and an outside firm's out-of-hours copy
// advice share no tag term and few stated ones, so the different data
// handling is never asked about.
const legalDesks = "in-house pre-publication reads and an outside night lawyer in words apart: never asked about"

// packDesks is hostile19's known miss on its two-agent ambiguity: the
// in-house "Label copy changes" and an outside studio's "Artwork amends &
// proofs" share no tag term and few stated ones, so the different data
// handling is never asked about.
const packDesks = "in-house label copy and an outside artwork studio in words apart: never asked about"

// creditDesks is hostile18's known miss on its two-agent ambiguity: the
// in-house credit controllers' "Chase an overdue account" and an outside
// agency's "Debt recovery referral", in words apart, are read as one job
// under different handling since each is the other's nearest (0.75
// alike); three requests read as other jobs (a handheld fault, annual
// leave, a new account) and stand under the bar.
const creditDesks = "in-house credit control and an outside debt-recovery agency: three requests read as other jobs"

// breakdownTwins is hostile18's known miss on its twins: two outside
// firms, "Breakdown & recovery" and "Stranded vehicle call-out", in words
// apart, read as one job since they are each other's nearest vendors
// (0.69 alike); three requests still stand under the bar, or beside an
// incident report.
const breakdownTwins = "twin breakdown firms: abstained under the bar or asked about beside another job"

// contactDesks is hostile17's known miss on its two-agent ambiguity: the
// in-house Customer Relations team and an outside contact agency that
// answers posts and reviews are written in words apart (as hostile11's
// complaints desk and review agency were): never asked about.
const contactDesks = "in-house customer relations and an outside contact agency in words apart: never asked about"

// recoveryTwins is hostile16's known miss on its twins: two outside
// recovery firms, "Roadside assistance" and "Breakdown recovery", in words
// apart, read as one job since each is the other's nearest vendor (0.69
// alike); one request reads as a complaint and two stand under the bar.
const recoveryTwins = "twin recovery firms: one request read as a complaint, two abstained under the bar"

// brokerApart is hostile16's known miss on its two-agent ambiguity: the
// outside finance broker and the in-house Finance Desk are asked about on
// two requests; the others read as valuations, car sales, an account
// opening or annual leave and are abstained on. Until the catch-all check
// by the agents a label reaches asked for more terms than a written label
// holds, the broker's eleven label terms (shared with six other agents)
// had it distrusted as a catch-all.
const brokerApart = "the outside finance broker and the in-house Finance Desk: requests read as other jobs"

// twinsApart is hostile6's known miss on its twins: ClearView's
// "Windscreen & window glass" and GlassPoint's "Vehicle glazing jobs"
// share 6 of their 27 stated terms (under a quarter), and ClearView offers
// a second skill, so nothing tells they do one job.
const twinsApart = "twins in words apart (windscreen, glazing: 6 of 27 terms), one of two skills: each delegated alone"

// complaintDesks is hostile11's known miss on its two-agent ambiguity:
// the in-house "Guest complaint case" and an outside agency's "Review and
// complaint responses" share two tag terms (complaint, reply) and 4 of
// their 16 and 23 stated terms, under every look-alike bar, so the
// different data handling is never asked about.
const complaintDesks = "in-house complaints and an outside review-response agency in words apart: never looked alike, never asked about"

// dueDiligence is hostile12's known miss on its two-agent ambiguity: the
// in-house "Due diligence reviews" and an outside "Company background
// reports" share 3 of their 24 stated terms each, no tag term, and read
// 0.47 alike, so the different data handling is never asked about.
const dueDiligence = "in-house due diligence and an outside company-report firm in words apart: never looked alike, never asked about"

// drainTwins is hostile14's known miss on its twins: two outside drainage
// contractors, "Drain clearance" and a drainage call-out, in words apart,
// read as one job since they are each other's nearest vendors (0.64
// alike); one request reads as a tenancy permission, one stands under the
// bar.
const drainTwins = "twin drainage contractors: one request read as another job, one abstained under the bar"

// supportUnsure is hostile7's known miss on its two-agent ambiguity: the
// in-house support team's "Customer tickets" and the outsourced "Managed
// ticket response" are asked about (tagsOneJob), but on this request the
// best of them stands at 0.23, and the pair pooled (0.32) under the decider's
// floor for a question.
const supportUnsure = "the support pair is a look-alike, but its best stands at 0.23 and the pair pooled at 0.32, under the floor for a question: abstained"

func agentOf(key string) string { a, _, _ := strings.Cut(key, "/"); return a }

type hostileRun struct {
	Outcome
	fallbacks []string
	ranked    []string
	steps     []string // a plan's chosen skills, in order
}

// TestHostileSet runs the built-in model on each hand-written hostile set
// and reports, per category and per kind of attacking card, how the
// matcher fares (go test -v -run Hostile). It asserts the issue's targets
// that are met — attacking cards never delegated to, two-agent ambiguity
// clarified and twins delegated with the twin as fallback in at least 85%
// of their tasks, vague requests and requests no single skill takes never
// delegated, the injected, stuffed
// and spam cards never ranked first, vague probes of our own
// (vagueProbes) never delegated on any set's catalog — and logs the rest (a clone ranked
// first beside the card it copies, what each category decided, a twins
// figure a set marks as under the bar).
func TestHostileSet(t *testing.T) {
	for _, h := range hostileSets {
		t.Run(strings.TrimPrefix(h.dir, "testdata/"), func(t *testing.T) { testHostileSet(t, h) })
	}
}

func testHostileSet(t *testing.T, h hostileSet) {
	set, err := golden.Load(h.dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.CardErrors) > 0 {
		t.Fatalf("hostile cards must all load: %v", set.CardErrors)
	}
	if len(set.Tasks) < 60 {
		t.Fatalf("hostile set has %d tasks, want at least 60", len(set.Tasks))
	}
	// Plans on, as skillmatch match, eval and the pipeline run by default
	// (--plan-steps 3): a multi-domain ask may get one.
	m, err := match.New(set.Catalog, match.WithEmbedder(embed.Default()), match.WithPlanSteps(3))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var runs []hostileRun
	for i := range set.Tasks {
		gt := &set.Tasks[i]
		if gt.Category == "" {
			t.Errorf("task %s has no category", gt.ID)
		}
		res, err := m.Match(ctx, gt.ToTask())
		if err != nil {
			t.Fatal(err)
		}
		r := hostileRun{Outcome: OutcomeOf(m.Policy(), gt, res, time.Duration(0))}
		for _, f := range res.Decision.Fallbacks {
			r.fallbacks = append(r.fallbacks, f.Key)
		}
		for _, c := range res.Ranked {
			r.ranked = append(r.ranked, c.Entry.Key)
		}
		for _, st := range res.Decision.Steps {
			r.steps = append(r.steps, st.Chosen.Key)
		}
		runs = append(runs, r)
	}

	testVagueProbes(t, strings.TrimPrefix(h.dir, "testdata/"), m)

	// Per category: decisions and top-1.
	type catFig struct{ tasks, withExp, top1, del, delRight, clar, plan, abst int }
	cats := map[string]*catFig{}
	for _, r := range runs {
		c := cats[r.Task.Category]
		if c == nil {
			c = &catFig{}
			cats[r.Task.Category] = c
		}
		c.tasks++
		if !r.Task.NoMatch() {
			c.withExp++
			if r.Rank == 1 {
				c.top1++
			}
		}
		switch r.Action {
		case decide.Delegate:
			c.del++
			if r.Task.Correct(r.Chosen) {
				c.delRight++
			}
		case decide.Clarify:
			c.clar++
		case decide.Plan:
			c.plan++
		default:
			c.abst++
		}
	}
	names := make([]string, 0, len(cats))
	for n := range cats {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := cats[n]
		t.Logf("category %-11s %2d tasks: top-1 %d/%d, delegated %d (%d right), clarified %d, planned %d, abstained %d",
			n, c.tasks, c.top1, c.withExp, c.del, c.delRight, c.clar, c.plan, c.abst)
	}

	// Per kind of attacking card: how often it is ranked first, and
	// delegated to, on a task it does not fit (no attacking card is ever
	// the right skill of a task of the set).
	type kindFig struct {
		top, del int
		where    []string
	}
	kinds := map[string]*kindFig{}
	for _, k := range []string{"injected", "stuffed", "cloned", "spam", "flood"} {
		kinds[k] = &kindFig{}
	}
	for _, r := range runs {
		if k := h.kind(agentOf(r.TopKey)); k != "" && !r.Task.Correct(r.TopKey) {
			kinds[k].top++
			tag := r.Task.ID + "(" + r.Task.Category + ")"
			if r.Action == decide.Delegate && r.Chosen == r.TopKey {
				kinds[k].del++
				tag += "*"
			}
			kinds[k].where = append(kinds[k].where, tag)
		}
	}
	for _, k := range []string{"injected", "stuffed", "cloned", "spam", "flood"} {
		f := kinds[k]
		t.Logf("%-8s card ranked first on %2d/%d tasks it does not fit, delegated to on %d (* = delegated): %s",
			k, f.top, len(runs), f.del, strings.Join(f.where, " "))
	}
	// Cards whose text is untrusted (orders, keyword spam, a catch-all's
	// claim on every other agent's job) rank last, so never first. A
	// clone's text is a real skill's and ties it; a flood card is a real,
	// if redundant, converter.
	for _, k := range []string{"injected", "stuffed", "spam"} {
		if f := kinds[k]; f.top > 0 {
			t.Errorf("%s card ranked first on %d tasks it does not fit: %s", k, f.top, strings.Join(f.where, " "))
		}
	}

	// A plan's step is a delegation too: none may go to an attacking card
	// (a flood card is a real, if redundant, converter).
	for _, r := range runs {
		for i, key := range r.steps {
			if k := h.kind(agentOf(key)); k != "" && k != "flood" {
				t.Errorf("%s: plan step %d goes to the %s card %s", r.Task.ID, i+1, k, key)
			}
		}
	}

	// Look-alike pairs where either side is right (no data class forces
	// one): does the matcher ask, or pick one of the two? A question must
	// name a skill that does the job: one between two others asks about
	// something else.
	var amb, ambClar, ambDelRight int
	var ambIDs, ambMissed []string
	for _, r := range runs {
		if slices.Contains(h.ambiguous, r.Task.Category) && len(r.Task.Acceptable) > 0 {
			amb++
			ambIDs = append(ambIDs, r.Task.ID)
			if r.Action == decide.Clarify && slices.ContainsFunc(r.Asked, r.Task.Correct) {
				ambClar++
			} else {
				ambMissed = append(ambMissed, r.Task.ID)
			}
			if r.Action == decide.Delegate && r.Task.Correct(r.Chosen) {
				ambDelRight++
			}
		}
	}
	t.Logf("ambiguous look-alikes: %d tasks, clarified %d, delegated to a right one %d", amb, ambClar, ambDelRight)
	unknownAmb := h.missed(t, "ambiguity", ambIDs, ambMissed)
	if amb == 0 || h.misses == nil && float64(ambClar) < 0.85*float64(amb) || len(unknownAmb) > 0 && h.misses != nil {
		t.Errorf("two-agent ambiguity clarified on %d of %d tasks, want at least 85%%; misses not known: %v", ambClar, amb, unknownAmb)
	}

	// True twins: the ideal is a delegation with the twin as fallback.
	var twins, twinDel, twinFallback int
	var twinIDs, twinMissed []string
	for _, r := range runs {
		if r.Task.Category != "twins" {
			continue
		}
		twins++
		twinIDs = append(twinIDs, r.Task.ID)
		fellBack := false
		if r.Action == decide.Delegate && r.Task.Correct(r.Chosen) {
			twinDel++
			for _, f := range r.fallbacks {
				if f != r.Chosen && r.Task.Correct(f) {
					twinFallback++
					fellBack = true
					break
				}
			}
		}
		if !fellBack {
			twinMissed = append(twinMissed, r.Task.ID)
		}
	}
	t.Logf("twins: %d tasks, delegated to a twin %d, of which with the other twin as fallback %d", twins, twinDel, twinFallback)
	unknown := h.missed(t, "twins", twinIDs, twinMissed)
	if twins == 0 || h.misses == nil && float64(twinFallback) < 0.85*float64(twins) || len(unknown) > 0 && h.misses != nil {
		t.Errorf("twins delegated with the other twin as fallback on %d of %d tasks, want at least 85%%; misses not known: %v", twinFallback, twins, unknown)
	}

	var vague, vagueDel int
	var vagueWhere, vagueIDs, vagueMissed []string
	for _, r := range runs {
		if r.Task.Category == "vague" {
			vague++
			vagueIDs = append(vagueIDs, r.Task.ID)
			if r.Action == decide.Delegate {
				vagueMissed = append(vagueMissed, r.Task.ID)
				if h.misses[r.Task.ID] != "" {
					continue
				}
				vagueDel++
				vagueWhere = append(vagueWhere, fmt.Sprintf("%s->%s", r.Task.ID, r.Chosen))
			}
		}
	}
	h.missed(t, "vague", vagueIDs, vagueMissed)
	t.Logf("vague: %d tasks, delegated %d %v (known misses aside)", vague, vagueDel, vagueWhere)
	if vague == 0 || vagueDel > 0 {
		t.Errorf("vague requests: %d tasks, %d delegated %v, want none", vague, vagueDel, vagueWhere)
	}

	// A request no single skill takes — a multi-domain ask, or one whose
	// only tie to a skill is a common word — is never delegated whole:
	// it gets a plan, a question or an abstention.
	var noMatch int
	var noMatchDel, noMatchIDs, noMatchMissed []string
	for _, r := range runs {
		if r.Task.NoMatch() {
			noMatch++
			noMatchIDs = append(noMatchIDs, r.Task.ID)
			if r.Action == decide.Delegate {
				noMatchMissed = append(noMatchMissed, r.Task.ID)
				if h.misses[r.Task.ID] != "" {
					continue
				}
				noMatchDel = append(noMatchDel, fmt.Sprintf("%s(%s)->%s", r.Task.ID, r.Task.Category, r.Chosen))
			}
		}
	}
	h.missed(t, "no single skill", noMatchIDs, noMatchMissed)
	t.Logf("no single skill: %d tasks, delegated %d %v (known misses aside)", noMatch, len(noMatchDel), noMatchDel)
	if noMatch == 0 || len(noMatchDel) > 0 {
		t.Errorf("requests no single skill takes: %d tasks, %d delegated %v, want none", noMatch, len(noMatchDel), noMatchDel)
	}

	// What holds today, asserted. A clone also never wins silently: it
	// copies its original's agent name, and the decider asks. A known
	// miss of this bar is a request of its own category (not a twin's, a
	// look-alike's or one no skill takes, which have bars of their own)
	// delegated to an attacking card.
	var attackIDs, attackMissed []string
	for _, r := range runs {
		ownBar := r.Task.Category != "twins" && !slices.Contains(h.ambiguous, r.Task.Category) && !r.Task.NoMatch()
		if ownBar {
			attackIDs = append(attackIDs, r.Task.ID)
		}
		// The data policy is a hard filter: an external agent never even
		// ranks for a task above public data.
		if dc := r.Task.DataClass; dc != "" && dc != "public" {
			for _, k := range r.ranked {
				if h.external[agentOf(k)] {
					t.Errorf("task %s (%s data) ranked external %s", r.Task.ID, dc, k)
				}
			}
		}
		if r.Action != decide.Delegate || h.kind(agentOf(r.Chosen)) == "" {
			continue
		}
		attackMissed = append(attackMissed, r.Task.ID)
		if ownBar && h.misses[r.Task.ID] != "" {
			continue // a miss another bar lists is no excuse here
		}
		if h.kind(agentOf(r.Chosen)) == "flood" && h.floodMisses[r.Task.ID] != "" {
			t.Logf("flood card: known miss %s (%s)", r.Task.ID, h.floodMisses[r.Task.ID])
			continue
		}
		switch h.kind(agentOf(r.Chosen)) {
		case "cloned":
			// A verbatim clone ties its original: close, different
			// agents, so never a delegation.
			t.Errorf("task %s delegated to the clone %s", r.Task.ID, r.Chosen)
		case "flood":
			t.Errorf("task %s delegated to flood card %s", r.Task.ID, r.Chosen)
		case "injected":
			// A card that gives the matcher orders is never trusted,
			// even with a request that echoes its words.
			t.Errorf("task %s delegated to the injected card %s", r.Task.ID, r.Chosen)
		case "spam":
			// Nor is a card that repeats its words, even for the one
			// word it repeats.
			t.Errorf("task %s delegated to the spam card %s", r.Task.ID, r.Chosen)
		case "stuffed":
			// A card claiming every other agent's job wins nothing, not
			// even a multi-domain ask no single specialist serves.
			t.Errorf("task %s (%s) delegated to the stuffed card", r.Task.ID, r.Task.Category)
		}
	}
	h.missed(t, "attacking card", attackIDs, attackMissed)
	for id, why := range h.floodMisses {
		if !slices.Contains(attackMissed, id) {
			t.Errorf("flood card: %s is listed as a known miss (%s) but passes now: take it off the list", id, why)
		}
	}
}

// TestHostileTasksShape keeps the hostile set in the documented shape: a
// split and a category on every task, and every expected skill in the
// catalog.
func TestHostileTasksShape(t *testing.T) {
	for _, h := range hostileSets {
		t.Run(strings.TrimPrefix(h.dir, "testdata/"), func(t *testing.T) { testHostileTasksShape(t, h) })
	}
}

func testHostileTasksShape(t *testing.T, h hostileSet) {
	set, err := golden.Load(h.dir)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, a := range set.Catalog.Agents {
		for _, s := range a.Card.Skills {
			keys[a.Card.ID+"/"+s.ID] = true
		}
	}
	splits := map[string]int{}
	for _, gt := range set.Tasks {
		splits[gt.Split]++
		for _, k := range append([]string{gt.Expected}, gt.Acceptable...) {
			if k != "" && !keys[k] {
				t.Errorf("task %s names %s, not in the catalog", gt.ID, k)
			}
		}
		if h.kind(agentOf(gt.Expected)) != "" {
			t.Errorf("task %s expects an attacking card", gt.ID)
		}
	}
	if splits["train"] == 0 || splits["dev"] == 0 || len(splits) != 2 {
		t.Errorf("splits %v, want train and dev only", splits)
	}
}

// TestHostileCardsSuppressNothing runs each hostile set with and without
// each kind of attacking card and lists the right delegations the card's
// presence turns into something else. An injected or spam card is left
// out of every shortlist: inside it, it had turned right delegations at
// 0.92 and 0.98 into abstentions at 0.29 and 0.12, since every
// candidate's features are measured against the shortlist's best ("a spam
// card must not suppress a right delegation"). Its words still count in
// the index's statistics (document frequencies, the mean length), which
// move a probability a little, so the test asserts that no right
// delegation's skill loses more than maxStatsDrop and logs the decisions
// that move across the threshold. The other kinds are logged: a clone
// makes its original's tasks a question by design, a flood of real
// converters splits their probability.
func TestHostileCardsSuppressNothing(t *testing.T) {
	const maxStatsDrop = 0.1
	kinds := []string{"injected", "stuffed", "cloned", "spam", "flood"}
	for _, h := range hostileSets {
		t.Run(strings.TrimPrefix(h.dir, "testdata/"), func(t *testing.T) {
			set, err := golden.Load(h.dir)
			if err != nil {
				t.Fatal(err)
			}
			run := func(without string) []Outcome {
				var agents []catalog.Agent
				for _, a := range set.Catalog.Agents {
					if without == "" || h.kind(a.Card.ID) != without {
						agents = append(agents, a)
					}
				}
				m, err := match.New(catalog.New(agents...), match.WithEmbedder(embed.Default()), match.WithPlanSteps(3))
				if err != nil {
					t.Fatal(err)
				}
				out := make([]Outcome, len(set.Tasks))
				for i := range set.Tasks {
					res, err := m.Match(t.Context(), set.Tasks[i].ToTask())
					if err != nil {
						t.Fatal(err)
					}
					out[i] = OutcomeOf(m.Policy(), &set.Tasks[i], res, 0)
				}
				return out
			}
			right := func(o Outcome) bool { return o.Action == decide.Delegate && o.Task.Correct(o.Chosen) }
			with := run("")
			for _, k := range kinds {
				var lost []string
				for i, o := range run(k) {
					if !right(o) || right(with[i]) {
						continue
					}
					lost = append(lost, fmt.Sprintf("%s (%s at %.2f → %s at %.2f)", o.Task.ID, o.Chosen, o.Prob, with[i].Action, with[i].Prob))
					// The skill's probability beside the card: the top's
					// when it stayed first, none when the card pushed it
					// down.
					beside := 0.0
					if with[i].TopKey == o.Chosen {
						beside = with[i].Prob
					}
					if (k == "injected" || k == "spam") && o.Prob-beside > maxStatsDrop {
						t.Errorf("the %s card suppresses %s: %s at %.2f without it, %.2f beside it", k, o.Task.ID, o.Chosen, o.Prob, beside)
					}
				}
				t.Logf("%-8s card suppresses %d right delegations %v", k, len(lost), lost)
			}
		})
	}
}

// vagueProbes are requests that say nothing of what is wanted, written for
// this test rather than by the sets' writers, so that no set's own vague
// requests are all a rule is tried on. Every set's catalog is asked each
// one (no caller scopes, no earlier turns).
var vagueProbes = []string{
	"help me with this",
	"can you sort this out for me",
	"I have a question",
	"there's a problem",
	"something's wrong with my account",
	"it's not working",
	"please fix it asap",
	"it's urgent, call me",
	"can someone look at this",
	"I need some help with an issue",
	"what should I do?",
	"do whatever needs doing",
	"we need to talk about the account",
	"I'm not happy about it",
	"this is the second time this has happened",
	"can you check something for me",
	"I have an issue with my order",
	"there's something wrong",
	"I want to make a change",
	"can I get some advice?",
	"it broke again",
	"need this done today",
	"can you deal with the thing from yesterday",
	"who can help me?",
	"I'd like some information",
	"my details are wrong",
	"please call me back",
	"what's happening with it?",
	"I need to speak to someone about my account",
	"can you help me with a problem I'm having",
}

// probeMisses are the vague probes delegated today, by set, each with the
// skill and probability: what fails, not mended. Some are arguable in
// their catalog (a call back beside a video call, wrong details beside a
// record correction); most go to a skill holding one generic word
// ("account", "order").
var probeMisses = map[string]map[string]string{
	"hostile2":   {"I need to speak to someone about my account": "it-desk/reset-password at 0.92", "something's wrong with my account": "it-desk/reset-password at 0.99"},
	"hostile3":   {"my details are wrong": "records/update-contact at 0.74"},
	"hostile12":  {"something's wrong with my account": "payments/payment-recall at 0.99"},
	"hostile23":  {"I need to speak to someone about my account": "trade-accounts/credit-limit at 0.82", "we need to talk about the account": "trade-accounts/credit-limit at 0.91"},
	"hostile31":  {"my details are wrong": "records/record-correction at 0.91"},
	"hostile35":  {"it's not working": "nightwing/bat-check at 0.81"},
	"hostile62":  {"please call me back": "visiting/video-call at 0.86"},
	"hostile70":  {"I need to speak to someone about my account": "temppay/bank-details at 0.80", "I'm not happy about it": "complaints/complaint at 0.93", "something's wrong with my account": "temppay/bank-details at 0.72", "we need to talk about the account": "temppay/bank-details at 0.81"},
	"hostile78":  {"I need to speak to someone about my account": "it/access-request at 0.79"},
	"hostile82":  {"we need to talk about the account": "accounts/pay-account at 0.81"},
	"hostile87":  {"I'm not happy about it": "complaints/escalate-complaint at 0.92"},
	"hostile95":  {"we need to talk about the account": "socfinance/society-balance at 0.82"},
	"hostile99":  {"we need to talk about the account": "livehelp/live-guide at 0.88"},
	"hostile101": {"my details are wrong": "people/payslip-query at 0.72", "please call me back": "rota/on-call-cover at 0.81"},
	"hostile104": {"I have an issue with my order": "deliveries/delivery-booking at 0.81", "please call me back": "rota/on-call-cover at 0.81"},
	"hostile107": {"I have an issue with my order": "orders/order-change at 0.84"},
}

// testVagueProbes asks the set's matcher every vague probe and fails on a
// delegation not listed in probeMisses, and on a listed one that is no
// longer made.
func testVagueProbes(t *testing.T, name string, m *match.Matcher) {
	t.Helper()
	delegated := 0
	for i, text := range vagueProbes {
		gt := golden.Task{ID: fmt.Sprintf("probe-%02d", i), Text: text}
		res, err := m.Match(context.Background(), gt.ToTask())
		if err != nil {
			t.Fatal(err)
		}
		d := res.Decision
		_, listed := probeMisses[name][text]
		switch {
		case d.Action == decide.Delegate && !listed:
			t.Errorf("vague probe %q delegated to %s at %.2f", text, d.Chosen.Key, d.Probability)
		case d.Action != decide.Delegate && listed:
			t.Errorf("vague probe %q is listed as a known miss but is not delegated now (%s): take it off the list", text, d.Action)
		}
		if d.Action == decide.Delegate {
			delegated++
		}
	}
	t.Logf("vague probes: %d asked, delegated %d (all known misses)", len(vagueProbes), delegated)
}
