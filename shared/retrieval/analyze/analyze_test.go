package analyze

import (
	"reflect"
	"testing"
)

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Hello, World!", []string{"hello", "world"}},
		{"what's my PO-7781 balance?", []string{"what", "my", "po", "7781", "balance"}},
		{"  ", nil},
		{"Ünïcode naïve café", []string{"ünïcode", "naïve", "café"}},
		{"don't stop", []string{"don", "stop"}},
	}
	for _, tt := range tests {
		if got := Words(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Words(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTerms(t *testing.T) {
	got := Terms("Please transfer the funds between my accounts")
	want := []string{"transfer", "fund", "account"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Terms = %q, want %q", got, want)
	}
}

func TestStemShortWords(t *testing.T) {
	if Stem("is") != "is" || Stem("running") != "run" {
		t.Errorf("Stem: is→%q running→%q", Stem("is"), Stem("running"))
	}
}
