// Package codeobj looks inside device code objects, one level below the
// offload containers: the kernels and functions of an AMDGPU code object
// (symbols, their .kd kernel descriptors and the NT_AMDGPU_METADATA
// msgpack note), of an NVIDIA cubin (.text.<name> sections and the EIATTR
// records of .nv.info and .nv.info.<name>), of PTX text (.entry/.func), of
// a SPIR-V module (OpEntryPoint, OpFunction...OpFunctionEnd in words) and
// of a host ELF image (STT_FUNC symbols).
//
// Every parser works on a byte slice that may be a file mapping: it reads
// headers, symbol tables, notes and descriptors only, never copies code,
// bounds every offset and count by the input, and returns
// *format.FormatError. The facts each parser relies on are in
// docs/kernels-json.md.
package codeobj
