//go:build linux

package packager

import (
	"bytes"
	"context"
	"html"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	svgText  = regexp.MustCompile(`<text>(.*?)</text>`)
	anyTag   = regexp.MustCompile(`<[^>]+>`)
	crumbTag = regexp.MustCompile(`<div id="crumbs">(.*?)</div>`)
)

// renderedPage is what the DOM Chromium dumped says: the body's
// data-rendered and data-error, the box labels and the zoom path.
type renderedPage struct {
	rendered, err string
	labels        []string
	crumbs        string
}

func renderPage(t *testing.T, dir, page, fragment string) renderedPage {
	t.Helper()
	u := "file://" + page // a temporary directory: no characters to escape
	if fragment != "" {
		u += "#" + fragment
	}
	dom := chromium(t, dir, "--dump-dom", u)
	body := bodyTag.FindString(dom)
	require.NotEmpty(t, body, dom)
	attr := func(name string) string {
		m := regexp.MustCompile(name + `="([^"]*)"`).FindStringSubmatch(body)
		if m == nil {
			return ""
		}
		return html.UnescapeString(m[1])
	}
	p := renderedPage{rendered: attr("data-rendered"), err: attr("data-error")}
	for _, m := range svgText.FindAllStringSubmatch(dom, -1) {
		p.labels = append(p.labels, html.UnescapeString(anyTag.ReplaceAllString(m[1], "")))
	}
	if m := crumbTag.FindStringSubmatch(dom); m != nil {
		p.crumbs = html.UnescapeString(anyTag.ReplaceAllString(m[1], ""))
	}
	return p
}

// TestKernelsTreemapInChromium: the --html page of librocrand's report,
// rendered by headless Chromium, draws without errors, labels the 7
// archs, and zoomed through its URL fragment to one arch labels that
// arch's kernels (each label a prefix of "name (size)", the largest
// kernel's in full); a zoom to a box that is not there is a page error;
// and --screenshot gives a PNG of the window's size showing the boxes.
func TestKernelsTreemapInChromium(t *testing.T) {
	d := linkedInto(t, rocrand, "r.so")
	out, err := runKernels(d, KernelsOptions{Files: []string{"r.so"}, HTML: "map.html"})
	require.NoError(t, err, out)
	page := filepath.Join(d, "map.html")
	rep := kernelsDoc(t, d, KernelsOptions{Files: []string{"r.so"}})

	top := renderPage(t, d, page, "")
	assert.Equal(t, "ok", top.rendered)
	assert.Empty(t, top.err)
	assert.Equal(t, "all› r.so› bundle 0", top.crumbs, "starts below the single file and container")
	require.Len(t, top.labels, 7, "one box per arch")
	for _, a := range rocrandArchs {
		found := false
		for _, l := range top.labels {
			found = found || strings.HasPrefix(l, a+" (")
		}
		assert.True(t, found, "a box labelled %s: %q", a, top.labels)
	}

	const arch = "gfx90a:xnack-"
	zoomed := renderPage(t, d, page, "zoom=r.so/bundle%200/"+url.PathEscape(arch))
	assert.Equal(t, "ok", zoomed.rendered, zoomed.err)
	assert.Empty(t, zoomed.err)
	assert.Equal(t, "all› r.so› bundle 0› "+arch, zoomed.crumbs)
	var img *KernelImage
	for i := range rep.Files[0].Images {
		if rep.Files[0].Images[i].Arch == arch {
			img = &rep.Files[0].Images[i]
		}
	}
	require.NotNil(t, img)
	var largest KernelFunction
	for _, fn := range img.Functions {
		if fn.Size > largest.Size {
			largest = fn
		}
	}
	require.GreaterOrEqual(t, len(zoomed.labels), 20, "many kernels are labelled")
	assert.True(t, strings.HasPrefix(zoomed.labels[0], largest.Demangled+" ("), "the largest kernel first, in full: %q", zoomed.labels[0])
	for _, l := range zoomed.labels {
		prefix := strings.TrimSuffix(l, "…")
		ok := false
		for _, fn := range img.Functions {
			ok = ok || strings.HasPrefix(fn.Demangled+" (", prefix) || strings.HasPrefix(prefix, fn.Demangled+" (")
		}
		assert.True(t, ok, "label %q names a kernel of %s", l, arch)
	}

	bad := renderPage(t, d, page, "zoom=r.so/nothing")
	assert.Empty(t, bad.rendered)
	assert.Contains(t, bad.err, `zoom: no box named "nothing" in "r.so"`)

	chromium(t, d, "--screenshot="+filepath.Join(d, "map.png"), "--window-size=1280,800", "file://"+page)
	f, err := os.Open(filepath.Join(d, "map.png"))
	require.NoError(t, err)
	defer f.Close()
	pic, err := png.Decode(f)
	require.NoError(t, err, "a PNG")
	assert.Equal(t, 1280, pic.Bounds().Dx())
	assert.Equal(t, 800, pic.Bounds().Dy())
	colors := map[[3]uint32]int{}
	for y := pic.Bounds().Min.Y; y < pic.Bounds().Max.Y; y += 4 {
		for x := pic.Bounds().Min.X; x < pic.Bounds().Max.X; x += 4 {
			r, g, b, _ := pic.At(x, y).RGBA()
			colors[[3]uint32{r >> 8, g >> 8, b >> 8}]++
		}
	}
	assert.Greater(t, colors[[3]uint32{0x4e, 0x79, 0xa7}], 1000, "the first box's colour (#4e79a7) fills a box")
	assert.Greater(t, len(colors), 7, "boxes of several colours, text")
}
