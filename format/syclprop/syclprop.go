package syclprop

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// Type is the type of a property value: intel's runtime type code
// (sycl_property_type, spec sycl.md §9.1), which the .prop text also
// writes for the first two (§7.1).
type Type uint32

// Property value types.
const (
	Uint32    Type = 1 // stored inline (U32); the runtime keeps it in ValSize
	ByteArray Type = 2 // raw bytes, the 8-byte bit-count prefix included
	String    Type = 3 // a NUL-terminated string at run time; not in the .prop text
)

// Prop is one property.
type Prop struct {
	Name string
	Type Type
	// U32 is the value of a Uint32 property.
	U32 uint32
	// Bytes is the value of a ByteArray property, raw: the 8-byte
	// little-endian bit count, then the data (spec sycl.md §7.2); or the
	// text of a String property, without the terminating NUL.
	Bytes []byte
}

// Set is a named set (a category) of properties in insertion order.
type Set struct {
	Name  string
	Props []Prop
}

// Sets is an ordered list of property sets.
type Sets []Set

// Set returns the set named name, adding it at the end when missing.
func (ps *Sets) Set(name string) *Set {
	for i := range *ps {
		if (*ps)[i].Name == name {
			return &(*ps)[i]
		}
	}
	*ps = append(*ps, Set{Name: name})
	return &(*ps)[len(*ps)-1]
}

// AddU32 appends a Uint32 property.
func (s *Set) AddU32(name string, v uint32) {
	s.Props = append(s.Props, Prop{Name: name, Type: Uint32, U32: v})
}

// AddBytes appends a byte-array property of data with bits significant
// bits (the prefix is added here).
func (s *Set) AddBytes(name string, data []byte, bits uint64) {
	raw := binary.LittleEndian.AppendUint64(make([]byte, 0, 8+len(data)), bits)
	s.Props = append(s.Props, Prop{Name: name, Type: ByteArray, Bytes: append(raw, data...)})
}

// AddU32s appends a byte array of little-endian uint32 values.
func (s *Set) AddU32s(name string, v []uint32) {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	s.AddBytes(name, b, uint64(len(b))*8)
}

// AddU64s appends a byte array of little-endian uint64 values.
func (s *Set) AddU64s(name string, v []uint64) {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, x)
	}
	s.AddBytes(name, b, uint64(len(b))*8)
}

// Data returns a byte array's payload without the bit-count prefix.
func (p *Prop) Data() []byte {
	if len(p.Bytes) < 8 {
		return nil
	}
	return p.Bytes[8:]
}

const b64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// EncodeBase64 is intel's non-standard Base64 (spec §7.2): the standard
// alphabet, 6-bit fields taken least-significant bit first, no padding.
func EncodeBase64(dst, src []byte) []byte {
	T := b64Alphabet
	for len(src) >= 3 {
		b0, b1, b2 := src[0], src[1], src[2]
		dst = append(dst, T[b0&63], T[(b1<<2|b0>>6)&63], T[(b2<<4|b1>>4)&63], T[(b2>>2)&63])
		src = src[3:]
	}
	switch len(src) {
	case 1:
		dst = append(dst, T[src[0]&63], T[src[0]>>6])
	case 2:
		b0, b1 := src[0], src[1]
		dst = append(dst, T[b0&63], T[(b1<<2|b0>>6)&63], T[b1>>4])
	}
	return dst
}

// ErrBase64 reports an invalid intel Base64 sequence.
var ErrBase64 = errors.New("syclprop: invalid encoded sequence")

func b64val(c byte) (byte, bool) {
	switch {
	case c >= 'A' && c <= 'Z':
		return c - 'A', true
	case c >= 'a' && c <= 'z':
		return c - 'a' + 26, true
	case c >= '0' && c <= '9':
		return c - '0' + 52, true
	case c == '+':
		return 62, true
	case c == '/':
		return 63, true
	}
	return 0, false
}

// DecodeBase64 inverts EncodeBase64. A final group of one character is
// an error ("invalid encoded sequence length").
func DecodeBase64(dst []byte, src string) ([]byte, error) {
	if len(src)%4 == 1 {
		return nil, fmt.Errorf("%w length %d", ErrBase64, len(src))
	}
	var v [4]byte
	for i := 0; i < len(src); i += 4 {
		n := min(4, len(src)-i)
		for k := 0; k < n; k++ {
			x, ok := b64val(src[i+k])
			if !ok {
				return nil, fmt.Errorf("%w: bad character %q at %d", ErrBase64, src[i+k], i+k)
			}
			v[k] = x
		}
		dst = append(dst, v[0]|v[1]<<6)
		if n > 2 {
			dst = append(dst, v[1]>>2|v[2]<<4)
		}
		if n > 3 {
			dst = append(dst, v[2]>>4|v[3]<<2)
		}
	}
	return dst, nil
}

// WriteText writes the sets in intel's .prop text format. The format has
// no String type: such a property is written as "name=3|", which ParseText
// (as intel's reader) refuses.
func (ps Sets) WriteText(w io.Writer) error {
	var b []byte
	for _, s := range ps {
		b = append(b, '[')
		b = append(b, s.Name...)
		b = append(b, "]\n"...)
		for _, p := range s.Props {
			b = append(b, p.Name...)
			b = append(b, '=')
			b = strconv.AppendInt(b, int64(p.Type), 10)
			b = append(b, '|')
			switch p.Type {
			case Uint32:
				b = strconv.AppendUint(b, uint64(p.U32), 10)
			case ByteArray:
				b = EncodeBase64(b, p.Bytes)
			}
			b = append(b, '\n')
		}
	}
	_, err := w.Write(b)
	return err
}

// Text returns the .prop text.
func (ps Sets) Text() string {
	var b bytes.Buffer
	_ = ps.WriteText(&b)
	return b.String()
}

// ParseText reads intel's .prop text format (spec §7.1). Errors name the
// line.
func ParseText(r io.Reader) (Sets, error) {
	var ps Sets
	var cur *Set
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<30)
	line := 0
	for sc.Scan() {
		line++
		l := sc.Text()
		if l == "" {
			continue
		}
		if l[0] == '[' {
			e := strings.LastIndexByte(l, ']')
			if e < 1 {
				return nil, fmt.Errorf("line %d: category name not closed by ']'", line)
			}
			cur = ps.Set(l[1:e])
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("line %d: property category missing", line)
		}
		name, rest, ok := strings.Cut(l, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("line %d: expected name=type|value", line)
		}
		typ, val, ok := strings.Cut(rest, "|")
		if !ok || typ == "" || val == "" {
			return nil, fmt.Errorf("line %d: expected name=type|value", line)
		}
		t, err := strconv.Atoi(typ)
		if err != nil || t < 0 || t > 2 {
			return nil, fmt.Errorf("line %d: bad property type %q", line, typ)
		}
		switch Type(t) {
		case Uint32:
			n, ok := new(big.Int).SetString(val, 10)
			if !ok {
				return nil, fmt.Errorf("line %d: bad uint32 value %q", line, val)
			}
			cur.AddU32(name, uint32(n.Uint64()))
		case ByteArray:
			raw, err := DecodeBase64(nil, val)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			cur.Props = append(cur.Props, Prop{Name: name, Type: ByteArray, Bytes: raw})
		default:
			return nil, fmt.Errorf("line %d: unsupported property type 0", line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return ps, nil
}

// MarshalJSONSets writes LLVM's JSON property-set format (spec §7.7):
// sets and keys sorted, uint32 values as numbers, byte arrays as standard
// Base64 of the payload without the bit-count prefix.
func (ps Sets) MarshalJSONSets() ([]byte, error) {
	names := make([]string, 0, len(ps))
	byName := map[string]*Set{}
	for i := range ps {
		if _, dup := byName[ps[i].Name]; !dup {
			names = append(names, ps[i].Name)
		}
		byName[ps[i].Name] = &ps[i]
	}
	sort.Strings(names)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(n)
		b.Write(k)
		b.WriteString(":{")
		props := append([]Prop(nil), byName[n].Props...)
		sort.SliceStable(props, func(a, c int) bool { return props[a].Name < props[c].Name })
		for j, p := range props {
			if j > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(p.Name)
			b.Write(k)
			b.WriteByte(':')
			if p.Type == Uint32 {
				b.WriteString(strconv.FormatUint(uint64(p.U32), 10))
			} else {
				v, _ := json.Marshal(base64.StdEncoding.EncodeToString(p.Data()))
				b.Write(v)
			}
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
