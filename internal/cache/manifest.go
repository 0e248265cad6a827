package cache

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrCorrupt is wrapped by errors about cache contents that fail a format,
// size or hash check. Such entries are treated as misses.
var ErrCorrupt = errors.New("cache: corrupt entry")

// Manifest limits, checked when decoding untrusted (remote) manifests.
const (
	maxManifestSize = 4 << 20
	maxFiles        = 1024
	maxInlineOutput = 1 << 20 // stdout or stderr stored in a manifest
)

// worker starts ExecutedActionMetadata.worker; the binding of the entry to
// its key follows it: "offload-kit/cache/v2 key=<64 hex> mac=<64 hex>".
const worker = "offload-kit/cache/v2"

// macDomain separates entry MACs from every other use of the secret, and
// is the HMAC key when no secret is configured (the MAC is then a plain
// keyed digest that anyone can compute: it binds an entry to its key, but
// does not authenticate its writer).
const macDomain = "offload-kit/cache/entry/v2"

// manifest is the record stored under a key: the job's output files (by
// logical name and blob digest) and its captured stdout/stderr. It is
// serialised as an REAPI build.bazel.remote.execution.v2.ActionResult so
// that servers validating the action cache (bazel-remote) accept it:
//
//	ActionResult { repeated OutputFile output_files = 2; int32 exit_code = 4;
//	  bytes stdout_raw = 5; bytes stderr_raw = 7;
//	  ExecutedActionMetadata execution_metadata = 9; }
//	OutputFile   { string path = 1; Digest digest = 2; bool is_executable = 4; }
//	Digest       { string hash = 1; int64 size_bytes = 2; }
//	ExecutedActionMetadata { string worker = 1; }
type manifest struct {
	Files          []manifestFile // sorted by Name
	Stdout, Stderr []byte
	// Key and MAC bind the entry to the key it is stored under (see
	// [manifest.seal]); both are zero in an unsealed manifest.
	Key Key
	MAC [32]byte
}

// mac computes the entry's MAC: HMAC-SHA256 under secret (or macDomain when
// there is none) over the domain, the key and the canonical encoding of
// the entry's meaning (files, stdout, stderr). It is recomputed from the
// decoded fields, so any encoder's field order verifies.
func (m *manifest) mac(k Key, secret []byte) [32]byte {
	if len(secret) == 0 {
		secret = []byte(macDomain)
	}
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(macDomain))
	h.Write([]byte{0})
	h.Write(k[:])
	h.Write(m.marshalBody())
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// seal binds m to k and returns its encoding.
func (m *manifest) seal(k Key, secret []byte) []byte {
	m.Key, m.MAC = k, m.mac(k, secret)
	return m.marshal()
}

// verify checks that m was sealed for k (with secret). Every error wraps
// [ErrCorrupt].
func (m *manifest) verify(k Key, secret []byte) error {
	switch {
	case m.Key == (Key{}):
		return fmt.Errorf("entry is not bound to a key: %w", ErrCorrupt)
	case m.Key != k:
		return fmt.Errorf("entry belongs to key %s: %w", m.Key, ErrCorrupt)
	}
	want := m.mac(k, secret)
	if !hmac.Equal(want[:], m.MAC[:]) {
		return fmt.Errorf("entry fails its MAC check (another secret, or altered): %w", ErrCorrupt)
	}
	return nil
}

// openManifest decodes b and checks that it is an entry for k.
func openManifest(b []byte, k Key, secret []byte) (*manifest, error) {
	m, err := unmarshalManifest(b)
	if err != nil {
		return nil, err
	}
	if err := m.verify(k, secret); err != nil {
		return nil, err
	}
	return m, nil
}

type manifestFile struct {
	Name       string
	Hash       [32]byte
	Size       int64
	Executable bool
}

func (m *manifest) file(name string) (manifestFile, bool) {
	i := sort.Search(len(m.Files), func(i int) bool { return m.Files[i].Name >= name })
	if i < len(m.Files) && m.Files[i].Name == name {
		return m.Files[i], true
	}
	return manifestFile{}, false
}

// Protobuf wire types.
const (
	wireVarint = 0
	wireI64    = 1
	wireLen    = 2
	wireI32    = 5
)

func appendTag(b []byte, field, wire int) []byte {
	return binary.AppendUvarint(b, uint64(field)<<3|uint64(wire))
}

func appendBytesField(b []byte, field int, v []byte) []byte {
	b = appendTag(b, field, wireLen)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// marshal encodes the ActionResult: the body, then the metadata that
// carries the binding.
func (m *manifest) marshal() []byte {
	w := worker
	if m.Key != (Key{}) {
		w += " key=" + m.Key.String() + " mac=" + hex.EncodeToString(m.MAC[:])
	}
	return appendBytesField(m.marshalBody(), 9, appendBytesField(nil, 1, []byte(w)))
}

// marshalBody encodes output_files, stdout_raw and stderr_raw.
func (m *manifest) marshalBody() []byte {
	var b []byte
	for _, f := range m.Files {
		var d []byte
		d = appendBytesField(d, 1, []byte(hex.EncodeToString(f.Hash[:])))
		if f.Size != 0 {
			d = appendTag(d, 2, wireVarint)
			d = binary.AppendUvarint(d, uint64(f.Size))
		}
		var of []byte
		of = appendBytesField(of, 1, []byte(f.Name))
		of = appendBytesField(of, 2, d)
		if f.Executable {
			of = appendTag(of, 4, wireVarint)
			of = append(of, 1)
		}
		b = appendBytesField(b, 2, of)
	}
	if len(m.Stdout) > 0 {
		b = appendBytesField(b, 5, m.Stdout)
	}
	if len(m.Stderr) > 0 {
		b = appendBytesField(b, 7, m.Stderr)
	}
	return b
}

// pbField is one decoded protobuf field.
type pbField struct {
	num  int
	wire int
	val  uint64 // varint, i64 and i32 values
	data []byte // length-delimited value
}

// pbFields decodes one message level, bounds-checking every length, and
// calls fn for each field. A field whose number is in wires must have the
// wire type given there, else decoding stops with an error before fn
// sees it.
func pbFields(b []byte, wires map[int]int, fn func(f pbField) error) error {
	for off := 0; off < len(b); {
		tag, n := binary.Uvarint(b[off:])
		if n <= 0 {
			return fmt.Errorf("bad tag at offset %d", off)
		}
		off += n
		f := pbField{num: int(tag >> 3), wire: int(tag & 7)}
		if tag>>3 == 0 || tag>>3 > 1<<29 {
			return fmt.Errorf("bad field number at offset %d", off-n)
		}
		switch f.wire {
		case wireVarint:
			f.val, n = binary.Uvarint(b[off:])
			if n <= 0 {
				return fmt.Errorf("bad varint at offset %d", off)
			}
			off += n
		case wireI64:
			if len(b)-off < 8 {
				return fmt.Errorf("truncated fixed64 at offset %d", off)
			}
			f.val = binary.LittleEndian.Uint64(b[off:])
			off += 8
		case wireI32:
			if len(b)-off < 4 {
				return fmt.Errorf("truncated fixed32 at offset %d", off)
			}
			f.val = uint64(binary.LittleEndian.Uint32(b[off:]))
			off += 4
		case wireLen:
			l, n := binary.Uvarint(b[off:])
			if n <= 0 || l > uint64(len(b)-off-n) {
				return fmt.Errorf("bad length at offset %d", off)
			}
			off += n
			f.data = b[off : off+int(l)]
			off += int(l)
		default:
			return fmt.Errorf("unsupported wire type %d at offset %d", f.wire, off-1)
		}
		if w, ok := wires[f.num]; ok && f.wire != w {
			return fmt.Errorf("field %d: wire type %d, want %d", f.num, f.wire, w)
		}
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// unmarshalManifest decodes and validates a manifest. Every error wraps
// [ErrCorrupt]. Fields this package never writes but which would change the
// result's meaning (output directories, symlinks, digests of stdout/stderr,
// a non-zero exit code) are rejected; other unknown fields are ignored.
func unmarshalManifest(b []byte) (*manifest, error) {
	m, err := decodeManifest(b)
	if err != nil {
		return nil, fmt.Errorf("manifest: %v: %w", err, ErrCorrupt)
	}
	return m, nil
}

func decodeManifest(b []byte) (*manifest, error) {
	if len(b) > maxManifestSize {
		return nil, fmt.Errorf("%d bytes exceeds limit", len(b))
	}
	m := &manifest{}
	seen := make(map[string]bool)
	// ActionResult: 2 output_files, 4 exit_code, 5 stdout_raw, 7 stderr_raw,
	// 9 execution_metadata.
	err := pbFields(b, map[int]int{2: wireLen, 4: wireVarint, 5: wireLen, 7: wireLen, 9: wireLen}, func(f pbField) error {
		switch f.num {
		case 2:
			if len(m.Files) >= maxFiles {
				return errors.New("too many output files")
			}
			of, err := decodeOutputFile(f.data)
			if err != nil {
				return fmt.Errorf("output file %d: %w", len(m.Files), err)
			}
			if seen[of.Name] {
				return fmt.Errorf("duplicate output file %q", of.Name)
			}
			seen[of.Name] = true
			m.Files = append(m.Files, of)
		case 3, 6, 8, 10, 11, 12:
			return fmt.Errorf("unsupported ActionResult field %d", f.num)
		case 4:
			if f.val != 0 {
				return fmt.Errorf("exit code %d", int32(f.val))
			}
		case 5, 7:
			if len(f.data) > maxInlineOutput {
				return fmt.Errorf("field %d: %d bytes of tool output exceeds the %d-byte limit", f.num, len(f.data), maxInlineOutput)
			}
			if f.num == 5 {
				m.Stdout = append([]byte(nil), f.data...)
			} else {
				m.Stderr = append([]byte(nil), f.data...)
			}
		case 9:
			// ExecutedActionMetadata: 1 worker.
			return pbFields(f.data, map[int]int{1: wireLen}, func(g pbField) error {
				if g.num != 1 {
					return nil
				}
				return parseWorker(string(g.data), m)
			})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(m.Files, func(i, j int) bool { return m.Files[i].Name < m.Files[j].Name })
	return m, nil
}

// parseWorker reads the binding from ExecutedActionMetadata.worker. A
// worker other than ours leaves the manifest unbound (rejected by verify).
func parseWorker(w string, m *manifest) error {
	rest, ok := strings.CutPrefix(w, worker+" ")
	if !ok {
		return nil
	}
	bad := fmt.Errorf("malformed binding %.80q", w)
	if len(rest) != 4+64+5+64 || rest[:4] != "key=" || rest[68:73] != " mac=" {
		return bad
	}
	k, err := ParseKey(rest[4:68])
	if err != nil {
		return bad
	}
	if _, err := hex.Decode(m.MAC[:], []byte(rest[73:])); err != nil {
		return bad
	}
	m.Key = k
	return nil
}

func decodeOutputFile(b []byte) (manifestFile, error) {
	var of manifestFile
	var haveDigest bool
	// OutputFile: 1 path, 2 digest, 4 is_executable, 5 contents.
	err := pbFields(b, map[int]int{1: wireLen, 2: wireLen, 4: wireVarint}, func(f pbField) error {
		switch f.num {
		case 1:
			of.Name = string(f.data)
		case 2:
			haveDigest = true
			return decodeDigest(f.data, &of)
		case 4:
			of.Executable = f.val != 0
		case 5:
			if len(f.data) > 0 {
				return errors.New("inline contents are not supported")
			}
		}
		return nil
	})
	if err != nil {
		return of, err
	}
	if err := validName(of.Name); err != nil {
		return of, err
	}
	if !haveDigest {
		return of, fmt.Errorf("%q: no digest", of.Name)
	}
	return of, nil
}

func decodeDigest(b []byte, of *manifestFile) error {
	var haveHash bool
	// Digest: 1 hash, 2 size_bytes.
	err := pbFields(b, map[int]int{1: wireLen, 2: wireVarint}, func(f pbField) error {
		switch f.num {
		case 1:
			if len(f.data) != 64 {
				return fmt.Errorf("digest hash %.80q: want 64 hex digits", f.data)
			}
			if _, err := hex.Decode(of.Hash[:], f.data); err != nil {
				return fmt.Errorf("digest hash %.80q: %v", f.data, err)
			}
			haveHash = true
		case 2:
			if int64(f.val) < 0 {
				return fmt.Errorf("digest size %d", int64(f.val))
			}
			of.Size = int64(f.val)
		}
		return nil
	})
	if err == nil && !haveHash {
		err = errors.New("digest without hash")
	}
	return err
}
