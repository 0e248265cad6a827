package split

// Minimal stand-ins for testify's assert/require: testify's own
// dependencies are missing from go.sum. Same call shapes, so switching
// back is an import edit.

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
)

type checker struct{ fatal bool }

var (
	assert  = checker{false}
	require = checker{true}
)

func (c checker) fail(t testing.TB, what string, args []any) bool {
	t.Helper()
	if len(args) > 0 {
		if f, ok := args[0].(string); ok {
			what += ": " + fmt.Sprintf(f, args[1:]...)
		} else {
			what += ": " + fmt.Sprint(args...)
		}
	}
	if c.fatal {
		t.Fatal(what)
	}
	t.Error(what)
	return false
}

func (c checker) Equal(t testing.TB, want, got any, args ...any) bool {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		return c.fail(t, fmt.Sprintf("not equal:\n want %#v\n  got %#v", want, got), args)
	}
	return true
}

func (c checker) NoError(t testing.TB, err error, args ...any) bool {
	t.Helper()
	if err != nil {
		return c.fail(t, fmt.Sprintf("unexpected error: %v", err), args)
	}
	return true
}

func (c checker) Error(t testing.TB, err error, args ...any) bool {
	t.Helper()
	if err == nil {
		return c.fail(t, "expected an error", args)
	}
	return true
}

func (c checker) True(t testing.TB, v bool, args ...any) bool {
	t.Helper()
	if !v {
		return c.fail(t, "expected true", args)
	}
	return true
}

func (c checker) False(t testing.TB, v bool, args ...any) bool {
	t.Helper()
	if v {
		return c.fail(t, "expected false", args)
	}
	return true
}

func (c checker) Nil(t testing.TB, v any, args ...any) bool {
	t.Helper()
	if v != nil && !(reflect.ValueOf(v).Kind() >= reflect.Chan && reflect.ValueOf(v).Kind() <= reflect.Slice && reflect.ValueOf(v).IsNil()) {
		return c.fail(t, fmt.Sprintf("expected nil, got %#v", v), args)
	}
	return true
}

func (c checker) Len(t testing.TB, v any, n int, args ...any) bool {
	t.Helper()
	if l := reflect.ValueOf(v).Len(); l != n {
		return c.fail(t, fmt.Sprintf("expected length %d, got %d", n, l), args)
	}
	return true
}

func contains(hay, needle any) bool {
	if s, ok := hay.(string); ok {
		return strings.Contains(s, fmt.Sprint(needle))
	}
	v := reflect.ValueOf(hay)
	for i := 0; i < v.Len(); i++ {
		if reflect.DeepEqual(v.Index(i).Interface(), needle) {
			return true
		}
	}
	return false
}

func (c checker) Contains(t testing.TB, hay, needle any, args ...any) bool {
	t.Helper()
	if !contains(hay, needle) {
		return c.fail(t, fmt.Sprintf("%#v does not contain %#v", hay, needle), args)
	}
	return true
}

func (c checker) NotContains(t testing.TB, hay, needle any, args ...any) bool {
	t.Helper()
	if contains(hay, needle) {
		return c.fail(t, fmt.Sprintf("%#v contains %#v", hay, needle), args)
	}
	return true
}

func (c checker) ElementsMatch(t testing.TB, want, got []string, args ...any) bool {
	t.Helper()
	a := append([]string(nil), want...)
	b := append([]string(nil), got...)
	sort.Strings(a)
	sort.Strings(b)
	return c.Equal(t, a, b, args...)
}

func (c checker) Greater(t testing.TB, a, b string, args ...any) bool {
	t.Helper()
	if !(a > b) {
		return c.fail(t, fmt.Sprintf("%q is not greater than %q", a, b), args)
	}
	return true
}
