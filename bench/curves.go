package main

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A curve measures some operations of both tools at several sizes (issue
// 7 part 1) and plots each operation as a PNG, ours and the reference on
// the same log-log axes.
type curve struct {
	name, xlabel string
	issue        int
	xs           []int64
	xfmt         func(int64) string
	xunit        float64 // x values are divided by this on the plot (0 = 1)
	setup        func(c *config, x int64) error
	teardown     func(c *config, x int64)
	ops          []curveOp
	refLimit     time.Duration // per reference run; larger points are skipped after a timeout
	refRuns      int           // 0 = -curve-runs
	note         string
}

type curveOp struct {
	name, file, refDesc string
	ours, ref           func(c *config, x int64) side
	key                 string // memo key prefix: key/ours/x, key/ref/x
	// validate checks a side's last run at x, as benchCase.validate does
	// (the same check as the row that shares the measurement).
	validate func(c *config, x int64, who string, s side) error
}

func (op curveOp) validator(c *config, x int64, who string) func(side) error {
	if op.validate == nil {
		return nil
	}
	return func(s side) error { return op.validate(c, x, who, s) }
}

type curvePoint struct {
	x         int64
	ours, ref measurement
	skipped   bool // the reference was not run (an earlier point timed out)
}

type curveResult struct {
	cv     curve
	points [][]curvePoint // per op
	failed bool
	notes  []string
}

func curves(c *config) []curve {
	sizes := []int64{1 << 20, 16 << 20, 128 << 20, 1 << 30, 2 << 30}
	counts := []int64{10, 100, 1000, 5000}
	kernels := []int64{100, 500, 1000, 2000, 4000, 8000}
	if c.quick {
		sizes = []int64{1 << 20, 8 << 20, c.size}
		counts = []int64{10, int64(c.objects)}
		kernels = []int64{int64(c.kernels / 4), int64(c.kernels)}
	}
	pay := func(op string, ours bool) func(c *config, x int64) side {
		return func(c *config, x int64) side { return payloadSide(c, op, x, ours) }
	}
	payValid := func(op string) func(c *config, x int64, who string, s side) error {
		return func(c *config, x int64, who string, s side) error { return validatePayload(c, op, x, who) }
	}
	return []curve{
		{
			name: "curve: payload size", xlabel: "payload size (MiB)", issue: 7, xs: sizes,
			xfmt: sizeName, xunit: 1 << 20,
			setup:    func(c *config, x int64) error { return payload(c, x, true) },
			teardown: func(c *config, x int64) { removePayload(c, x) },
			ops: []curveOp{
				{name: "pack", file: "bench-payload-pack.png", refDesc: "llvm-offload-binary", ours: pay("pack", true), ref: pay("pack", false), key: "pack", validate: payValid("pack")},
				{name: "extract", file: "bench-payload-extract.png", refDesc: "llvm-offload-binary", ours: pay("extract", true), ref: pay("extract", false), key: "extract", validate: payValid("extract")},
				{name: "dump", file: "bench-payload-dump.png", refDesc: "llvm-objdump --offloading", ours: pay("dump", true), ref: pay("dump", false), key: "dump", validate: payValid("dump")},
			},
		},
		{
			name: "curve: object count", xlabel: "fat objects (4/5 plain, 1/5 in archives)", issue: 7, xs: counts,
			xfmt:     func(x int64) string { return strconv.FormatInt(x, 10) },
			setup:    func(c *config, x int64) error { _, err := fatObjects(c, int(x)); return err },
			teardown: func(c *config, x int64) { os.RemoveAll(c.p("objs-" + strconv.FormatInt(x, 10))) },
			ops: []curveOp{{
				name: "linker-wrapper --dry-run", file: "bench-objects.png", refDesc: "clang-linker-wrapper --dry-run", key: "objs",
				ours:     func(c *config, x int64) side { return objectsSide(c, int(x), true) },
				ref:      func(c *config, x int64) side { return objectsSide(c, int(x), false) },
				validate: func(c *config, x int64, who string, s side) error { return validateObjectsDryRun(c, int(x), who) },
			}},
		},
		{
			name: "curve: kernel count", xlabel: "kernels in the module", issue: 7, xs: kernels,
			xfmt:     func(x int64) string { return strconv.FormatInt(x, 10) },
			setup:    func(c *config, x int64) error { _, err := kernelModule(c, int(x)); return err },
			teardown: func(c *config, x int64) { os.RemoveAll(c.p("split", strconv.FormatInt(x, 10))) },
			refLimit: c.splitTimeout, refRuns: 1,
			note: fmt.Sprintf("llvm-split runs once per point (except where a headline row measured it), each run capped at %s; later points are skipped after a timeout.", c.splitTimeout),
			ops: []curveOp{{
				name: "per-kernel split", file: "bench-kernels.png", refDesc: "llvm-split --split-by-category=kernel", key: "split",
				ours:     func(c *config, x int64) side { o, _ := splitSides(c, int(x)); return o },
				ref:      func(c *config, x int64) side { _, r := splitSides(c, int(x)); return r },
				validate: func(c *config, x int64, who string, s side) error { return validateSplit(c, s, int(x)) },
			}},
		},
	}
}

func runCurve(c *config, cv curve) curveResult {
	c.shown = c.curveRuns
	defer func() { c.shown = c.runs }()
	cr := curveResult{cv: cv, points: make([][]curvePoint, len(cv.ops))}
	refDead := make([]bool, len(cv.ops))
	for _, x := range cv.xs {
		if err := cv.setup(c, x); err != nil {
			cr.failed = true
			cr.notes = append(cr.notes, fmt.Sprintf("setup at %s failed: %s", cv.xfmt(x), firstLines(err.Error(), 2)))
			break
		}
		for i, op := range cv.ops {
			ours, ref := op.ours(c, x), op.ref(c, x)
			if refDead[i] {
				ref = side{}
			}
			ok := fmt.Sprintf("%s/ours/%d", op.key, x)
			rk := fmt.Sprintf("%s/ref/%d", op.key, x)
			o, r := c.compare(probe{ok, ours, op.validator(c, x, "ours")}, probe{rk, ref, op.validator(c, x, "ref")}, c.curveRuns, cv.refRuns, cv.refLimit)
			p := curvePoint{x: x, ours: o, ref: r, skipped: refDead[i]}
			if r.timedOut {
				refDead[i] = true
			}
			if o.err != "" {
				cr.failed = true
			}
			for _, v := range []struct{ who, invalid string }{{"ours", o.invalid}, {"reference", r.invalid}} {
				if v.invalid != "" {
					cr.failed = true
					cr.notes = append(cr.notes, fmt.Sprintf("%s at %s: invalid output (%s): %s", op.name, cv.xfmt(x), v.who, v.invalid))
				}
			}
			cr.points[i] = append(cr.points[i], p)
			logf("  %s %s: ours %s / %s, ref %s / %s", op.name, cv.xfmt(x), c.fmtM(o, false), c.fmtM(o, true), c.fmtM(r, false), c.fmtM(r, true))
		}
		if cv.teardown != nil {
			cv.teardown(c, x)
		}
	}
	for i, op := range cv.ops {
		if err := plotOp(c, cv, op, cr.points[i]); err != nil {
			cr.notes = append(cr.notes, "plot: "+err.Error())
		}
	}
	return cr
}

func plotOp(c *config, cv curve, op curveOp, pts []curvePoint) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: offload-kit vs %s (median wall time)", op.name, op.refDesc)
	p.X.Label.Text = cv.xlabel
	p.Y.Label.Text = "wall time (s)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = logTicks{}, logTicks{}
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	xval := func(x int64) float64 {
		if cv.xunit > 0 {
			return float64(x) / cv.xunit
		}
		return float64(x)
	}
	var ours, ref plotter.XYs
	lastRef, timedOut := int64(0), int64(0)
	for _, pt := range pts {
		if pt.ours.ok() {
			ours = append(ours, plotter.XY{X: xval(pt.x), Y: max(pt.ours.wall.Seconds(), 1e-4)})
		}
		switch {
		case pt.ref.ok():
			ref = append(ref, plotter.XY{X: xval(pt.x), Y: max(pt.ref.wall.Seconds(), 1e-4)})
			lastRef = pt.x
		case (pt.ref.timedOut || pt.skipped) && timedOut == 0:
			timedOut = pt.x
		}
	}
	refLabel := op.refDesc
	if timedOut != 0 {
		refLabel = fmt.Sprintf("%s (finished up to %s; timed out at %s, limit %s)", op.refDesc, cv.xfmt(lastRef), cv.xfmt(timedOut), cv.refLimit)
	}
	for i, s := range []struct {
		xys   plotter.XYs
		label string
		col   color.RGBA
		dash  []vg.Length
	}{
		{ours, "offload-kit", color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, nil},
		{ref, refLabel, color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, []vg.Length{vg.Points(5), vg.Points(3)}},
	} {
		if len(s.xys) == 0 {
			continue
		}
		l, sc, err := plotter.NewLinePoints(s.xys)
		if err != nil {
			return err
		}
		l.Color, l.Dashes, l.Width = s.col, s.dash, vg.Points(1.5)
		sc.Color = s.col
		if i == 1 {
			sc.Shape = draw.BoxGlyph{}
		}
		p.Add(l, sc)
		p.Legend.Add(s.label, l, sc)
	}
	if timedOut != 0 && cv.refLimit > 0 {
		// The timeout as a lower bound: the reference took longer.
		sc, err := plotter.NewScatter(plotter.XYs{{X: xval(timedOut), Y: cv.refLimit.Seconds()}})
		if err != nil {
			return err
		}
		sc.Shape, sc.Color, sc.Radius = draw.TriangleGlyph{}, color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, vg.Points(4)
		p.Add(sc)
		p.Legend.Add(fmt.Sprintf("%s timed out: > %s", strings.Fields(op.refDesc)[0], cv.refLimit), sc)
	}
	return p.Save(7*vg.Inch, 4.5*vg.Inch, filepath.Join(c.docs, op.file))
}

// logTicks labels 1, 2 and 5 times each power of ten, with unlabelled
// minor ticks between (plot.LogTicks labels powers of ten only).
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for m := 1.0; m < 10; m++ {
			v := m * math.Pow(10, e)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'g', 4, 64)
			}
			ts = append(ts, t)
		}
	}
	return ts
}
