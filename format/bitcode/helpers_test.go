package bitcode

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// Minimal assertion helpers (testify's dependencies are not in go.sum).
// must* stop the test; check* record a failure and go on.

func msg(args []any) string {
	if len(args) == 0 {
		return ""
	}
	if f, ok := args[0].(string); ok {
		return ": " + fmt.Sprintf(f, args[1:]...)
	}
	return ": " + fmt.Sprint(args...)
}

func mustNoErr(t testing.TB, err error, args ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error %v%s", err, msg(args))
	}
}

func mustTrue(t testing.TB, ok bool, args ...any) {
	t.Helper()
	if !ok {
		t.Fatalf("condition failed%s", msg(args))
	}
}

func checkTrue(t testing.TB, ok bool, args ...any) {
	t.Helper()
	if !ok {
		t.Errorf("condition failed%s", msg(args))
	}
}

func mustLen[T any](t testing.TB, s []T, n int, args ...any) {
	t.Helper()
	if len(s) != n {
		t.Fatalf("len = %d, want %d%s", len(s), n, msg(args))
	}
}

func checkEqual(t testing.TB, want, got any, args ...any) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		t.Errorf("got %#v, want %#v%s", got, want, msg(args))
	}
}

func mustIs(t testing.TB, err, target error, args ...any) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error %v is not %v%s", err, target, msg(args))
	}
}

func mustAs(t testing.TB, err error, target any, args ...any) {
	t.Helper()
	if !errors.As(err, target) {
		t.Fatalf("error %T (%v) is not %T%s", err, err, target, msg(args))
	}
}
