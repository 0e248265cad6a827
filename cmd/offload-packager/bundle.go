package main

import (
	"errors"
	"io"

	"github.com/offload-kit/offload-kit/internal/cli"
	"github.com/offload-kit/offload-kit/internal/driver/packager"
)

var errMissingOutput = errors.New("-o OUTPUT is required")

func runBundler(argv0 string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	env := &packager.Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Tool: argv0}
	return cli.ExitCode(stderr, cli.Stem(argv0), bundlerMain(env, argv0, args))
}

// bundlerMain is wired to internal/driver/bundler once that lands.
func bundlerMain(env *packager.Env, argv0 string, args []string) error {
	return errors.New("bundle: not available in this build")
}
