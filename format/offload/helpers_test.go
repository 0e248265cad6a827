package offload

import (
	"fmt"
	"reflect"
	"testing"
)

// Minimal assertion helpers: testify's own dependencies are not in go.sum,
// so the package cannot import it.

func msgOf(args []any) string {
	if len(args) == 0 {
		return ""
	}
	if f, ok := args[0].(string); ok {
		return ": " + fmt.Sprintf(f, args[1:]...)
	}
	return ": " + fmt.Sprint(args...)
}

// noErr stops the test on err.
func noErr(t testing.TB, err error, args ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error %v%s", err, msgOf(args))
	}
}

// isErr stops the test when err is nil.
func isErr(t testing.TB, err error, args ...any) {
	t.Helper()
	if err == nil {
		t.Fatalf("expected an error%s", msgOf(args))
	}
}

// eq reports want != got (reflect.DeepEqual) and continues.
func eq(t testing.TB, want, got any, args ...any) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		t.Errorf("got %#v, want %#v%s", got, want, msgOf(args))
	}
}

// must reports a false condition and stops the test.
func must(t testing.TB, cond bool, args ...any) {
	t.Helper()
	if !cond {
		t.Fatalf("condition failed%s", msgOf(args))
	}
}

// check reports a false condition and continues.
func check(t testing.TB, cond bool, args ...any) {
	t.Helper()
	if !cond {
		t.Errorf("check failed%s", msgOf(args))
	}
}
