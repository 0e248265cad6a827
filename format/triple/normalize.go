package triple

import "strings"

// Canonical forms for Normalize: Any keeps the number of components;
// Three, Four and Five pad with "unknown" or cut to that many
// (Triple::CanonicalForm).
const (
	Any   = 0
	Three = 3
	Four  = 4
	Five  = 5
)

// Normalize is Triple::normalize(s, form) in LLVM 22.1.8: each component
// that parses as an architecture, vendor, OS or environment/object format
// but is not in its place is moved there (pushing the others right), empty
// components become "unknown", and the special cases follow: a "none"
// vendor between an architecture and an environment becomes the OS,
// androideabiN becomes androidN, SUSE's gnueabi is gnueabihf, win32,
// mingw* and cygwin* become windows with msvc/gnu/cygnus (and a non-COFF
// object format in a fifth component), and dxil takes its version from a
// shadermodel OS.
func Normalize(s string, form int) string {
	comps := strings.Split(s, "-")
	var (
		arch             ArchType
		vendor           VendorType
		osv              OSType
		env              EnvironmentType
		objfmt           ObjectFormatType
		isCygwin, isMinG bool
	)
	if len(comps) > 0 {
		arch = parseArch(comps[0])
	}
	if len(comps) > 1 {
		vendor = parseVendor(comps[1])
	}
	if len(comps) > 2 {
		osv = parseOS(comps[2])
		isCygwin = strings.HasPrefix(comps[2], "cygwin")
		isMinG = strings.HasPrefix(comps[2], "mingw")
	}
	if len(comps) > 3 {
		env = parseEnv(comps[3])
	}
	if len(comps) > 4 {
		objfmt = parseObjFmt(comps[4])
	}
	found := [4]bool{arch != "", vendor != "", osv != "", env != ""}
	for pos := 0; pos < 4; pos++ {
		if found[pos] {
			continue
		}
		for idx := 0; idx < len(comps); idx++ {
			if idx < 4 && found[idx] {
				continue
			}
			c := comps[idx]
			valid := false
			switch pos {
			case 0:
				arch = parseArch(c)
				valid = arch != ""
			case 1:
				vendor = parseVendor(c)
				valid = vendor != ""
			case 2:
				osv = parseOS(c)
				isCygwin = strings.HasPrefix(c, "cygwin")
				isMinG = strings.HasPrefix(c, "mingw")
				valid = osv != "" || isCygwin || isMinG
			case 3:
				env = parseEnv(c)
				valid = env != ""
				if !valid {
					objfmt = parseObjFmt(c)
					valid = objfmt != ""
				}
			}
			if !valid {
				continue
			}
			comps = move(comps, &found, idx, pos)
			found[pos] = true
			break
		}
	}
	if found[0] && !found[1] && !found[2] && found[3] && comps[1] == "none" && comps[2] == "" {
		comps[1], comps[2] = comps[2], comps[1]
	}
	for i, c := range comps {
		if c == "" {
			comps[i] = "unknown"
		}
	}
	if env == "android" && strings.HasPrefix(comps[3], "androideabi") {
		comps[3] = "android" + strings.TrimPrefix(comps[3], "androideabi")
	}
	if vendor == "suse" && env == "gnueabi" {
		comps[3] = "gnueabihf"
	}
	// resize as SmallVector::resize: new components are empty, and each
	// one created here is set below.
	resize := func(n int) {
		for len(comps) < n {
			comps = append(comps, "")
		}
		comps = comps[:n]
	}
	switch {
	case osv == "windows":
		resize(4)
		comps[2] = "windows"
		if env == "" {
			if objfmt == "" || objfmt == "coff" {
				comps[3] = "msvc"
			} else {
				comps[3] = string(objfmt)
			}
		}
	case isMinG:
		resize(4)
		comps[2], comps[3] = "windows", "gnu"
	case isCygwin:
		resize(4)
		comps[2], comps[3] = "windows", "cygnus"
	}
	if isMinG || isCygwin || (osv == "windows" && env != "") {
		if objfmt != "" && objfmt != "coff" {
			resize(5)
			comps[4] = string(objfmt)
		}
	}
	if comps[0] == "dxil" {
		if len(comps) > 4 {
			resize(4)
		}
		if osv == "shadermodel" {
			comps[0] = dxilForShaderModel(comps[2])
		}
	}
	if form > 0 {
		for len(comps) < form {
			comps = append(comps, "unknown")
		}
		comps = comps[:form]
	}
	return strings.Join(comps, "-")
}

// move moves comps[idx] to position pos as normalize does, skipping the
// positions already found: left by inserting it and pushing the others
// right, or right by inserting empty components before it.
func move(comps []string, found *[4]bool, idx, pos int) []string {
	if pos < idx {
		cur := ""
		cur, comps[idx] = comps[idx], cur
		for i := pos; cur != ""; i++ {
			for i < 4 && found[i] {
				i++
			}
			for i >= len(comps) {
				comps = append(comps, "")
			}
			cur, comps[i] = comps[i], cur
		}
		return comps
	}
	for idx < pos {
		cur := ""
		for i := idx; i < len(comps); {
			cur, comps[i] = comps[i], cur
			if cur == "" {
				break
			}
			i++
			for i < 4 && found[i] {
				i++
			}
		}
		if cur != "" {
			comps = append(comps, cur)
		}
		idx++
		for idx < 4 && found[idx] {
			idx++
		}
	}
	return comps
}

// latestDXIL is the DXIL version shadermodel6.x selects in 22.1.8
// (clang-22 -target dxil-unknown-shadermodel6.x-library
// -print-target-triple says dxilv1.9).
const latestDXIL = 9

// dxilForShaderModel is the DXIL architecture name for a shadermodel OS
// component: dxilv1.Y for shader model 6.Y, the latest for "6.x", and
// dxilv1.0 for anything else.
func dxilForShaderModel(os string) string {
	v := strings.TrimPrefix(os, "shadermodel")
	if v == "6.x" {
		return "dxilv1." + string(rune('0'+latestDXIL))
	}
	parts := strings.Split(v, ".")
	if len(parts) > 4 {
		return "dxilv1.0"
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return "dxilv1.0" // VersionTuple::tryParse fails: no version
		}
	}
	if len(parts) >= 2 && strings.TrimLeft(parts[0], "0") == "6" {
		minor := strings.TrimLeft(parts[1], "0")
		if minor == "" {
			minor = "0"
		}
		if len(minor) == 1 && minor[0]-'0' <= latestDXIL {
			return "dxilv1." + minor
		}
		// LLVM stops with "Unsupported Shader Model version"; we keep
		// the name as it is.
		return "dxil"
	}
	return "dxilv1.0"
}
