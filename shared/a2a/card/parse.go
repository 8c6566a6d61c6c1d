package card

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

var (
	// ErrInvalidCard is wrapped by every error about a card's content: bad
	// JSON, a missing required field, a duplicate skill id, a bad id.
	ErrInvalidCard = errors.New("invalid card")
	// ErrTooLarge is wrapped when the input is over Limits.MaxBytes. It is
	// kept apart from ErrInvalidCard because the card was never read.
	ErrTooLarge = errors.New("card too large")
)

// Limits bound what one card may contribute. Text limits count runes
// (characters), not bytes. They exist because a card is untrusted: without
// them one agent could flood the index with tags or examples and crowd out
// everyone else's skills.
type Limits struct {
	MaxBytes            int // size of the card's JSON
	MaxName             int // agent and skill names
	MaxAgentDescription int
	MaxDescription      int // skill description
	MaxTag              int // one tag
	MaxTags             int // tags per skill, counted after case-insensitive dedupe
	MaxExample          int // one example
	MaxExamples         int // examples per skill
	MaxSkills           int // skills per card
}

// DefaultLimits are the limits Parse applies.
var DefaultLimits = Limits{
	MaxBytes:            1 << 20,
	MaxName:             120,
	MaxAgentDescription: 1000,
	MaxDescription:      1000,
	MaxTag:              48,
	MaxTags:             12,
	MaxExample:          300,
	MaxExamples:         20,
	MaxSkills:           200,
}

// Fixed bounds for fields that are identifiers rather than prose.
const (
	maxIDLen      = 128  // card and skill ids
	maxShortField = 64   // version, protocol binding, protocol version
	maxURLLen     = 2048 // interface URLs, extension URIs
	maxProblems   = 10   // problems listed in one error
)

// Option configures ParseWith, ParseFile and catalog loading.
type Option func(*options)

type options struct {
	limits Limits
}

// WithLimits replaces the limits. A zero or negative field keeps its
// default, so WithLimits(Limits{MaxTags: 5}) changes only MaxTags.
func WithLimits(l Limits) Option {
	return func(o *options) { o.limits = l }
}

func resolve(opts []Option) Limits {
	o := options{limits: DefaultLimits}
	for _, opt := range opts {
		opt(&o)
	}
	l, d := o.limits, DefaultLimits
	pick := func(v, def int) int {
		if v <= 0 {
			return def
		}
		return v
	}
	return Limits{
		MaxBytes:            pick(l.MaxBytes, d.MaxBytes),
		MaxName:             pick(l.MaxName, d.MaxName),
		MaxAgentDescription: pick(l.MaxAgentDescription, d.MaxAgentDescription),
		MaxDescription:      pick(l.MaxDescription, d.MaxDescription),
		MaxTag:              pick(l.MaxTag, d.MaxTag),
		MaxTags:             pick(l.MaxTags, d.MaxTags),
		MaxExample:          pick(l.MaxExample, d.MaxExample),
		MaxExamples:         pick(l.MaxExamples, d.MaxExamples),
		MaxSkills:           pick(l.MaxSkills, d.MaxSkills),
	}
}

// ValidID reports whether id can name an agent: 1 to 128 characters of
// [a-z0-9._-], and not "." or "..". Ids become file stems and the first
// half of "<agent>/<skillId>" keys, so they must be path- and key-safe.
func ValidID(id string) bool {
	if id == "" || len(id) > maxIDLen || id == "." || id == ".." {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Parse reads an agent card (A2A v1.0, the a2a-go SDK's JSON, or v0.3)
// with DefaultLimits. id is the agent's catalog id.
func Parse(id string, data []byte) (*Card, error) {
	return ParseWith(id, data)
}

// ParseWith is Parse with options.
func ParseWith(id string, data []byte, opts ...Option) (*Card, error) {
	return parse(id, data, resolve(opts))
}

// ParseFile reads the card at path; its id is the file name without the
// extension. Errors start with the path.
func ParseFile(path string, opts ...Option) (*Card, error) {
	lim := resolve(opts)
	id := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	f, err := os.Open(path)
	if err != nil {
		return nil, err // *PathError already names the file
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > int64(lim.MaxBytes) {
		return nil, fmt.Errorf("%s: %w %q: %d bytes, limit %d", path, ErrTooLarge, id, fi.Size(), lim.MaxBytes)
	}
	// Read one byte past the limit so that a file that grew, or a pipe,
	// is still caught without reading all of it.
	data, err := io.ReadAll(io.LimitReader(f, int64(lim.MaxBytes)+1))
	if err != nil {
		return nil, err // *PathError again
	}
	if len(data) > lim.MaxBytes {
		return nil, fmt.Errorf("%s: %w %q: more than %d bytes", path, ErrTooLarge, id, lim.MaxBytes)
	}
	c, err := parse(id, data, lim)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Skill returns the card's skill with the given id.
func (c *Card) Skill(id string) (*Skill, bool) {
	for i := range c.Skills {
		if c.Skills[i].ID == id {
			return &c.Skills[i], true
		}
	}
	return nil, false
}

// rawCard is the union of the v1.0 and v0.3 fields. Plain sub-objects use
// the SDK's types; the polymorphic ones (security) stay raw because the
// SDK does not read every shape (see security.go).
type rawCard struct {
	Name                 *string                    `json:"name"`
	Description          string                     `json:"description"`
	Version              string                     `json:"version"`
	SupportedInterfaces  []*a2a.AgentInterface      `json:"supportedInterfaces"`
	Capabilities         *a2a.AgentCapabilities     `json:"capabilities"`
	DefaultInputModes    []string                   `json:"defaultInputModes"`
	DefaultOutputModes   []string                   `json:"defaultOutputModes"`
	SecuritySchemes      map[string]json.RawMessage `json:"securitySchemes"`
	SecurityRequirements json.RawMessage            `json:"securityRequirements"`
	Skills               []rawSkill                 `json:"skills"`

	// v0.3 only.
	URL                               string          `json:"url"`
	PreferredTransport                string          `json:"preferredTransport"`
	AdditionalInterfaces              []*v03Interface `json:"additionalInterfaces"`
	ProtocolVersion                   string          `json:"protocolVersion"`
	Security                          json.RawMessage `json:"security"`
	SupportsAuthenticatedExtendedCard bool            `json:"supportsAuthenticatedExtendedCard"`
}

type v03Interface struct {
	URL       string `json:"url"`
	Transport string `json:"transport"`
}

type rawSkill struct {
	ID                   *string         `json:"id"`
	Name                 *string         `json:"name"`
	Description          string          `json:"description"`
	Tags                 []string        `json:"tags"`
	Examples             []string        `json:"examples"`
	InputModes           []string        `json:"inputModes"`
	OutputModes          []string        `json:"outputModes"`
	SecurityRequirements json.RawMessage `json:"securityRequirements"`
	Security             json.RawMessage `json:"security"` // v0.3
}

// parser carries one card's id, limits, notes and problems.
type parser struct {
	id       string
	lim      Limits
	notes    notes
	problems []string
}

type notes struct{ list []string }

func (n *notes) add(path, format string, args ...any) {
	n.list = append(n.list, path+": "+fmt.Sprintf(format, args...))
}

func (p *parser) fail(path, format string, args ...any) {
	p.problems = append(p.problems, path+": "+fmt.Sprintf(format, args...))
}

func (p *parser) err() error {
	if len(p.problems) == 0 {
		return nil
	}
	list := p.problems
	if len(list) > maxProblems {
		list = append(list[:maxProblems:maxProblems], fmt.Sprintf("and %d more problems", len(p.problems)-maxProblems))
	}
	return fmt.Errorf("%w %q: %s", ErrInvalidCard, p.id, strings.Join(list, "; "))
}

func parse(id string, data []byte, lim Limits) (*Card, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("%w %q: id: want 1-%d characters of [a-z0-9._-]", ErrInvalidCard, id, maxIDLen)
	}
	if len(data) > lim.MaxBytes {
		return nil, fmt.Errorf("%w %q: %d bytes, limit %d", ErrTooLarge, id, len(data), lim.MaxBytes)
	}
	var raw rawCard
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%w %q: %s", ErrInvalidCard, id, jsonProblem(data, err))
	}
	p := &parser{id: id, lim: lim}
	c := p.card(&raw)
	if err := p.err(); err != nil {
		return nil, err
	}
	return c, nil
}

func (p *parser) card(raw *rawCard) *Card {
	c := &Card{ID: p.id}
	n := &p.notes
	if raw.Name == nil || strings.TrimSpace(*raw.Name) == "" {
		p.fail("name", "missing")
	} else if c.Name = p.text(*raw.Name, "name", p.lim.MaxName, n); c.Name == "" {
		p.fail("name", "empty once markup is removed")
	}
	c.Description, c.DescriptionCut = p.textCut(raw.Description, "description", p.lim.MaxAgentDescription, n)
	c.Version = p.short(raw.Version, "version", n)

	c.Interfaces = p.interfaces(raw, n)
	c.ProtocolVersion = p.short(raw.ProtocolVersion, "protocolVersion", n)
	if c.ProtocolVersion == "" && len(c.Interfaces) > 0 {
		c.ProtocolVersion = c.Interfaces[0].ProtocolVersion
	}
	if caps := raw.Capabilities; caps != nil {
		c.Streaming, c.Push, c.ExtendedCard = caps.Streaming, caps.PushNotifications, caps.ExtendedAgentCard
		for i, e := range caps.Extensions {
			path := fmt.Sprintf("capabilities.extensions[%d].uri", i)
			switch uri := cleanPlain(e.URI); {
			case uri == "":
				n.add(path, "missing, extension dropped")
			case len(uri) > maxURLLen:
				n.add(path, "longer than %d bytes, extension dropped", maxURLLen)
			default:
				c.Extensions = append(c.Extensions, Extension{URI: uri, Required: e.Required})
			}
		}
	}
	c.ExtendedCard = c.ExtendedCard || raw.SupportsAuthenticatedExtendedCard
	c.DefaultInputModes = modes(raw.DefaultInputModes, "defaultInputModes", n)
	c.DefaultOutputModes = modes(raw.DefaultOutputModes, "defaultOutputModes", n)

	for name := range raw.SecuritySchemes {
		c.SecuritySchemes = append(c.SecuritySchemes, name)
	}
	slices.Sort(c.SecuritySchemes)
	c.Security, _ = p.security(raw.SecurityRequirements, raw.Security, "", c.SecuritySchemes, n)

	p.skills(c, raw.Skills)
	c.Notes = p.notes.list
	return c
}

func (p *parser) skills(c *Card, raws []rawSkill) {
	switch {
	case raws == nil:
		p.fail("skills", "missing")
		return
	case len(raws) == 0:
		p.fail("skills", "empty, a card needs at least one skill")
		return
	}
	// Every skill is validated, even those past MaxSkills: a card with a
	// broken skill is broken wherever the skill sits.
	seen := make(map[string]int, len(raws))
	keep := min(len(raws), p.lim.MaxSkills)
	c.Skills = make([]Skill, 0, keep)
	for i := range raws {
		path := fmt.Sprintf("skills[%d]", i)
		var n notes
		s := p.skill(&raws[i], path, c.SecuritySchemes, &n)
		if s.ID != "" {
			if j, dup := seen[s.ID]; dup {
				p.fail(path+".id", "%q already used by skills[%d]", s.ID, j)
			}
			seen[s.ID] = i
		}
		if i < keep {
			c.Skills = append(c.Skills, s)
			p.notes.list = append(p.notes.list, n.list...)
		}
	}
	if len(raws) > keep {
		p.notes.add("skills", "%d skills, kept %d", len(raws), keep)
	}
}

func (p *parser) skill(raw *rawSkill, path string, schemes []string, n *notes) Skill {
	var s Skill
	switch {
	case raw.ID == nil || *raw.ID == "":
		p.fail(path+".id", "missing")
	case strings.Contains(*raw.ID, "/"):
		// "<agent>/<skillId>" keys split at the first '/'; the agent half
		// cannot hold one, and the skill half must not either or keys stop
		// being unambiguous.
		p.fail(path+".id", "%q contains '/'", *raw.ID)
	case len(*raw.ID) > maxIDLen:
		p.fail(path+".id", "longer than %d bytes", maxIDLen)
	case strings.IndexFunc(*raw.ID, func(r rune) bool { return unicode.IsSpace(r) || !keepRune(r) }) >= 0:
		p.fail(path+".id", "%q contains spaces or invisible characters", *raw.ID)
	default:
		s.ID = *raw.ID
	}
	if raw.Name == nil || strings.TrimSpace(*raw.Name) == "" {
		p.fail(path+".name", "missing")
	} else if s.Name = p.text(*raw.Name, path+".name", p.lim.MaxName, n); s.Name == "" {
		p.fail(path+".name", "empty once markup is removed")
	}
	s.Description, s.DescriptionCut = p.textCut(raw.Description, path+".description", p.lim.MaxDescription, n)
	if s.Description == "" {
		n.add(path+".description", "empty")
	}
	s.Tags = p.textList(raw.Tags, path+".tags", "tags", p.lim.MaxTag, p.lim.MaxTags, n)
	s.Examples = p.textList(raw.Examples, path+".examples", "examples", p.lim.MaxExample, p.lim.MaxExamples, n)
	s.InputModes = modes(raw.InputModes, path+".inputModes", n)
	s.OutputModes = modes(raw.OutputModes, path+".outputModes", n)
	s.Security, s.HasSecurity = p.security(raw.SecurityRequirements, raw.Security, path+".", schemes, n)
	return s
}

// security reads a requirement list from the v1.0 field, or the v0.3 one
// when the v1.0 field is absent or empty. Preferring the non-empty list
// when the two disagree fails closed, and matches the SDK's v0.3 reader.
func (p *parser) security(v1, v03 json.RawMessage, prefix string, schemes []string, n *notes) ([]Requirement, bool) {
	// requirements' errors start with the field path already.
	reqs, present, err := requirements(v1, prefix+"securityRequirements")
	if err != nil {
		p.problems = append(p.problems, err.Error())
		return nil, false
	}
	old, oldPresent, err := requirements(v03, prefix+"security")
	if err != nil {
		p.problems = append(p.problems, err.Error())
		return nil, false
	}
	field := "securityRequirements"
	switch {
	case !present || (len(reqs) == 0 && len(old) > 0):
		reqs, present, field = old, oldPresent, "security"
	case oldPresent && !equalRequirements(reqs, old):
		n.add(prefix+"security", "differs from securityRequirements, which is used")
	}
	for i, r := range reqs {
		for _, name := range sortedKeys(r) {
			if !slices.Contains(schemes, name) {
				n.add(fmt.Sprintf("%s%s[%d]", prefix, field, i), "scheme %q is not declared in securitySchemes", name)
			}
		}
	}
	return reqs, present
}

func sortedKeys(r Requirement) []string {
	keys := make([]string, 0, len(r))
	for k := range r {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (p *parser) interfaces(raw *rawCard, n *notes) []Interface {
	var out []Interface
	add := func(path, url, binding, version string) {
		url = cleanPlain(url)
		switch {
		case url == "":
			n.add(path+".url", "missing, interface dropped")
			return
		case len(url) > maxURLLen:
			n.add(path+".url", "longer than %d bytes, interface dropped", maxURLLen)
			return
		}
		in := Interface{
			URL:             url,
			Binding:         p.short(binding, path+".protocolBinding", n),
			ProtocolVersion: p.short(version, path+".protocolVersion", n),
		}
		if !slices.Contains(out, in) {
			out = append(out, in)
		}
	}
	if len(raw.SupportedInterfaces) > 0 {
		for i, in := range raw.SupportedInterfaces {
			path := fmt.Sprintf("supportedInterfaces[%d]", i)
			if in == nil {
				n.add(path, "null, dropped")
				continue
			}
			add(path, in.URL, string(in.ProtocolBinding), string(in.ProtocolVersion))
		}
		return out
	}
	// v0.3: url + preferredTransport is the main interface; JSON-RPC is
	// the v0.3 default transport.
	if raw.URL == "" && len(raw.AdditionalInterfaces) == 0 {
		return nil
	}
	transport := raw.PreferredTransport
	if transport == "" {
		transport = string(a2a.TransportProtocolJSONRPC)
	}
	if raw.URL != "" {
		add("url", raw.URL, transport, raw.ProtocolVersion)
	}
	for i, in := range raw.AdditionalInterfaces {
		path := fmt.Sprintf("additionalInterfaces[%d]", i)
		if in == nil {
			n.add(path, "null, dropped")
			continue
		}
		add(path, in.URL, in.Transport, raw.ProtocolVersion)
	}
	return out
}

// MaxCutKept is the most characters of a description's cut-off end a
// card keeps for the trust checks (Card.DescriptionCut).
const MaxCutKept = 3000

// text sanitises one prose field and caps its length, noting what it did.
func (p *parser) text(s, path string, max int, n *notes) string {
	out, _ := p.textCut(s, path, max, n)
	return out
}

// textCut is text, with what the cap cut off (at most MaxCutKept
// characters of it).
func (p *parser) textCut(s, path string, max int, n *notes) (string, string) {
	out, info := clean(s)
	if info.markup {
		n.add(path, "markup removed")
	}
	if info.invisible > 0 {
		n.add(path, "%d invisible characters removed", info.invisible)
	}
	var rest string
	if cut, was, ok := truncate(out, max); ok {
		n.add(path, "%d chars, cut to %d", was, max)
		rest, _, _ = truncate(out[len(cut):], MaxCutKept)
		out = cut
	}
	return out, rest
}

// short cleans an identifier-like field (version, binding) without touching
// markup characters.
func (p *parser) short(s, path string, n *notes) string {
	s = cleanPlain(s)
	if cut, was, ok := truncate(s, maxShortField); ok {
		n.add(path, "%d chars, cut to %d", was, maxShortField)
		s = cut
	}
	return s
}

// textList sanitises a list of tags or examples: each item is cleaned and
// capped, empty items and case-insensitive duplicates dropped, then the
// list is capped. Deduping before capping means repeating a tag cannot use
// up the slots; the notes are aggregated per list so a stuffed list does
// not flood them.
func (p *parser) textList(raw []string, path, noun string, maxLen, maxN int, n *notes) []string {
	if len(raw) == 0 {
		return nil
	}
	var (
		out                   = make([]string, 0, min(len(raw), maxN))
		seen                  = make(map[string]bool, len(raw))
		markup                bool
		invisible, cut, empty int
		dups, total           int
	)
	for _, s := range raw {
		s, info := clean(s)
		markup = markup || info.markup
		invisible += info.invisible
		if c, _, ok := truncate(s, maxLen); ok {
			s = c
			cut++
		}
		key := strings.ToLower(s)
		switch {
		case s == "":
			empty++
			continue
		case seen[key]:
			dups++
			continue
		}
		seen[key] = true
		total++
		if len(out) < maxN {
			out = append(out, s)
		}
	}
	if markup {
		n.add(path, "markup removed")
	}
	if invisible > 0 {
		n.add(path, "%d invisible characters removed", invisible)
	}
	if cut > 0 {
		n.add(path, "%d cut to %d chars", cut, maxLen)
	}
	if empty > 0 {
		n.add(path, "%d empty dropped", empty)
	}
	if dups > 0 {
		n.add(path, "%d duplicates dropped (case-insensitive)", dups)
	}
	if total > maxN {
		n.add(path, "%d %s, kept %d", total, noun, maxN)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// jsonProblem turns a decoding error into "where: what", with a line and
// column for syntax errors and the field path for type errors.
func jsonProblem(data []byte, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn) && syn.Offset > 0 && syn.Offset <= int64(len(data)) && !strings.HasSuffix(syn.Error(), "end of JSON input"):
		// Offset counts the bytes read, the offending one included.
		line, col := position(data, syn.Offset-1)
		return fmt.Sprintf("invalid JSON at line %d, column %d: %s", line, col, strings.TrimPrefix(syn.Error(), "json: "))
	case errors.As(err, &typ):
		if typ.Field == "" {
			return fmt.Sprintf("want a JSON object, got %s", typ.Value)
		}
		return fmt.Sprintf("%s: want %s, got %s", typ.Field, jsonKind(typ.Type), typ.Value)
	}
	return "invalid JSON: " + strings.TrimPrefix(err.Error(), "json: ")
}

// position returns the 1-based line and column of the byte at offset.
func position(data []byte, offset int64) (line, col int) {
	line, col = 1, 1
	for i := int64(0); i < offset && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int64, reflect.Float64:
		return "a number"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			return "a list of strings"
		}
		return "a list"
	}
	return "an object"
}
