package hostlink

// Reading the text files a host link may be given: linker scripts (an
// input that is not an object, an archive or a shared library is one, as
// libc.so is), version scripts and dynamic lists. ParseScript extracts
// what decides which files the link reads and which archive members it
// may keep; a script that can add inputs in ways it does not follow
// (SECTIONS input descriptions, INCLUDE) is reported as not followed.
// ScriptNames is the same reader for a caller that must not miss a file
// (the device-link cache key): every word may name one.

import (
	"fmt"
	"path"
	"strings"
)

// MaxScriptSize bounds the linker scripts and symbol files read.
const MaxScriptSize = 4 << 20

// ScriptInput is a file named by INPUT, GROUP, AS_NEEDED or STARTUP.
type ScriptInput struct {
	Name string
	Lib  bool // "-l<name>"
}

// ScriptInfo is what a linker script means for the link: the files it
// adds, the directories it searches, the symbols it names.
type ScriptInfo struct {
	Inputs     []ScriptInput
	SearchDirs []string
	Refs       []string // symbol names the script may reference
	Unsure     string   // why the script cannot be followed; "" when it can
}

type scriptTok struct {
	text  string
	punct byte // one of (){};, for punctuation; 0 for words
}

// tokenizeScript splits linker-script text into words (quoted strings keep
// their quotes) and the punctuation ( ) { } ; , after removing /* */
// comments. It fails on an unterminated comment or string, returning
// the words before it (and an unterminated string as one word).
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
				return toks, fmt.Errorf("unterminated comment")
			}
			i += end + 4
		case c == '"':
			end := strings.IndexByte(s[i+1:], '"')
			if end < 0 {
				return append(toks, scriptTok{text: s[i:]}), fmt.Errorf("unterminated string")
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

// SymbolNames returns the identifiers in an expression or word: runs of
// letters, digits, '_', '.' and '$' that do not start with a digit.
func SymbolNames(s string) []string {
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

// ParseScript reads a GNU ld linker script.
func ParseScript(text string) ScriptInfo {
	var info ScriptInfo
	toks, err := tokenizeScript(text)
	if err != nil {
		info.Unsure = err.Error()
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
					info.Unsure = "an empty input file name"
					return
				}
				if lib, ok := strings.CutPrefix(w, "-l"); ok {
					info.Inputs = append(info.Inputs, ScriptInput{lib, true})
				} else {
					info.Inputs = append(info.Inputs, ScriptInput{w, false})
				}
			})
		case "SEARCH_DIR":
			i = group(i+1, func(w string) { info.SearchDirs = append(info.SearchDirs, unquote(w)) })
		case "OUTPUT_FORMAT", "OUTPUT_ARCH", "TARGET", "OUTPUT":
			i = group(i+1, func(string) {})
		case "INCLUDE":
			info.Unsure = "INCLUDE is not followed"
			return info
		case "SECTIONS":
			info.Unsure = "SECTIONS may name input files"
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
					info.Refs = append(info.Refs, SymbolNames(unquote(tk.text))...)
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

// ParseSymbolFile reads a version script or dynamic list and returns the
// symbol names and patterns outside "local:" scopes.
func ParseSymbolFile(text string) ([]string, error) {
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

// MatchSymbol reports whether name matches a version-script style glob
// (*, ? and [...]); a malformed pattern matches only itself.
func MatchSymbol(pattern, name string) bool {
	if !strings.ContainsAny(pattern, "*?[") {
		return pattern == name
	}
	ok, err := path.Match(pattern, name)
	if err != nil {
		return pattern == name
	}
	return ok
}

// NameKind is what a word of ScriptNames names.
type NameKind int

const (
	NameFile NameKind = iota // a file, as given or searched for in the search directories
	NameLib                  // "-l<name>": a library searched for as -l is
	NameDir                  // SEARCH_DIR(<dir>): a search directory
)

// Name is one word of a text file the linker reads that may name a file.
type Name struct {
	Kind  NameKind
	Value string
}

// ScriptNames reads a text file the linker reads (a linker script, a
// response file) for a caller that must not miss a file it names: every
// word, in order, unquoted, outside comments, is a possible file name,
// except the directory after SEARCH_DIR and "-l<name>" libraries. It reads
// what it can of a malformed file.
func ScriptNames(text string) []Name {
	toks, _ := tokenizeScript(text)
	var out []Name
	for i := 0; i < len(toks); i++ {
		if toks[i].punct != 0 {
			continue
		}
		w := unquote(toks[i].text)
		switch {
		case w == "SEARCH_DIR":
			for j := i + 1; j < len(toks); j++ {
				if toks[j].punct == 0 {
					out = append(out, Name{NameDir, unquote(toks[j].text)})
					i = j
					break
				}
			}
		case strings.HasPrefix(w, "-l") && len(w) > 2:
			out = append(out, Name{NameLib, w[2:]})
		case w != "":
			out = append(out, Name{NameFile, w})
		}
	}
	return out
}
