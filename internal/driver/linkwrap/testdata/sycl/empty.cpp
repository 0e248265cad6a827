// Empty SYCL translation unit: clang 22 -fsycl still embeds a spirv64 bitcode image.
int main() { return 0; }
