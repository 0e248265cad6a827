package elfembed

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// Minimal assertion helpers (testify's dependencies are not in go.sum).

func msg(args []any) string {
	if len(args) == 0 {
		return ""
	}
	if f, ok := args[0].(string); ok {
		return ": " + fmt.Sprintf(f, args[1:]...)
	}
	return ": " + fmt.Sprint(args...)
}

func noErr(t testing.TB, err error, args ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error %v%s", err, msg(args))
	}
}

func eq(t testing.TB, want, got any, args ...any) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		t.Errorf("got  %#v\nwant %#v%s", got, want, msg(args))
	}
}

func isTrue(t testing.TB, v bool, args ...any) {
	t.Helper()
	if !v {
		t.Errorf("condition false%s", msg(args))
	}
}

func errAs[T error](t testing.TB, err error) T {
	t.Helper()
	var v T
	if !errors.As(err, &v) {
		t.Fatalf("error %v (%T) is not a %T", err, err, v)
	}
	return v
}
