//go:build mangen

package main

import (
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/offload-kit/offload-kit/internal/cli"
	"github.com/offload-kit/offload-kit/internal/driver/packager"
)

// buildCommands adds, to a binary built with -tags mangen, the hidden
// command `offload-packager __man DIR`. It writes the man pages of
// offload-packager and its subcommands (offload-packager.1,
// offload-packager-dump.1, ...) with cobra's generator, so they always
// match the flags, citing the documentation in DOCDIR;
// packaging/gen-share.sh runs it for make install. The
// LLVM personalities have hand-written pages in packaging/man/.
// SOURCE_DATE_EPOCH, when set, dates the pages (reproducible packages).
// Installed binaries are built without the tag: no hidden command, and no
// markdown and roff code.
func buildCommands() []*cobra.Command { return []*cobra.Command{newManCmd()} }

func newManCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "__man DIR [SOURCE [DOCDIR]]",
		Short:  "Write the man pages into DIR (SOURCE: the footer, default offload-kit; DOCDIR: where the documentation the pages cite is installed)",
		Hidden: true,
		Args:   cobra.RangeArgs(1, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := os.MkdirAll(args[0], 0o755); err != nil {
				return err
			}
			source := "offload-kit"
			if len(args) >= 2 {
				source = args[1]
			}
			root := cmd.Root()
			if len(args) == 3 {
				// The help texts name the directory when they are built.
				cli.SetDocDir(args[2])
				root = newRootCmd(&packager.Env{}, nil)
			}
			root.DisableAutoGenTag = true
			escapeMarkdown(root)
			return doc.GenManTree(root, &doc.GenManHeader{
				Section: "1",
				Source:  source,
				Manual:  "offload-kit manual",
			}, args[0])
		},
	}
}

// escapeMarkdown protects the help texts from cobra's markdown step, which
// would take "<file>.<n>" for HTML tags and drop it.
func escapeMarkdown(c *cobra.Command) {
	c.Long = strings.ReplaceAll(c.Long, "<", `\<`)
	for _, sub := range c.Commands() {
		escapeMarkdown(sub)
	}
}
