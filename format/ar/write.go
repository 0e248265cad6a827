package ar

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteMember is one member to write.
type WriteMember struct {
	Name string
	Data []byte
}

// WriteGNU writes a deterministic GNU archive exactly as LLVM's
// writeArchive(K_GNU, NormalSymtab, Deterministic=true, Thin=false) does,
// e.g. `llvm-offload-binary --archive` or `llvm-ar rcD --format=gnu`:
// modification time 0, uid and gid 0, mode 644, names written as "name/"
// when shorter than 16 bytes and free of '/', otherwise through the "//"
// long-name table (one entry per distinct name, as LLVM deduplicates), and
// odd-sized members padded with '\n'.
//
// When at least one member is an ELF or COFF object, a symbol table ("/",
// or "/SYM64/" once member offsets pass 4 GiB) comes first, listing the
// global defined symbols of each object as LLVM's isArchiveSymbol selects
// them; with objects but no such symbols it is the empty table LLVM writes.
// Members that are not objects (OffloadBinaries, images, text) get no
// entries, and with no object at all there is no symbol table. Bitcode
// members are not indexed (LLVM would list their IR symbols), so archives
// holding bitcode differ from LLVM's in the symbol table only.
// A malformed ELF or COFF member is an error, as it is for LLVM.
// WriteGNU is WriteGNUWith with zero Options.
func WriteGNU(w io.Writer, members []WriteMember) error {
	return writeGNU(w, members, Options{}, 1<<32)
}

// SymbolFunc computes the symbol-table entries of one archive member: the
// names to index, in order, and whether the member counts as an object
// file for LLVM (an archive with at least one object gets a symbol table,
// even an empty one). A non-nil error aborts the write.
type SymbolFunc func(data []byte) (names []string, object bool, err error)

// Options adjusts WriteGNUWith.
type Options struct {
	// Symbols computes each member's symbol-table entries. Nil means
	// ObjectSymbols (ELF and COFF objects; everything else is data). A
	// caller that also wants bitcode members indexed, as LLVM does, passes
	// a function that handles bitcode (e.g. with bitcode.ArchiveSymbols)
	// and defers to ObjectSymbols for the rest; format/ar does not import
	// format/bitcode.
	Symbols SymbolFunc
}

// WriteGNUWith is WriteGNU with the members' symbols computed by
// opts.Symbols.
func WriteGNUWith(w io.Writer, members []WriteMember, opts Options) error {
	return writeGNU(w, members, opts, 1<<32)
}

// writeGNU takes the member-offset threshold at which the 64-bit symbol
// table is used (LLVM's SYM64_THRESHOLD), so tests can exercise it.
func writeGNU(w io.Writer, members []WriteMember, opts Options, sym64Threshold uint64) error {
	symbols := opts.Symbols
	if symbols == nil {
		symbols = ObjectSymbols
	}
	for _, m := range members {
		if m.Name == "" || strings.ContainsAny(m.Name, "\n") {
			return fmt.Errorf("ar: invalid member name %q", m.Name)
		}
		if int64(len(m.Data)) > 9999999999 {
			return fmt.Errorf("ar: member %q too large (%d bytes)", m.Name, len(m.Data))
		}
	}
	// Symbols.
	syms := make([][]string, len(members))
	hasObject := false
	nsyms := 0
	namesLen := 0
	for i, m := range members {
		s, obj, err := symbols(m.Data)
		if err != nil {
			return fmt.Errorf("ar: member %s: %w", m.Name, err)
		}
		hasObject = hasObject || obj
		syms[i] = s
		nsyms += len(s)
		for _, n := range s {
			namesLen += len(n) + 1
		}
	}
	if hasObject && nsyms == 0 {
		namesLen = 3 // LLVM writes "\0\0\0" so that the table is not empty
	}

	// Long-name table, deduplicated in first-use order.
	var table strings.Builder
	pos := map[string]int{}
	for _, m := range members {
		if !useStringTable(m.Name) {
			continue
		}
		if _, ok := pos[m.Name]; !ok {
			pos[m.Name] = table.Len()
			table.WriteString(m.Name)
			table.WriteString("/\n")
		}
	}
	tableSize := 0
	if table.Len() > 0 {
		tableSize = headerSize + table.Len() + table.Len()&1
	}
	symtabSize := func(word int) int {
		if !hasObject {
			return 0
		}
		n := word + word*nsyms + namesLen
		return headerSize + n + n&1
	}
	layout := func(word int) (offs []uint64, last uint64) {
		off := uint64(magicSize + symtabSize(word) + tableSize)
		for _, m := range members {
			offs = append(offs, off)
			last = off
			off += uint64(headerSize + len(m.Data) + len(m.Data)&1)
		}
		return offs, last
	}
	word := 4
	offs, last := layout(4)
	if hasObject && last >= sym64Threshold {
		word = 8
		offs, _ = layout(8)
	}

	bw := bufio.NewWriter(w)
	bw.WriteString("!<arch>\n")
	if hasObject {
		name := "/"
		if word == 8 {
			name = "/SYM64/"
		}
		n := word + word*nsyms + namesLen
		bw.WriteString(padRight(name, 16))
		bw.WriteString(padRight("0", 12))
		bw.WriteString(padRight("0", 6))
		bw.WriteString(padRight("0", 6))
		bw.WriteString(padRight("0", 8))
		bw.WriteString(padRight(strconv.Itoa(n+n&1), 10))
		bw.WriteString("`\n")
		var num [8]byte
		put := func(v uint64) {
			if word == 8 {
				binary.BigEndian.PutUint64(num[:], v)
			} else {
				binary.BigEndian.PutUint32(num[:], uint32(v))
			}
			bw.Write(num[:word])
		}
		put(uint64(nsyms))
		for i, s := range syms {
			for range s {
				put(offs[i])
			}
		}
		for _, s := range syms {
			for _, name := range s {
				bw.WriteString(name)
				bw.WriteByte(0)
			}
		}
		if nsyms == 0 {
			bw.WriteString("\x00\x00\x00")
		}
		if n&1 != 0 {
			bw.WriteByte(0)
		}
	}
	if table.Len() > 0 {
		n := table.Len()
		pad := n & 1
		bw.WriteString(padRight("//", 48))
		bw.WriteString(padRight(strconv.Itoa(n+pad), 10))
		bw.WriteString("`\n")
		bw.WriteString(table.String())
		if pad != 0 {
			bw.WriteByte('\n')
		}
	}
	for _, m := range members {
		name := m.Name + "/"
		if useStringTable(m.Name) {
			name = "/" + strconv.Itoa(pos[m.Name])
		}
		bw.WriteString(padRight(name, 16))
		bw.WriteString(padRight("0", 12))
		bw.WriteString(padRight("0", 6))
		bw.WriteString(padRight("0", 6))
		bw.WriteString(padRight("644", 8))
		bw.WriteString(padRight(strconv.Itoa(len(m.Data)), 10))
		bw.WriteString("`\n")
		bw.Write(m.Data)
		if len(m.Data)&1 != 0 {
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

func useStringTable(name string) bool {
	// "#1" would be written "#1/", which readers take for a BSD long name.
	return len(name) >= 16 || strings.Contains(name, "/") || name == "#1"
}

func padRight(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return s + strings.Repeat(" ", n-len(s))
}
