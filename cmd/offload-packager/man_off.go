//go:build !mangen

package main

import "github.com/spf13/cobra"

// buildCommands: none in the installed binary (see man.go, -tags mangen).
func buildCommands() []*cobra.Command { return nil }
