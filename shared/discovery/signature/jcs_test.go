package signature

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// The number vectors of RFC 8785 Appendix B: IEEE 754 bit patterns and the
// ES6 form they must serialise to.
func TestAppendNumberRFC8785(t *testing.T) {
	cases := []struct {
		bits uint64
		want string
	}{
		{0x0000000000000000, "0"},
		{0x8000000000000000, "0"}, // minus zero
		{0x0000000000000001, "5e-324"},
		{0x8000000000000001, "-5e-324"},
		{0x7fefffffffffffff, "1.7976931348623157e+308"},
		{0xffefffffffffffff, "-1.7976931348623157e+308"},
		{0x4340000000000000, "9007199254740992"},
		{0xc340000000000000, "-9007199254740992"},
		{0x4430000000000000, "295147905179352830000"},
		{0x44b52d02c7e14af5, "9.999999999999997e+22"},
		{0x44b52d02c7e14af6, "1e+23"},
		{0x44b52d02c7e14af7, "1.0000000000000001e+23"},
		{0x444b1ae4d6e2ef4e, "999999999999999700000"},
		{0x444b1ae4d6e2ef4f, "999999999999999900000"},
		{0x444b1ae4d6e2ef50, "1e+21"},
		{0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"},
		{0x3eb0c6f7a0b5ed8d, "0.000001"},
		{0x41b3de4355555553, "333333333.3333332"},
		{0x41b3de4355555554, "333333333.33333325"},
		{0x41b3de4355555555, "333333333.3333333"},
		{0x41b3de4355555556, "333333333.3333334"},
		{0x41b3de4355555557, "333333333.33333343"},
		{0xbecbf647612f3696, "-0.0000033333333333333333"},
		{0x43143ff3c1cb0959, "1424953923781206.2"}, // round to even
	}
	for _, c := range cases {
		got, err := AppendNumber(nil, math.Float64frombits(c.bits))
		if err != nil {
			t.Errorf("%016x: %v", c.bits, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("%016x: got %s, want %s", c.bits, got, c.want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := AppendNumber(nil, f); err == nil {
			t.Errorf("%v: no error", f)
		}
	}
}

// More numbers, written from ES6 7.1.12.1's cases, read from JSON text.
func TestCanonicalNumbersFromText(t *testing.T) {
	cases := map[string]string{
		"1":                     "1",
		"-1":                    "-1",
		"1.0":                   "1",
		"4.50":                  "4.5",
		"2e-3":                  "0.002",
		"1E30":                  "1e+30",
		"-0":                    "0",
		"-0.0e5":                "0",
		"0.000001":              "0.000001",
		"0.0000001":             "1e-7",
		"123456789012345678901": "123456789012345680000",
		"1e21":                  "1e+21",
		"1e20":                  "100000000000000000000",
		"0.1":                   "0.1",
		"1.5e-10":               "1.5e-10",
		"12.5e3":                "12500",
		"1e-400":                "0", // underflows to zero, as in ECMAScript
	}
	for in, want := range cases {
		got, err := Canonicalize([]byte(in))
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if string(got) != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
}

// RFC 8785 §3.2.2's example input and its canonical form.
func TestCanonicalizeRFC8785Example(t *testing.T) {
	in := `{
  "numbers": [333333333.33333329, 1E30, 4.50,
              2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`
	want := `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`
	got, err := Canonicalize([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// RFC 8785 §3.2.3: members sort by UTF-16 code units, so U+1F600 (stored
// as the surrogates D83D DE00) sorts before U+FB33, although its code point
// is larger.
func TestCanonicalizeSortsByUTF16(t *testing.T) {
	in := `{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}`
	want := "{" + strings.Join([]string{
		`"\r":"Carriage Return"`,
		`"1":"One"`,
		"\"\u0080\":\"Control\"",
		`"ö":"Latin Small Letter O With Diaeresis"`,
		`"€":"Euro Sign"`,
		`"😀":"Emoji: Grinning Face"`,
		"\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"",
	}, ",") + "}"
	got, err := Canonicalize([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestCanonicalizeStrings(t *testing.T) {
	cases := map[string]string{
		`"a\u0000b"`:           `"a\u0000b"`,
		`"\u001f\u007f"`:       "\"\\u001f\u007f\"", // DEL is not escaped
		`"\b\f\n\r\t"`:         `"\b\f\n\r\t"`,
		`"\u2028\u2029"`:       "\"\u2028\u2029\"",
		`"<&>"`:                `"<&>"`, // no HTML escaping
		`"\/"`:                 `"/"`,
		`"\u00E9"`:             `"é"`,
		`"é"`:                  `"é"`,
		`"\uD83D\uDE00"`:       `"😀"`,
		"\"\xf0\x9f\x98\x80\"": `"😀"`,
	}
	for in, want := range cases {
		got, err := Canonicalize([]byte(in))
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if string(got) != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
}

func TestCanonicalizeIndependentOfOrderAndWhitespace(t *testing.T) {
	a := `{"b": [1, 2, {"y": true, "x": null}], "a": "x", "c": {"e": 1.50, "d": -0}}`
	b := "{\n\t\"c\" : { \"d\" : 0 , \"e\" : 15e-1 } ,\r\n \"a\":\"\\u0078\",\"b\":[1,2.0,{\"x\":null,\"y\":true}]}\n"
	ca, err := Canonicalize([]byte(a))
	if err != nil {
		t.Fatal(err)
	}
	cb, err := Canonicalize([]byte(b))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a":"x","b":[1,2,{"x":null,"y":true}],"c":{"d":0,"e":1.5}}`
	if string(ca) != want || string(cb) != want {
		t.Errorf("got\n%s\n%s\nwant %s", ca, cb, want)
	}
	// Canonicalising the canonical form changes nothing.
	again, err := Canonicalize(ca)
	if err != nil || string(again) != want {
		t.Errorf("not idempotent: %s, %v", again, err)
	}
}

func TestCanonicalizeRejects(t *testing.T) {
	cases := []struct {
		in   string
		want error
	}{
		{``, ErrSyntax},
		{`{`, ErrSyntax},
		{`{"a":1,}`, ErrSyntax},
		{`[1,]`, ErrSyntax},
		{`{"a" 1}`, ErrSyntax},
		{`{"a":1} {}`, ErrSyntax},
		{`01`, ErrSyntax},
		{`1.`, ErrSyntax},
		{`.5`, ErrSyntax},
		{`1e`, ErrSyntax},
		{`+1`, ErrSyntax},
		{`NaN`, ErrSyntax},
		{`tru`, ErrSyntax},
		{`"\x"`, ErrSyntax},
		{`"\u12"`, ErrSyntax},
		{"\"a\nb\"", ErrSyntax},
		{`"abc`, ErrSyntax},
		{`{'a':1}`, ErrSyntax},
		{`{"a":1,"a":2}`, ErrNotIJSON},
		{`{"a":{"b":1,"b":1}}`, ErrNotIJSON},
		{`"\ud800"`, ErrNotIJSON},
		{`"\udc00\ud800"`, ErrNotIJSON},
		{`"\ud800\u0041"`, ErrNotIJSON},
		{"\"\xff\"", ErrNotIJSON},
		{`1e400`, ErrNotIJSON},
		{`-1e400`, ErrNotIJSON},
		{strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), ErrLimit},
		{`"` + strings.Repeat("a", MaxBytes) + `"`, ErrLimit},
	}
	for _, c := range cases {
		_, err := Canonicalize([]byte(c.in))
		if !errors.Is(err, c.want) {
			name := c.in
			if len(name) > 40 {
				name = name[:40] + "..."
			}
			t.Errorf("%q: got %v, want %v", name, err, c.want)
		}
	}
	// At the depth limit itself it is accepted.
	ok := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if _, err := Canonicalize([]byte(ok)); err != nil {
		t.Errorf("depth %d: %v", MaxDepth, err)
	}
}

func TestPayloadRemovesTopLevelSignaturesOnly(t *testing.T) {
	in := `{"name":"A","signatures":[{"protected":"x","signature":"y"}],"skills":[{"id":"s","signatures":1}]}`
	got, err := Payload([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"A","skills":[{"id":"s","signatures":1}]}`
	if string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if _, err := Payload([]byte(`[1]`)); !errors.Is(err, ErrSyntax) {
		t.Errorf("array: got %v", err)
	}
}
