package bundler

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/offload-kit/offload-kit/format/ar"
	"github.com/offload-kit/offload-kit/format/triple"
	"github.com/offload-kit/offload-kit/internal/driverenv"
)

func deviceFileExt(targetID, member string) string {
	switch {
	case strings.Contains(targetID, "gfx"):
		return ".bc"
	case strings.Contains(targetID, "sm_"):
		return ".cubin"
	}
	return filepath.Ext(member)
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
		stem := driverenv.Stem(memberName)
		data, _, err := c.decompressInput(env, m.Data)
		if err != nil {
			return fmt.Errorf("Failed to decompress code object: %w", err)
		}
		h, es, err := c.entriesOf(data)
		if err != nil {
			return err
		}
		for _, e := range es {
			if !c.checkID(e.id) {
				return errors.New("Invalid bundle id read from code object")
			}
			code, _ := c.parseID(e.id)
			var compat []string
			for _, t := range c.targets {
				if c.compatible(e.id, t) {
					compat = append(compat, t)
				}
			}
			if len(compat) == 0 {
				continue
			}
			d := e.data
			if h == objectHandler && e.host {
				if d, err = c.hostObject(data); err != nil {
					return err
				}
			}
			name := stem + "-" + e.id + stem + deviceFileExt(code.TargetID, memberName)
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
		_, es, err := c.entriesOf(m.Data)
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
