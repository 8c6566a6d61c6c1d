package wire

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/skillmatch/skillmatch/shared/match/decide"
	"github.com/skillmatch/skillmatch/shared/match/extract"
)

// randomText mixes what encoding/json escapes or passes through: quotes,
// backslashes, HTML characters, control characters, non-ASCII and
// invalid UTF-8.
func randomText(rng *rand.Rand) string {
	pieces := []string{"fit 7.6/10: + word match", `"quoted"`, `back\slash`, "<b>&amp;</b>", "tab\there", "line\nbreak",
		"…", "naïve café", "\u2028", "\xff\xfe", "日本語", "", " ", "ap-reconciler-00/extract-invoice-data"}
	var b strings.Builder
	for range rng.IntN(4) {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

func randomFloat(rng *rand.Rand) float64 {
	switch rng.IntN(5) {
	case 0:
		return 0
	case 1:
		return rng.NormFloat64() * 1e-9
	case 2:
		return rng.NormFloat64() * 1e22
	}
	return rng.NormFloat64() * 10
}

func randomOptions(rng *rand.Rand) []decide.Option {
	out := make([]decide.Option, rng.IntN(6))
	for i := range out {
		out[i] = decide.Option{Key: randomText(rng), AgentID: randomText(rng), SkillID: randomText(rng),
			AgentName: randomText(rng), SkillName: randomText(rng), Score: randomFloat(rng), Prob: randomFloat(rng),
			Demoted: rng.IntN(2) == 0, Reason: randomText(rng), AlikeOf: randomText(rng),
			Alike: decide.Alike(randomText(rng)), Sibling: rng.IntN(2) == 0, Unnamed: rng.IntN(3) == 0}
	}
	return out
}

func randomTask(rng *rand.Rand) json.RawMessage {
	raw, _ := json.Marshal(map[string]any{"id": randomText(rng), "message": map[string]any{"parts": []any{map[string]string{"text": randomText(rng)}}}})
	return raw
}

func randomRanked(rng *rand.Rand) *Ranked {
	m := &Ranked{V: Version, TaskID: randomText(rng), Caller: randomText(rng), Task: randomTask(rng), Catalog: randomText(rng),
		Candidates: randomOptions(rng), Degraded: randomText(rng)}
	if rng.IntN(3) == 0 {
		for range rng.IntN(4) {
			m.Parts = append(m.Parts, PartRanked{Part: randomText(rng), Candidates: randomOptions(rng)})
		}
	}
	return m
}

func randomShortlist(rng *rand.Rand) Shortlist {
	sl := Shortlist{Rejected: rng.IntN(1000), Retrieval: randomRetrieval(rng), Degraded: randomText(rng)}
	for range rng.IntN(6) {
		sl.Terms = append(sl.Terms, randomText(rng))
		sl.Keys = append(sl.Keys, randomText(rng))
	}
	for range rng.IntN(3) {
		sl.Demoted = append(sl.Demoted, rng.IntN(2000)-1)
	}
	if rng.IntN(4) > 0 {
		sl.Vector = make(Floats, rng.IntN(8))
		for i := range sl.Vector {
			sl.Vector[i] = float32(randomFloat(rng))
		}
	}
	if rng.IntN(3) == 0 {
		sl.History = randomRetrieval(rng)
	}
	return sl
}

func randomShortlisted(rng *rand.Rand) *Shortlisted {
	m := &Shortlisted{V: Version, TaskID: randomText(rng), Caller: randomText(rng), Task: randomTask(rng), Catalog: randomText(rng),
		Requirement: extract.Requirement{TaskID: randomText(rng), Need: randomText(rng), OutputTypes: []string{randomText(rng)},
			Scopes: []string{}, Streaming: rng.IntN(2) == 0},
		Shortlist: randomShortlist(rng)}
	if rng.IntN(3) == 0 {
		for range rng.IntN(4) {
			m.Parts = append(m.Parts, PartShortlist{Part: randomText(rng), Shortlist: randomShortlist(rng)})
		}
	}
	return m
}

// TestScanStageMessages holds the stage messages' readers to
// encoding/json: every message this package writes is read by them, to
// what encoding/json reads.
func TestScanStageMessages(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 500 {
		ranked, err := json.Marshal(randomRanked(rng))
		if err != nil {
			t.Fatal(err)
		}
		var wantR Ranked
		if err := json.Unmarshal(ranked, &wantR); err != nil {
			t.Fatal(err)
		}
		gotR, ok := scanRanked(ranked)
		if !ok {
			t.Fatalf("%d: ranked not scanned: %s", i, ranked)
		}
		if !reflect.DeepEqual(gotR, wantR) {
			t.Fatalf("%d: ranked scanned %+v, encoding/json read %+v", i, gotR, wantR)
		}

		shortlisted, err := json.Marshal(randomShortlisted(rng))
		if err != nil {
			t.Fatal(err)
		}
		var wantS Shortlisted
		if err := json.Unmarshal(shortlisted, &wantS); err != nil {
			t.Fatal(err)
		}
		gotS, ok := scanShortlisted(shortlisted)
		if !ok {
			t.Fatalf("%d: shortlisted not scanned: %s", i, shortlisted)
		}
		if !reflect.DeepEqual(gotS, wantS) {
			t.Fatalf("%d: shortlisted scanned %+v, encoding/json read %+v", i, gotS, wantS)
		}
	}
}

// TestScanStageMessagesRefuse: what the readers do not take goes to
// encoding/json, so the Decode functions answer as before.
func TestScanStageMessagesRefuse(t *testing.T) {
	for _, in := range []string{
		`{"v":1,"taskId":"t","candidates":[],"candidates":[]}`,           // a repeated key
		`{"v":1,"TaskID":"t","candidates":[]}`,                           // another spelling
		`{"v":2,"taskId":"t","candidates":[]}`,                           // another version
		`{"taskId":"t","candidates":[]}`,                                 // none
		`{"v":1,"taskId":"t","candidates":[{"score":01}]}`,               // not a JSON number
		`{"v":1,"taskId":"t","candidates":[{"score":0x10}]}`,             // strconv's, not JSON's
		`{"v":1,"taskId":"t","candidates":[{"reason":"a` + "\n" + `"}]}`, // a raw control character
		`{"v":1,"taskId":"t","candidates":[{"extra":1}]}`,                // an unknown key
		`{"v":1,"taskId":"t","task":{"a":},"candidates":[]}`,             // invalid JSON inside
		`{"v":1,"taskId":"t","candidates":[]} x`,                         // trailing data
	} {
		if _, ok := scanRanked([]byte(in)); ok {
			t.Errorf("%s: scanned", in)
		}
	}
	for _, in := range []string{
		`{"v":1,"taskId":"t","shortlist":{"vector":"AAAA` + "\n" + `AAAA"}}`,           // a raw newline base64 would skip
		`{"v":1,"taskId":"t","shortlist":{"retrieval":{"termWeights":[+1]}}}`,          // not a JSON number
		`{"v":1,"taskId":"t","shortlist":{"retrieval":{"candidates":"AAAAAAAA8D8="}}}`, // not whole candidates
		`{"v":1,"taskId":"t","shortlist":{"demoted":[1.5]}}`,                           // not an int
	} {
		if _, ok := scanShortlisted([]byte(in)); ok {
			t.Errorf("%s: scanned", in)
		}
	}
}

// FuzzScanStageMessages: whatever the readers take, encoding/json reads
// the same way.
func FuzzScanStageMessages(f *testing.F) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 4 {
		r, _ := json.Marshal(randomRanked(rng))
		f.Add(r)
		s, _ := json.Marshal(randomShortlisted(rng))
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, ok := scanRanked(data); ok {
			var want Ranked
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatalf("%q: scanned, but encoding/json says %v", data, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: scanned %+v, encoding/json read %+v", data, got, want)
			}
		}
		if got, ok := scanShortlisted(data); ok {
			var want Shortlisted
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatalf("%q: scanned, but encoding/json says %v", data, err)
			}
			// Packed floats may be NaN, which DeepEqual holds unequal
			// to itself: compared bit for bit.
			if !sameBits(reflect.ValueOf(got), reflect.ValueOf(want)) {
				t.Fatalf("%q: scanned %+v, encoding/json read %+v", data, got, want)
			}
		}
	})
}

// sameBits is reflect.DeepEqual with floats compared by their bits.
func sameBits(a, b reflect.Value) bool {
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case reflect.Float32, reflect.Float64:
		return math.Float64bits(a.Float()) == math.Float64bits(b.Float())
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameBits(a.Elem(), b.Elem())
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !sameBits(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := range a.NumField() {
			if !sameBits(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

// TestEncodeStageMessages holds the stage messages' writers to
// encoding/json, byte for byte.
func TestEncodeStageMessages(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range 500 {
		r := randomRanked(rng)
		if i%7 == 0 {
			r.Candidates = nil
			r.Task = json.RawMessage(" { \"id\" : \"<a>&\u2028\" } ")
		}
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := EncodeRanked(r)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%d: ranked wrote\n%s\nencoding/json\n%s", i, got, want)
		}

		s := randomShortlisted(rng)
		if i%7 == 0 {
			s.Task = nil
			s.Shortlist.Retrieval = nil
		}
		if want, err = json.Marshal(s); err != nil {
			t.Fatal(err)
		}
		if got, err = EncodeShortlisted(s); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%d: shortlisted wrote\n%s\nencoding/json\n%s", i, got, want)
		}
	}
	// What encoding/json refuses, they refuse.
	bad := randomRanked(rng)
	bad.Candidates = []decide.Option{{Score: math.NaN()}}
	if _, err := EncodeRanked(bad); err == nil {
		t.Error("NaN score encoded")
	}
	bad.Candidates, bad.Task = nil, json.RawMessage(`{"a":`)
	if _, err := EncodeRanked(bad); err == nil {
		t.Error("invalid task encoded")
	}
}

// fillAll sets every field of v, recursively, to a value that is not its
// zero (one element per list), so that a field a stage message or
// decide.Option gains shows up in its JSON.
func fillAll(v reflect.Value, rng *rand.Rand) {
	switch {
	case v.Type() == reflect.TypeFor[json.RawMessage]():
		v.SetBytes([]byte(`{"id":"t"}`))
		return
	case v.Type() == reflect.TypeFor[*Retrieval]():
		v.Set(reflect.ValueOf(randomRetrieval(rng)))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(Version)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fillAll(v.Index(0), rng)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillAll(v.Elem(), rng)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillAll(v.Field(i), rng)
			}
		}
	}
}

// TestScanEveryField: a message with every field set is read by the
// one-pass readers, so that a field a message or decide.Option gains
// fails here rather than sending every message down encoding/json's
// slower path unnoticed.
func TestScanEveryField(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var r Ranked
	fillAll(reflect.ValueOf(&r).Elem(), rng)
	r.Parts = append(r.Parts, r.Parts[0]) // plans have 2 parts at least
	data, err := json.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := scanRanked(data); !ok {
		t.Errorf("ranked with every field set not scanned: %s", data)
	}
	if enc, err := EncodeRanked(&r); err != nil || !bytes.Equal(enc, data) {
		t.Errorf("ranked with every field set written as\n%s (%v), encoding/json\n%s", enc, err, data)
	}
	var s Shortlisted
	fillAll(reflect.ValueOf(&s).Elem(), rng)
	if data, err = json.Marshal(&s); err != nil {
		t.Fatal(err)
	}
	if _, ok := scanShortlisted(data); !ok {
		t.Errorf("shortlisted with every field set not scanned: %s", data)
	}
	if enc, err := EncodeShortlisted(&s); err != nil || !bytes.Equal(enc, data) {
		t.Errorf("shortlisted with every field set written as\n%s (%v), encoding/json\n%s", enc, err, data)
	}
}

// TestUnquote holds unquote to encoding/json's reading of a string.
func TestUnquote(t *testing.T) {
	for _, body := range []string{`plain`, `a\"b\\c\/d`, `\b\f\n\r\t`, `\u00e9\u2028`, `\ud83d\ude00`, `\ud800`, `\ud800x`,
		`\ud800\u0041`, `\udc00\ud800`, `\ud800\ud800\udc00`, "caf\xc3\xa9 \xff\xfe", `\u12`, `\u12g4`, `\'`, `\x`, `\`, "a\x01b", `\U0041`} {
		checkUnquote(t, []byte(body))
	}
}

func checkUnquote(t *testing.T, body []byte) {
	var want string
	err := json.Unmarshal(append(append([]byte{'"'}, body...), '"'), &want)
	got, ok := unquote(body)
	switch {
	case ok != (err == nil):
		t.Errorf("%q: unquote ok %v, encoding/json %v", body, ok, err)
	case ok && got != want:
		t.Errorf("%q: unquote %q, encoding/json %q", body, got, want)
	}
}

// FuzzUnquote: unquote reads a string's body as encoding/json does.
func FuzzUnquote(f *testing.F) {
	f.Add([]byte(`a\"b\ud83d\ude00\u2028`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if bytes.IndexByte(body, '"') >= 0 {
			return // the body ends at the first unescaped quote
		}
		checkUnquote(t, body)
	})
}
