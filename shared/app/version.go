package app

import (
	"runtime"
	"runtime/debug"
)

// Version is this binary's version from its build info: the module
// version when it was built from a tagged module (go install ...@v1.2.3),
// else the VCS revision with "-dirty" for uncommitted changes, else
// "devel".
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return versionOf(bi)
}

func versionOf(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}

// VersionLine is what `--version` prints: the name, the version and the
// Go toolchain that built the binary.
func VersionLine(name string) string {
	return name + " " + Version() + " " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
}
