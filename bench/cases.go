package main

import (
	"os"
	"path/filepath"
	"time"
)

const mib = 1 << 20

func (c *config) p(name string) string { return filepath.Join(c.work, name) }
func (c *config) ob() string           { return filepath.Join(c.bin, "llvm-offload-binary") }
func (c *config) tool(n string) string { return filepath.Join(c.llvm, n) }

// hostObject compiles a small C file into a relocatable host object.
func hostObject(c *config) error {
	if _, err := os.Stat(c.p("host.o")); err == nil {
		return nil
	}
	if err := os.WriteFile(c.p("host.c"), []byte("int host_fn(int x) { return x + 1; }\n"), 0o644); err != nil {
		return err
	}
	return sh(c.work, c.tool("clang"), "-c", "host.c", "-o", "host.o")
}

func bigPackage(c *config) error {
	if err := writeData(c.p("big.bin"), c.size, 1); err != nil {
		return err
	}
	if _, err := os.Stat(c.p("big.pkg")); err == nil {
		return nil
	}
	return sh(c.work, c.ob(), "-o", "big.pkg", "--image=file=big.bin,triple=x86_64-unknown-linux-gnu,arch=generic,kind=openmp")
}

func bigFatObject(c *config) error {
	if err := bigPackage(c); err != nil {
		return err
	}
	if err := hostObject(c); err != nil {
		return err
	}
	if _, err := os.Stat(c.p("big.fat.o")); err == nil {
		return nil
	}
	return sh(c.work, filepath.Join(c.bin, "offload-packager"), "embed", "-o", "big.fat.o", "host.o", "big.pkg")
}

func cases() []benchCase {
	image := "--image=file=big.bin,triple=x86_64-unknown-linux-gnu,arch=generic,kind=openmp"
	return []benchCase{
		{
			name: "pack 1 GiB image", issue: 2,
			setup: func(c *config) error { return writeData(c.p("big.bin"), c.size, 1) },
			ours:  func(c *config) side { return side{[]string{c.ob(), "-o", "ours.pkg", image}, c.work} },
			ref: func(c *config) side {
				return side{[]string{c.tool("llvm-offload-binary"), "-o", "ref.pkg", image}, c.work}
			},
			refDesc: "llvm-offload-binary",
			target:  target{maxWallRatio: 0.5, maxRSS: 64 * mib, text: "≤ 0.5× wall, ≤ 64 MiB"},
		},
		{
			name: "extract 1 GiB image", issue: 2,
			setup: bigPackage,
			ours: func(c *config) side {
				return side{[]string{c.ob(), "big.pkg", "--image=kind=openmp,file=ours.out"}, c.work}
			},
			ref: func(c *config) side {
				return side{[]string{c.tool("llvm-offload-binary"), "big.pkg", "--image=kind=openmp,file=ref.out"}, c.work}
			},
			refDesc: "llvm-offload-binary",
			target:  target{maxWallRatio: 0.5, maxRSS: 64 * mib, text: "≤ 0.5× wall, ≤ 64 MiB"},
		},
		{
			name: "dump 1 GiB fat object", issue: 2,
			setup: bigFatObject,
			ours: func(c *config) side {
				return side{[]string{filepath.Join(c.bin, "offload-packager"), "dump", "big.fat.o"}, c.work}
			},
			ref: func(c *config) side {
				return side{[]string{c.tool("llvm-objdump"), "--offloading", "big.fat.o"}, c.work}
			},
			refDesc: "llvm-objdump --offloading",
			target:  target{maxWall: 50 * time.Millisecond, maxRSS: 64 * mib, text: "≤ 50 ms, ≤ 64 MiB"},
		},
		{
			name: "embed 1 GiB package", issue: 2,
			setup: func(c *config) error {
				if err := bigPackage(c); err != nil {
					return err
				}
				return hostObject(c)
			},
			ours: func(c *config) side {
				return side{[]string{filepath.Join(c.bin, "offload-packager"), "embed", "-o", "ours.fat.o", "host.o", "big.pkg"}, c.work}
			},
			ref: func(c *config) side {
				return side{[]string{c.tool("llvm-objcopy"), "--add-section=.llvm.offloading=big.pkg",
					"--set-section-flags=.llvm.offloading=exclude", "--set-section-alignment=.llvm.offloading=8", "host.o", "ref.fat.o"}, c.work}
			},
			refDesc: "llvm-objcopy --add-section",
			target:  target{maxWallRatio: 0.5, text: "≤ 0.5× wall"},
		},
	}
}
