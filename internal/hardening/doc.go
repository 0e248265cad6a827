// Package hardening holds the cross-package robustness tests of offload-kit:
// every parser and every CLI is run over the hostile corpus in
// testdata/hostile (and over mutants generated at test time), with time,
// memory and file-system guards; plus the >4 GiB, atomic-output and
// determinism checks. The package has no non-test code. See
// docs/hardening.md for the limits that are enforced and how to run the
// heavier tests (OFFLOAD_KIT_BIG=1).
package hardening
