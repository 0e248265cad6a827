//go:build linux

package kernels

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"image"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/clitest"
)

// chromium runs Debian's headless Chromium (make deps installs it) with
// args in its own process group, with its profile and HOME in dir, and
// returns its stdout. It cannot hang the suite: after 90 s, or when it
// exits, the whole group (renderers, zygote, GPU process) is killed.
func chromium(t *testing.T, dir string, args ...string) string {
	t.Helper()
	path, err := exec.LookPath("chromium")
	require.NoError(t, err, "run `make deps` (installs chromium)")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	// --no-sandbox: the suite may run as root, where Chromium's sandbox
	// refuses to start.
	argv := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
		"--disable-extensions", "--disable-background-networking", "--disable-component-update", "--disable-breakpad", "--disable-crash-reporter",
		"--user-data-dir=" + filepath.Join(dir, "profile")}, args...)
	cmd := exec.CommandContext(ctx, path, argv...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // helpers that outlive the browser
	}
	require.NoError(t, ctx.Err(), "chromium %v did not finish in 90 s", args)
	require.NoError(t, err, "chromium %v\n%s", args, errb.String())
	return out.String()
}

var (
	bodyTag  = regexp.MustCompile(`<body[^>]*>`)
	svgText  = regexp.MustCompile(`<text[^>]*>(.*?)</text>`)
	tspanTag = regexp.MustCompile(`<tspan[^>]*>(.*?)</tspan>`)
	anyTag   = regexp.MustCompile(`<[^>]+>`)
	crumbTag = regexp.MustCompile(`<div id="crumbs">(.*?)</div>`)
	legendTg = regexp.MustCompile(`<div id="legend">(.*?)</div>`)
	svgSize  = regexp.MustCompile(`<svg id="map"[^>]* data-size="(\d+)x(\d+)"`)
	msgTag   = regexp.MustCompile(`<div id="message">(.*?)</div>`)
	totalsTg = regexp.MustCompile(`<summary>(.*?)</summary><table>(.*?)</table>`)
	// sizeTok is a label's size: number, no-break space, unit.
	sizeTok = regexp.MustCompile(`\((\d+(?:\.\d+)?)\x{a0}(B|KiB|MiB|GiB)\)$`)
)

// renderedPage is what the DOM Chromium dumped says: the body's
// data-rendered, data-error and data-overflow, each box label's lines,
// the zoom path, the legend, the drawing's size and the message shown
// instead of a drawing.
type renderedPage struct {
	rendered, err, overflow string
	viewport                string // innerWidth x innerHeight + the drawing's top
	labels                  [][]string
	crumbs, legend, message string
	totals                  string   // the totals' summary line
	totalRows               []string // and rows: "arch machine ir"
	w, h                    int
}

func renderPage(t *testing.T, dir, page, fragment string, size [2]int) renderedPage {
	t.Helper()
	u := "file://" + page // a temporary directory: no characters to escape
	if fragment != "" {
		u += "#" + fragment
	}
	dom := chromium(t, dir, "--dump-dom", fmt.Sprintf("--window-size=%d,%d", size[0], size[1]), u)
	body := bodyTag.FindString(dom)
	require.NotEmpty(t, body, dom)
	attr := func(name string) string {
		m := regexp.MustCompile(name + `="([^"]*)"`).FindStringSubmatch(body)
		if m == nil {
			return ""
		}
		return html.UnescapeString(m[1])
	}
	p := renderedPage{rendered: attr("data-rendered"), err: attr("data-error"), overflow: attr("data-overflow"), viewport: attr("data-viewport")}
	for _, m := range svgText.FindAllStringSubmatch(dom, -1) {
		var lines []string
		for _, l := range tspanTag.FindAllStringSubmatch(m[1], -1) {
			lines = append(lines, html.UnescapeString(l[1]))
		}
		p.labels = append(p.labels, lines)
	}
	text := func(re *regexp.Regexp) string {
		if m := re.FindStringSubmatch(dom); m != nil {
			return html.UnescapeString(anyTag.ReplaceAllString(m[1], " "))
		}
		return ""
	}
	p.crumbs = strings.Join(strings.Fields(text(crumbTag)), " ")
	p.legend = strings.Join(strings.Fields(text(legendTg)), " ")
	p.message = text(msgTag)
	if m := totalsTg.FindStringSubmatch(dom); m != nil {
		p.totals = html.UnescapeString(m[1])
		for _, r := range regexp.MustCompile(`<tr>(.*?)</tr>`).FindAllStringSubmatch(m[2], -1) {
			p.totalRows = append(p.totalRows, strings.Join(strings.Fields(html.UnescapeString(anyTag.ReplaceAllString(r[1], " "))), " "))
		}
	}
	if m := svgSize.FindStringSubmatch(dom); m != nil {
		p.w, _ = strconv.Atoi(m[1])
		p.h, _ = strconv.Atoi(m[2])
	}
	return p
}

// checkLabels: every label ends with its box's size as one token on one
// line ("(7.4 KiB)", never "(7." / "4 KiB)"); its lines joined by spaces
// are "name (size)" for one of names when nothing was shortened, else
// each line but the size is a piece of one of them.
func checkLabels(t *testing.T, p renderedPage, names []string) {
	t.Helper()
	require.NotEmpty(t, p.labels)
	for _, lines := range p.labels {
		require.NotEmpty(t, lines)
		last := lines[len(lines)-1]
		m := sizeTok.FindStringSubmatch(last)
		require.NotNil(t, m, "the size ends the label, whole: %q", lines)
		full := strings.Join(lines, " ")
		name := strings.TrimSuffix(full, " "+m[0])
		if full == m[0] {
			continue // a box too narrow for any of the name: the size alone
		}
		if !strings.Contains(full, "…") {
			found := false
			for _, n := range names {
				// A long word was cut (after "::", ",", "<"): no space there.
				found = found || strings.ReplaceAll(name, " ", "") == strings.ReplaceAll(n, " ", "")
			}
			assert.True(t, found, "label %q names a box", lines)
		}
		for i, l := range lines[:len(lines)-1] {
			next := lines[i+1]
			if l != "" && next != "" && !strings.HasSuffix(l, "…") {
				assert.False(t, isDigit(l[len(l)-1]) && (isDigit(next[0]) || next[0] == '.'), "a number broken between lines %q and %q", l, next)
			}
		}
	}
}

// TestKernelsTreemapInChromium: the --html page of librocrand's report,
// rendered by headless Chromium at two window sizes, draws without errors
// and fills the window: one box per arch coloured by code kind (with a
// legend) below the single file, then, zoomed through the URL fragment,
// the arch's template families coloured by family, then a family's
// kernels. Every label keeps its size whole and stays inside its box
// (the page measures each one: data-overflow="0"); a zoom to a box that
// is not there is a page error; screenshots are the window's size and
// mostly boxes; a report where nothing has a size shows a message.
func TestKernelsTreemapInChromium(t *testing.T) {
	d := clitest.LinkedInto(t, clitest.Rocrand, "r.so")
	out, err := runKernels(d, Options{Files: []string{"r.so"}, HTML: "map.html"})
	require.NoError(t, err, out)
	page := filepath.Join(d, "map.html")
	rep := kernelsDoc(t, d, Options{Files: []string{"r.so"}})
	const arch = "gfx90a:xnack-"
	var img *Image
	for i := range rep.Files[0].Images {
		if rep.Files[0].Images[i].Arch == arch {
			img = &rep.Files[0].Images[i]
		}
	}
	require.NotNil(t, img)
	families := map[string]int64{}
	var kernels []string
	for _, fn := range img.Functions {
		families[fn.Family] += fn.Size
		if fn.Family == "rocrand_host::detail::generate_kernel" {
			kernels = append(kernels, fn.Demangled)
		}
	}

	for _, size := range [][2]int{{1280, 800}, {700, 1000}} {
		top := renderPage(t, d, page, "", size)
		assert.Equal(t, "ok", top.rendered, top.err)
		assert.Empty(t, top.err)
		assert.Equal(t, "0", top.overflow, "labels inside their boxes at %v", size)
		assert.Equal(t, "all › r.so", top.crumbs, "starts below the single file")
		assert.Equal(t, "Colour: code kind: AMDGPU ISA", top.legend)
		var vw, vh, vtop int
		_, err := fmt.Sscanf(top.viewport, "%dx%d+%d", &vw, &vh, &vtop)
		require.NoError(t, err, top.viewport)
		assert.InDelta(t, size[0], vw, 20, "the viewport is the window")
		assert.Equal(t, vw-16, top.w, "the drawing is as wide as the viewport (8 px margins)")
		assert.Equal(t, vh-vtop-8, top.h, "and fills it below the header")
		require.Len(t, top.labels, 7, "one box per arch")
		// The totals, machine code and PTX/IR apart, as the JSON's.
		wantRows := []string{"ARCH MACHINE PTX/IR"}
		for _, a := range rep.Totals.ByArch {
			wantRows = append(wantRows, fmt.Sprintf("%s %d %d", a.Key, a.Machine, a.IR))
		}
		assert.Equal(t, wantRows, top.totalRows)
		assert.Regexp(t, `^Totals: machine code 1\.9\x{a0}MiB, PTX/IR 0\x{a0}B \(7 arch\(s\); click for each\)$`, top.totals)
		checkLabels(t, top, rocrandArchs)

		fams := renderPage(t, d, page, "zoom=r.so/"+url.PathEscape(arch), size)
		assert.Equal(t, "ok", fams.rendered, fams.err)
		assert.Equal(t, "0", fams.overflow)
		assert.Equal(t, "all › r.so › "+arch, fams.crumbs)
		assert.True(t, strings.HasPrefix(fams.legend, "Colour: template family: rocrand_host::detail::generate_kernel "), fams.legend)
		var names []string
		for f := range families {
			names = append(names, f)
		}
		require.Len(t, fams.labels, len(families), "one box per family: %v", names)
		checkLabels(t, fams, names)

		ks := renderPage(t, d, page, "zoom=r.so/"+url.PathEscape(arch)+"/"+url.PathEscape("rocrand_host::detail::generate_kernel"), size)
		assert.Equal(t, "ok", ks.rendered, ks.err)
		assert.Equal(t, "0", ks.overflow)
		assert.GreaterOrEqual(t, len(ks.labels), 20, "many kernels are labelled")
		checkLabels(t, ks, kernels)

		png := filepath.Join(d, fmt.Sprintf("map-%dx%d.png", size[0], size[1]))
		chromium(t, d, "--screenshot="+png, fmt.Sprintf("--window-size=%d,%d", size[0], size[1]), "file://"+page)
		pic := readPNG(t, png)
		assert.Equal(t, size[0], pic.Bounds().Dx())
		assert.Equal(t, size[1], pic.Bounds().Dy())
		// Below the header, the boxes (AMDGPU ISA's #4e79a7, white
		// borders, dark text) cover the drawing: count the box colour.
		n, all := 0, 0
		for y := pic.Bounds().Min.Y + 120; y < pic.Bounds().Max.Y-10; y += 4 {
			for x := pic.Bounds().Min.X + 10; x < pic.Bounds().Max.X-10; x += 4 {
				r, g, b, _ := pic.At(x, y).RGBA()
				all++
				if r>>8 == 0x4e && g>>8 == 0x79 && b>>8 == 0xa7 {
					n++
				}
			}
		}
		assert.Greater(t, float64(n)/float64(all), 0.8, "boxes fill the window at %v", size)
	}

	bad := renderPage(t, d, page, "zoom=r.so/nothing", [2]int{800, 600})
	assert.Empty(t, bad.rendered)
	assert.Contains(t, bad.err, `zoom: no box named "nothing" in "r.so"`)

	// Nothing with a size: a message, not a blank page.
	empty, err := treemapHTML(&Report{Files: []File{{Path: "x.bc", Images: []Image{{Arch: "gfx90a", CodeKind: "bitcode", CodeClass: classIR,
		Functions: []Function{{Name: "f", Demangled: "f", Family: "f", SizeFrom: "unknown"}}}}}}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(d, "empty.html"), empty, 0o644))
	e := renderPage(t, d, filepath.Join(d, "empty.html"), "", [2]int{800, 600})
	assert.Equal(t, "ok", e.rendered, e.err)
	assert.Equal(t, "Nothing to draw: no image or function in this report has a known size (1 file(s) read).", e.message)
	assert.Empty(t, e.labels)
}

func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	pic, err := png.Decode(f)
	require.NoError(t, err, "a PNG")
	return pic
}

// TestKernelsTreemapTree: a fat binary with a cubin and PTX for sm_90 is
// one file box holding an sm_90 box of SASS (coloured as NVIDIA SASS) and
// an "sm_90 · PTX" box beside it; a template family of several kernels
// is a box of its own, a family of one function is that function.
func TestKernelsTreemapTree(t *testing.T) {
	d := t.TempDir()
	clitest.CopyInto(t, "../../../format/codeobj/testdata/cuda13", d, "kernels-sm90-nvcc13.fatbin")
	rep := kernelsDoc(t, d, Options{Files: []string{"kernels-sm90-nvcc13.fatbin"}})
	root := treemapTree(rep)
	require.Len(t, root.Children, 1)
	file := root.Children[0]
	assert.Equal(t, "kernels-sm90-nvcc13.fatbin", file.Name)
	got := map[string]string{}
	var sass *treeNode
	for _, c := range file.Children {
		got[c.Name] = c.Key
		if c.Name == "sm_90" {
			sass = c
		}
	}
	assert.Equal(t, map[string]string{"sm_90": "NVIDIA SASS", "sm_90 · PTX": "PTX"}, got)
	assert.Equal(t, "PTX", file.Key, "the PTX text is the larger")
	require.NotNil(t, sass)
	kids := map[string]int{}
	for _, c := range sass.Children {
		kids[c.Name] = len(c.Children)
	}
	assert.Equal(t, map[string]int{"tile_sum": 2, "local_frame(int const*, float*)": 0}, kids)
	var sum int64
	for _, img := range rep.Files[0].Images {
		if img.CodeKind == "cubin" {
			sum += img.CodeBytes
		}
	}
	assert.Equal(t, sum, sass.Size)
}
