package sycldev

import (
	"testing"

	"github.com/offload-kit/offload-kit/split"
)

// TestParseArgsValues: enum- and integer-valued options, and the exact
// diagnostics for values they do not accept.
func TestParseArgsValues(t *testing.T) {
	o, err := ParseArgs([]string{"--spec-const=emulation", "--properties-format=json", "-j", "3", "--module-split-mode=kernel"})
	if err != nil || o.SpecConst != split.SpecEmulation || !o.PropJSON || o.Jobs != 3 || o.SplitMode != split.ModeKernel {
		t.Fatalf("got %+v, %v", o, err)
	}
	o, err = ParseArgs([]string{"--properties-format=json", "--properties-format=text", "--spec-const=native", "--spec-const=default"})
	if err != nil || o.PropJSON || o.SpecConst != split.SpecDefault {
		t.Fatalf("last value wins: %+v, %v", o, err)
	}
	for in, want := range map[string]string{
		"--spec-const=bad":         "invalid value 'bad' for --spec-const (native, emulation or default)",
		"--properties-format=yaml": "invalid value 'yaml' for --properties-format (text or json)",
		"--module-split-mode=all":  "invalid value 'all' for --module-split-mode (none, kernel, source, auto, translation_unit or link_unit)",
		"-j0":                      "invalid value '0' for -j (a positive integer)",
		"--jobs=x":                 "invalid value 'x' for -j (a positive integer)",
	} {
		_, err := ParseArgs([]string{in})
		if _, ok := err.(*UsageError); !ok || err.Error() != want {
			t.Errorf("%s: got %v, want usage error %q", in, err, want)
		}
	}
}
