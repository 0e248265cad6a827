package hostlink

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// MaxScriptDepth bounds linker scripts naming linker scripts.
const MaxScriptDepth = 8

// SymRef is a symbol name (or pattern) with the reason it is referenced.
type SymRef struct{ Name, Why string }

// Model is what a walk learns besides the inputs: the symbols the link is
// told to resolve, --wrap, and the reasons the link line cannot be
// followed.
type Model struct {
	Refs   []SymRef // -u, --undefined, -e, --defsym, linker-script names ...
	Globs  []SymRef // --undefined-glob, --export-dynamic-symbol, version-script names
	Wraps  map[string]bool
	Unsure []string // why a caller may miss a file read or a member kept
}

// Input is one input file of the walk, with the state it is read in.
type Input struct {
	Path  string
	Whole bool // inside --whole-archive: every archive member is kept
	Lazy  bool // inside --start-lib: objects are lazy, like archive members
	Depth int  // linker scripts above it
}

// Walker visits a host link's inputs in order: files, -l libraries (found
// as Search.Library finds them, honouring -Bstatic), the files of linker
// scripts given as inputs or with -T (INPUT, GROUP, AS_NEEDED; SEARCH_DIR
// extends the search), and records in Model what else the link line asks.
type Walker struct {
	Search Search
	Model  Model
	// Visit reads one input. When the host linker would read the file as
	// a linker script (it is not an object, an archive or a shared
	// library), it returns the file's text and script set; the walk then
	// follows it. A Visit that cannot read the file leaves it to the host
	// linker (returns nothing) or fails the walk.
	Visit func(in Input) (text string, script bool, err error)

	state walkState
	stack []walkState
}

// walkState is what --push-state saves.
type walkState struct {
	whole, static, startLib bool
}

// Walk follows args (as Classify and ParseArgv give them) in order.
func (w *Walker) Walk(args []Arg) error {
	if w.Model.Wraps == nil {
		w.Model.Wraps = map[string]bool{}
	}
	m := &w.Model
	for _, a := range args {
		var err error
		switch a.Kind {
		case File:
			err = w.visit(a.Value, 0)
		case Lib:
			err = w.visitLib(a.Value, 0)
		case LibPath:
			// A wrapper gives its -L directories in Search up front (as
			// the linkers search them: every -L, wherever it is).
		case Sysroot:
			w.Search.Sysroot = a.Value
		case WholeArchive:
			w.state.whole = true
		case NoWholeArchive:
			w.state.whole = false
		case Static:
			w.state.static = true
		case Dynamic:
			w.state.static = false
		case StartLib:
			w.state.startLib = true
		case EndLib:
			w.state.startLib = false
		case PushState:
			w.stack = append(w.stack, w.state)
		case PopState:
			if n := len(w.stack); n > 0 {
				w.state, w.stack = w.stack[n-1], w.stack[:n-1]
			}
		case Ref:
			m.Refs = append(m.Refs, SymRef{a.Value, a.Text})
		case RefGlob:
			m.Globs = append(m.Globs, SymRef{a.Value, a.Text})
		case Expr:
			_, expr, _ := strings.Cut(a.Value, "=")
			for _, n := range SymbolNames(expr) {
				m.Refs = append(m.Refs, SymRef{n, a.Text})
			}
		case Wrap:
			m.Wraps[a.Value] = true
		case Script:
			err = w.script(a.Value, a.Text)
		case SymFile:
			w.symbolFile(a.Value, a.Text)
		case Unsure:
			m.Unsure = append(m.Unsure, "the host linker option '"+a.Text+"' is not understood")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// AddUnsure records why the walk may miss a file read or a member kept.
func (w *Walker) AddUnsure(format string, args ...any) {
	w.Model.Unsure = append(w.Model.Unsure, fmt.Sprintf(format, args...))
}

func (w *Walker) visitLib(name string, depth int) error {
	p, ok := w.Search.Library(name, w.state.static)
	if !ok {
		return fmt.Errorf("unable to find library -l%s", name)
	}
	return w.visit(p, depth)
}

func (w *Walker) visit(name string, depth int) error {
	text, script, err := w.Visit(Input{Path: name, Whole: w.state.whole, Lazy: w.state.startLib, Depth: depth})
	if err != nil || !script {
		return err
	}
	return w.followScript(name, text, depth)
}

// script follows a -T linker script.
func (w *Walker) script(name, text string) error {
	data, err := w.Search.ReadText(name)
	if err != nil {
		w.AddUnsure("linker script %s (%s) cannot be read: %v", name, text, err)
		return nil
	}
	return w.followScript(name, data, 0)
}

// symbolFile reads a version script or dynamic list: the names it exports
// are treated as referenced (GNU ld 2.40 and ld.lld 22 keep no member for
// them; other linkers might).
func (w *Walker) symbolFile(name, text string) {
	data, err := w.Search.ReadText(name)
	var names []string
	if err == nil {
		names, err = ParseSymbolFile(data)
	}
	if err != nil {
		w.AddUnsure("%s (%s) cannot be read: %v", name, text, err)
		return
	}
	for _, n := range names {
		w.Model.Globs = append(w.Model.Globs, SymRef{n, text})
	}
}

// followScript applies a linker script: its names are references, its
// SEARCH_DIRs extend the library search, its INPUT/GROUP files are read
// in place.
func (w *Walker) followScript(name, text string, depth int) error {
	info := ParseScript(text)
	m := &w.Model
	if info.Unsure != "" {
		w.AddUnsure("linker script %s: %s", name, info.Unsure)
	}
	for _, n := range info.Refs {
		m.Refs = append(m.Refs, SymRef{n, "named in linker script " + name})
	}
	w.Search.Dirs = append(w.Search.Dirs, info.SearchDirs...)
	if depth >= MaxScriptDepth {
		if len(info.Inputs) > 0 {
			w.AddUnsure("linker script %s: scripts nested more than %d deep", name, MaxScriptDepth)
		}
		return nil
	}
	sysroot := w.Search.Sysroot
	for _, in := range info.Inputs {
		var err error
		if in.Lib {
			err = w.visitLib(in.Name, depth+1)
		} else {
			p := in.Name
			if sysroot != "" && filepath.IsAbs(p) {
				if _, e := os.Stat(sysroot + p); e == nil {
					p = sysroot + p
				}
			}
			if _, e := os.Stat(p); e != nil && !filepath.IsAbs(p) {
				if q, ok := w.Search.Find(in.Name); ok {
					p = q
				}
			}
			err = w.visit(p, depth+1)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}
