package release

// Where a release's clang puts the offload entries of a kind and how big
// one record is: the facts a registration object (internal/wrap) and an
// input scanner need to find them.
//
// LLVM 20 and later: one section, llvm_offload_entries, of 56-byte
// llvm::offloading::EntryTy records that carry their own Kind. LLVM 16 to
// 19: one section per kind (omp_offloading_entries,
// cuda_offloading_entries, hip_offloading_entries) of 32-byte
// __tgt_offload_entry records {void *addr; char *name; size_t size;
// int32_t flags; int32_t reserved} without a kind field (checked against
// the entry sections clang 16 and clang 19 write).

// Offload kinds named by EntrySection.
const (
	KindOpenMP = "openmp"
	KindCUDA   = "cuda"
	KindHIP    = "hip"
	KindSYCL   = "sycl"
)

// EntrySection is the section the release's clang writes kind's offload
// entries into (and whose __start_/__stop_ symbols bound them).
// LLVM 16-19 have no SYCL entries in the new driver; SYCL (and any other
// kind) gets llvm_offload_entries.
func (p Profile) EntrySection(kind string) string {
	if p.LegacyEntries() {
		switch kind {
		case KindOpenMP:
			return "omp_offloading_entries"
		case KindCUDA:
			return "cuda_offloading_entries"
		case KindHIP:
			return "hip_offloading_entries"
		}
	}
	return "llvm_offload_entries"
}

// EntrySize is the size in bytes of one offload entry on a 64-bit host:
// 32 (__tgt_offload_entry, LLVM 16-19) or 56 (EntryTy, LLVM 20 and later).
func (p Profile) EntrySize() int {
	if p.LegacyEntries() {
		return 32
	}
	return 56
}
