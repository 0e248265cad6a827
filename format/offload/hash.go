package offload

import (
	"encoding/binary"
	"math/bits"
)

// This file ports the string hash that LLVM's DenseMap<StringRef, ...> uses
// (hash_value(StringRef) = hash_combine_range over the bytes, a CityHash
// variant) for builds with LLVM_ENABLE_ABI_BREAKING_CHECKS=0, where the
// execution seed is a fixed constant. Facts only; written from the published
// algorithm description.

const (
	hashSeed = 0xff51afd7ed558ccd
	hk0      = 0xc3a5c85c97cb3127
	hk1      = 0xb492b66fbe98f273
	hk2      = 0x9ae16a3b2f90404f
	hk3      = 0xc949d7c7509e6557
)

func f64(s string, i int) uint64 { return binary.LittleEndian.Uint64([]byte(s[i : i+8])) }
func f32(s string, i int) uint64 { return uint64(binary.LittleEndian.Uint32([]byte(s[i : i+4]))) }

func rotr(v uint64, n int) uint64 { return bits.RotateLeft64(v, -n) }

func shiftMix(v uint64) uint64 { return v ^ (v >> 47) }

func hash16(lo, hi uint64) uint64 {
	const mul = 0x9ddfea08eb382d69
	a := (lo ^ hi) * mul
	a ^= a >> 47
	b := (hi ^ a) * mul
	b ^= b >> 47
	return b * mul
}

func hashShort(s string, seed uint64) uint64 {
	n := len(s)
	switch {
	case n == 0:
		return hk2 ^ seed
	case n <= 3:
		a, b, c := uint32(s[0]), uint32(s[n>>1]), uint32(s[n-1])
		y := a + b<<8
		z := uint32(n) + c<<2
		return shiftMix(uint64(y)*hk2^uint64(z)*hk3^seed) * hk2
	case n <= 8:
		a := f32(s, 0)
		return hash16(uint64(n)+a<<3, seed^f32(s, n-4))
	case n <= 16:
		a := f64(s, 0)
		b := f64(s, n-8)
		return hash16(seed^a, rotr(b+uint64(n), n%64)) ^ b
	case n <= 32:
		a := f64(s, 0) * hk1
		b := f64(s, 8)
		c := f64(s, n-8) * hk2
		d := f64(s, n-16) * hk0
		return hash16(rotr(a-b, 43)+rotr(c^seed, 30)+d, a+rotr(b^hk3, 20)-c+uint64(n)+seed)
	}
	// 33..64
	z := f64(s, 24)
	a := f64(s, 0) + (uint64(n)+f64(s, n-16))*hk0
	b := rotr(a+z, 52)
	c := rotr(a, 37)
	a += f64(s, 8)
	c += rotr(a, 7)
	a += f64(s, 16)
	vf := a + z
	vs := b + rotr(a, 31) + c
	a = f64(s, 16) + f64(s, n-32)
	z = f64(s, n-8)
	b = rotr(a+z, 52)
	c = rotr(a, 37)
	a += f64(s, n-24)
	c += rotr(a, 7)
	a += f64(s, n-16)
	wf := a + z
	ws := b + rotr(a, 31) + c
	r := shiftMix((vf+ws)*hk2 + (wf+vs)*hk0)
	return shiftMix((seed^(r*hk0))+vs) * hk2
}

// hashState is the 56-byte running state used for inputs over 64 bytes.
type hashState struct{ h0, h1, h2, h3, h4, h5, h6 uint64 }

func newHashState(s string, seed uint64) hashState {
	st := hashState{
		h0: 0,
		h1: seed,
		h2: hash16(seed, hk1),
		h3: rotr(seed^hk1, 49),
		h4: seed * hk1,
		h5: shiftMix(seed),
	}
	st.h6 = hash16(st.h4, st.h5)
	st.mix(s)
	return st
}

func mix32(s string, a, b *uint64) {
	*a += f64(s, 0)
	c := f64(s, 24)
	*b = rotr(*b+*a+c, 21)
	d := *a
	*a += f64(s, 8) + f64(s, 16)
	*b += rotr(*a, 44) + d
	*a += c
}

// mix folds in the 64 bytes at s[0:64].
func (st *hashState) mix(s string) {
	st.h0 = rotr(st.h0+st.h1+st.h3+f64(s, 8), 37) * hk1
	st.h1 = rotr(st.h1+st.h4+f64(s, 48), 42) * hk1
	st.h0 ^= st.h6
	st.h1 += st.h3 + f64(s, 40)
	st.h2 = rotr(st.h2+st.h5, 33) * hk1
	st.h3 = st.h4 * hk1
	st.h4 = st.h0 + st.h5
	mix32(s, &st.h3, &st.h4)
	st.h5 = st.h2 + st.h6
	st.h6 = st.h1 + f64(s, 16)
	mix32(s[32:], &st.h5, &st.h6)
	st.h0, st.h2 = st.h2, st.h0
}

func (st *hashState) finalize(n uint64) uint64 {
	return hash16(hash16(st.h3, st.h5)+shiftMix(st.h1)*hk1+st.h2,
		hash16(st.h4, st.h6)+shiftMix(n)*hk1+st.h0)
}

// llvmHash64 is LLVM's hash_value(StringRef) with the fixed seed.
func llvmHash64(s string) uint64 {
	n := len(s)
	if n <= 64 {
		return hashShort(s, hashSeed)
	}
	st := newHashState(s[:64], hashSeed)
	end := n &^ 63
	for i := 64; i < end; i += 64 {
		st.mix(s[i : i+64])
	}
	if n&63 != 0 {
		st.mix(s[n-64:])
	}
	return st.finalize(uint64(n))
}

// LLVMStringHash returns the low 32 bits of LLVM's hash_value(StringRef)
// with the fixed seed 0xff51afd7ed558ccd (LLVM built with
// LLVM_ENABLE_ABI_BREAKING_CHECKS=0, as Debian's packages are). This is the
// value DenseMapInfo<StringRef>::getHashValue yields and so determines the
// packager's DenseMap bucket order.
func LLVMStringHash(s string) uint32 { return uint32(llvmHash64(s)) }
