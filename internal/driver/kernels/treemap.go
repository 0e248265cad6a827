package kernels

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
)

// treeNode is the tree the page draws: file → arch → template family →
// function. K is the colour key: the code kind for archs (machine code,
// PTX, SPIR-V, bitcode) and files (their largest arch's), the family
// below.
type treeNode struct {
	Name     string      `json:"n"`
	Size     int64       `json:"s"`
	Key      string      `json:"k,omitempty"`
	Children []*treeNode `json:"c,omitempty"`

	index map[string]*treeNode
}

func (t *treeNode) child(name, key string) *treeNode {
	if c := t.index[name]; c != nil {
		return c
	}
	if t.index == nil {
		t.index = map[string]*treeNode{}
	}
	c := &treeNode{Name: name, Key: key}
	t.index[name] = c
	t.Children = append(t.Children, c)
	return c
}

// kindKey is the colour key of an image's code: what its bytes are.
func kindKey(img *Image) string {
	switch img.CodeKind {
	case "amdgpu":
		return "AMDGPU ISA"
	case "cubin":
		return "NVIDIA SASS"
	case "host-elf":
		return "host code"
	case "ptx":
		return "PTX"
	case "spirv":
		return "SPIR-V"
	case "bitcode":
		return "LLVM bitcode"
	}
	return "not parsed"
}

// treemapTree sizes leaves by function bytes. The images of one file and
// arch share a box (a library's hundred bundles are one box per arch);
// PTX and other IR get a box of their own beside the machine code of the
// same arch. An image with no listed functions is one leaf of its stored
// size.
func treemapTree(rep *Report) *treeNode {
	root := &treeNode{Name: "all"}
	for _, f := range rep.Files {
		fn := root.child(f.Path, "")
		for i := range f.Images {
			img := &f.Images[i]
			kind := kindKey(img)
			name := arch(img)
			if img.CodeClass == classIR || img.CodeClass == "" {
				name += " · " + kind
			}
			an := fn.child(name, kind)
			if len(img.Functions) == 0 {
				an.child(img.Object+": "+img.Container, kind).Size += img.Size
				continue
			}
			for _, k := range img.Functions {
				an.child(k.Family, k.Family).child(k.Demangled, k.Family).Size += k.Size
			}
		}
	}
	var sum func(t *treeNode, depth int) int64
	sum = func(t *treeNode, depth int) int64 {
		for i, c := range t.Children {
			t.Size += sum(c, depth+1)
			// A family (depth 3) of one function is that function.
			if depth == 2 && len(c.Children) == 1 && len(c.Children[0].Children) == 0 {
				t.Children[i] = c.Children[0]
			}
		}
		sort.SliceStable(t.Children, func(i, j int) bool { return t.Children[i].Size > t.Children[j].Size })
		if depth == 1 && len(t.Children) > 0 {
			t.Key = t.Children[0].Key // a file: the code kind of its largest arch
		}
		return t.Size
	}
	sum(root, 0)
	return root
}

// treemapHTML is a self-contained page (no network resources): the tree
// as JSON and a script that lays it out (squarified) as SVG rectangles
// filling the window, drawn again when the window is resized. After
// drawing, the script sets data-rendered="ok" on <body> (and
// data-overflow, the number of labels wider or taller than their box:
// 0); a script error sets data-error instead. A URL fragment #zoom=a/b/c
// opens the page zoomed to that path of names below the top. When
// nothing has a size the page says so instead of drawing.
func treemapHTML(rep *Report) ([]byte, error) {
	data, err := json.Marshal(treemapTree(rep))
	if err != nil {
		return nil, err
	}
	type total struct {
		Arch    string `json:"a"`
		Machine int64  `json:"m"`
		IR      int64  `json:"i"`
	}
	totals := []total{}
	for _, t := range rep.Totals.ByArch {
		totals = append(totals, total{t.Key, t.Machine, t.IR})
	}
	tdata, err := json.Marshal(totals)
	if err != nil {
		return nil, err
	}
	// Keep "</script>" out of the embedded JSON.
	data = bytes.ReplaceAll(data, []byte("</"), []byte(`<\/`))
	tdata = bytes.ReplaceAll(tdata, []byte("</"), []byte(`<\/`))
	page := strings.Replace(treemapPage, "/*DATA*/null", string(data), 1)
	return []byte(strings.Replace(page, "/*TOTALS*/null", string(tdata), 1)), nil
}

const treemapPage = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>offload-packager kernels: treemap</title>
<style>
html,body{height:100%;margin:0}
body{font:12px sans-serif;display:flex;flex-direction:column}
#head{padding:6px 8px 0 8px}
#crumbs{margin:4px 0}#crumbs a{cursor:pointer;color:#06c;margin-right:4px}
#legend{margin:2px 0 4px 0;line-height:18px}
#totals{margin:4px 0}#totals td{padding:0 12px 0 0;text-align:right}#totals td:first-child{text-align:left}
#legend span{display:inline-block;margin-right:12px;white-space:nowrap}
#legend i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:-1px}
#box{flex:1;min-height:0;margin:0 8px 8px 8px;position:relative}
#map{display:block;width:100%;height:100%}
#message{padding:40px;font-size:16px;color:#555}
svg text{pointer-events:none;font-size:11px;fill:#111}
rect{stroke:#fff;stroke-width:1px}
</style></head>
<body>
<div id="head">
<div>Device code bytes by file → arch → template family → function. Click a box to zoom; click the path to go back.</div>
<details id="totals"><summary></summary><table></table></details>
<div id="crumbs"></div>
<div id="legend"></div>
</div>
<div id="box"><svg id="map" xmlns="http://www.w3.org/2000/svg" preserveAspectRatio="none"></svg></div>
<script>
"use strict";
window.onerror = function(msg){ document.body.setAttribute("data-error", String(msg)); };
const tree = /*DATA*/null;
const totals = /*TOTALS*/null;
const NS = "http://www.w3.org/2000/svg", NBSP = "\u00a0";
const palette = ["#4e79a7","#f28e2b","#e15759","#76b7b2","#59a14f","#edc948","#b07aa1","#ff9da7","#9c755f","#bab0ac","#8cd17d","#b6992d","#499894","#86bcb6","#d37295","#fabfd2"];
const kindColour = {"AMDGPU ISA":"#4e79a7","NVIDIA SASS":"#59a14f","host code":"#9c755f","PTX":"#f28e2b","SPIR-V":"#b07aa1","LLVM bitcode":"#e15759","not parsed":"#bab0ac"};
// A size with a non-breaking space between number and unit: one token.
function fmt(n){ let v = n + NBSP + "B"; if(n>=1<<30) v = (n/(1<<30)).toFixed(2)+NBSP+"GiB"; else if(n>=1<<20) v = (n/(1<<20)).toFixed(1)+NBSP+"MiB"; else if(n>=1024) v = (n/1024).toFixed(1)+NBSP+"KiB"; return v; }
function colourOf(key, keys){ if(key in kindColour) return kindColour[key]; const i = keys.indexOf(key); return i >= 0 && i < palette.length ? palette[i] : "#cfcfcf"; }
// squarify lays out children (sorted by size) in the rectangle.
function squarify(items, x, y, w, h, out){
  items = items.filter(c => c.s > 0).sort((a,b) => b.s - a.s);
  let total = items.reduce((a,c) => a + c.s, 0);
  while(items.length && w > 0 && h > 0){
    const side = Math.min(w, h), scale = (w*h)/total;
    let row = [], best = Infinity, rowSum = 0;
    for(const c of items){
      const s = rowSum + c.s, area = s*scale, len = area/side;
      let worst = 0;
      for(const r of row.concat([c])){ const a = r.s*scale, l = a/len; worst = Math.max(worst, Math.max(l/len, len/l)); }
      if(worst > best) break;
      best = worst; row.push(c); rowSum = s;
    }
    items = items.slice(row.length);
    const len = rowSum*scale/side;
    let off = 0;
    for(const r of row){
      const l = r.s*scale/len;
      if(w >= h) out.push([r, x, y+off, len, l]); else out.push([r, x+off, y, l, len]);
      off += l;
    }
    if(w >= h){ x += len; w -= len; } else { y += len; h -= len; }
    total -= rowSum;
  }
  return out;
}
// wrap breaks a label into at most 'lines' lines of at most 'maxc'
// characters, between words; a word longer than a line (a C++ name) is
// cut where cutAt says, never inside a number, and the size token
// "(1.8 MiB)" is never cut: it ends the last line, the name before it
// shortened with "…" to make room. null when not even the size fits.
function wrap(name, size, maxc, lines){
  const sizeTok = "(" + size + ")";
  if(sizeTok.length > maxc) return null;
  const words = name.split(" ").filter(w => w.length);
  const out = [];
  let cur = "";
  for(let i = 0; i < words.length; i++){
    let w = words[i];
    while(w.length > maxc){ // a word longer than a line: cut it after "::", ",", "<" or "_"
      if(cur){ out.push(cur); cur = ""; }
      let cut = cutAt(w, maxc);
      out.push(w.slice(0, cut)); w = w.slice(cut);
    }
    if(!cur) cur = w; else if(cur.length + 1 + w.length <= maxc) cur += " " + w; else { out.push(cur); cur = w; }
  }
  if(cur) out.push(cur);
  // Append the size to the last line, or a line of its own.
  if(out.length && out[out.length-1].length + 1 + sizeTok.length <= maxc) out[out.length-1] += " " + sizeTok; else out.push(sizeTok);
  if(out.length <= lines) return out;
  // Too many lines: keep lines-1 of the name (the last shortened with
  // "…") and the size.
  const keep = out.slice(0, Math.max(lines - 1, 0));
  if(keep.length){ let l = keep[keep.length-1]; if(l.length >= maxc) l = l.slice(0, maxc - 1); keep[keep.length-1] = l + "…"; }
  const last = lines === 1 ? null : sizeTok;
  if(last === null){ // one line: as much of the name as fits, then the size
    const room = maxc - sizeTok.length - 2;
    return room >= 1 ? [name.slice(0, room) + "… " + sizeTok] : [sizeTok];
  }
  keep.push(last);
  return keep;
}
// cutAt is where to cut a word longer than maxc: after the last "::",
// ",", "<", "(" or "_" that fits, else at maxc, moved back so as not to
// split a number.
function cutAt(w, maxc){
  for(let i = maxc; i > maxc/3; i--){
    const c = w[i-1];
    if(c === ":" && w[i-2] === ":" || c === "," || c === "<" || c === "(" || c === "_") return i;
  }
  let i = maxc;
  while(i > 1 && /[0-9.]/.test(w[i-1]) && /[0-9.]/.test(w[i])) i--;
  return i;
}
let current = tree, currentPath = [tree];
function legend(kids){
  const el = document.getElementById("legend");
  el.textContent = "";
  const keys = [];
  for(const c of kids) if(c.k && keys.indexOf(c.k) < 0 && c.s > 0) keys.push(c.k);
  const famKeys = keys.filter(k => !(k in kindColour));
  const what = famKeys.length ? "Colour: template family" : "Colour: code kind";
  const t = document.createElement("span"); t.textContent = what + ":"; el.appendChild(t);
  keys.slice(0, 17).forEach(k => {
    const s = document.createElement("span"), i = document.createElement("i");
    i.style.background = colourOf(k, famKeys); s.appendChild(i); s.appendChild(document.createTextNode(k.length > 60 ? k.slice(0, 59) + "…" : k));
    el.appendChild(s);
  });
  if(keys.length > 17){ const s = document.createElement("span"); s.textContent = "… " + (keys.length - 17) + " more (grey)"; el.appendChild(s); }
  return famKeys;
}
function draw(node, path){
  current = node; currentPath = path;
  const svg = document.getElementById("map"), box = document.getElementById("box");
  while(svg.firstChild) svg.removeChild(svg.firstChild);
  const crumbs = document.getElementById("crumbs");
  crumbs.textContent = "";
  path.forEach((p, i) => { const a = document.createElement("a"); a.textContent = (i ? "› " : "") + p.n; a.onclick = () => draw(p, path.slice(0, i+1)); crumbs.appendChild(a); });
  const W = Math.max(Math.floor(box.clientWidth), 1), H = Math.max(Math.floor(box.clientHeight), 1);
  svg.setAttribute("viewBox", "0 0 " + W + " " + H);
  svg.setAttribute("data-size", W + "x" + H);
  document.body.setAttribute("data-viewport", window.innerWidth + "x" + window.innerHeight + "+" + Math.round(box.getBoundingClientRect().top));
  const kids = node.c && node.c.length ? node.c : [node];
  const famKeys = legend(kids);
  let overflow = 0;
  squarify(kids, 0, 0, W, H, []).forEach(([c, x, y, w, h]) => {
    const g = document.createElementNS(NS, "g");
    const r = document.createElementNS(NS, "rect");
    r.setAttribute("x", x); r.setAttribute("y", y); r.setAttribute("width", Math.max(w, 0)); r.setAttribute("height", Math.max(h, 0));
    r.setAttribute("fill", colourOf(c.k || "", famKeys));
    const t = document.createElementNS(NS, "title"); t.textContent = c.n + ": " + fmt(c.s); r.appendChild(t);
    if(c.c && c.c.length) r.onclick = () => draw(c, path.concat([c]));
    g.appendChild(r);
    if(w > 30 && h > 14){
      const maxc = Math.floor((w - 6) / 6.6), lines = Math.floor((h - 4) / 13);
      const parts = lines >= 1 ? wrap(c.n, fmt(c.s), maxc, lines) : null;
      if(parts){
        const tx = document.createElementNS(NS, "text");
        parts.forEach((part, k) => {
          const ts = document.createElementNS(NS, "tspan");
          ts.setAttribute("x", x + 3); ts.setAttribute("y", y + 12 + 13*k);
          ts.textContent = part;
          tx.appendChild(ts);
        });
        g.appendChild(tx);
        svg.appendChild(g);
        const bb = tx.getBBox();
        if(bb.x + bb.width > x + w + 0.5 || bb.y + bb.height > y + h + 0.5){ overflow++; tx.setAttribute("data-overflow", "1"); }
        return;
      }
    }
    svg.appendChild(g);
  });
  document.body.setAttribute("data-overflow", String(overflow));
}
function message(text){
  const box = document.getElementById("box");
  box.textContent = "";
  const m = document.createElement("div"); m.id = "message"; m.textContent = text; box.appendChild(m);
}
// Totals per arch: machine code and PTX/IR apart, as in the text report.
(function(){
  const el = document.getElementById("totals");
  let m = 0, ir = 0;
  for(const t of totals || []){ m += t.m; ir += t.i; }
  el.querySelector("summary").textContent = "Totals: machine code " + fmt(m) + ", PTX/IR " + fmt(ir) + " (" + (totals || []).length + " arch(s); click for each)";
  const tb = el.querySelector("table");
  const row = cells => { const tr = document.createElement("tr"); cells.forEach(c => { const td = document.createElement("td"); td.textContent = c; tr.appendChild(td); }); tb.appendChild(tr); };
  row(["ARCH", "MACHINE", "PTX/IR"]);
  for(const t of totals || []) row([t.a, String(t.m), String(t.i)]);
})();
if(!tree || !(tree.s > 0)){
  message("Nothing to draw: no image or function in this report has a known size" + (tree && tree.c ? " (" + tree.c.length + " file(s) read)." : "."));
} else {
  // Start where the URL's #zoom=a/b/c says (names below the top, each
  // URI-encoded), else below levels with a single child (one file).
  let start = tree, path = [tree];
  const zoom = /^#zoom=(.*)$/.exec(location.hash);
  if(zoom){
    for(const part of zoom[1].split("/")){
      const name = decodeURIComponent(part), next = (start.c || []).find(c => c.n === name);
      if(!next) throw new Error("zoom: no box named " + JSON.stringify(name) + " in " + JSON.stringify(start.n));
      start = next; path.push(start);
    }
  } else {
    while(start.c && start.c.length === 1 && start.c[0].c && start.c[0].c.length){ start = start.c[0]; path.push(start); }
  }
  draw(start, path);
  let pending = 0;
  window.addEventListener("resize", () => { cancelAnimationFrame(pending); pending = requestAnimationFrame(() => draw(current, currentPath)); });
}
document.body.setAttribute("data-rendered", "ok");
</script>
</body></html>
`
