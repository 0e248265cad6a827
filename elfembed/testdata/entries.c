/* Offload-entry style section plus __start_/__stop_ references, as the
   linker wrapper's -r mode renames them. */
struct entry { void *addr; const char *name; };
static int var;
__attribute__((section("llvm_offload_entries"), used)) struct entry e1 = {&var, "var"};
extern struct entry __start_llvm_offload_entries[], __stop_llvm_offload_entries[];
long count(void) { return __stop_llvm_offload_entries - __start_llvm_offload_entries; }
