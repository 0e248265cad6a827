// Package format is the shared vocabulary of offload-kit: image and offload
// kinds, magic-byte identification, and the error type every container
// codec returns. It imports nothing but the standard library and
// internal/binio, so every codec package can depend on it.
//
// Specs: ../shared/spec/offload-binary.md §2 (enumerations), bundle.md,
// hcf.md.
package format
