package packager

import (
	"bytes"
	"encoding/json"
	"strings"
)

// treeNode is the tree the page draws: file → container → arch → function.
type treeNode struct {
	Name     string      `json:"n"`
	Size     int64       `json:"s"`
	Children []*treeNode `json:"c,omitempty"`
}

func (t *treeNode) child(name string) *treeNode {
	for _, c := range t.Children {
		if c.Name == name {
			return c
		}
	}
	c := &treeNode{Name: name}
	t.Children = append(t.Children, c)
	return c
}

// treemapTree sizes leaves by function bytes; an image with no listed
// functions is one leaf of its stored size.
func treemapTree(rep *KernelsReport) *treeNode {
	root := &treeNode{Name: "all"}
	for _, f := range rep.Files {
		fn := root.child(f.Path)
		for i := range f.Images {
			img := &f.Images[i]
			container, _, _ := strings.Cut(img.Container, " entry")
			if container == img.Container {
				container = img.Object
			}
			an := fn.child(container).child(arch(img))
			if len(img.Functions) == 0 {
				an.child(img.Container + " (" + orDefault(img.CodeKind, img.ImageKind) + ")").Size += img.Size
				continue
			}
			for _, k := range img.Functions {
				an.child(k.Demangled).Size += k.Size
			}
		}
	}
	var sum func(t *treeNode) int64
	sum = func(t *treeNode) int64 {
		for _, c := range t.Children {
			t.Size += sum(c)
		}
		return t.Size
	}
	sum(root)
	return root
}

// treemapHTML is a self-contained page (no network resources): the tree
// as JSON and a script that lays it out (squarified) as SVG rectangles.
// After drawing, the script sets data-rendered="ok" on <body>; a script
// error sets data-error instead. A URL fragment #zoom=a/b/c opens the
// page zoomed to that path of names below the top.
func treemapHTML(rep *KernelsReport) ([]byte, error) {
	data, err := json.Marshal(treemapTree(rep))
	if err != nil {
		return nil, err
	}
	// Keep "</script>" out of the embedded JSON.
	data = bytes.ReplaceAll(data, []byte("</"), []byte(`<\/`))
	return []byte(strings.Replace(treemapPage, "/*DATA*/null", string(data), 1)), nil
}

const treemapPage = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>offload-packager kernels: treemap</title>
<style>
body{font:12px sans-serif;margin:8px}
#crumbs{margin:4px 0}#crumbs a{cursor:pointer;color:#06c;margin-right:4px}
svg text{pointer-events:none;font-size:11px}
rect{stroke:#fff;stroke-width:1px}
</style></head>
<body>
<div>Device code bytes by file → container → arch → function. Click a box to zoom; click the path to go back.</div>
<div id="crumbs"></div>
<svg id="map" xmlns="http://www.w3.org/2000/svg" width="1200" height="700"></svg>
<script>
"use strict";
window.onerror = function(msg){ document.body.setAttribute("data-error", String(msg)); };
const tree = /*DATA*/null;
const W = 1200, H = 700, NS = "http://www.w3.org/2000/svg";
const palette = ["#4e79a7","#f28e2b","#e15759","#76b7b2","#59a14f","#edc948","#b07aa1","#ff9da7","#9c755f","#bab0ac"];
function fmt(n){ if(n>=1<<30) return (n/(1<<30)).toFixed(2)+" GiB"; if(n>=1<<20) return (n/(1<<20)).toFixed(1)+" MiB"; if(n>=1024) return (n/1024).toFixed(1)+" KiB"; return n+" B"; }
// squarify lays out children (sorted by size) in the rectangle.
function squarify(items, x, y, w, h, out){
  items = items.filter(c => c.s > 0).sort((a,b) => b.s - a.s);
  let total = items.reduce((a,c) => a + c.s, 0);
  while(items.length){
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
function draw(node, path){
  const svg = document.getElementById("map");
  while(svg.firstChild) svg.removeChild(svg.firstChild);
  const crumbs = document.getElementById("crumbs");
  crumbs.textContent = "";
  path.forEach((p, i) => { const a = document.createElement("a"); a.textContent = (i ? "› " : "") + p.n; a.onclick = () => draw(p, path.slice(0, i+1)); crumbs.appendChild(a); });
  const kids = node.c && node.c.length ? node.c : [node];
  squarify(kids, 0, 0, W, H, []).forEach(([c, x, y, w, h], i) => {
    const g = document.createElementNS(NS, "g");
    const r = document.createElementNS(NS, "rect");
    r.setAttribute("x", x); r.setAttribute("y", y); r.setAttribute("width", Math.max(w, 0)); r.setAttribute("height", Math.max(h, 0));
    r.setAttribute("fill", palette[i % palette.length]);
    const t = document.createElementNS(NS, "title"); t.textContent = c.n + ": " + fmt(c.s); r.appendChild(t);
    if(c.c && c.c.length) r.onclick = () => draw(c, path.concat([c]));
    g.appendChild(r);
    if(w > 40 && h > 14){
      // The label, wrapped over as many lines as the box has room for.
      const tx = document.createElementNS(NS, "text");
      const maxc = Math.max(Math.floor((w - 6) / 6.5), 1), lines = Math.max(Math.floor((h - 4) / 13), 1);
      const label = c.n + " (" + fmt(c.s) + ")";
      for(let k = 0, p = 0; k < lines && p < label.length; k++, p += maxc){
        let part = label.slice(p, p + maxc);
        if(k === lines - 1 && p + maxc < label.length) part = part.slice(0, Math.max(maxc - 1, 1)) + "…";
        const ts = document.createElementNS(NS, "tspan");
        ts.setAttribute("x", x + 3); ts.setAttribute("y", y + 12 + 13*k);
        ts.textContent = part;
        tx.appendChild(ts);
      }
      g.appendChild(tx);
    }
    svg.appendChild(g);
  });
}
// Start where the URL's #zoom=a/b/c says (names below the top, each
// URI-encoded), else below levels with a single child (one file, one
// container). A name that is not there is a page error.
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
document.body.setAttribute("data-rendered", "ok");
</script>
</body></html>
`
