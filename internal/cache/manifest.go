package cache

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
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

// marshal encodes the ActionResult: the body, then the metadata that
// carries the binding. proto.Marshal writes a message's fields in field
// number order, so the encoding is the body's bytes followed by field 9.
func (m *manifest) marshal() []byte {
	w := worker
	if m.Key != (Key{}) {
		w += " key=" + m.Key.String() + " mac=" + hex.EncodeToString(m.MAC[:])
	}
	ar := m.actionResult()
	ar.ExecutionMetadata = &repb.ExecutedActionMetadata{Worker: w}
	return mustMarshal(ar)
}

// marshalBody encodes output_files, stdout_raw and stderr_raw: the bytes
// the MAC covers.
func (m *manifest) marshalBody() []byte { return mustMarshal(m.actionResult()) }

// actionResult is m as an REAPI ActionResult, without execution_metadata.
func (m *manifest) actionResult() *repb.ActionResult {
	ar := &repb.ActionResult{StdoutRaw: m.Stdout, StderrRaw: m.Stderr}
	for _, f := range m.Files {
		ar.OutputFiles = append(ar.OutputFiles, &repb.OutputFile{
			Path:         f.Name,
			Digest:       &repb.Digest{Hash: hex.EncodeToString(f.Hash[:]), SizeBytes: f.Size},
			IsExecutable: f.Executable,
		})
	}
	return ar
}

// mustMarshal encodes a message this package built. Marshal fails only on
// a string that is not UTF-8, and validName admits no such file name.
func mustMarshal(msg proto.Message) []byte {
	b, err := proto.Marshal(msg)
	if err != nil {
		panic(fmt.Sprintf("cache: encoding a manifest: %v", err))
	}
	return b
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
	var ar repb.ActionResult
	if err := (proto.UnmarshalOptions{DiscardUnknown: false}).Unmarshal(b, &ar); err != nil {
		return nil, err
	}
	return manifestOf(&ar)
}

// manifestOf validates an ActionResult (decoded from the local store, an
// HTTP remote or a gRPC server) and converts it.
func manifestOf(ar *repb.ActionResult) (*manifest, error) {
	if err := wireTypes(ar.ProtoReflect()); err != nil {
		return nil, err
	}
	switch {
	case len(ar.OutputDirectories) > 0:
		return nil, errors.New("unsupported ActionResult field 3")
	case ar.StdoutDigest != nil:
		return nil, errors.New("unsupported ActionResult field 6")
	case ar.StderrDigest != nil:
		return nil, errors.New("unsupported ActionResult field 8")
	case len(ar.OutputFileSymlinks) > 0:
		return nil, errors.New("unsupported ActionResult field 10")
	case len(ar.OutputDirectorySymlinks) > 0:
		return nil, errors.New("unsupported ActionResult field 11")
	case len(ar.OutputSymlinks) > 0:
		return nil, errors.New("unsupported ActionResult field 12")
	case ar.ExitCode != 0:
		return nil, fmt.Errorf("exit code %d", ar.ExitCode)
	case len(ar.OutputFiles) > maxFiles:
		return nil, errors.New("too many output files")
	}
	m := &manifest{}
	for _, out := range [...]struct {
		num int
		src []byte
		dst *[]byte
	}{{5, ar.StdoutRaw, &m.Stdout}, {7, ar.StderrRaw, &m.Stderr}} {
		if len(out.src) > maxInlineOutput {
			return nil, fmt.Errorf("field %d: %d bytes of tool output exceeds the %d-byte limit", out.num, len(out.src), maxInlineOutput)
		}
		if len(out.src) > 0 {
			*out.dst = out.src
		}
	}
	seen := make(map[string]bool, len(ar.OutputFiles))
	for i, f := range ar.OutputFiles {
		of, err := outputFile(f)
		if err != nil {
			return nil, fmt.Errorf("output file %d: %w", i, err)
		}
		if seen[of.Name] {
			return nil, fmt.Errorf("duplicate output file %q", of.Name)
		}
		seen[of.Name] = true
		m.Files = append(m.Files, of)
	}
	if md := ar.ExecutionMetadata; md != nil {
		if err := parseWorker(md.Worker, m); err != nil {
			return nil, err
		}
	}
	sort.Slice(m.Files, func(i, j int) bool { return m.Files[i].Name < m.Files[j].Name })
	return m, nil
}

// wireTypes rejects a field that the message declares but that arrived
// with another wire type (proto.Unmarshal keeps such a field as unknown),
// in the ActionResult and the messages of it that a manifest reads.
func wireTypes(msg protoreflect.Message) error {
	fields := msg.Descriptor().Fields()
	for b := msg.GetUnknown(); len(b) > 0; {
		num, typ, n := protowire.ConsumeField(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		if fd := fields.ByNumber(num); fd != nil {
			return fmt.Errorf("field %d: wire type %d, want %d", num, typ, wireType(fd))
		}
		b = b[n:]
	}
	var err error
	msg.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Message() == nil {
			return true
		}
		switch fd.Message().FullName() {
		case "build.bazel.remote.execution.v2.OutputFile",
			"build.bazel.remote.execution.v2.Digest",
			"build.bazel.remote.execution.v2.ExecutedActionMetadata":
		default:
			return true
		}
		if fd.IsList() {
			for i := 0; i < v.List().Len() && err == nil; i++ {
				if err = wireTypes(v.List().Get(i).Message()); err != nil {
					err = fmt.Errorf("output file %d: %w", i, err)
				}
			}
		} else {
			err = wireTypes(v.Message())
		}
		return err == nil
	})
	return err
}

// wireType is the wire type a (non-packed) field is encoded with.
func wireType(fd protoreflect.FieldDescriptor) protowire.Type {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind, protoreflect.BytesKind, protoreflect.StringKind:
		return protowire.BytesType
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return protowire.Fixed64Type
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return protowire.Fixed32Type
	}
	return protowire.VarintType
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

func outputFile(f *repb.OutputFile) (manifestFile, error) {
	of := manifestFile{Name: f.Path, Executable: f.IsExecutable}
	if len(f.Contents) > 0 {
		return of, errors.New("inline contents are not supported")
	}
	if err := validName(of.Name); err != nil {
		return of, err
	}
	d := f.Digest
	switch {
	case d == nil:
		return of, fmt.Errorf("%q: no digest", of.Name)
	case d.Hash == "":
		return of, errors.New("digest without hash")
	case len(d.Hash) != 64:
		return of, fmt.Errorf("digest hash %.80q: want 64 hex digits", d.Hash)
	case d.SizeBytes < 0:
		return of, fmt.Errorf("digest size %d", d.SizeBytes)
	}
	if _, err := hex.Decode(of.Hash[:], []byte(d.Hash)); err != nil {
		return of, fmt.Errorf("digest hash %.80q: %v", d.Hash, err)
	}
	of.Size = d.SizeBytes
	return of, nil
}
