package console

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/skillmatch/skillmatch/shared/a2a/card"
	"github.com/skillmatch/skillmatch/shared/a2a/catalog"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
	"github.com/skillmatch/skillmatch/shared/match/cardtrust"
	"github.com/skillmatch/skillmatch/shared/match/extract"
	"github.com/skillmatch/skillmatch/shared/pipeline"
	"github.com/skillmatch/skillmatch/shared/pipeline/wire"
)

// AgentRow is one agent of the catalog page.
type AgentRow struct {
	ID, Name, Version string
	Status            catalog.Status
	// Revision and Updated are the bucket entry's.
	Revision uint64
	Updated  time.Time
	// Description is what the matcher reads (sanitised); Raw is the card's
	// own text when it differs, shown escaped so an operator sees what
	// the card tried.
	Description, RawDescription string
	Notes                       []string
	Skills                      []SkillRow
	// Error is why the entry could not be read (the stages skip it too).
	Error string
}

// SkillRow is one skill of an agent.
type SkillRow struct {
	Key, ID, Name, Description string
	Tags                       []string
	In, Out                    []string
	// Access is the grants' verdict for the "as caller" view ("" without one).
	Access         string
	Granted        bool
	RawDescription string
	// Excluded is the hard filters' reason for the "why excluded" view,
	// "" when the skill passes them.
	Excluded string
	// Untrusted is why the card's own text keeps the skill from every
	// task (cardtrust), "" when it does not.
	Untrusted string
}

// entry is a catalog bucket value as read.
type entry struct {
	key     string
	rev     uint64
	created time.Time
	value   []byte
}

// readCatalog reads every entry of the catalog bucket.
func (s *Server) readCatalog(ctx context.Context) ([]entry, uint64, error) {
	kv, err := s.cfg.JS.KeyValue(ctx, s.cfg.CatalogBucket)
	if err != nil {
		return nil, 0, err
	}
	keys, err := kv.ListKeys(ctx)
	if err != nil {
		return nil, 0, err
	}
	var names []string
	for k := range keys.Keys() {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []entry
	var top uint64
	for _, k := range names {
		e, err := kv.Get(ctx, k)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, 0, err
		}
		out = append(out, entry{key: k, rev: e.Revision(), created: e.Created(), value: e.Value()})
		top = max(top, e.Revision())
	}
	return out, top, nil
}

// rawCard is the untrusted text of a card as published, before sanitising.
type rawCard struct {
	Description string `json:"description"`
	Skills      []struct {
		ID          string `json:"id"`
		Description string `json:"description"`
	} `json:"skills"`
}

// agentRows turns entries into rows and the catalog they make.
func agentRows(entries []entry) ([]AgentRow, *catalog.Catalog) {
	rows := make([]AgentRow, 0, len(entries))
	var agents []catalog.Agent
	for _, e := range entries {
		row := AgentRow{ID: e.key, Revision: e.rev, Updated: e.created}
		a, err := wire.DecodeCatalogEntry(e.key, e.value)
		if err != nil {
			row.Error = err.Error()
			rows = append(rows, row)
			continue
		}
		agents = append(agents, a)
		var ce wire.CatalogEntry
		var raw rawCard
		if json.Unmarshal(e.value, &ce) == nil {
			_ = json.Unmarshal(ce.Card, &raw)
		}
		rawSkill := map[string]string{}
		for _, s := range raw.Skills {
			rawSkill[s.ID] = s.Description
		}
		c := a.Card
		row.Name, row.Version, row.Status, row.Description, row.Notes = c.Name, c.Version, a.Status, c.Description, c.Notes
		if strings.TrimSpace(raw.Description) != c.Description {
			row.RawDescription = clipText(raw.Description, 2000)
		}
		untrusted := cardtrust.Reasons(c)
		for i := range c.Skills {
			sk := &c.Skills[i]
			sr := SkillRow{Key: card.Key(c.ID, sk.ID), ID: sk.ID, Name: sk.Name, Description: sk.Description, Tags: sk.Tags,
				In: c.EffectiveInputModes(sk), Out: c.EffectiveOutputModes(sk), Granted: true, Untrusted: untrusted[i]}
			if r := rawSkill[sk.ID]; strings.TrimSpace(r) != sk.Description {
				sr.RawDescription = clipText(r, 2000)
			}
			row.Skills = append(row.Skills, sr)
		}
		rows = append(rows, row)
	}
	return rows, catalog.New(agents...)
}

// matches reports whether the search q (lower case) occurs in any of texts.
func matches(q string, texts ...string) bool {
	for _, t := range texts {
		if strings.Contains(strings.ToLower(t), q) {
			return true
		}
	}
	return false
}

// search keeps the agents matching q, and of an agent that does not match
// itself, the skills that do.
func search(rows []AgentRow, q string) []AgentRow {
	q = strings.ToLower(strings.TrimSpace(q))
	if q == "" {
		return rows
	}
	var out []AgentRow
	for _, r := range rows {
		if matches(q, r.ID, r.Name, r.Description) {
			out = append(out, r)
			continue
		}
		var skills []SkillRow
		for _, s := range r.Skills {
			if matches(q, append([]string{s.Key, s.Name, s.Description}, s.Tags...)...) {
				skills = append(skills, s)
			}
		}
		if len(skills) > 0 {
			r.Skills = skills
			out = append(out, r)
		}
	}
	return out
}

// WhyForm is the "why excluded" question: a task as a caller would send it.
type WhyForm struct {
	Text, Caller, Scopes, DataClass, Files, Accept string
}

// Task builds the task the form describes, checked as the extractor checks
// a submitted one. Files are media types or file names, comma-separated.
func (f WhyForm) Task() (*task.Task, error) {
	t := map[string]any{"id": "console-why"}
	parts := []map[string]any{{"text": f.Text}}
	for _, x := range splitList(f.Files) {
		if strings.Contains(x, "/") {
			parts = append(parts, map[string]any{"file": map[string]string{"name": "attachment", "mediaType": x}})
		} else {
			parts = append(parts, map[string]any{"file": map[string]string{"name": x}})
		}
	}
	t["message"] = map[string]any{"role": "user", "parts": parts}
	caller := map[string]any{}
	if f.Caller != "" {
		caller["id"] = f.Caller
	}
	if strings.TrimSpace(f.Scopes) != "" {
		caller["scopes"] = splitList(f.Scopes)
	}
	if f.DataClass != "" {
		caller["dataClass"] = f.DataClass
	}
	t["caller"] = caller
	if acc := splitList(f.Accept); len(acc) > 0 {
		t["constraints"] = map[string]any{"acceptedOutputTypes": acc}
	}
	data, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	return task.Parse(data)
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

type catalogView struct {
	page
	Agents   []AgentRow
	Total    int
	Skills   int
	Revision uint64
	Query    string
	As       string
	// Granted and Hidden count the skills the "as" caller may and may not use.
	Granted, Hidden int
	Grants          bool
	Why             WhyForm
	WhyAsked        bool
	WhyError        string
	Requirement     *extract.Requirement
	Excluded, Kept  int
	Fingerprint     string
}

func (s *Server) catalogPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := catalogView{page: s.page(r, "catalog", "Catalog"), Query: q.Get("q"), As: strings.TrimSpace(q.Get("as")),
		Grants: s.cfg.Grants != nil,
		Why: WhyForm{Text: q.Get("task"), Caller: strings.TrimSpace(q.Get("as")), Scopes: q.Get("scopes"),
			DataClass: q.Get("dataClass"), Files: q.Get("files"), Accept: q.Get("accept")}}
	entries, rev, err := s.readCatalog(r.Context())
	if err != nil {
		s.fail(w, r, "reading the catalog bucket", err)
		return
	}
	rows, cat := agentRows(entries)
	v.Total, v.Revision = len(rows), rev
	for _, a := range rows {
		v.Skills += len(a.Skills)
	}
	if v.As != "" {
		for i := range rows {
			a, ok := cat.Agent(rows[i].ID)
			if !ok {
				continue
			}
			for j := range rows[i].Skills {
				sr := &rows[i].Skills[j]
				d := s.cfg.Grants.Access(v.As, a, &a.Card.Skills[j])
				sr.Granted, sr.Access = d.OK, d.Reason
				if d.OK {
					v.Granted++
				} else {
					v.Hidden++
				}
			}
		}
	}
	if strings.TrimSpace(v.Why.Text) != "" {
		v.WhyAsked = true
		s.why(&v, rows)
	}
	v.Agents = search(rows, v.Query)
	s.render(w, r, "catalog", &v)
}

// why fills the "why excluded" answer: the hard filters' reason for every
// skill the task cannot go to, as the current matcher (its catalog
// snapshot, grants and strictness) gives them.
func (s *Server) why(v *catalogView, rows []AgentRow) {
	m := s.cfg.Matcher()
	if m == nil {
		v.WhyError = "no matcher is built yet (the catalog is loading)"
		return
	}
	t, err := v.Why.Task()
	if err != nil {
		v.WhyError = err.Error()
		return
	}
	s.cfg.Callers.Stamp(t, t.Caller.ID) // as the extractor narrows a submitted task
	req := m.Extract(t)
	v.Requirement = &req
	v.Fingerprint = pipeline.SnapshotFingerprint(m)
	reasons := map[string]string{}
	for _, rj := range m.Rejections(&req) {
		reasons[card.Key(rj.Agent, rj.Skill)] = string(rj.Rule) + ": " + rj.Reason
	}
	known := map[string]bool{}
	for _, ref := range m.Catalog().Skills() {
		known[ref.Key()] = true
	}
	for i := range rows {
		for j := range rows[i].Skills {
			sr := &rows[i].Skills[j]
			switch r, ok := reasons[sr.Key]; {
			case ok:
				sr.Excluded = r
				v.Excluded++
			case !known[sr.Key]:
				sr.Excluded = "not in the matcher's catalog snapshot yet"
				v.Excluded++
			default:
				v.Kept++
			}
		}
	}
}
