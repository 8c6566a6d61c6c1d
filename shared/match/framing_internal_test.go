package match

import "testing"

func TestDenseText(t *testing.T) {
	tests := []struct{ q, want string }{
		{"Hey, would you help me locate some nice attractions?", "help me some nice attractions"},
		{"Could you please search for cheap flights to Leeds", "for cheap flights to leeds"},
		{"book a table for two", "book a table for two"}, // nothing to drop: the text as it was
		{"can you find it?", "can you find it?"},         // only a stopword left
		{"can you do it?", "can you do it?"},
		{"can you help?", "help"},
		{"have you found one located downtown", "have one downtown"},
		{"which location is this one", "which location is this one"}, // a noun, not the verb "locate"
		{"could you look up my findings", "up my findings"},
		{"I am looking for a lookup of flights", "i am for a of flights"},
		{"Can you?", "Can you?"}, // nothing else left: the text as it was
		{"", ""},
	}
	for _, tt := range tests {
		if got := denseText(tt.q); got != tt.want {
			t.Errorf("denseText(%q) = %q, want %q", tt.q, got, tt.want)
		}
	}
}
