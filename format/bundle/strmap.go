package bundle

import (
	"github.com/offload-kit/offload-kit/internal/release"
	"github.com/offload-kit/offload-kit/internal/xxhash"
)

// llvmOrder reproduces the iteration order of an llvm::StringMap holding
// the given keys, inserted in order (duplicates keep their first slot) with
// the keys in erased removed afterwards. The reference bundler keeps
// bundle entries and requested targets in StringMaps, so its -list output
// and its matching order follow bucket order, not input order.
type llvmMap struct {
	keys   []string // bucket -> key ("" with used=false is empty)
	used   []bool
	tomb   []bool
	hashes []uint32
	items  int
	tombs  int
	hash   release.StringHash // the release's StringMap hash (xxh3 from LLVM 17)
}

// stringMapHash is StringMapImpl's full hash of key in the given release
// flavour: xxh3_64bits (LLVM 17 and later) or djbHash with seed 0 (LLVM
// 16), truncated to 32 bits as the table stores it.
func stringMapHash(h release.StringHash, key string) uint32 {
	if h == release.HashDJB {
		var v uint32
		for i := 0; i < len(key); i++ {
			v = v<<5 + v + uint32(key[i])
		}
		return v
	}
	return uint32(xxhash.XXH3([]byte(key)))
}

func newLLVMMap() *llvmMap { return &llvmMap{} }

func (m *llvmMap) init(n int) {
	m.keys = make([]string, n)
	m.used = make([]bool, n)
	m.tomb = make([]bool, n)
	m.hashes = make([]uint32, n)
	m.items, m.tombs = 0, 0
}

// lookup returns the bucket for key and whether it already holds key.
func (m *llvmMap) lookup(key string) (int, bool) {
	if len(m.keys) == 0 {
		m.init(16)
	}
	h := stringMapHash(m.hash, key)
	mask := len(m.keys) - 1
	b := int(h) & mask
	probe := 1
	firstTomb := -1
	for {
		switch {
		case !m.used[b] && !m.tomb[b]:
			if firstTomb >= 0 {
				m.hashes[firstTomb] = h
				return firstTomb, false
			}
			m.hashes[b] = h
			return b, false
		case m.tomb[b]:
			if firstTomb < 0 {
				firstTomb = b
			}
		case m.hashes[b] == h && m.keys[b] == key:
			return b, true
		}
		b = (b + probe) & mask
		probe++
	}
}

// insert adds key if absent.
func (m *llvmMap) insert(key string) {
	b, found := m.lookup(key)
	if found {
		return
	}
	if m.tomb[b] {
		m.tombs--
		m.tomb[b] = false
	}
	m.used[b] = true
	m.keys[b] = key
	m.items++
	m.rehash()
}

func (m *llvmMap) rehash() {
	n := len(m.keys)
	var size int
	switch {
	case m.items*4 > n*3:
		size = n * 2
	case n-(m.items+m.tombs) <= n/8:
		size = n
	default:
		return
	}
	old := *m
	m.init(size)
	m.items = old.items
	m.hash = old.hash
	for i := 0; i < n; i++ {
		if !old.used[i] {
			continue
		}
		h := old.hashes[i]
		b := int(h) & (size - 1)
		for probe := 1; m.used[b]; probe++ {
			b = (b + probe) & (size - 1)
		}
		m.used[b] = true
		m.keys[b] = old.keys[i]
		m.hashes[b] = h
	}
}

// erase removes key, leaving a tombstone.
func (m *llvmMap) erase(key string) {
	if len(m.keys) == 0 {
		return
	}
	h := stringMapHash(m.hash, key)
	mask := len(m.keys) - 1
	b := int(h) & mask
	for probe := 1; m.used[b] || m.tomb[b]; probe++ {
		if m.used[b] && m.hashes[b] == h && m.keys[b] == key {
			m.used[b] = false
			m.tomb[b] = true
			m.keys[b] = ""
			m.items--
			m.tombs++
			return
		}
		b = (b + probe) & mask
	}
}

// ordered returns the keys in bucket order.
func (m *llvmMap) ordered() []string {
	var out []string
	for i, u := range m.used {
		if u {
			out = append(out, m.keys[i])
		}
	}
	return out
}

// LLVMOrder returns keys (deduplicated) in the order an llvm::StringMap
// built by inserting them one by one iterates over them.
func LLVMOrder(keys []string) []string { return LLVMOrderHash(keys, release.HashXXH3) }

// LLVMOrderHash is LLVMOrder for a release whose StringMap hashes with h
// (release.Profile.StringMapHash).
func LLVMOrderHash(keys []string, h release.StringHash) []string {
	m := newLLVMMap()
	m.hash = h
	for _, k := range keys {
		m.insert(k)
	}
	return m.ordered()
}

// OrderedSet is an llvm::StringMap-ordered key set supporting removal,
// for callers that must mimic the reference's worklist iteration.
type OrderedSet struct{ m llvmMap }

// NewOrderedSet is an empty set ordered as the StringMap of a release
// whose hash is h; the zero OrderedSet is LLVM 22's (xxh3).
func NewOrderedSet(h release.StringHash) *OrderedSet {
	s := &OrderedSet{}
	s.m.hash = h
	return s
}

// Insert adds key if it is absent.
func (s *OrderedSet) Insert(key string) { s.m.insert(key) }

// Erase removes key.
func (s *OrderedSet) Erase(key string) { s.m.erase(key) }

// Keys returns the keys in iteration order.
func (s *OrderedSet) Keys() []string { return s.m.ordered() }

// Len is the number of keys.
func (s *OrderedSet) Len() int { return s.m.items }
