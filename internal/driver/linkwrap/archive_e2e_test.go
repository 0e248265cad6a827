package linkwrap

// End-to-end tests of lazy archive extraction: for every way a host link
// keeps an archive member, an OpenMP program is linked through clang-22
// -B<wrapper> with GNU ld and with ld.lld, run, and its target regions
// must run on the offload device. Differential check: the members whose
// device code the wrapper took (--wrapper-verbose notes) must include every
// member the host linker kept (its -Map file, and ld.lld's --why-extract).

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// arObj is one object built from testdata/omp/ar_kernel.c (or ar_table.c
// when name is "table").
type arObj struct {
	name  string // KNAME; the object is <name>.o
	calls string // -DCALLS=
	entry bool   // -DENTRY
	table bool   // -DTABLE
}

// arCase is one way of keeping archive members.
type arCase struct {
	name string
	// Archives to build: "dir/libx.a" -> objects; "dir/libx.so" -> host-only
	// shared library from the named C source text.
	archives map[string][]arObj
	shared   map[string]string
	objects  []arObj // plain objects built next to main.o (for --start-lib)
	texts    map[string]string
	// main's source: weak and strong references to <k>_run.
	weak, strong []string
	sharedCalls  string // main calls this function of a shared library
	link         []string
	lto          bool
	gnu, lld     bool     // which host linkers can link the case
	want         string   // the program's output
	kept         []string // members the host keeps and the wrapper must take ("libA.a(k1.o)")
	alsoTaken    []string // members the host does not keep but the wrapper takes (it cannot be sure)
	notTaken     []string // members that must not be taken (precision)
	noteContains string   // a --wrapper-verbose note must contain this
}

var (
	k1  = arObj{name: "k1"}
	k2  = arObj{name: "k2"}
	tab = arObj{name: "table"}
)

var archiveCases = []arCase{
	{name: "strong-reference", archives: map[string][]arObj{"libA.a": {k1, k2}}, strong: []string{"k1"},
		link: []string{"libA.a"}, gnu: true, lld: true, want: "k1 on_device=1\n", kept: []string{"libA.a(k1.o)"}, notTaken: []string{"libA.a(k2.o)"}},
	{name: "weak-reference-alone", archives: map[string][]arObj{"libA.a": {k1}}, weak: []string{"k1"},
		link: []string{"libA.a"}, gnu: true, lld: true, want: "no k1\n", notTaken: []string{"libA.a(k1.o)"}},
	{name: "weak-reference-and-u", archives: map[string][]arObj{"libA.a": {k1, k2}}, weak: []string{"k1"},
		link: []string{"libA.a", "-Wl,-u,k1_run"}, gnu: true, lld: true, want: "k1 on_device=1\n", kept: []string{"libA.a(k1.o)"}, notTaken: []string{"libA.a(k2.o)"}},
	{name: "u-joined", archives: map[string][]arObj{"libA.a": {k1}}, weak: []string{"k1"},
		link: []string{"libA.a", "-Wl,-uk1_run"}, gnu: true, lld: true, want: "k1 on_device=1\n", kept: []string{"libA.a(k1.o)"}},
	{name: "clang-u", archives: map[string][]arObj{"libA.a": {k1}}, weak: []string{"k1"},
		link: []string{"libA.a", "-u", "k1_run"}, gnu: true, lld: true, want: "k1 on_device=1\n", kept: []string{"libA.a(k1.o)"}},
	{name: "undefined-eq", archives: map[string][]arObj{"libA.a": {k1}}, weak: []string{"k1"},
		link: []string{"libA.a", "-Wl,--undefined=k1_run"}, gnu: true, lld: true, want: "k1 on_device=1\n", kept: []string{"libA.a(k1.o)"}},
	{name: "undefined-separate", archives: map[string][]arObj{"libA.a": {k1}}, weak: []string{"k1"},
		link: []string{"libA.a", "-Xlinker", "--undefined", "-Xlinker", "k1_run"}, gnu: true, lld: true, want: "k1 on_device=1\n", kept: []string{"libA.a(k1.o)"}},
	{name: "require-defined", archives: map[string][]arObj{"libA.a": {k1}}, weak: []string{"k1"},
		link: []string{"libA.a", "-Wl,--require-defined=k1_run"}, gnu: true, want: "k1 on_device=1\n", kept: []string{"libA.a(k1.o)"}},
	{name: "entry", archives: map[string][]arObj{"libA.a": {{name: "k1", entry: true}}}, weak: []string{"k1"},
		link: []string{"libA.a", "-Wl,-e,k1_entry"}, gnu: true, lld: true, want: "k1 on_device=1\n", kept: []string{"libA.a(k1.o)"}},
	{name: "entry-eq", archives: map[string][]arObj{"libA.a": {{name: "k1", entry: true}}}, weak: []string{"k1"},
		link: []string{"libA.a", "-Wl,--entry=k1_entry"}, gnu: true, lld: true, want: "k1 on_device=1\n", kept: []string{"libA.a(k1.o)"}},
	{name: "defsym", archives: map[string][]arObj{"libA.a": {k1}}, weak: []string{"k1"},
		link: []string{"libA.a", "-Wl,--defsym=k1_alias=k1_run"}, lld: true, want: "k1 on_device=1\n", kept: []string{"libA.a(k1.o)"}},
	{name: "whole-archive", archives: map[string][]arObj{"libA.a": {k1, k2}}, weak: []string{"k1", "k2"},
		link: []string{"-Wl,--whole-archive", "libA.a", "-Wl,--no-whole-archive"}, gnu: true, lld: true,
		want: "k1 on_device=1\nk2 on_device=1\n", kept: []string{"libA.a(k1.o)", "libA.a(k2.o)"}},
	{name: "member-pulls-member", archives: map[string][]arObj{"libA.a": {{name: "k1", calls: "k2_run"}, k2, {name: "k3", table: true}, tab}}, strong: []string{"k1", "k3"},
		link: []string{"libA.a"}, gnu: true, lld: true, want: "k1 on_device=1\nk2 on_device=1\nk3 on_device=1 table\n",
		kept: []string{"libA.a(k1.o)", "libA.a(k2.o)", "libA.a(k3.o)", "libA.a(table.o)"}},
	{name: "group-reverse-order", archives: map[string][]arObj{"libA.a": {{name: "k1", calls: "k2_run"}}, "libB.a": {k2}}, strong: []string{"k1"},
		link: []string{"-Wl,--start-group", "libB.a", "libA.a", "-Wl,--end-group"}, gnu: true, lld: true,
		want: "k1 on_device=1\nk2 on_device=1\n", kept: []string{"libA.a(k1.o)", "libB.a(k2.o)"}},
	{name: "l-search-per-directory", archives: map[string][]arObj{"d1/libS.a": {k1}}, shared: map[string]string{"d2/libS.so": "k1"},
		strong: []string{"k1"}, link: []string{"-Ld1", "-Ld2", "-lS"}, gnu: true, lld: true, want: "k1 on_device=1\n", kept: []string{"libS.a(k1.o)"}},
	{name: "l-colon", archives: map[string][]arObj{"d1/libS.a": {k1}}, strong: []string{"k1"},
		link: []string{"-Ld1", "-l:libS.a"}, gnu: true, lld: true, want: "k1 on_device=1\n", kept: []string{"libS.a(k1.o)"}},
	// The CPU device link is given -lS without -Bstatic (as LLVM 22 does), so
	// the device image needs libS.so at run time: -rpath finds it.
	{name: "Bstatic", archives: map[string][]arObj{"d1/libS.a": {k1}}, shared: map[string]string{"d1/libS.so": "k1"},
		strong: []string{"k1"}, link: []string{"-Ld1", "-Wl,-Bstatic", "-lS", "-Wl,-Bdynamic", "-Wl,-rpath,@DIR@/d1"}, gnu: true, lld: true, want: "k1 on_device=1\n", kept: []string{"libS.a(k1.o)"}},
	{name: "shared-library-defines", archives: map[string][]arObj{"libA.a": {k1}}, shared: map[string]string{"libD.so": "k1"},
		strong: []string{"k1"}, link: []string{"libD.so", "libA.a", "-Wl,-rpath,$ORIGIN"}, gnu: true, lld: true, want: "k1 from a shared library\n", notTaken: []string{"libA.a(k1.o)"}},
	{name: "shared-library-references", archives: map[string][]arObj{"libA.a": {k1}}, shared: map[string]string{"libR.so": "calls:k1_run"},
		sharedCalls: "r_call", link: []string{"libA.a", "libR.so", "libA.a", "-Wl,-rpath,$ORIGIN"}, gnu: true, lld: true, want: "k1 on_device=1\n", kept: []string{"libA.a(k1.o)"}},
	{name: "linker-script-group", archives: map[string][]arObj{"d1/libGreal.a": {k1}}, texts: map[string]string{"d1/libG.so": "/* like libc.so */\nGROUP ( libGreal.a )\n"},
		strong: []string{"k1"}, link: []string{"-Ld1", "-lG"}, gnu: true, lld: true, want: "k1 on_device=1\n", kept: []string{"libGreal.a(k1.o)"}},
	// EXTERN of a symbol nothing else references (GNU ld leaves an
	// existing weak reference weak).
	{name: "linker-script-extern", archives: map[string][]arObj{"libA.a": {{name: "k1", entry: true}, k2}}, texts: map[string]string{"ext.ld": "EXTERN(k1_entry)\n"},
		weak: []string{"k1"}, link: []string{"ext.ld", "libA.a"}, gnu: true, lld: true, want: "k1 on_device=1\n", kept: []string{"libA.a(k1.o)"}, notTaken: []string{"libA.a(k2.o)"}},
	{name: "wrap", archives: map[string][]arObj{"libA.a": {{name: "__wrap_k1", calls: "__real_k1_run"}, k1}}, strong: []string{"k1"},
		link: []string{"libA.a", "-Wl,--wrap=k1_run"}, gnu: true, lld: true, want: "__wrap_k1 on_device=1\nk1 on_device=1\n",
		kept: []string{"libA.a(__wrap_k1.o)", "libA.a(k1.o)"}},
	{name: "start-lib", objects: []arObj{k1, k2}, weak: []string{"k1", "k2"},
		link: []string{"-Wl,--start-lib", "k1.o", "k2.o", "-Wl,--end-lib", "-Wl,-u,k2_run"}, lld: true, want: "no k1\nk2 on_device=1\n", kept: []string{"k2.o"}, notTaken: []string{"k1.o"}},
	{name: "lto-bitcode", archives: map[string][]arObj{"libA.a": {{name: "k1", calls: "k2_run"}, k2, {name: "k3"}}}, strong: []string{"k1"}, lto: true,
		link: []string{"libA.a"}, lld: true, want: "k1 on_device=1\nk2 on_device=1\n", kept: []string{"libA.a(k1.o)", "libA.a(k2.o)"}, notTaken: []string{"libA.a(k3.o)"}},
	// Where the link line cannot be followed, every member is taken.
	{name: "unknown-option", archives: map[string][]arObj{"libA.a": {k1}}, weak: []string{"k1"},
		link: []string{"libA.a", "-Wl,--pic-executable"}, gnu: true, lld: true, want: "no k1\n", alsoTaken: []string{"libA.a(k1.o)"},
		noteContains: "may keep it: the host linker option '--pic-executable' is not understood"},
	{name: "version-script", archives: map[string][]arObj{"libA.a": {k1}}, texts: map[string]string{"v.map": "{ global: k1_run; main; local: *; };\n"}, weak: []string{"k1"},
		link: []string{"libA.a", "-Wl,--version-script=v.map"}, gnu: true, lld: true, want: "no k1\n", alsoTaken: []string{"libA.a(k1.o)"}},
}

func TestArchiveMembersKeptByHostLink(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	cc := findTool(t, "clang-22", "clang")
	arTool := findTool(t, "llvm-ar-22", "llvm-ar")
	findTool(t, "ld.lld-22", "ld.lld")
	bin := buildWrapper(t)
	lib := ompLibDir(t)
	base := []string{"-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu", "-L" + lib, "-Wno-unused-command-line-argument"}
	for _, tc := range archiveCases {
		for _, linker := range []string{"bfd", "lld"} {
			if linker == "bfd" && !tc.gnu || linker == "lld" && !tc.lld {
				continue
			}
			t.Run(tc.name+"/"+linker, func(t *testing.T) {
				dir := t.TempDir()
				flags := cmdline(base, "-fuse-ld="+linker)
				if tc.lto {
					flags = append(flags, "-flto")
				}
				buildArchiveCase(t, cc, arTool, flags, dir, tc)
				var stderr bytes.Buffer
				var link []string
				for _, a := range tc.link {
					link = append(link, strings.ReplaceAll(a, "@DIR@", dir))
				}
				argv := cmdline(cc, flags, "-B"+bin, "main.o", link, "-o", "app", "-Wl,-Map,app.map", "-Xlinker", "--wrapper-verbose")
				if linker == "lld" {
					argv = append(argv, "-Wl,--why-extract=why.txt")
				}
				err := run.Exec{}.Run(context.Background(), &run.Cmd{Dir: dir, Stderr: &stderr, Args: argv})
				require.NoError(t, err, stderr.String())
				assert.Equal(t, tc.want, sh(t, dir, nil, "./app"), "the program's output (every region on the device)")

				taken := takenMembers(stderr.String())
				hostKept := keptByHost(t, dir, linker)
				// Only the case's own archives and objects carry device code.
				ours := map[string]bool{}
				for path := range tc.archives {
					ours[filepath.Base(path)] = true
				}
				for _, o := range tc.objects {
					ours[o.name+".o"] = true
				}
				for _, m := range hostKept {
					if a, _, _ := strings.Cut(m, "("); ours[a] {
						assert.Contains(t, taken, memberName(m), "the host linker kept %s: its device code must be linked\n%s", m, stderr.String())
					}
				}
				for _, m := range tc.kept {
					assert.Contains(t, hostKept, m, "the host linker keeps %s", m)
					assert.Contains(t, taken, memberName(m), stderr.String())
				}
				for _, m := range tc.alsoTaken {
					assert.NotContains(t, hostKept, m, "the host linker does not keep %s", m)
					assert.Contains(t, taken, memberName(m), stderr.String())
				}
				for _, m := range tc.notTaken {
					assert.NotContains(t, hostKept, m, "the host linker does not keep %s", m)
					assert.NotContains(t, taken, memberName(m), stderr.String())
				}
				if tc.noteContains != "" {
					assert.Contains(t, stderr.String(), tc.noteContains)
				}
			})
		}
	}
}

// buildArchiveCase compiles main.c, the objects, archives, shared libraries
// and text files of a case in dir.
func buildArchiveCase(t *testing.T, cc, arTool string, flags []string, dir string, tc arCase) {
	compile := func(o arObj, out string) {
		if o.name == "table" {
			sh(t, dir, nil, cmdline(cc, flags, "-c", src("ar_table.c"), "-o", out)...)
			return
		}
		args := cmdline(cc, flags, "-c", src("ar_kernel.c"), "-DKNAME="+o.name, "-o", out)
		if o.calls != "" {
			args = append(args, "-DCALLS="+o.calls)
		}
		if o.entry {
			args = append(args, "-DENTRY")
		}
		if o.table {
			args = append(args, "-DTABLE")
		}
		sh(t, dir, nil, args...)
	}
	var main strings.Builder
	main.WriteString("#include <stdio.h>\n")
	for _, k := range tc.strong {
		main.WriteString("void " + k + "_run(void);\n")
	}
	for _, k := range tc.weak {
		main.WriteString("void " + k + "_run(void) __attribute__((weak));\n")
	}
	if tc.sharedCalls != "" {
		main.WriteString("void " + tc.sharedCalls + "(void);\n")
	}
	main.WriteString("int main(void) {\n")
	for _, k := range tc.strong {
		main.WriteString("  " + k + "_run();\n")
	}
	for _, k := range tc.weak {
		main.WriteString("  if (" + k + "_run) " + k + "_run(); else printf(\"no " + k + "\\n\");\n")
	}
	if tc.sharedCalls != "" {
		main.WriteString("  " + tc.sharedCalls + "();\n")
	}
	main.WriteString("  return 0;\n}\n")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.c"), []byte(main.String()), 0o644))
	sh(t, dir, nil, cmdline(cc, flags, "-c", "main.c", "-o", "main.o")...)
	for _, o := range tc.objects {
		compile(o, o.name+".o")
	}
	for path, objs := range tc.archives {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(path)), 0o755))
		var names []string
		for _, o := range objs {
			out := filepath.Join(filepath.Dir(path), o.name+".o")
			compile(o, out)
			names = append(names, out)
		}
		sh(t, dir, nil, cmdline(arTool, "rcs", path, names)...)
	}
	for path, what := range tc.shared {
		// Host-only shared libraries: "k1" defines k1_run; "calls:f"
		// defines r_call, which calls f (left undefined in the library).
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(path)), 0o755))
		code := "#include <stdio.h>\nvoid " + what + "_run(void) { printf(\"" + what + " from a shared library\\n\"); }\n"
		if f, ok := strings.CutPrefix(what, "calls:"); ok {
			code = "void " + f + "(void);\nvoid r_call(void) { " + f + "(); }\n"
		}
		c := filepath.Join(dir, path+".c")
		require.NoError(t, os.WriteFile(c, []byte(code), 0o644))
		sh(t, dir, nil, cc, "-shared", "-fPIC", c, "-o", filepath.Join(dir, path))
	}
	for path, text := range tc.texts {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(path)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, path), []byte(text), 0o644))
	}
}

var (
	deviceInRe = regexp.MustCompile(`/([^/\s]+)-x86_64-unknown-linux-gnu-generic(?:-[0-9a-f]+)?\.o\b`)
	memberRe   = regexp.MustCompile(`([^\s()/]+\.a)\(([^\s()]+\.o)\)`)
	lldObjRe   = regexp.MustCompile(`(?m)^\s*[0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+\s+\d+\s+(\S+\.o):\(`)
)

// takenMembers lists the objects ("k1.o") whose device code the device
// link was given: the extracted inputs <stem>-<triple>-<arch>[-<hex>].o on
// the --wrapper-verbose device link line (objects, --whole-archive and
// lazily taken members alike). main.o is left out.
func takenMembers(stderr string) []string {
	var out []string
	for _, line := range strings.Split(stderr, "\n") {
		if !strings.Contains(line, "--target=x86_64-unknown-linux-gnu") {
			continue
		}
		for _, m := range deviceInRe.FindAllStringSubmatch(line, -1) {
			if m[1] != "main" {
				out = append(out, m[1]+".o")
			}
		}
	}
	return dedup(out)
}

// memberName is "k1.o" for "libA.a(k1.o)" and for "k1.o".
func memberName(m string) string {
	if _, rest, ok := strings.Cut(m, "("); ok {
		return strings.TrimSuffix(rest, ")")
	}
	return m
}

// keptByHost lists the archive members the host linker kept: every member
// its -Map file names (GNU ld lists them in "Archive member included"
// and in the section listing, ld.lld in the section listing), plus for
// ld.lld the --why-extract report and the --start-lib objects in the map.
func keptByHost(t *testing.T, dir, linker string) []string {
	data, err := os.ReadFile(filepath.Join(dir, "app.map"))
	require.NoError(t, err)
	var out []string
	for _, m := range memberRe.FindAllStringSubmatch(string(data), -1) {
		out = append(out, m[1]+"("+m[2]+")")
	}
	if linker == "lld" {
		for _, m := range lldObjRe.FindAllStringSubmatch(string(data), -1) {
			if b := filepath.Base(m[1]); b != "main.o" && !strings.HasPrefix(b, "crt") && !strings.Contains(m[1], "/") {
				out = append(out, b)
			}
		}
		why, err := os.ReadFile(filepath.Join(dir, "why.txt"))
		require.NoError(t, err)
		for _, m := range memberRe.FindAllStringSubmatch(string(why), -1) {
			out = append(out, m[1]+"("+m[2]+")")
		}
	}
	return dedup(out)
}

func dedup(s []string) []string {
	sort.Strings(s)
	var out []string
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
