// Package version is perfls's one version string, read from the build
// information Go stamps into the binary: the module version (a release tag,
// or "(devel)" for a build from a checkout) and, when the build recorded it,
// the VCS revision, its time and whether the tree had uncommitted changes.
//
// A release build (scripts/release.sh) compiles an exported tree that has
// no VCS information and sets the version and the commit with
//
//	-ldflags "-X github.com/perfls/perfls/internal/version.release=v0.2.0
//	          -X github.com/perfls/perfls/internal/version.commit=<full hash>"
//
// so that the binary depends only on the commit, not on the checkout.
package version

import (
	"runtime/debug"
	"strings"
)

// release and commit are set by the linker (-X) in release builds; they
// win over the build information.
var release, commit string

// Info is what the binary knows about its own build.
type Info struct {
	Module   string // module version: "v0.2.0", or "(devel)"
	Revision string // VCS commit, "" when not recorded (go build -buildvcs=false, go run of a file list)
	Time     string // commit time, RFC 3339
	Modified bool   // built from a tree with uncommitted changes
	Go       string // toolchain, e.g. "go1.25.1"
}

// Read returns the binary's build information.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Module: "(unknown)"}.stamped(release, commit)
	}
	in := Info{Module: bi.Main.Version, Go: bi.GoVersion}
	if in.Module == "" {
		in.Module = "(devel)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Revision = s.Value
		case "vcs.time":
			in.Time = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	return in.stamped(release, commit)
}

// stamped is in with the version and commit a release build set (either
// may be empty: left as read).
func (in Info) stamped(rel, rev string) Info {
	if rel != "" {
		in.Module = rel
	}
	if rev != "" {
		in.Revision, in.Modified = rev, false
	}
	return in
}

// String is the version as perfls shows it: "(devel) 1a2b3c4d5e6f+dirty".
func (in Info) String() string {
	parts := []string{in.Module}
	if in.Revision != "" {
		rev := in.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if in.Modified {
			rev += "+dirty"
		}
		parts = append(parts, rev)
	} else {
		parts = append(parts, "unknown commit")
	}
	return strings.Join(parts, " ")
}

// String is Read().String().
func String() string { return Read().String() }
