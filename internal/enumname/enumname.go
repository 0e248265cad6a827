// Package enumname gives the String methods (and name parsers) of small
// integer enums one shape: a table of names indexed by value, written as
// an index-keyed literal ([]string{A: "a", B: "b"}), in the manner of
// debug/elf's intName tables. Values missing from a table, or whose entry
// is "", have no name.
package enumname

import "strconv"

// Integer is the underlying type of an enum a table can name.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~uint8 | ~uint16 | ~uint32
}

// Lookup returns the name of v in names and whether it has one.
func Lookup[T Integer](names []string, v T) (string, bool) {
	if v < 0 || int64(v) >= int64(len(names)) || names[v] == "" {
		return "", false
	}
	return names[v], true
}

// Name returns the name of v in names or, for a value without one, typ
// and the number in parentheses, as stringer does: "Kind(7)".
func Name[T Integer](names []string, v T, typ string) string {
	if s, ok := Lookup(names, v); ok {
		return s
	}
	return typ + "(" + strconv.FormatInt(int64(v), 10) + ")"
}

// Parse is the inverse of Lookup: the value named s, and whether there is
// one ("" names nothing).
func Parse[T Integer](names []string, s string) (T, bool) {
	if s == "" {
		return 0, false
	}
	for i, n := range names {
		if n == s {
			return T(i), true
		}
	}
	return 0, false
}
