package hcf

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Minimal assertion helpers in the spirit of testify (whose transitive
// dependencies are not in go.sum yet). assert.* report and continue;
// require.* stop the test.

type asserter struct{ fatal bool }

var (
	assert  = asserter{}
	require = asserter{fatal: true}
)

func (a asserter) fail(t testing.TB, msg string, args []any) {
	t.Helper()
	if len(args) > 0 {
		if f, ok := args[0].(string); ok {
			msg += ": " + fmt.Sprintf(f, args[1:]...)
		}
	}
	if a.fatal {
		t.Fatal(msg)
	}
	t.Error(msg)
}

func equal(want, got any) bool {
	if w, ok := want.([]byte); ok {
		if g, ok := got.([]byte); ok {
			return string(w) == string(g)
		}
	}
	return reflect.DeepEqual(want, got)
}

func short(v any) string {
	s := fmt.Sprintf("%#v", v)
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

func (a asserter) Equal(t testing.TB, want, got any, args ...any) {
	t.Helper()
	if !equal(want, got) {
		a.fail(t, fmt.Sprintf("not equal:\nwant %s\n got %s", short(want), short(got)), args)
	}
}

func (a asserter) NotEqual(t testing.TB, want, got any, args ...any) {
	t.Helper()
	if equal(want, got) {
		a.fail(t, fmt.Sprintf("unexpectedly equal: %s", short(got)), args)
	}
}

func (a asserter) True(t testing.TB, v bool, args ...any) {
	t.Helper()
	if !v {
		a.fail(t, "not true", args)
	}
}

func (a asserter) False(t testing.TB, v bool, args ...any) {
	t.Helper()
	if v {
		a.fail(t, "not false", args)
	}
}

func (a asserter) Zero(t testing.TB, v any, args ...any) {
	t.Helper()
	if !reflect.ValueOf(v).IsZero() {
		a.fail(t, fmt.Sprintf("not zero: %v", v), args)
	}
}

func (a asserter) Nil(t testing.TB, v any, args ...any) {
	t.Helper()
	if v != nil && !(reflect.ValueOf(v).Kind() == reflect.Slice || reflect.ValueOf(v).Kind() == reflect.Pointer) {
		a.fail(t, fmt.Sprintf("not nil: %v", short(v)), args)
		return
	}
	if v != nil && !reflect.ValueOf(v).IsNil() {
		a.fail(t, fmt.Sprintf("not nil: %v", short(v)), args)
	}
}

func (a asserter) NotNil(t testing.TB, v any, args ...any) {
	t.Helper()
	if v == nil || (reflect.ValueOf(v).Kind() == reflect.Pointer || reflect.ValueOf(v).Kind() == reflect.Slice) && reflect.ValueOf(v).IsNil() {
		a.fail(t, "nil", args)
	}
}

func (a asserter) Empty(t testing.TB, v any, args ...any) {
	t.Helper()
	if v != nil && reflect.ValueOf(v).Len() != 0 {
		a.fail(t, fmt.Sprintf("not empty: %s", short(v)), args)
	}
}

func (a asserter) Len(t testing.TB, v any, n int, args ...any) {
	t.Helper()
	if l := reflect.ValueOf(v).Len(); l != n {
		a.fail(t, fmt.Sprintf("length %d, want %d", l, n), args)
	}
}

func (a asserter) Contains(t testing.TB, s, sub string, args ...any) {
	t.Helper()
	if !strings.Contains(s, sub) {
		a.fail(t, fmt.Sprintf("%q does not contain %q", short(s), sub), args)
	}
}

func (a asserter) NoError(t testing.TB, err error, args ...any) {
	t.Helper()
	if err != nil {
		a.fail(t, "unexpected error: "+err.Error(), args)
	}
}

func (a asserter) Error(t testing.TB, err error, args ...any) {
	t.Helper()
	if err == nil {
		a.fail(t, "expected an error", args)
	}
}

func (a asserter) ErrorIs(t testing.TB, err, target error, args ...any) {
	t.Helper()
	if !errors.Is(err, target) {
		a.fail(t, fmt.Sprintf("error %v is not %v", err, target), args)
	}
}

func (a asserter) ErrorAs(t testing.TB, err error, target any, args ...any) {
	t.Helper()
	if !errors.As(err, target) {
		a.fail(t, fmt.Sprintf("error %v (%T) is not %T", err, err, target), args)
	}
}
