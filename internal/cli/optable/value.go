package optable

import (
	"strconv"
	"strings"
)

// Choice is one value an enum-valued option accepts.
type Choice[T any] struct {
	Name  string
	Value T
}

// Enum is the set of values an enum-valued option (--x=a|b|c) accepts,
// in the order its diagnostic lists them.
type Enum[T any] []Choice[T]

// Lookup returns the value named v; ok is false for a name the option
// does not accept.
func (e Enum[T]) Lookup(v string) (val T, ok bool) {
	for _, c := range e {
		if c.Name == v {
			return c.Value, true
		}
	}
	return val, false
}

// Names lists the accepted names for a diagnostic, each between quote
// marks, as "a, b or c".
func (e Enum[T]) Names(quote string) string {
	var b strings.Builder
	for i, c := range e {
		switch {
		case i == 0:
		case i == len(e)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(quote + c.Name + quote)
	}
	return b.String()
}

// IntAtLeast parses a decimal integer value of at least min (strconv.Atoi
// syntax); ok is false for anything else.
func IntAtLeast(v string, min int) (n int, ok bool) {
	n, err := strconv.Atoi(v)
	return n, err == nil && n >= min
}
