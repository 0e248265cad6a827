package linkwrap

// Reading the text files a host link may be given: linker scripts (an
// input that is not an object, an archive or a shared library is one, as
// libc.so is), version scripts and dynamic lists. Only what can make the
// link keep an archive member is extracted; the rest is skipped. A script
// that can add inputs in ways this reader does not follow (SECTIONS input
// descriptions, INCLUDE) is reported as not followed, and the caller then
// takes every archive member.

import (
	"fmt"
	"path"
	"strings"
)

// maxHostScriptSize bounds the linker scripts and symbol files read.
const maxHostScriptSize = 4 << 20

// scriptInput is a file named by INPUT, GROUP, AS_NEEDED or STARTUP.
type scriptInput struct {
	name string
	lib  bool // "-l<name>"
}

// ldScriptInfo is what a linker script means for archive extraction.
type ldScriptInfo struct {
	inputs     []scriptInput
	searchDirs []string
	refs       []string // symbol names the script may reference
	unsure     string   // why the script cannot be followed; "" when it can
}

type scriptTok struct {
	text  string
	punct byte // one of (){};, for punctuation; 0 for words
}

// tokenizeScript splits linker-script text into words (quoted strings keep
// their quotes) and the punctuation ( ) { } ; , after removing /* */
// comments. It fails on an unterminated comment or string.
func tokenizeScript(s string) ([]scriptTok, error) {
	var toks []scriptTok
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("unterminated comment")
			}
			i += end + 4
		case c == '"':
			end := strings.IndexByte(s[i+1:], '"')
			if end < 0 {
				return nil, fmt.Errorf("unterminated string")
			}
			toks = append(toks, scriptTok{text: s[i : i+end+2]})
			i += end + 2
		case strings.IndexByte("(){};,", c) >= 0:
			toks = append(toks, scriptTok{text: s[i : i+1], punct: c})
			i++
		default:
			j := i
			for j < len(s) && strings.IndexByte(" \t\n\r\f\v(){};,\"", s[j]) < 0 && !strings.HasPrefix(s[j:], "/*") {
				j++
			}
			toks = append(toks, scriptTok{text: s[i:j]})
			i = j
		}
	}
	return toks, nil
}

// symbolNames returns the identifiers in an expression or word: runs of
// letters, digits, '_', '.' and '$' that do not start with a digit.
func symbolNames(s string) []string {
	var out []string
	isID := func(c byte) bool {
		return c == '_' || c == '.' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	for i := 0; i < len(s); {
		if !isID(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isID(s[j]) {
			j++
		}
		if s[i] < '0' || s[i] > '9' {
			out = append(out, s[i:j])
		}
		i = j
	}
	return out
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

// parseLinkerScript reads a GNU ld linker script.
func parseLinkerScript(text string) ldScriptInfo {
	var info ldScriptInfo
	toks, err := tokenizeScript(text)
	if err != nil {
		info.unsure = err.Error()
		return info
	}
	// group returns the index after the parenthesised group starting at i
	// (which must be '('), calling word for each word inside.
	group := func(i int, word func(string)) int {
		if i >= len(toks) || toks[i].punct != '(' {
			return i
		}
		depth := 0
		for ; i < len(toks); i++ {
			switch toks[i].punct {
			case '(':
				depth++
			case ')':
				depth--
				if depth == 0 {
					return i + 1
				}
			case 0:
				word(toks[i].text)
			}
		}
		return i
	}
	for i := 0; i < len(toks); {
		t := toks[i]
		if t.punct != 0 {
			i++
			continue
		}
		switch t.text {
		case "INPUT", "GROUP", "STARTUP":
			i = group(i+1, func(w string) {
				if w == "AS_NEEDED" {
					return
				}
				w = unquote(w)
				if w == "" {
					// "" names no file the linker could open: not sure
					// what it links, so take everything.
					info.unsure = "an empty input file name"
					return
				}
				if lib, ok := strings.CutPrefix(w, "-l"); ok {
					info.inputs = append(info.inputs, scriptInput{lib, true})
				} else {
					info.inputs = append(info.inputs, scriptInput{w, false})
				}
			})
		case "SEARCH_DIR":
			i = group(i+1, func(w string) { info.searchDirs = append(info.searchDirs, unquote(w)) })
		case "OUTPUT_FORMAT", "OUTPUT_ARCH", "TARGET", "OUTPUT":
			i = group(i+1, func(string) {})
		case "INCLUDE":
			info.unsure = "INCLUDE is not followed"
			return info
		case "SECTIONS":
			info.unsure = "SECTIONS may name input files"
			return info
		default:
			// ENTRY(sym), EXTERN(sym ...), assignments, PROVIDE, ASSERT,
			// MEMORY, VERSION...: every name in the statement may be a
			// symbol the link has to resolve.
			depth := 0
		stmt:
			for ; i < len(toks); i++ {
				tk := toks[i]
				if tk.punct == 0 {
					info.refs = append(info.refs, symbolNames(unquote(tk.text))...)
					continue
				}
				switch tk.punct {
				case '(', '{':
					depth++
				case ')', '}':
					depth--
				}
				if depth <= 0 && (tk.punct == ';' || tk.punct == ')' || tk.punct == '}') {
					i++
					break stmt
				}
			}
		}
	}
	return info
}

// parseSymbolFile reads a version script or dynamic list and returns the
// symbol names and patterns outside "local:" scopes.
func parseSymbolFile(text string) ([]string, error) {
	toks, err := tokenizeScript(text)
	if err != nil {
		return nil, err
	}
	var out []string
	local := false
	for _, t := range toks {
		if t.punct == '{' || t.punct == '}' {
			local = false
			continue
		}
		if t.punct != 0 {
			continue
		}
		w := t.text
		// "global:" and "local:" may be glued to the next name.
		for {
			if rest, ok := strings.CutPrefix(w, "global:"); ok {
				local, w = false, rest
			} else if rest, ok := strings.CutPrefix(w, "local:"); ok {
				local, w = true, rest
			} else {
				break
			}
		}
		switch w {
		case "global":
			local = false
			continue
		case "local":
			local = true
			continue
		}
		if w == "" || local || w == "extern" || w == ":" || strings.HasPrefix(w, "\"") {
			continue
		}
		out = append(out, w)
	}
	return out, nil
}

// matchSymbol reports whether name matches a version-script style glob
// (*, ? and [...]); a malformed pattern matches only itself.
func matchSymbol(pattern, name string) bool {
	if !strings.ContainsAny(pattern, "*?[") {
		return pattern == name
	}
	ok, err := path.Match(pattern, name)
	if err != nil {
		return pattern == name
	}
	return ok
}
