package bundler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/offload-kit/offload-kit/internal/binio"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/offload-kit/offload-kit/elfembed"
	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/ar"
	"github.com/offload-kit/offload-kit/format/bundle"
	"github.com/offload-kit/offload-kit/format/triple"
	"github.com/offload-kit/offload-kit/internal/atomicfile"
	"github.com/offload-kit/offload-kit/internal/run"
)

// config is OffloadBundlerConfig: defaults, then the environment, then
// the command line.
type config struct {
	ctx context.Context
	Options
	compress bool
	verbose  bool
	level    int
	version  uint16
	method   bundle.Method

	targets     []string // normalised IDs, in -targets order
	hostIndex   int      // -1 if none
	allowNoHost bool
	now         func() time.Time
}

// Run executes a parsed command line. Errors are returned for the caller
// to print as "<tool>: error: <msg>" with exit code 1; warnings and
// verbose statistics go to env.Stderr, listings to env.Stdout.
func Run(ctx context.Context, env *Env, o Options) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.BundleAlign == 0 {
		o.BundleAlign = 1 // the default; the reference dies with SIGFPE on -bundle-align=0
	}
	c := &config{ctx: ctx, Options: o, level: 3, version: bundle.DefaultVersion, method: bundle.Zstd, hostIndex: -1, now: env.Now}
	if c.now == nil {
		var zero time.Time
		c.now = func() time.Time { return zero }
	}
	c.readEnv(env)
	if o.Compress != nil {
		c.compress = *o.Compress
	}
	if o.Verbose != nil {
		c.verbose = *o.Verbose
	}
	if o.CompressionLevel != nil {
		c.level = *o.CompressionLevel
	}
	warn := func(msg string) { fmt.Fprintf(env.Stderr, "%s: warning: %s\n", env.Tool, msg) }

	if o.InputsGiven && o.InputsDepSet {
		return errors.New("-inputs and -input cannot be used together, use only -input instead")
	}
	inputs := append(append([]string(nil), o.Inputs...), o.InputsDep...)
	if len(o.InputsDep) > 0 {
		warn("-inputs is deprecated, use -input instead")
	}
	if o.OutputsGiven && o.OutputsDepSet {
		return errors.New("-outputs and -output cannot be used together, use only -output instead")
	}
	outputs := append(append([]string(nil), o.Outputs...), o.OutputsDep...)
	if len(o.OutputsDep) > 0 {
		warn("-outputs is deprecated, use -output instead")
	}
	c.Inputs, c.Outputs = inputs, outputs

	if o.List {
		if o.Unbundle {
			return errors.New("-unbundle and -list cannot be used together")
		}
		if len(inputs) != 1 {
			return errors.New("only one input file supported for -list")
		}
		if len(outputs) > 0 {
			return errors.New("-outputs option is invalid for -list")
		}
		if len(o.Targets) > 0 {
			return errors.New("-targets option is invalid for -list")
		}
		return c.list(env, inputs[0])
	}
	if o.CheckInputArchive {
		if !o.Unbundle {
			return errors.New("-check-input-archive cannot be used while bundling")
		}
		if o.Type != "a" {
			return errors.New("-check-input-archive can only be used for unbundling archives (-type=a)")
		}
	}
	if len(outputs) == 0 {
		return errors.New("no output file specified!")
	}
	if !o.TargetsGiven {
		return errors.New("for the --targets option: must be specified at least once!")
	}
	if o.Unbundle {
		if len(inputs) != 1 {
			return errors.New("only one input file supported in unbundling mode")
		}
		if len(outputs) != len(o.Targets) {
			return errors.New("number of output files and targets should match in unbundling mode")
		}
	} else {
		if o.Type == "a" {
			return errors.New("Archive files are only supported for unbundling")
		}
		if len(outputs) != 1 {
			return errors.New("only one output file supported in bundling mode")
		}
		if len(inputs) != len(o.Targets) {
			return errors.New("number of input files and targets should match in bundling mode")
		}
	}
	if err := c.checkTargets(); err != nil {
		return err
	}
	switch {
	case o.Unbundle && o.Type == "a":
		return c.unbundleArchive(env)
	case o.Unbundle:
		return c.unbundle(env)
	}
	return c.bundle(env)
}

func (c *config) readEnv(env *Env) {
	if v, ok := env.getenv("OFFLOAD_BUNDLER_IGNORE_ENV_VAR"); ok && v == "1" {
		return
	}
	if v, ok := env.getenv("OFFLOAD_BUNDLER_VERBOSE"); ok {
		c.verbose = v == "1"
	}
	if v, ok := env.getenv("OFFLOAD_BUNDLER_COMPRESS"); ok {
		c.compress = v == "1"
	}
	if v, ok := env.getenv("OFFLOAD_BUNDLER_COMPRESSION_LEVEL"); ok {
		if n, ok := llvmAtoi(v, 32); ok {
			c.level = int(n)
		} else {
			fmt.Fprintf(env.Stderr, "Warning: Invalid value for OFFLOAD_BUNDLER_COMPRESSION_LEVEL: %s. Ignoring it.\n", v)
		}
	}
	if v, ok := env.getenv("COMPRESSED_BUNDLE_FORMAT_VERSION"); ok {
		n, err := strconv.ParseUint(v, 10, 16)
		switch {
		case err != nil:
			fmt.Fprintf(env.Stderr, "Warning: Invalid value for COMPRESSED_BUNDLE_FORMAT_VERSION: %s. Using default version %d.\n", v, c.version)
		case n >= 2 && n <= 3:
			c.version = uint16(n)
		default:
			fmt.Fprintf(env.Stderr, "Warning: Invalid value for COMPRESSED_BUNDLE_FORMAT_VERSION: %s. Valid values are 2 or 3. Using default version %d.\n", v, c.version)
		}
	}
}

// llvmAtoi is StringRef::getAsInteger(10, int): an optional '-', decimal
// digits only, and the value must fit.
func llvmAtoi(s string, bits int) (int64, bool) {
	if s == "" || strings.HasPrefix(s, "+") {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, bits)
	return n, err == nil
}

// checkTargets validates -targets as the reference's main does and
// records the normalised IDs.
func (c *config) checkTargets() error {
	seen := map[string]bool{}
	hostNum := 0
	hipOnly := true
	groups := map[string][]string{}
	var order []string
	for i, t := range c.Targets {
		if !bundle.CheckID(t) {
			return errors.New(bundle.IDFormatMessage)
		}
		if seen[t] {
			return errors.New("Duplicate targets are not allowed")
		}
		seen[t] = true
		ti, _ := bundle.ParseTarget(t)
		kindOK, tripleOK := ti.KindValid(), ti.Triple.Arch != ""
		c.targets = append(c.targets, ti.String())
		if !kindOK || !tripleOK {
			msg := "invalid target '" + t + "'"
			if !kindOK {
				msg += ", unknown offloading kind '" + ti.Kind + "'"
			}
			if !tripleOK {
				msg += ", unknown target triple '" + ti.Triple.String() + "'"
			}
			return errors.New(msg)
		}
		key := ti.Kind + "-" + ti.Triple.String()
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], ti.TargetID)
		if ti.IsHost() {
			hostNum++
			c.hostIndex = i
		}
		if ti.Kind != "hip" && ti.Kind != "hipv4" {
			hipOnly = false
		}
	}
	sort.Strings(order)
	for _, key := range order {
		if a, b, ok := triple.ConflictingTargetIDs(groups[key]); ok {
			return fmt.Errorf("Cannot bundle inputs with conflicting targets: '%s-%s' and '%s-%s'", key, a, key, b)
		}
	}
	c.allowNoHost = hipOnly
	if (c.Unbundle && hostNum > 1) || (!c.Unbundle && hostNum != 1 && !c.allowNoHost) {
		return fmt.Errorf("expecting exactly one host target but got %d", hostNum)
	}
	return nil
}

// handlerKind is the reference's FileHandler choice.
type handlerKind int

const (
	binaryHandler handlerKind = iota
	textHandler
	objectHandler
)

func (c *config) handlerFor(first []byte) (handlerKind, string, error) {
	if cm, ok := bundle.CommentFor(c.Type); ok {
		return textHandler, cm, nil
	}
	switch c.Type {
	case "bc", "gch", "ast":
		return binaryHandler, "", nil
	case "o", "a":
		if isObject(first) {
			return objectHandler, "", nil
		}
		return binaryHandler, "", nil
	}
	return 0, "", fmt.Errorf("'%s': invalid file type specified", c.Type)
}

// isObject approximates llvm::object::createBinary succeeding with an
// ObjectFile: an ELF or COFF object elfembed can parse, or Mach-O.
func isObject(b []byte) bool {
	switch format.Identify(b) {
	case format.KindELF, format.KindCOFF:
		_, err := elfembed.Parse(b)
		return err == nil
	case format.KindMachO:
		return true
	}
	return false
}

const sectionPrefix = "__CLANG_OFFLOAD_BUNDLE__"

func (c *config) bundle(env *Env) error {
	ins := make([]*input, len(c.Inputs))
	defer func() {
		for _, in := range ins {
			in.Close()
		}
	}()
	for i, name := range c.Inputs {
		in, err := openInput(env, name)
		if err != nil {
			return err
		}
		ins[i] = in
	}
	ref := 0
	if !c.allowNoHost {
		ref = c.hostIndex
	}
	h, cm, err := c.handlerFor(ins[ref].data)
	if err != nil {
		return err
	}
	entries := make([]bundle.Input, len(ins))
	for i, in := range ins {
		entries[i] = bundle.BytesInput(c.targets[i], in.data)
		// Stream regular files with read(2) (copy_file_range when the output
		// is a file) rather than through the mapping, so a huge input never
		// becomes resident in this process.
		if in.m != nil && len(in.data) > 0 {
			if f, err := os.Open(env.path(in.name)); err == nil {
				defer f.Close()
				entries[i].Data = f // WriteBinary limits it to the entry's size
			}
		}
	}
	out := c.Outputs[0]
	if h == objectHandler {
		return c.bundleObject(env, ins, out)
	}
	// writeBundle streams the uncompressed bundle; size is its length.
	var size int64
	if h == textHandler {
		size = bundle.TextSize(cm, entries)
	} else {
		ids := make([]string, len(entries))
		sizes := make([]int64, len(entries))
		for i, e := range entries {
			ids[i], sizes[i] = e.ID, e.Size
		}
		if _, _, size, err = bundle.Layout(ids, sizes, c.BundleAlign); err != nil {
			return err
		}
	}
	writeBundle := func(w io.Writer) error {
		var err error
		if h == textHandler {
			_, err = bundle.WriteText(w, cm, entries)
		} else {
			_, err = bundle.WriteBinary(w, entries, c.BundleAlign)
		}
		return err
	}
	if !c.compress {
		return writeOutput(env, out, writeBundle)
	}
	rep := env.Progress.Start("compressing", size)
	defer rep.Done()
	opts := bundle.CompressOptions{Version: c.version, Zlib: c.method == bundle.Zlib, Level: c.level, External: c.externalZstd(env), Progress: rep.Add}
	start := c.now()
	var hdr bundle.Header
	err = writeOutputAt(env, out, func(w io.WriterAt) error {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(writeBundle(pw)) }()
		var err error
		hdr, err = bundle.CompressTo(w, ctxReader{c.ctx, pr}, size, opts)
		pr.CloseWithError(io.ErrClosedPipe)
		return err
	})
	if err != nil {
		return err
	}
	if c.verbose {
		c.printCompressStats(env, hdr, int64(hdr.TotalFileSize)-int64(hdr.Size()), c.now().Sub(start))
	}
	return nil
}

// externalZstd compresses with the zstd program, when it is on PATH, at
// the levels where klauspost falls short of libzstd (bundle.ExternalFrom
// and up: 6–20% larger at 9–16, 23–33% at 17–22): one long-distance-
// matching stream as the reference writes (multithreaded from 17), without
// a content checksum.
func (c *config) externalZstd(env *Env) func(io.Writer, io.Reader, int64, int) error {
	path, _ := env.getenv("PATH")
	prog, ok := run.FindProgram("zstd", nil, path)
	if !ok {
		return nil
	}
	return func(dst io.Writer, src io.Reader, size int64, level int) error {
		// Below 17, zstd's worker jobs (even -T1's one worker) cost 5–12%
		// against the reference's single stream; from 17 they cost
		// nothing measurable.
		threads := "--single-thread"
		if level >= 17 {
			threads = "-T0"
		}
		args := []string{prog, "-q", "-c", threads, "--no-check", "--long", fmt.Sprintf("--stream-size=%d", size)}
		if level > 19 {
			args = append(args, "--ultra")
		}
		args = append(args, fmt.Sprintf("-%d", level), "-")
		if err := (run.Exec{}).Run(c.ctx, &run.Cmd{Args: args, Stdin: src, Stdout: dst}); err != nil {
			return fmt.Errorf("compressing with %v", err)
		}
		return nil
	}
}

func (c *config) bundleObject(env *Env, ins []*input, out string) error {
	if c.hostIndex < 0 {
		// The reference indexes its inputs with ~0u here and crashes.
		return errors.New("bundling into an object file needs a host target")
	}
	host := ins[c.hostIndex].data
	if format.Identify(host) == format.KindMachO {
		return format.Errorf(0, format.ErrUnsupported, "Mach-O host objects are not supported")
	}
	edit := elfembed.Edit{ObjcopyCompat: true} // as llvm-objcopy writes them
	for i, in := range ins {
		d := in.data
		if i == c.hostIndex {
			d = []byte{0}
		}
		edit.Add = append(edit.Add, elfembed.NewSection{
			Name: sectionPrefix + c.targets[i], Type: 1 /* SHT_PROGBITS */, Flags: 0x80000000, /* SHF_EXCLUDE */
			Align: 1, Data: bytes.NewReader(d), Size: int64(len(d)),
		})
	}
	if c.PrintCommands {
		// The reference prints the llvm-objcopy command instead of running
		// it, leaving the (empty) output file it had opened.
		fmt.Fprintln(env.Stderr, objcopyCommand(env, c, out))
		return writeOutput(env, out, func(io.Writer) error { return nil })
	}
	return writeOutput(env, out, func(w io.Writer) error {
		return elfembed.Rewrite(w, host, edit)
	})
}

func objcopyCommand(env *Env, c *config, out string) string {
	parts := []string{q("llvm-objcopy")}
	for i, id := range c.targets {
		f := c.Inputs[i]
		if i == c.hostIndex {
			f = tempName(env)
		}
		parts = append(parts, q("--add-section="+sectionPrefix+id+"="+f), q("--set-section-flags="+sectionPrefix+id+"=readonly,exclude"))
	}
	parts = append(parts, q("--"), q(c.Inputs[c.hostIndex]), q(out))
	return strings.Join(parts, " ")
}

func q(s string) string { return "\"" + s + "\"" }

// tempName is a name like the reference's temporary files, for -###.
func tempName(env *Env) string {
	dir, ok := env.getenv("TMPDIR")
	if !ok || dir == "" {
		dir = "/tmp"
	}
	return filepath.Join(dir, fmt.Sprintf("clang-offload-bundler-%06x.tmp", rand.IntN(1<<24)))
}

// decompressInput is CompressedOffloadBundle::decompress: non-CCOB data
// passes through (with "Uncompressed bundle." in verbose mode).
func (c *config) decompressInput(env *Env, data []byte) ([]byte, *bundle.Header, error) {
	if len(data) < 8 {
		return data, nil, nil
	}
	if !bytes.HasPrefix(data, bundle.CCOBMagic) {
		if c.verbose {
			fmt.Fprintln(env.Stderr, "Uncompressed bundle.")
		}
		return data, nil, nil
	}
	start := c.now()
	// The reference computes the hash only for -verbose, and only prints
	// whether it matches.
	lim := bundle.Limits{Hash: bundle.HashSkip}
	if c.verbose {
		lim.Hash = bundle.HashCompute
	}
	d, err := bundle.Decompress(data, lim)
	if err != nil {
		return nil, nil, err
	}
	if c.verbose {
		c.printDecompressStats(env, d, c.now().Sub(start))
	}
	return d.Data, &d.Header, nil
}

// entry is one bundle entry as a handler yields it.
type entry struct {
	id   string
	data []byte
	host bool // object handler: single zero byte standing for the host object
}

// readEntries lists the entries of one (decompressed) bundled file in the
// order the reference's handler visits them.
func (c *config) readEntries(h handlerKind, cm string, data []byte) ([]entry, error) {
	switch h {
	case textHandler:
		b, err := bundle.ParseText(data, cm)
		if err != nil {
			return nil, err
		}
		var es []entry
		for _, e := range b.Entries {
			es = append(es, entry{id: e.ID, data: e.Data})
		}
		return es, nil
	case objectHandler:
		obj, err := elfembed.Parse(data)
		if err != nil {
			return nil, err
		}
		var es []entry
		for _, s := range obj.Sections {
			if !strings.HasPrefix(s.Name, sectionPrefix) {
				continue
			}
			e := entry{id: s.Name[len(sectionPrefix):], data: s.Data}
			if len(s.Data) == 1 && s.Data[0] == 0 {
				e.host = true
			}
			es = append(es, e)
		}
		return es, nil
	}
	b, _ := bundle.ParseLenient(data)
	var es []entry
	for _, id := range b.IDs() {
		e, _ := b.Lookup(id)
		es = append(es, entry{id: id, data: e.Data})
	}
	return es, nil
}

// hostObject is the input object with every bundle section removed.
func hostObject(data []byte) ([]byte, error) {
	obj, err := elfembed.Parse(data)
	if err != nil {
		return nil, err
	}
	var rm []string
	for _, s := range obj.Sections {
		if strings.Contains(s.Name, sectionPrefix) {
			rm = append(rm, s.Name)
		}
	}
	var buf bytes.Buffer
	if err := elfembed.Rewrite(&buf, data, elfembed.Edit{Remove: rm, ObjcopyCompat: true}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (c *config) unbundle(env *Env) error {
	in, err := openInput(env, c.Inputs[0])
	if err != nil {
		return err
	}
	defer in.Close()
	if c.canStream(in) {
		return c.unbundleStream(env, in)
	}
	data, _, err := c.decompressInput(env, in.data)
	if err != nil {
		return decompressError(in.name, 0, err)
	}
	outs := newOutSet(env)
	defer outs.abort()
	if in.m.Mapped() && len(data) > 0 && &data[0] == &in.data[0] {
		// An uncompressed bundle in a regular file: entries are copied file
		// to file (copy_file_range), so they never become resident here.
		if f, err := os.Open(env.path(in.name)); err == nil {
			defer f.Close()
			if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() == int64(len(in.data)) {
				outs.src = &decodedFile{f: f, m: in.m}
			}
		}
	}
	if err := c.unbundleData(env, data, outs); err != nil {
		return err
	}
	return outs.commit(c.ctx)
}

// unbundleData writes the outputs of one decompressed input into outs,
// which the caller commits.
func (c *config) unbundleData(env *Env, data []byte, outs *outSet) error {
	h, cm, err := c.handlerFor(data)
	if err != nil {
		return err
	}
	entries, err := c.readEntries(h, cm, data)
	if err != nil {
		return err
	}
	work := &bundle.OrderedSet{}
	outFor := map[string]string{}
	for i, t := range c.targets {
		work.Insert(t)
		outFor[t] = c.Outputs[i]
	}
	foundHost := false
	for _, e := range entries {
		if work.Len() == 0 {
			break
		}
		if !bundle.CheckID(e.id) {
			return errors.New("invalid bundle id read from the bundle")
		}
		code, _ := bundle.ParseTarget(e.id)
		match := ""
		for _, t := range work.Keys() {
			tt, _ := bundle.ParseTarget(t)
			if bundle.Compatible(code, tt, c.HipOpenMPCompatible) {
				match = t
				break
			}
		}
		if match == "" {
			continue
		}
		d := e.data
		if h == objectHandler && e.host {
			if c.PrintCommands {
				fmt.Fprintln(env.Stderr, strings.Join([]string{q("llvm-objcopy"), q("--regex"), q("--remove-section=__CLANG_OFFLOAD_BUNDLE__.*"), q("--"), q(c.Inputs[0]), q(tempName(env))}, " "))
				d = nil
			} else if d, err = hostObject(data); err != nil {
				return err
			}
		}
		if err := outs.write(outFor[match], d); err != nil {
			return err
		}
		work.Erase(match)
		if code.IsHost() {
			foundHost = true
		}
	}
	if !c.AllowMissingBundles && work.Len() > 0 {
		return errors.New(missingMessage(work.Keys()))
	}
	if work.Len() == len(c.targets) {
		for _, t := range work.Keys() {
			var d []byte
			if tt, _ := bundle.ParseTarget(t); tt.IsHost() {
				d = data
			}
			if err := outs.write(outFor[t], d); err != nil {
				return err
			}
		}
		return nil
	}
	if !(foundHost || c.hostIndex < 0 || c.AllowMissingBundles) {
		return errors.New("Can't find bundle for the host target")
	}
	for _, t := range work.Keys() {
		if err := outs.write(outFor[t], nil); err != nil {
			return err
		}
	}
	return nil
}

// decompressError is the reference's "Failed to decompress input" with
// the input's name, and offsets made relative to the file when the
// compressed bundle starts at base (one of several concatenated).
func decompressError(name string, base int64, err error) error {
	var fe *format.FormatError
	if errors.As(err, &fe) && base != 0 {
		c := *fe
		c.Off += base
		err = &c
	}
	return fmt.Errorf("Failed to decompress input: %s: %w", name, err)
}

func missingMessage(keys []string) string {
	s := append([]string(nil), keys...)
	sort.Strings(s)
	msg := "Can't find bundles for"
	last := len(s) - 1
	for i, k := range s {
		if i != 0 && last > 1 {
			msg += ","
		}
		msg += " "
		if i == last && i != 0 {
			msg += "and "
		}
		msg += k
	}
	return msg
}

func (c *config) list(env *Env, name string) error {
	in, err := openInput(env, name)
	if err != nil {
		return err
	}
	defer in.Close()
	buf := in.data
	var out bytes.Buffer
	defer func() { env.Stdout.Write(out.Bytes()) }()
	for pos := 0; pos < len(buf); {
		rest := buf[pos:]
		next := len(buf)
		if bytes.HasPrefix(rest, bundle.CCOBMagic) && len(rest) >= 8 {
			if hdr, err := bundle.ParseHeader(rest); err == nil {
				next = pos + hdr.Len(rest)
			}
		}
		if ids, ok, err := c.listCompressed(env, in, buf[pos:next], int64(pos)); err != nil {
			return err
		} else if ok {
			for _, id := range ids {
				fmt.Fprintln(&out, id)
			}
			if next <= pos {
				break
			}
			pos = next
			continue
		}
		data, _, err := c.decompressInput(env, buf[pos:next])
		if err != nil {
			return decompressError(name, int64(pos), err)
		}
		ids, err := c.listData(data)
		if err != nil {
			return err
		}
		for _, id := range ids {
			fmt.Fprintln(&out, id)
		}
		if next <= pos {
			break
		}
		pos = next
	}
	return nil
}

func deviceFileExt(targetID, member string) string {
	switch {
	case strings.Contains(targetID, "gfx"):
		return ".bc"
	case strings.Contains(targetID, "sm_"):
		return ".cubin"
	}
	return filepath.Ext(member)
}

func stem(name string) string {
	b := filepath.Base(name)
	if b == "." || b == ".." {
		return b
	}
	if i := strings.LastIndexByte(b, '.'); i > 0 {
		return b[:i]
	}
	return b
}

func (c *config) unbundleArchive(env *Env) error {
	in, err := openInput(env, c.Inputs[0])
	if err != nil {
		return err
	}
	defer in.Close()
	if !ar.IsArchive(in.data) {
		return errors.New("file too small to be an archive")
	}
	arc, err := ar.Parse(in.data)
	if err != nil {
		return fmt.Errorf("truncated or malformed archive (%w)", err)
	}
	if c.CheckInputArchive {
		if err := c.checkArchive(env, arc); err != nil {
			return err
		}
	}
	members := map[string][]ar.WriteMember{}
	for _, m := range arc.Members {
		if m.Data == nil {
			return fmt.Errorf("%s: thin archive members are not supported", m.Name)
		}
		memberName := filepath.Base(m.Name)
		data, _, err := c.decompressInput(env, m.Data)
		if err != nil {
			return fmt.Errorf("Failed to decompress code object: %w", err)
		}
		h, cm, err := c.handlerFor(data)
		if err != nil {
			return err
		}
		es, err := c.readEntries(h, cm, data)
		if err != nil {
			return err
		}
		for _, e := range es {
			if !bundle.CheckID(e.id) {
				return errors.New("Invalid bundle id read from code object")
			}
			code, _ := bundle.ParseTarget(e.id)
			var compat []string
			for _, t := range c.targets {
				tt, _ := bundle.ParseTarget(t)
				if bundle.Compatible(code, tt, c.HipOpenMPCompatible) {
					compat = append(compat, t)
				}
			}
			if len(compat) == 0 {
				continue
			}
			d := e.data
			if h == objectHandler && e.host {
				if d, err = hostObject(data); err != nil {
					return err
				}
			}
			name := stem(memberName) + "-" + e.id + stem(memberName) + deviceFileExt(code.TargetID, memberName)
			name = strings.ReplaceAll(name, ":", "_")
			for _, t := range compat {
				members[t] = append(members[t], ar.WriteMember{Name: name, Data: d})
			}
		}
	}
	outs := newOutSet(env)
	defer outs.abort()
	for i, t := range c.targets {
		ms, ok := members[t]
		if !ok && !c.AllowMissingBundles {
			return fmt.Errorf("no compatible code object found for the target '%s' in heterogeneous archive library: %s", t, c.Inputs[0])
		}
		var buf bytes.Buffer
		if err := ar.WriteGNU(&buf, ms); err != nil {
			return err
		}
		if err := outs.write(c.Outputs[i], buf.Bytes()); err != nil {
			return err
		}
	}
	return outs.commit(c.ctx)
}

func (c *config) checkArchive(env *Env, arc *ar.Archive) error {
	for _, m := range arc.Members {
		h, cm, err := c.handlerFor(m.Data)
		if err != nil {
			return err
		}
		es, err := c.readEntries(h, cm, m.Data)
		if err != nil {
			return err
		}
		var ids []string
		for _, e := range es {
			ids = append(ids, e.id)
		}
		if a, b, ok := triple.ConflictingTargetIDs(ids); ok {
			return fmt.Errorf("conflicting TargetIDs [%s, %s] found in %s of %s", a, b, m.Name, c.Inputs[0])
		}
	}
	return nil
}

func withCommas(v uint64) string {
	s := strconv.FormatUint(v, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func cfloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	return strconv.FormatFloat(f, 'f', 2, 64)
}

func hex16(v uint64) string { return fmt.Sprintf("0x%014x", v) }

func (c *config) printCompressStats(env *Env, h bundle.Header, compressed int64, d time.Duration) {
	rate := float64(h.UncompressedSize) / float64(compressed)
	speed := float64(h.UncompressedSize) / (1024 * 1024) / d.Seconds()
	w := env.Stderr
	fmt.Fprintf(w, "Compressed bundle format version: %d\n", h.Version)
	fmt.Fprintf(w, "Total file size (including headers): %s bytes\n", withCommas(h.TotalFileSize))
	fmt.Fprintf(w, "Compression method used: %s\n", h.Method)
	fmt.Fprintf(w, "Compression level: %d\n", c.level)
	fmt.Fprintf(w, "Binary size before compression: %s bytes\n", withCommas(h.UncompressedSize))
	fmt.Fprintf(w, "Binary size after compression: %s bytes\n", withCommas(uint64(compressed)))
	fmt.Fprintf(w, "Compression rate: %s\n", cfloat(rate))
	fmt.Fprintf(w, "Compression ratio: %s%%\n", cfloat(100/rate))
	fmt.Fprintf(w, "Compression speed: %s MB/s\n", cfloat(speed))
	fmt.Fprintf(w, "Truncated MD5 hash: %s\n", hex16(h.Hash))
}

func (c *config) printDecompressStats(env *Env, d *bundle.Decompressed, dur time.Duration) {
	h := d.Header
	rate := float64(h.UncompressedSize) / float64(d.Compressed)
	speed := float64(h.UncompressedSize) / (1024 * 1024) / dur.Seconds()
	w := env.Stderr
	fmt.Fprintf(w, "Compressed bundle format version: %d\n", h.Version)
	if h.Version >= 2 {
		fmt.Fprintf(w, "Total file size (from header): %s bytes\n", withCommas(h.TotalFileSize))
	}
	fmt.Fprintf(w, "Decompression method: %s\n", h.Method)
	fmt.Fprintf(w, "Size before decompression: %s bytes\n", withCommas(uint64(d.Compressed)))
	fmt.Fprintf(w, "Size after decompression: %s bytes\n", withCommas(h.UncompressedSize))
	fmt.Fprintf(w, "Compression rate: %s\n", cfloat(rate))
	fmt.Fprintf(w, "Compression ratio: %s%%\n", cfloat(100/rate))
	fmt.Fprintf(w, "Decompression speed: %s MB/s\n", cfloat(speed))
	fmt.Fprintf(w, "Stored hash: %s\n", hex16(h.Hash))
	fmt.Fprintf(w, "Recalculated hash: %s\n", hex16(d.Hash))
	match := "No"
	if d.Hash == h.Hash {
		match = "Yes"
	}
	fmt.Fprintf(w, "Hashes match: %s\n", match)
}

// outSet collects outputs as temporary files and publishes them together,
// so a failure leaves no partial output. Writing one name twice keeps the
// last contents, as reopening a file for writing would.
type outSet struct {
	env   *Env
	files []*atomicfile.File
	by    map[string]*atomicfile.File
	src   *decodedFile // data inside it is copied file to file
	dm    *demux       // data inside its view is written as it is decoded
}

func newOutSet(env *Env) *outSet { return &outSet{env: env, by: map[string]*atomicfile.File{}} }

func (s *outSet) write(name string, data []byte) error {
	if old, ok := s.by[name]; ok {
		if s.dm != nil {
			s.dm.drop(old.File)
		}
		old.Abort()
	}
	f, err := atomicfile.Create(s.env.path(name), s.env.Stdout)
	if err != nil {
		return fileError(name, err)
	}
	s.files = append(s.files, f)
	s.by[name] = f
	if s.dm != nil {
		if ok, err := s.dm.route(f.File, name, data); ok {
			if err != nil {
				return fileError(name, err)
			}
			return nil
		}
	}
	if s.src != nil {
		if off, ok := binio.OffsetIn(s.src.m.Data, data); ok {
			// copy_file_range from the decoded temporary: the bytes never
			// pass through (or stay resident in) this process.
			if _, err := s.src.f.Seek(off, io.SeekStart); err == nil {
				if _, err := io.CopyN(f.Writer(), s.src.f, int64(len(data))); err != nil {
					return fileError(name, err)
				}
				return nil
			}
		}
	}
	if _, err := f.Writer().Write(data); err != nil {
		return fileError(name, err)
	}
	return nil
}

func (s *outSet) commit(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, f := range s.files {
		if err := f.Commit(); err != nil {
			return err
		}
	}
	return nil
}

func (s *outSet) abort() {
	for _, f := range s.files {
		f.Abort()
	}
}

// writeOutputAt writes one output atomically through WriteAt (a
// temporary file, or a memory buffer for "-").
func writeOutputAt(env *Env, name string, write func(w io.WriterAt) error) error {
	if name == "-" {
		var b memAt
		if err := write(&b); err != nil {
			return err
		}
		_, err := env.Stdout.Write(b.buf)
		return err
	}
	f, err := atomicfile.Create(env.path(name), env.Stdout)
	if err != nil {
		return fileError(name, err)
	}
	if f.Streaming() { // a device or FIFO: no WriteAt
		var b memAt
		err := write(&b)
		if err == nil {
			_, err = f.Writer().Write(b.buf)
		}
		if err != nil {
			f.Abort()
			return err
		}
		return f.Commit()
	}
	if err := write(f.File); err != nil {
		f.Abort()
		return err
	}
	if err := f.Commit(); err != nil {
		return fileError(name, err)
	}
	return nil
}

type memAt struct{ buf []byte }

func (m *memAt) WriteAt(p []byte, off int64) (int, error) {
	if end := int(off) + len(p); end > len(m.buf) {
		m.buf = append(m.buf, make([]byte, end-len(m.buf))...)
	}
	copy(m.buf[off:], p)
	return len(p), nil
}

// ctxReader stops a long copy when the context is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// writeOutput writes one output atomically.
func writeOutput(env *Env, name string, write func(w io.Writer) error) error {
	f, err := atomicfile.Create(env.path(name), env.Stdout)
	if err != nil {
		return fileError(name, err)
	}
	if err := write(f.Writer()); err != nil {
		f.Abort()
		return err
	}
	if err := f.Commit(); err != nil {
		return fileError(name, err)
	}
	return nil
}
