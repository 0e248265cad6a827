package cache

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"
)

// Key identifies one device-link job. It is the SHA-256 of a canonical,
// versioned encoding of everything that determines the job's outputs.
type Key [32]byte

// String returns the key as 64 lowercase hex digits, the form used in file
// names and remote URLs.
func (k Key) String() string { return hex.EncodeToString(k[:]) }

// ParseKey parses the form produced by [Key.String].
func ParseKey(s string) (Key, error) {
	var k Key
	if len(s) != 2*len(k) {
		return k, fmt.Errorf("cache: key %q: want %d hex digits", s, 2*len(k))
	}
	if _, err := hex.Decode(k[:], []byte(s)); err != nil {
		return k, fmt.Errorf("cache: key %q: %w", s, err)
	}
	return k, nil
}

// keySchema is hashed first. Change it whenever the encoding below or the
// meaning of a record changes, so that old entries can never be mistaken
// for new ones.
const keySchema = "offload-kit/device-link-cache/key/v2"

// Record tags of the key encoding.
const (
	tagArg    = 'a'
	tagInput  = 'i'
	tagOutput = 'o'
	tagTool   = 't'
	tagEnv    = 'e'
	tagExtra  = 'x'
)

// KeyBuilder accumulates the parts of a key. Each Add call appends one
// tagged record whose fields are length-prefixed, so no two different
// sequences of calls produce the same encoding. Arguments, inputs, outputs,
// tools and extras are order-sensitive (link order matters); environment
// variables are sorted by name in [KeyBuilder.Sum], and a later AddEnv of a
// name replaces an earlier one.
//
// The zero value is ready to use. A KeyBuilder is not safe for concurrent
// use.
type KeyBuilder struct {
	buf []byte
	env map[string]string
}

func (b *KeyBuilder) record(tag byte, fields ...string) {
	b.buf = append(b.buf, tag)
	b.buf = binary.AppendUvarint(b.buf, uint64(len(fields)))
	for _, f := range fields {
		b.buf = binary.AppendUvarint(b.buf, uint64(len(f)))
		b.buf = append(b.buf, f...)
	}
}

// AddArg adds one command-line argument verbatim. It must not contain
// temporary paths; use [Command] or [Normalizer] to replace them first.
func (b *KeyBuilder) AddArg(s string) { b.record(tagArg, s) }

// AddInput adds an input file by its logical name (e.g. "input0") and the
// SHA-256 of its contents; the file's path is not part of the key.
func (b *KeyBuilder) AddInput(name string, sum [32]byte) {
	b.record(tagInput, name, string(sum[:]))
}

// AddOutput adds the logical name of an output file. Outputs are named in
// the key so that a job producing different files gets a different key.
func (b *KeyBuilder) AddOutput(name string) { b.record(tagOutput, name) }

// AddTool adds a tool by its logical name (e.g. "clang"), identity (see
// [ToolIdentity]) and version text (e.g. its --version output, supplied by
// the caller).
func (b *KeyBuilder) AddTool(name, identity, version string) {
	b.record(tagTool, name, identity, version)
}

// AddEnv adds one environment variable that affects the tool. Pass only the
// variables that matter (see [FilterEnv]); a variable that is unset should
// simply not be added.
func (b *KeyBuilder) AddEnv(name, value string) {
	if b.env == nil {
		b.env = make(map[string]string)
	}
	b.env[name] = value
}

// AddExtra adds any other labelled value that affects the outputs, such as
// the normalised contents of a response file or a caller's schema version.
func (b *KeyBuilder) AddExtra(label, value string) { b.record(tagExtra, label, value) }

// Sum returns the key. It does not change the builder, so more records may
// be added and Sum called again.
func (b *KeyBuilder) Sum() Key {
	h := sha256.New()
	var lenbuf []byte
	lenbuf = binary.AppendUvarint(lenbuf, uint64(len(keySchema)))
	h.Write(lenbuf)
	io.WriteString(h, keySchema)
	h.Write(b.buf)
	names := make([]string, 0, len(b.env))
	for n := range b.env {
		names = append(names, n)
	}
	sort.Strings(names)
	var env KeyBuilder
	for _, n := range names {
		env.record(tagEnv, n, b.env[n])
	}
	h.Write(env.buf)
	var k Key
	h.Sum(k[:0])
	return k
}

// Tool identifies the program a [Command] runs.
type Tool struct {
	// Name is a logical name such as "clang" or "clang-nvlink-wrapper".
	// It should not be an absolute path.
	Name string
	// Identity identifies the executable, normally the result of
	// [ToolIdentity] or [Cache.ToolIdentity].
	Identity string
	// Version is the tool's version text, e.g. its --version output.
	Version string
}

// File is an input or output file of a [Command].
type File struct {
	// Name is the file's logical name, unique within the command, e.g.
	// "input0" or "image". For outputs it is also the name passed to
	// [Cache.Put] and [Cache.Get].
	Name string
	// Path is the path as it appears in Args (usually a temporary path).
	// Every occurrence of it inside an argument is replaced by the logical
	// name before hashing, so the key does not depend on it. It may be
	// empty if the file is not named on the command line.
	Path string
	// SHA256 is the input's content hash. If it is zero, [Command.Key]
	// computes it by reading Path. Ignored for outputs.
	SHA256 [32]byte
}

// Command describes one device-link job for key derivation.
type Command struct {
	Tool Tool
	// Args is the command line after the program name, exactly as run,
	// temporary paths included.
	Args []string
	// Inputs are the files whose contents the job reads, in link order.
	Inputs []File
	// Outputs are the files the job writes.
	Outputs []File
	// TempDirs are directories (e.g. the invocation's work directory) whose
	// occurrences in Args are replaced by a fixed token after the file
	// paths, so that other temporary paths do not leak into the key.
	TempDirs []string
	// Env is the filtered environment ("NAME=value") relevant to the tool.
	Env []string
	// Extra holds any further labelled values that affect the outputs.
	Extra [][2]string
}

// Key computes the command's key. It reads input files whose SHA256 is
// zero.
func (c *Command) Key() (Key, error) {
	var b KeyBuilder
	b.AddTool(c.Tool.Name, c.Tool.Identity, c.Tool.Version)
	var n Normalizer
	seen := make(map[string]bool)
	for _, f := range c.Inputs {
		if err := checkLogicalName(f.Name, seen); err != nil {
			return Key{}, fmt.Errorf("cache: input %w", err)
		}
		sum := f.SHA256
		if sum == ([32]byte{}) {
			if f.Path == "" {
				return Key{}, fmt.Errorf("cache: input %q has neither a hash nor a path", f.Name)
			}
			var err error
			if sum, _, err = HashFile(f.Path); err != nil {
				return Key{}, fmt.Errorf("cache: input %q: %w", f.Name, err)
			}
		}
		b.AddInput(f.Name, sum)
		n.AddPath(f.Path, "in:"+f.Name)
	}
	for _, f := range c.Outputs {
		if err := checkLogicalName(f.Name, seen); err != nil {
			return Key{}, fmt.Errorf("cache: output %w", err)
		}
		b.AddOutput(f.Name)
		n.AddPath(f.Path, "out:"+f.Name)
	}
	for _, d := range c.TempDirs {
		n.AddPath(d, "tmp")
	}
	for _, a := range c.Args {
		b.AddArg(n.Replace(a))
	}
	for _, kv := range c.Env {
		name, value, _ := strings.Cut(kv, "=")
		b.AddEnv(name, value)
	}
	for _, x := range c.Extra {
		b.AddExtra(x[0], x[1])
	}
	return b.Sum(), nil
}

func checkLogicalName(name string, seen map[string]bool) error {
	if err := validName(name); err != nil {
		return err
	}
	if seen[name] {
		return fmt.Errorf("%q: duplicate logical name", name)
	}
	seen[name] = true
	return nil
}

// validName reports whether name may be used as a logical file name: a
// non-empty, clean, relative slash-separated path without "..", which is
// also what REAPI requires of output paths (protobuf strings, so UTF-8).
func validName(name string) error {
	if name == "" || len(name) > 1024 || !utf8.ValidString(name) || strings.ContainsRune(name, 0) || strings.Contains(name, "\\") ||
		!filepath.IsLocal(name) || filepath.ToSlash(filepath.Clean(name)) != name {
		return fmt.Errorf("%.80q: invalid logical name", name)
	}
	return nil
}

// Normalizer replaces paths inside arguments by placeholder tokens. Longer
// paths take precedence, so "/tmp/a.o" and "/tmp/a.o.bc" are told apart.
// Tokens contain NUL bytes, which no real argument can, so a normalised
// argument never collides with a literal one.
type Normalizer struct {
	pairs [][2]string
	r     *strings.Replacer
}

// AddPath registers path (ignored if empty) to be replaced by a token
// derived from name.
func (n *Normalizer) AddPath(path, name string) {
	if path == "" {
		return
	}
	n.pairs = append(n.pairs, [2]string{path, "\x00" + name + "\x00"})
	n.r = nil
}

// Replace returns arg with every registered path replaced.
func (n *Normalizer) Replace(arg string) string {
	if len(n.pairs) == 0 {
		return arg
	}
	if n.r == nil {
		p := append([][2]string(nil), n.pairs...)
		sort.SliceStable(p, func(i, j int) bool { return len(p[i][0]) > len(p[j][0]) })
		var old []string
		for _, pr := range p {
			old = append(old, pr[0], pr[1])
		}
		n.r = strings.NewReplacer(old...)
	}
	return n.r.Replace(arg)
}

// HashFile returns the SHA-256 and size of a file's contents.
func HashFile(path string) (sum [32]byte, size int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return sum, 0, err
	}
	defer f.Close()
	h := sha256.New()
	size, err = io.Copy(h, f)
	if err != nil {
		return sum, 0, fmt.Errorf("hash %s: %w", path, err)
	}
	h.Sum(sum[:0])
	return sum, size, nil
}

// IdentityMode selects how [ToolIdentity] identifies an executable.
type IdentityMode int

const (
	// IdentifyByContent hashes the executable (robust; reads the file).
	IdentifyByContent IdentityMode = iota
	// IdentifyByStat uses the absolute path, size and modification time
	// (cheap; misses in-place rebuilds that keep size and mtime, and ties
	// keys to the install location).
	IdentifyByStat
)

// ToolIdentity returns a string identifying the executable at path:
// "sha256:<hex>" for [IdentifyByContent], "stat:<abs path>:<size>:<mtime ns>"
// for [IdentifyByStat]. Combine it with the tool's version output in
// [KeyBuilder.AddTool].
func ToolIdentity(path string, mode IdentityMode) (string, error) {
	switch mode {
	case IdentifyByContent:
		sum, _, err := HashFile(path)
		if err != nil {
			return "", fmt.Errorf("cache: identify tool: %w", err)
		}
		return "sha256:" + hex.EncodeToString(sum[:]), nil
	case IdentifyByStat:
		abs, err := filepath.Abs(path)
		if err != nil {
			return "", fmt.Errorf("cache: identify tool: %w", err)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return "", fmt.Errorf("cache: identify tool: %w", err)
		}
		return fmt.Sprintf("stat:%s:%d:%d", abs, fi.Size(), fi.ModTime().UnixNano()), nil
	}
	return "", errors.New("cache: identify tool: unknown identity mode")
}

// FilterEnv returns the "NAME=value" entries of environ whose name is in
// names; a name ending in "*" matches every variable with that prefix. The
// result is sorted, so it can be passed as [Command.Env].
func FilterEnv(environ []string, names ...string) []string {
	var out []string
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		for _, want := range names {
			if p, isPrefix := strings.CutSuffix(want, "*"); isPrefix && strings.HasPrefix(name, p) || name == want {
				out = append(out, kv)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}
