//go:build !linux

package packager

func adviseRandom(b []byte) {}
