package split

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/offload-kit/offload-kit/format/syclprop"
)

// Device globals and host pipes (spec §7.6, §2.7). Both are global
// variables identified by IR attributes (in the variable's attribute
// group): a device global has "sycl-device-global-size" (the size in bytes
// of its type T), a host pipe "sycl-host-pipe-size"; both have
// "sycl-unique-id", the key the runtime knows them by. A device global
// with "sycl-device-image-scope" (any value but "false") has the
// device_image_scope property.

// DeviceGlobal describes a device global variable.
type DeviceGlobal struct {
	Var        int32  // index in Module.Globals
	UniqueID   string // "sycl-unique-id"
	Size       uint32 // "sycl-device-global-size"
	ImageScope bool   // "sycl-device-image-scope" present and not "false"
}

// deviceGlobal reports whether global i is a device global, and
// describes it. err is set when the attributes are malformed.
func (m *Module) deviceGlobal(i int32) (dg DeviceGlobal, ok bool, err error) {
	g := &m.Globals[i]
	if g.Kind != Variable {
		return dg, false, nil
	}
	sz, ok := m.Attr(g, "sycl-device-global-size")
	if !ok {
		return dg, false, nil
	}
	dg.Var = i
	n, perr := strconv.ParseUint(sz, 10, 32)
	if perr != nil {
		return dg, true, fmt.Errorf("device global @%s: bad \"sycl-device-global-size\" %q", g.Name(), sz)
	}
	dg.Size = uint32(n)
	if dg.UniqueID, ok = m.Attr(g, "sycl-unique-id"); !ok {
		return dg, true, fmt.Errorf("device global @%s has no \"sycl-unique-id\" attribute", g.Name())
	}
	if v, ok := m.Attr(g, "sycl-device-image-scope"); ok && v != "false" {
		dg.ImageScope = true
	}
	return dg, true, nil
}

// hostPipe reports whether global i is a host pipe, with its unique id
// and the size of its element type.
func (m *Module) hostPipe(i int32) (uid string, size uint32, ok bool, err error) {
	g := &m.Globals[i]
	if g.Kind != Variable {
		return "", 0, false, nil
	}
	sz, ok := m.Attr(g, "sycl-host-pipe-size")
	if !ok {
		return "", 0, false, nil
	}
	n, perr := strconv.ParseUint(sz, 10, 32)
	if perr != nil {
		return "", 0, true, fmt.Errorf("host pipe @%s: bad \"sycl-host-pipe-size\" %q", g.Name(), sz)
	}
	if uid, ok = m.Attr(g, "sycl-unique-id"); !ok {
		return "", 0, true, fmt.Errorf("host pipe @%s has no \"sycl-unique-id\" attribute", g.Name())
	}
	return uid, uint32(n), true, nil
}

// DeviceGlobals lists the module's device globals in module order.
func (m *Module) DeviceGlobals() ([]DeviceGlobal, error) {
	var out []DeviceGlobal
	for i := range m.Globals {
		dg, ok, err := m.deviceGlobal(int32(i))
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, dg)
		}
	}
	return out, nil
}

// ImageScopeError is intel's error for a device_image_scope device global
// that entry points of two images use (spec §2.7).
type ImageScopeError struct{ Var string }

func (e *ImageScopeError) Error() string {
	return fmt.Sprintf("device_global variable '%s' with property \"device_image_scope\" is used in more than one device image.", e.Var)
}

// VerifyGlobals checks the device globals and host pipes for a split into
// parts: their attributes must be well formed, and a device global with
// device_image_scope may be used (reached from the entry points, not
// merely copied in as a non-discardable variable) by one part only
// (*ImageScopeError, as intel's verifyNoCrossModuleDeviceGlobalUsage).
func (m *Module) VerifyGlobals(parts []Part, opts ClosureOptions) error {
	dgs, err := m.DeviceGlobals()
	if err != nil {
		return err
	}
	for i := range m.Globals {
		if _, _, _, err := m.hostPipe(int32(i)); err != nil {
			return err
		}
	}
	scoped := map[int32]bool{}
	for _, dg := range dgs {
		if dg.ImageScope {
			scoped[dg.Var] = true
		}
	}
	if len(scoped) == 0 || len(parts) < 2 {
		return nil
	}
	opts.NoSeeds = true
	x := m.NewExtractor(opts)
	owner := map[int32]int{}
	for pi := range parts {
		if len(parts[pi].Entries) == 0 {
			continue
		}
		for _, gi := range x.Closure(parts[pi].Entries).Globals {
			if !scoped[gi] {
				continue
			}
			if o, seen := owner[gi]; seen && o != pi {
				return &ImageScopeError{Var: m.Globals[gi].Name()}
			}
			owner[gi] = pi
		}
	}
	return nil
}

// addDeviceGlobals adds SYCL/device globals: unique id → byte array of
// {u32 size of T, u32 device_image_scope}, for the device globals the part
// keeps, in module order. Malformed ones (VerifyGlobals reports them) are
// left out.
func (m *Module) addDeviceGlobals(ps *syclprop.Sets, cl *Closure) {
	var props []syclprop.Prop
	for _, gi := range cl.Globals {
		dg, ok, err := m.deviceGlobal(gi)
		if !ok || err != nil {
			continue
		}
		scope := uint32(0)
		if dg.ImageScope {
			scope = 1
		}
		b := binary.LittleEndian.AppendUint32(nil, dg.Size)
		props = append(props, byteProp(dg.UniqueID, binary.LittleEndian.AppendUint32(b, scope)))
	}
	if len(props) > 0 {
		ps.Set("SYCL/device globals").Props = props
	}
}

// addHostPipes adds SYCL/host pipes: unique id → byte array of {u32 size},
// for the host pipes the part keeps, in module order.
func (m *Module) addHostPipes(ps *syclprop.Sets, cl *Closure) {
	var props []syclprop.Prop
	for _, gi := range cl.Globals {
		uid, size, ok, err := m.hostPipe(gi)
		if !ok || err != nil {
			continue
		}
		props = append(props, byteProp(uid, binary.LittleEndian.AppendUint32(nil, size)))
	}
	if len(props) > 0 {
		ps.Set("SYCL/host pipes").Props = props
	}
}

// addGlobalIDMapping adds "<unique id>@global_id_mapping" → byte array of
// the variable's name to SYCL/program metadata, per device global kept.
func (m *Module) addGlobalIDMapping(pm *syclprop.Set, cl *Closure) {
	for _, gi := range cl.Globals {
		dg, ok, err := m.deviceGlobal(gi)
		if !ok || err != nil {
			continue
		}
		pm.Props = append(pm.Props, byteProp(dg.UniqueID+"@global_id_mapping", []byte(m.Globals[gi].Name())))
	}
}
