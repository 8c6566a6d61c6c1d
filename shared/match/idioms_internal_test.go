package match

import "testing"

// TestWithIdioms: a request that asks for its money back searches for a
// refund too; one that only mentions money, or something back, does not.
func TestWithIdioms(t *testing.T) {
	for _, tt := range []struct{ q, want string }{
		{"can I get my money back?", "can I get my money back? refund"},
		{"so when do I get the Money straight back", "so when do I get the Money straight back refund"},
		{"how much money is left on the card", "how much money is left on the card"},
		{"please send the form back with the money", "please send the form back with the money"},
		{"moneyback", "moneyback"},
	} {
		if got := withIdioms(tt.q); got != tt.want {
			t.Errorf("withIdioms(%q) = %q, want %q", tt.q, got, tt.want)
		}
	}
}
