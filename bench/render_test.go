package main

import "testing"

// TestShortenHidesPATH: a command that extends PATH (env PATH=<dir>:$PATH,
// as the clang++ -fsycl rows run) is printed with the harness's own PATH
// as $PATH: the report never lists the bench machine's directories.
func TestShortenHidesPATH(t *testing.T) {
	t.Setenv("PATH", "/opt/x/bin:/usr/bin")
	c := &config{work: "/W", bin: "/B"}
	got := c.shorten([]string{"env", "PATH=/LLVM:/opt/x/bin:/usr/bin", "/LLVM/clang++", "-B/B", "/W/a.o", "PATH=/other"})
	if want := "env PATH=/LLVM:$PATH /LLVM/clang++ -Bbin a.o PATH=/other"; got != want {
		t.Errorf("shorten = %q, want %q", got, want)
	}
}
