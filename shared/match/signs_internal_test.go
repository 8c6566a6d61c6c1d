package match

import (
	"slices"
	"testing"
)

// An agent's sign keeps each name for at most two of its skills, in doc
// order: one that is not the pair's own is all oneKind needs, and a
// flood of one name costs nothing more.
func TestAgentSignKeepsTwoPerName(t *testing.T) {
	names := []skillName{{"=b", 0}, {"=a", 1}, {"=b", 2}, {"=b", 3}, {"=a", 4}, {"=c", 5}, {"=b", 6}}
	got := keepTwoPerName(names)
	want := []skillName{{"=a", 1}, {"=a", 4}, {"=b", 0}, {"=b", 2}, {"=c", 5}}
	if !slices.Equal(got, want) {
		t.Errorf("kept %v, want %v", got, want)
	}
}
