// Package sycllink is the sycl-linker driver: the command-line layer over
// internal/sycldev, which holds the device-link pipeline (link, split,
// post-link, SPIR-V code generation, OffloadBinaries) that linker-wrapper
// also runs in-process. This package maps clang-sycl-linker's command line
// to sycldev.Options and prints --help.
//
// Reference: docs/formats/sycl.md §10 (clang-sycl-linker 22.1.8) and
// §2 (intel sycl-post-link); docs/sycl-linker.md.
package sycllink

import (
	"context"
	"io"

	"github.com/offload-kit/offload-kit/internal/sycldev"
)

// The pipeline's types, under the names this driver has always used.
type (
	// Options are sycl-linker's parsed options.
	Options = sycldev.Options
	// Env is what the driver may touch outside its options.
	Env = sycldev.Env
	// Error is a failure tied to a file (an input, a tool, an output).
	Error = sycldev.Error
	// UsageError is a command-line error.
	UsageError = sycldev.UsageError
	// SpecConstMode selects specialization-constant lowering.
	SpecConstMode = sycldev.SpecConstMode
)

// Extension marks options that offload-kit adds to clang-sycl-linker 22.1.8.
const Extension = sycldev.Extension

const (
	SpecConstNone      = sycldev.SpecConstNone
	SpecConstNative    = sycldev.SpecConstNative
	SpecConstEmulation = sycldev.SpecConstEmulation
	SpecConstDefault   = sycldev.SpecConstDefault
)

// ImageKind of the images written (see sycldev).
const (
	SPIRVImageKind = sycldev.SPIRVImageKind
	AOTImageKind   = sycldev.AOTImageKind
)

// ParseArgs parses a clang-sycl-linker command line (response files
// already expanded).
func ParseArgs(args []string) (*Options, error) { return sycldev.ParseArgs(args) }

// Run performs the device link described by o and writes its outputs.
func Run(ctx context.Context, env *Env, o *Options) error { return sycldev.Run(ctx, env, o) }

// WriteHelp prints the option list in LLVM's --help layout.
func WriteHelp(w io.Writer, tool string, all bool) { sycldev.WriteHelp(w, tool, all) }
