package run

// Minimal stand-ins for testify's assert/require (testify's dependencies
// are not in go.sum). Same call shapes, so switching back is an import edit.

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

type checker struct{ fatal bool }

var (
	assert  = checker{false}
	require = checker{true}
)

func (c checker) fail(t testing.TB, what string, args []any) {
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
}

func (c checker) Equal(t testing.TB, want, got any, args ...any) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		c.fail(t, fmt.Sprintf("not equal:\n want %#v\n  got %#v", want, got), args)
	}
}

func (c checker) NoError(t testing.TB, err error, args ...any) {
	t.Helper()
	if err != nil {
		c.fail(t, fmt.Sprintf("unexpected error: %v", err), args)
	}
}

func (c checker) Error(t testing.TB, err error, args ...any) {
	t.Helper()
	if err == nil {
		c.fail(t, "expected an error", args)
	}
}

func (c checker) ErrorContains(t testing.TB, err error, sub string, args ...any) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), sub) {
		c.fail(t, fmt.Sprintf("error %v does not contain %q", err, sub), args)
	}
}

func (c checker) ErrorAs(t testing.TB, err error, target any, args ...any) {
	t.Helper()
	if err == nil || !errors.As(err, target) {
		c.fail(t, fmt.Sprintf("error %v is not %T", err, target), args)
	}
}

func (c checker) True(t testing.TB, v bool, args ...any) {
	t.Helper()
	if !v {
		c.fail(t, "expected true", args)
	}
}

func (c checker) Contains(t testing.TB, s, sub string, args ...any) {
	t.Helper()
	if !strings.Contains(s, sub) {
		c.fail(t, fmt.Sprintf("%q does not contain %q", s, sub), args)
	}
}
