package examples

import (
	"fmt"
	"strings"
	"testing"
)

func TestClean(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"  book a\thotel\n in Lisbon ", "book a hotel in Lisbon"},
		{"a\x00b\u200bc", "abc"},
		{"\n\t ", ""},
	} {
		if got := Clean(tc.in); got != tc.want {
			t.Errorf("Clean(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	long := strings.Repeat("word ", 400)
	if got := Clean(long); len([]rune(got)) > MaxText || strings.HasSuffix(got, " ") || !strings.HasSuffix(got, "word") {
		t.Errorf("a long text is cut to %d characters ending %q", len([]rune(got)), got[len(got)-8:])
	}
}

func TestAddDeduplicatesAndCaps(t *testing.T) {
	var list []string
	list, ok := Add(list, "Book a hotel", 3)
	if !ok || len(list) != 1 {
		t.Fatalf("first add: %v %v", list, ok)
	}
	if _, ok := Add(list, "  book A   HOTEL ", 3); ok {
		t.Error("the same text in other case and spacing was added again")
	}
	if _, ok := Add(list, " \x01 ", 3); ok {
		t.Error("an empty text was added")
	}
	for i := range 4 {
		list, _ = Add(list, fmt.Sprintf("task %d", i), 3)
	}
	if want := []string{"task 1", "task 2", "task 3"}; fmt.Sprint(list) != fmt.Sprint(want) {
		t.Errorf("capped list = %q, want the newest three %q", list, want)
	}
	before := append([]string(nil), list...)
	if _, ok := Add(list, "task 4", 3); !ok || fmt.Sprint(list) != fmt.Sprint(before) {
		t.Errorf("Add modified its input: %q", list)
	}
}

func TestRemove(t *testing.T) {
	list := []string{"a b", "c"}
	got, ok := Remove(list, "A  B")
	if !ok || fmt.Sprint(got) != "[c]" {
		t.Errorf("Remove = %q %v", got, ok)
	}
	if _, ok := Remove(got, "zzz"); ok {
		t.Error("removing an absent text reported a change")
	}
}
