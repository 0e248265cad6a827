package fatbin

import "strconv"

// Entry flags that qualify the SM (CUDA 12.9 and later). fatbinary sets
// them from its --image3 sm=90a / sm=100f and nvcc's -arch; cuobjdump
// -lelf/-lptx names entries with the suffix from here (a cubin's ELF
// header cannot tell sm_100f from sm_100).
const (
	FlagArchSpecific   = 0x00100000 // sm_NNa: arch-specific features
	FlagFamilySpecific = 0x00200000 // sm_NNf: family-specific features
)

// Arch is the entry's target as CUDA names it: sm_NN, sm_NNa or sm_NNf.
func (e *Entry) Arch() string {
	s := "sm_" + strconv.Itoa(e.SM)
	switch {
	case e.Flags&FlagArchSpecific != 0:
		s += "a"
	case e.Flags&FlagFamilySpecific != 0:
		s += "f"
	}
	return s
}
