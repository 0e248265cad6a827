package optable

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// maxRspDepth bounds nested response files (LLVM stops at the same kind of
// cycle by tracking the expansion stack).
const maxRspDepth = 64

// ExpandResponseFiles replaces each "@file" argument by the arguments in
// file, tokenized with GNU quoting rules, recursively. As in LLVM, an
// "@file" naming a file that does not exist is kept as a literal argument;
// other read errors, and cycles, are reported.
func ExpandResponseFiles(args []string, readFile func(name string) ([]byte, error)) ([]string, error) {
	return expand(args, readFile, nil)
}

func expand(args []string, readFile func(string) ([]byte, error), stack []string) ([]string, error) {
	out := make([]string, 0, len(args))
	for _, a := range args {
		if len(a) < 2 || a[0] != '@' {
			out = append(out, a)
			continue
		}
		name := a[1:]
		for _, s := range stack {
			if s == name {
				return nil, fmt.Errorf("recursive expansion of: '%s'", name)
			}
		}
		if len(stack) >= maxRspDepth {
			return nil, fmt.Errorf("response file %s: nested too deeply", name)
		}
		data, err := readFile(name)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				out = append(out, a)
				continue
			}
			return nil, fmt.Errorf("cannot read response file %s: %w", name, err)
		}
		sub, err := expand(TokenizeGNU(string(data)), readFile, append(stack, name))
		if err != nil {
			return nil, err
		}
		out = append(out, sub...)
	}
	return out, nil
}

// TokenizeGNU splits s as LLVM's cl::TokenizeGNUCommandLine does: whitespace
// separates arguments; a backslash escapes the next character (outside
// single quotes); single and double quotes group, and may appear inside a
// word. A UTF-8 byte-order mark at the start is ignored.
func TokenizeGNU(s string) []string {
	s = strings.TrimPrefix(s, "\xef\xbb\xbf")
	var out []string
	var cur strings.Builder
	inTok := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			if inTok {
				out = append(out, cur.String())
				cur.Reset()
				inTok = false
			}
		case c == '\\':
			inTok = true
			if i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			}
		case c == '\'' || c == '"':
			inTok = true
			q := c
			for i++; i < len(s) && s[i] != q; i++ {
				if q == '"' && s[i] == '\\' && i+1 < len(s) {
					i++
				}
				cur.WriteByte(s[i])
			}
		default:
			inTok = true
			cur.WriteByte(c)
		}
	}
	if inTok {
		out = append(out, cur.String())
	}
	return out
}
