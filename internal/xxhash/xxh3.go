package xxhash

import (
	"encoding/binary"
	"math/bits"
)

// XXH3 is XXH3-64 with seed 0 and the default secret, the hash LLVM's
// StringMap uses (llvm::xxh3_64bits). format/bundle uses it so that the
// order in which it visits bundle entries and targets matches the
// reference tool, whose containers iterate in hash-bucket order.

var xxhSecret = [192]byte{
	0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
	0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
	0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
	0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
	0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
	0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
	0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
	0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
	0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
	0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
	0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
	0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
}

const (
	xp32a = 0x9E3779B1
	xp32b = 0x85EBCA77
	xp32c = 0xC2B2AE3D
	xp64a = P1
	xp64b = P2
	xp64c = P3
	xp64d = P4
	xp64e = P5
	xmx1  = 0x165667919E3779F9
	xmx2  = 0x9FB21C651E98DF25
)

func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }
func le32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }

func fold64(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

func xxh3Avalanche(h uint64) uint64 {
	h ^= h >> 37
	h *= xmx1
	h ^= h >> 32
	return h
}

func mix16(in, sec []byte) uint64 {
	return fold64(le64(in)^le64(sec), le64(in[8:])^le64(sec[8:]))
}

// XXH3 returns the XXH3-64 hash of in (seed 0, default secret).
func XXH3(in []byte) uint64 {
	s := xxhSecret[:]
	n := len(in)
	switch {
	case n == 0:
		return Avalanche(le64(s[56:]) ^ le64(s[64:]))
	case n <= 3:
		c := uint32(in[0])<<16 | uint32(in[n>>1])<<24 | uint32(in[n-1]) | uint32(n)<<8
		flip := uint64(le32(s) ^ le32(s[4:]))
		return Avalanche(uint64(c) ^ flip)
	case n <= 8:
		a := uint64(le32(in[n-4:])) | uint64(le32(in))<<32
		acc := (le64(s[8:]) ^ le64(s[16:])) ^ a
		acc ^= bits.RotateLeft64(acc, 49) ^ bits.RotateLeft64(acc, 24)
		acc *= xmx2
		acc ^= (acc >> 35) + uint64(n)
		acc *= xmx2
		return acc ^ (acc >> 28)
	case n <= 16:
		lo := (le64(s[24:]) ^ le64(s[32:])) ^ le64(in)
		hi := (le64(s[40:]) ^ le64(s[48:])) ^ le64(in[n-8:])
		acc := uint64(n) + bits.ReverseBytes64(lo) + hi + fold64(lo, hi)
		return xxh3Avalanche(acc)
	case n <= 128:
		acc := uint64(n) * xp64a
		end := mix16(in[n-16:], s[16:])
		acc += mix16(in, s)
		if n > 32 {
			acc += mix16(in[16:], s[32:])
			end += mix16(in[n-32:], s[48:])
			if n > 64 {
				acc += mix16(in[32:], s[64:])
				end += mix16(in[n-48:], s[80:])
				if n > 96 {
					acc += mix16(in[48:], s[96:])
					end += mix16(in[n-64:], s[112:])
				}
			}
		}
		return xxh3Avalanche(acc + end)
	case n <= 240:
		acc := uint64(n) * xp64a
		for i := 0; i < 8; i++ {
			acc += mix16(in[16*i:], s[16*i:])
		}
		acc = xxh3Avalanche(acc)
		for i := 8; i < n/16; i++ {
			acc += mix16(in[16*i:], s[16*(i-8)+3:])
		}
		acc += mix16(in[n-16:], s[136-17:])
		return xxh3Avalanche(acc)
	}
	return xxh3Long(in)
}

func xxh3Stripe(acc *[8]uint64, in, sec []byte) {
	for i := 0; i < 8; i++ {
		v := le64(in[8*i:])
		k := v ^ le64(sec[8*i:])
		acc[i^1] += v
		acc[i] += uint64(uint32(k)) * (k >> 32)
	}
}

func xxh3Long(in []byte) uint64 {
	s := xxhSecret[:]
	n := len(in)
	const stripe = 64
	perBlock := (len(s) - stripe) / 8
	blockLen := stripe * perBlock
	blocks := (n - 1) / blockLen
	acc := [8]uint64{xp32c, xp64a, xp64b, xp64c, xp64d, xp32b, xp64e, xp32a}
	for b := 0; b < blocks; b++ {
		for k := 0; k < perBlock; k++ {
			xxh3Stripe(&acc, in[b*blockLen+k*stripe:], s[k*8:])
		}
		sc := s[len(s)-stripe:]
		for i := range acc {
			acc[i] ^= acc[i] >> 47
			acc[i] ^= le64(sc[8*i:])
			acc[i] *= xp32a
		}
	}
	last := (n - 1 - blockLen*blocks) / stripe
	for k := 0; k < last; k++ {
		xxh3Stripe(&acc, in[blocks*blockLen+k*stripe:], s[k*8:])
	}
	xxh3Stripe(&acc, in[n-stripe:], s[len(s)-stripe-7:])
	r := uint64(n) * xp64a
	key := s[11:]
	for i := 0; i < 4; i++ {
		r += fold64(acc[2*i]^le64(key[16*i:]), acc[2*i+1]^le64(key[16*i+8:]))
	}
	return xxh3Avalanche(r)
}
