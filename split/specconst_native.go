package split

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Native-mode spec constants (spec §6.2) are emitted as calls that the
// LLVM 22 SPIR-V backend turns into spec-constant instructions. What it
// accepts, as checked with llc-22 -mtriple=spirv64-unknown-unknown
// -filetype=obj, spirv-val and spirv-dis:
//
//   - The builtins are found by demangling the callee. Both
//     _Z20__spirv_SpecConstant… and _Z29__spirv_SpecConstantComposite…
//     (and the bare names) are recognised; a length prefix that does not
//     match the identifier (_Z21__spirv_SpecConstant…,
//     _Z30__spirv_SpecConstantComposite…) leaves an ordinary OpFunctionCall.
//   - Nothing after the identifier is interpreted: the argument codes and
//     the _R<type> suffix only keep the declarations of different result
//     types apart, and a suffix that needs quoting (_Rstruct.n::S) is fine.
//     The result type comes from the IR call.
//   - T _Z20__spirv_SpecConstant…(i32 ID, T Default) becomes
//     OpSpecConstant T Default (OpSpecConstantTrue/False for i1) decorated
//     SpecId ID.
//   - T _Z29__spirv_SpecConstantComposite…(ops…) becomes
//     OpSpecConstantComposite T ops… for struct, array and vector results,
//     nested composites included; an undef operand becomes OpUndef, which
//     spirv-val accepts.
//   - An operand that is not itself a spec constant (the trunc of an i8
//     call, an unrecognised call) is emitted as a function-local id that
//     the module-level OpSpecConstantComposite refers to, which spirv-val
//     rejects ("ID has not been defined"). So an i1 leaf of a composite is
//     an i1 call (code b), never an i8 call plus trunc.
const (
	spirvSpecConstant          = "_Z20__spirv_SpecConstant"
	spirvSpecConstantComposite = "_Z29__spirv_SpecConstantComposite"
)

// nativeEmitter writes the calls for one use of a spec constant: one
// __spirv_SpecConstant call per defined scalar leaf, and one
// __spirv_SpecConstantComposite call per struct, array or vector, built
// bottom-up.
type nativeEmitter struct {
	out    *bytes.Buffer
	decls  map[string]string // function name → declaration
	indent string
	tmp    string // "%scN", the prefix of every value emitted for this use
	leaves []leaf
	ids    []uint32 // per leaf
	next   int      // the next leaf to consume
	ncomp  int      // composites emitted so far
}

// top emits the value of the whole constant of type ct as name. It always
// emits a call, even when every leaf is undef.
func (e *nativeEmitter) top(ct *ctype, name string) error {
	if _, err := e.composite(ct, name); err != nil {
		return err
	}
	if e.next != len(e.leaves) {
		return fmt.Errorf("type %s has %d scalars, its default %d", ct.ir(), e.next, len(e.leaves))
	}
	return nil
}

// operand emits the value of a member of type ct and returns it as an
// operand (an SSA name or undef). A member whose leaves are all undef
// (padding) is passed as undef; its leaves still use up their IDs.
func (e *nativeEmitter) operand(ct *ctype) (string, error) {
	n := leafCount(ct)
	if e.next+n > len(e.leaves) {
		return "", fmt.Errorf("type %s has more scalars than its default", ct.ir())
	}
	undef := true
	for _, x := range e.leaves[e.next : e.next+n] {
		undef = undef && x.undef
	}
	if undef {
		e.next += n
		return "undef", nil
	}
	if ct.scalar != "" {
		x, id := e.leaves[e.next], e.ids[e.next]
		name := e.tmp + "." + strconv.Itoa(e.next)
		e.next++
		fn := spirvSpecConstant + "i" + scalarTypes[x.typ].code
		if err := e.declare(fn, x.typ, "i32, "+x.typ); err != nil {
			return "", err
		}
		fmt.Fprintf(e.out, "%s%s = call spir_func %s %s(i32 %d, %s %s)\n", e.indent, name, x.typ, globalName(fn), id, x.typ, x.lit)
		return name, nil
	}
	e.ncomp++
	return e.composite(ct, fmt.Sprintf("%s.c%d", e.tmp, e.ncomp))
}

// composite emits the __spirv_SpecConstantComposite call of ct as name.
func (e *nativeEmitter) composite(ct *ctype, name string) (string, error) {
	elems := ct.fields
	if ct.elem != nil {
		elems = make([]*ctype, ct.n)
		for i := range elems {
			elems[i] = ct.elem
		}
	}
	var codes strings.Builder
	params := make([]string, len(elems))
	args := make([]string, len(elems))
	for i, el := range elems {
		v, err := e.operand(el)
		if err != nil {
			return "", err
		}
		codes.WriteString(mangleType(el))
		params[i] = el.ir()
		args[i] = el.ir() + " " + v
	}
	fn := spirvSpecConstantComposite + codes.String() + "_R" + mangleType(ct)
	if err := e.declare(fn, ct.ir(), strings.Join(params, ", ")); err != nil {
		return "", err
	}
	fmt.Fprintf(e.out, "%s%s = call spir_func %s %s(%s)\n", e.indent, name, ct.ir(), globalName(fn), strings.Join(args, ", "))
	return name, nil
}

// declare records the declaration of fn, failing if two different types
// mangle to the same name.
func (e *nativeEmitter) declare(fn, ret, params string) error {
	d := fmt.Sprintf("declare spir_func %s %s(%s)\n", ret, globalName(fn), params)
	if old, ok := e.decls[fn]; ok && old != d {
		return fmt.Errorf("two spec constant types mangle to %s", fn)
	}
	e.decls[fn] = d
	return nil
}

// mangleType is the mini mangling of spec §6.2: f, d, Dh, b, a, s, i, x
// for scalars, A<n>_<elt> for arrays, Dv<n>_<elt> for vectors and the
// name for a named struct. A literal struct has no name; its squeezed type
// text ("{i32,float}") stands in, which keeps distinct types distinct.
func mangleType(ct *ctype) string {
	switch {
	case ct.scalar != "":
		return scalarTypes[ct.scalar].code
	case strings.HasPrefix(ct.text, "%"):
		return unquote(ct.text[1:])
	case ct.elem != nil && ct.vector:
		return "Dv" + strconv.Itoa(ct.n) + "_" + mangleType(ct.elem)
	case ct.elem != nil:
		return "A" + strconv.Itoa(ct.n) + "_" + mangleType(ct.elem)
	}
	return ct.text
}

// leafCount is the number of scalar leaves of ct, as leaves returns them.
func leafCount(ct *ctype) int {
	if ct.scalar != "" {
		return 1
	}
	n := 0
	for _, f := range ct.fields {
		n += leafCount(f)
	}
	if ct.elem != nil {
		n += ct.n * leafCount(ct.elem)
	}
	return n
}

// globalName spells @name, quoted and escaped when it has characters an
// unquoted LLVM identifier cannot hold.
func globalName(name string) string {
	plain := name != "" && !(name[0] >= '0' && name[0] <= '9')
	for i := 0; i < len(name) && plain; i++ {
		plain = isIdentChar(name[i])
	}
	if plain {
		return "@" + name
	}
	var b strings.Builder
	b.WriteString(`@"`)
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '"' || c == '\\' || c < 0x20 || c >= 0x7f {
			fmt.Fprintf(&b, `\%02X`, c)
			continue
		}
		b.WriteByte(c)
	}
	b.WriteByte('"')
	return b.String()
}
