package main

import (
	"context"
	"errors"
	"io"
	"os"
	"time"

	"github.com/offload-kit/offload-kit/internal/cli"
	"github.com/offload-kit/offload-kit/internal/driver/bundler"
	"github.com/offload-kit/offload-kit/internal/driver/packager"
)

var errMissingOutput = errors.New("-o OUTPUT is required")

// runBundler is the clang-offload-bundler personality: messages are
// prefixed with argv[0] as typed, as the reference does.
func runBundler(argv0 string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	env := &packager.Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Tool: argv0}
	return cli.ExitCode(stderr, argv0, bundlerMain(context.Background(), env, argv0, args))
}

// bundlerMain runs the bundler driver with the process environment (the
// OFFLOAD_BUNDLER_* variables) and clock, which only cmd/ may read.
func bundlerMain(ctx context.Context, env *packager.Env, argv0 string, args []string) error {
	benv := &bundler.Env{
		Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr,
		Tool: argv0, Dir: env.Dir, LookupEnv: os.LookupEnv, Now: time.Now,
	}
	return bundler.Main(ctx, benv, argv0, args)
}
