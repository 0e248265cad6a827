package offload

import (
	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/release"
	"github.com/offload-kit/offload-kit/internal/xxhash"
)

// What differs between the releases that write OffloadBinaries
// (release.Profile; docs/bundle.md, "Releases").

// LegacyHIP is the offload kind number LLVM 16 to 19 give HIP images
// (OFK_HIP = 3 in their enum; LLVM 20 made the kinds a bit mask and HIP
// 4). No release writes 3 for anything else: up to 19 it is HIP, from 20
// the kinds are single bits (OpenMP 1, Cuda 2, HIP 4, SYCL 8) and the
// packager and clang write one of them per image, never the OpenMP|Cuda
// combination.
const LegacyHIP format.OffloadKind = 3

// CanonicalKind is the offload model an image's kind number names, in
// either numbering: LegacyHIP is format.OfkHIP, every other number is
// itself.
func CanonicalKind(k format.OffloadKind) format.OffloadKind {
	if k == LegacyHIP {
		return format.OfkHIP
	}
	return k
}

// Kind is the image's offload model whichever release wrote it
// (CanonicalKind of OffloadKind, the number as stored).
func (b *Binary) Kind() format.OffloadKind { return CanonicalKind(b.OffloadKind) }

// StringMapOrder returns kvs (distinct keys) in the iteration order of an
// llvm::StringMap<StringRef> filled with them in order, hashed with h: the
// order LLVM 16's OffloadBinary::write gives the strings of an image
// (release.Profile.OffloadBinaryStringMap), where OffloadingImage kept them
// in a StringMap. The table starts with 16 buckets, doubles when more than
// three quarters are used, and probes quadratically.
func StringMapOrder(kvs []KV, h release.StringHash) []KV {
	hash := func(s string) uint32 {
		if h == release.HashDJB {
			var v uint32
			for i := 0; i < len(s); i++ {
				v = v<<5 + v + uint32(s[i])
			}
			return v
		}
		return uint32(xxhash.XXH3([]byte(s)))
	}
	type bucket struct {
		used bool
		hash uint32
		kv   KV
	}
	table := make([]bucket, 16)
	items := 0
	place := func(t []bucket, b bucket) {
		mask := len(t) - 1
		i := int(b.hash) & mask
		for probe := 1; t[i].used; probe++ {
			i = (i + probe) & mask
		}
		t[i] = b
	}
	for _, kv := range kvs {
		b := bucket{used: true, hash: hash(kv.Key), kv: kv}
		dup := false
		mask := len(table) - 1
		for i, probe := int(b.hash)&mask, 1; table[i].used; i, probe = (i+probe)&mask, probe+1 {
			if table[i].hash == b.hash && table[i].kv.Key == kv.Key {
				table[i].kv.Value = kv.Value
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		place(table, b)
		items++
		if items*4 > len(table)*3 {
			grown := make([]bucket, 2*len(table))
			for _, old := range table {
				if old.used {
					place(grown, old)
				}
			}
			table = grown
		}
	}
	out := make([]KV, 0, items)
	for _, b := range table {
		if b.used {
			out = append(out, b.kv)
		}
	}
	return out
}
