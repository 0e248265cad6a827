
; __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-unknown-linux-gnu-
int host;

; __CLANG_OFFLOAD_BUNDLE____END__ host-x86_64-unknown-linux-gnu-

; __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--gfx90a
int host;

; __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa--gfx90a
