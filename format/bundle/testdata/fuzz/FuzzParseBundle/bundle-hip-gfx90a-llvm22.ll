go test fuzz v1
[]byte("\n; __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-unknown-linux-gnu-\nint host;\n\n; __CLANG_OFFLOAD_BUNDLE____END__ host-x86_64-unknown-linux-gnu-\n\n; __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--gfx90a\nint host;\n\n; __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa--gfx90a\n")
