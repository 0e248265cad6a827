package offload

import (
	"strings"

	"github.com/offload-kit/offload-kit/format"
)

// ParseImageArg splits one --image value the way llvm-offload-binary does:
// on ',' first, then each piece at its first '='. A piece without '=' gives
// the key = piece and the value "". The empty string yields one piece with an
// empty key (llvm::split semantics). Repeated keys are returned as they
// appear; PackagerOrder merges them.
func ParseImageArg(s string) []KV {
	pieces := strings.Split(s, ",")
	out := make([]KV, 0, len(pieces))
	for _, p := range pieces {
		k, v, _ := strings.Cut(p, "=")
		out = append(out, KV{Key: k, Value: v})
	}
	return out
}

// denseMap models llvm::DenseMap<StringRef, StringRef> as LLVM 22 grows and
// probes it (no erasures, so no tombstones). Only bucket positions matter.
type denseMap struct {
	buckets []int // index into keys, -1 = empty
	keys    []KV
}

func (m *denseMap) lookup(key string) (bucket int, found bool) {
	mask := len(m.buckets) - 1
	b := int(LLVMStringHash(key)) & mask
	for probe := 1; ; probe++ {
		idx := m.buckets[b]
		if idx < 0 {
			return b, false
		}
		if m.keys[idx].Key == key {
			return b, true
		}
		b = (b + probe) & mask
	}
}

func (m *denseMap) grow(n int) {
	old := m.buckets
	m.buckets = make([]int, n)
	for i := range m.buckets {
		m.buckets[i] = -1
	}
	for _, idx := range old {
		if idx >= 0 {
			b, _ := m.lookup(m.keys[idx].Key)
			m.buckets[b] = idx
		}
	}
}

// insert adds key with value, or joins value onto an existing key with ','.
func (m *denseMap) insert(key, value string) {
	if len(m.buckets) == 0 {
		m.grow(64)
	}
	b, found := m.lookup(key)
	if found {
		kv := &m.keys[m.buckets[b]]
		kv.Value = kv.Value + "," + value
		return
	}
	// DenseMap grows before inserting when the new entry count reaches 3/4
	// of the buckets, then looks the bucket up again in the new table.
	if (len(m.keys)+1)*4 >= len(m.buckets)*3 {
		m.grow(len(m.buckets) * 2)
		b, _ = m.lookup(key)
	}
	m.keys = append(m.keys, KV{Key: key, Value: value})
	m.buckets[b] = len(m.keys) - 1
}

// PackagerOrder returns the distinct keys of args (parsed --image pieces in
// command-line order, including "file" and "kind") in the iteration order of
// the DenseMap that llvm-offload-binary 22.1.8 builds from them; values of
// repeated keys are joined with ','. Callers drop "file" and "kind".
func PackagerOrder(args []KV) []KV {
	var m denseMap
	for _, kv := range args {
		m.insert(kv.Key, kv.Value)
	}
	out := make([]KV, 0, len(m.keys))
	for _, idx := range m.buckets {
		if idx >= 0 {
			out = append(out, m.keys[idx])
		}
	}
	return out
}

// ImageKindFor chooses the image kind the packager records for an input
// file: IMG_Bitcode when head starts with the raw or wrapper bitcode magic,
// otherwise the kind named by the extension after the last '.' of the file
// name's last path component (LLVM 22.1.8's getImageKind; "spv" is
// IMG_None there), and IMG_None when there is no extension.
func ImageKindFor(name string, head []byte) format.ImageKind {
	if format.IsBitcode(head) {
		return format.ImgBitcode
	}
	base := name
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	if base == "." || base == ".." {
		return format.ImgNone
	}
	i := strings.LastIndexByte(base, '.')
	if i < 0 {
		return format.ImgNone
	}
	return format.ImageKindFromExt(base[i+1:])
}
