// Package xxhash is the xxHash family: XXH64 (seed 0), streaming, and
// XXH3-64 over its pieces. The content checksum of a zstd frame is the low
// 32 bits of XXH64 (internal/zstdpipe); the kernels report (internal/driver/kernels) hashes
// function bodies with XXH64; LLVM's StringMap, whose order format/bundle
// reproduces, hashes with XXH3.
package xxhash

import (
	"encoding/binary"
	"math/bits"
)

// The XXH64 primes.
const (
	P1 uint64 = 11400714785074694791
	P2 uint64 = 14029467366897019727
	P3 uint64 = 1609587929392839161
	P4 uint64 = 9650029242287828579
	P5 uint64 = 2870177450012600261
)

const (
	xp1, xp2, xp3, xp4, xp5 = P1, P2, P3, P4, P5
)

// Digest is a streaming XXH64; call Reset before use.
type Digest struct {
	v     [4]uint64
	total uint64
	buf   [32]byte
	n     int
}

// Reset starts a new hash.
func (x *Digest) Reset() {
	p1, p2 := xp1, xp2 // wrapping arithmetic at run time
	x.v = [4]uint64{p1 + p2, p2, 0, 0 - p1}
	x.total = 0
	x.n = 0
}

func xround(acc, in uint64) uint64 {
	return bits.RotateLeft64(acc+in*xp2, 31) * xp1
}

func (x *Digest) stripes(p []byte) {
	v0, v1, v2, v3 := x.v[0], x.v[1], x.v[2], x.v[3]
	for ; len(p) >= 32; p = p[32:] {
		v0 = xround(v0, binary.LittleEndian.Uint64(p))
		v1 = xround(v1, binary.LittleEndian.Uint64(p[8:]))
		v2 = xround(v2, binary.LittleEndian.Uint64(p[16:]))
		v3 = xround(v3, binary.LittleEndian.Uint64(p[24:]))
	}
	x.v = [4]uint64{v0, v1, v2, v3}
}

// Write adds p.
func (x *Digest) Write(p []byte) {
	x.total += uint64(len(p))
	if x.n > 0 {
		k := copy(x.buf[x.n:], p)
		x.n += k
		p = p[k:]
		if x.n < 32 {
			return
		}
		x.stripes(x.buf[:])
		x.n = 0
	}
	full := len(p) &^ 31
	x.stripes(p[:full])
	x.n = copy(x.buf[:], p[full:])
}

// Sum64 is the hash of what was written.
func (x *Digest) Sum64() uint64 {
	var h uint64
	if x.total >= 32 {
		v := x.v
		h = bits.RotateLeft64(v[0], 1) + bits.RotateLeft64(v[1], 7) + bits.RotateLeft64(v[2], 12) + bits.RotateLeft64(v[3], 18)
		for _, vi := range v {
			h = (h^xround(0, vi))*xp1 + xp4
		}
	} else {
		h = xp5
	}
	h += x.total
	p := x.buf[:x.n]
	for ; len(p) >= 8; p = p[8:] {
		h ^= xround(0, binary.LittleEndian.Uint64(p))
		h = bits.RotateLeft64(h, 27)*xp1 + xp4
	}
	if len(p) >= 4 {
		h ^= uint64(binary.LittleEndian.Uint32(p)) * xp1
		h = bits.RotateLeft64(h, 23)*xp2 + xp3
		p = p[4:]
	}
	for _, b := range p {
		h ^= uint64(b) * xp5
		h = bits.RotateLeft64(h, 11) * xp1
	}
	return Avalanche(h)
}

// Avalanche is XXH64's final mix.
func Avalanche(h uint64) uint64 {
	h ^= h >> 33
	h *= P2
	h ^= h >> 29
	h *= P3
	h ^= h >> 32
	return h
}
