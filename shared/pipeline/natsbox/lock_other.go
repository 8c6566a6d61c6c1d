//go:build !unix

package natsbox

// lockDataDir does not lock where flock is missing: one server per data
// folder is then the operator's to keep.
func lockDataDir(string) (func(), error) { return func() {}, nil }
