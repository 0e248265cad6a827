// Package version is the one owner of offload-kit's version: every tool,
// personality and subcommand prints its --version line with Line.
//
// The release is injected at build time (make build):
//
//	go build -ldflags "-X github.com/offload-kit/offload-kit/internal/version.release=$(git describe --tags --always --dirty)"
//
// Without it, the module's build information is used (the module version
// for "go install ...@vX", else the VCS revision Go stamped, with -dirty
// for modified trees), then "devel".
package version

import (
	"runtime/debug"
	"sync"
)

// LLVM is the LLVM release whose tools offload-kit replaces.
const LLVM = "22.1.8"

// release is set with -ldflags -X; empty when not injected.
var release string

var fromBuildInfo = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	return fromInfo(bi)
})

// fromInfo picks a version from build information: a real module version,
// else the VCS revision (12 digits, "-dirty" when modified), else "".
func fromInfo(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return ""
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}

// Kit returns offload-kit's version: the injected release, else one
// derived from the build information, else "devel".
func Kit() string {
	if release != "" {
		return release
	}
	if v := fromBuildInfo(); v != "" {
		return v
	}
	return "devel"
}

// Line is the --version line (without a newline) of the tool named prog,
// shaped like LLVM's "<vendor> <tool> version <v>":
//
//	offload-kit clang-offload-bundler version v0.3.0-12-gabc1234 (compatible with LLVM 22.1.8)
func Line(prog string) string {
	return "offload-kit " + prog + " version " + Kit() + " (compatible with LLVM " + LLVM + ")"
}
