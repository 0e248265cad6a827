//go:build !linux

package kernels

func adviseRandom(b []byte) {}
