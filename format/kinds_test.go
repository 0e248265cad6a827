package format

import "testing"

// The names of every image and offload kind, and of a few values that
// have none, as the LLVM tools and our JSON print them.
func TestImageKindNames(t *testing.T) {
	for _, tt := range []struct {
		k              ImageKind
		str, ext, dump string
	}{
		{ImgNone, "none", "", "<none>"},
		{ImgObject, "object", "o", "elf"},
		{ImgBitcode, "bitcode", "bc", "llvm ir"},
		{ImgCubin, "cubin", "cubin", "cubin"},
		{ImgFatbinary, "fatbinary", "fatbin", "fatbinary"},
		{ImgPTX, "ptx", "s", "ptx"},
		{ImgSPIRV, "spirv", "", "<none>"},
		{imgLast, "ImageKind(7)", "", "<none>"},
		{0xffff, "ImageKind(65535)", "", "<none>"},
	} {
		if got := tt.k.String(); got != tt.str {
			t.Errorf("ImageKind(%d).String() = %q, want %q", tt.k, got, tt.str)
		}
		if got := tt.k.Ext(); got != tt.ext {
			t.Errorf("ImageKind(%d).Ext() = %q, want %q", tt.k, got, tt.ext)
		}
		if got := tt.k.DumpName(); got != tt.dump {
			t.Errorf("ImageKind(%d).DumpName() = %q, want %q", tt.k, got, tt.dump)
		}
	}
	for ext, want := range map[string]ImageKind{
		"o": ImgObject, "bc": ImgBitcode, "cubin": ImgCubin, "fatbin": ImgFatbinary, "s": ImgPTX,
		"": ImgNone, "spv": ImgNone, "O": ImgNone, "none": ImgNone, "ptx": ImgNone,
	} {
		if got := ImageKindFromExt(ext); got != want {
			t.Errorf("ImageKindFromExt(%q) = %d, want %d", ext, got, want)
		}
	}
}

func TestOffloadKindNames(t *testing.T) {
	for k, want := range map[OffloadKind]string{
		OfkNone: "none", OfkOpenMP: "openmp", OfkCuda: "cuda", OfkHIP: "hip", OfkSYCL: "sycl",
		3: "none", 5: "none", ofkLast: "none", 0xffff: "none",
	} {
		if got := k.String(); got != want {
			t.Errorf("OffloadKind(%d).String() = %q, want %q", k, got, want)
		}
	}
	for s, want := range map[string]OffloadKind{
		"openmp": OfkOpenMP, "cuda": OfkCuda, "hip": OfkHIP, "sycl": OfkSYCL,
		"": OfkNone, "none": OfkNone, "HIP": OfkNone, "hipv4": OfkNone,
	} {
		if got := ParseOffloadKind(s); got != want {
			t.Errorf("ParseOffloadKind(%q) = %d, want %d", s, got, want)
		}
	}
}
