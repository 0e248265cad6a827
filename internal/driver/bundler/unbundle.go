package bundler

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/offload-kit/offload-kit/elfembed"
	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/bundle"
)

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

// entriesOf picks the handler for one (decompressed) bundled file and
// lists its entries (readEntries).
func (c *config) entriesOf(data []byte) (handlerKind, []entry, error) {
	h, cm, err := c.handlerFor(data)
	if err != nil {
		return 0, nil, err
	}
	es, err := c.readEntries(h, cm, data)
	return h, es, err
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
	for _, id := range c.idsOf(b) {
		e, _ := b.Lookup(id)
		es = append(es, entry{id: id, data: e.Data})
	}
	return es, nil
}

// hostObject is the input object with every bundle section removed.
func (c *config) hostObject(data []byte) ([]byte, error) {
	if !c.prof.BundlerHostStripped() {
		return data, nil // LLVM 16 writes the bundled object whole
	}
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
	if err := c.rewriteObject(&buf, data, elfembed.Edit{Remove: rm, ObjcopyCompat: true}); err != nil {
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
		if f, err := os.Open(env.Path(in.name)); err == nil {
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
	h, entries, err := c.entriesOf(data)
	if err != nil {
		return err
	}
	work := bundle.NewOrderedSet(c.prof.StringMapHash())
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
		if !c.checkID(e.id) {
			return errors.New("invalid bundle id read from the bundle")
		}
		code, _ := c.parseID(e.id)
		match := ""
		for _, t := range work.Keys() {
			if c.compatible(e.id, t) {
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
			} else if d, err = c.hostObject(data); err != nil {
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
			if tt, _ := c.parseID(t); tt.IsHost() {
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
