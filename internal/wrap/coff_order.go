package wrap

import (
	"fmt"
	"github.com/offload-kit/offload-kit/format"

	"github.com/offload-kit/offload-kit/internal/objw"
)

// coffFront lists, per registration function, the symbols that LLVM 22's
// COFF writer puts first (after the section symbols): the writer emits
// symbols in the order the MC streamer first saw them, that is @feat.00,
// then each function and what its code refers to, in llc's code order,
// then the globals the code did not mention, in module order. Symbols not
// listed here (the entry bounds of OpenMP, the device images and arrays,
// the fatbin image, SYCL's per-image globals) already stand in our model
// in LLVM's module order and follow, and the .file record comes last
// (objw). Matching the order matters beyond looks: symbol indices, and so
// every AuxWeakExternal's TagIndex, are then LLVM's.
var coffFront = map[string][]string{
	".omp_offloading.descriptor_reg": {
		"@feat.00", ".omp_offloading.descriptor_reg", ".omp_offloading.descriptor", "__tgt_register_lib",
		".omp_offloading.descriptor_unreg", "atexit", "__tgt_unregister_lib",
	},
	".cuda.fatbin_reg": {
		"@feat.00", ".cuda.fatbin_reg", ".fatbin_wrapper", "__cudaRegisterFatBinary", ".cuda.binary_handle",
		".cuda.globals_reg", "__cudaRegisterFatBinaryEnd", ".cuda.fatbin_unreg", "atexit", "__cudaUnregisterFatBinary",
		"__stop_llvm_offload_entries", "__start_llvm_offload_entries",
		"__cudaRegisterFunction", "__cudaRegisterVar", "__cudaRegisterManagedVar",
	},
	".hip.fatbin_reg": {
		"@feat.00", ".hip.fatbin_reg", ".fatbin_wrapper", "__hipRegisterFatBinary", ".hip.binary_handle",
		".hip.globals_reg", ".hip.fatbin_unreg", "atexit", "__hipUnregisterFatBinary",
		"__stop_llvm_offload_entries", "__start_llvm_offload_entries",
		"__hipRegisterFunction", "__hipRegisterVar", "__hipRegisterSurface", "__hipRegisterTexture", "__hipRegisterManagedVar",
	},
	"sycl.descriptor_reg": {
		"@feat.00", "sycl.descriptor_reg", ".sycl_offloading.descriptor", "__sycl_register_lib",
		"sycl.descriptor_unreg", "__sycl_unregister_lib",
	},
}

// orderCOFFSymbols puts the symbols of a COFF object in LLVM 22's order
// (coffFront). Objects LLVM 22 has no counterpart for (SYCL's blob
// registration from LLVM main) keep the model's order.
func (m *module) orderCOFFSymbols() error {
	var front []string
	for fn, names := range coffFront {
		if _, ok := m.c.labels[fn]; ok {
			front = names
		}
	}
	byName := map[string]*objw.Symbol{}
	for _, s := range m.o.Symbols() {
		if s.Type != format.STT_SECTION {
			byName[s.Name] = s
		}
	}
	if _, blob := byName[".sycl_offloading.binary"]; front == nil || blob {
		return nil
	}
	syms := make([]*objw.Symbol, 0, len(front))
	for _, n := range front {
		s, ok := byName[n]
		if !ok {
			return fmt.Errorf("wrap: internal error: COFF symbol %s missing", n)
		}
		syms = append(syms, s)
	}
	return m.o.OrderSymbols(syms)
}
