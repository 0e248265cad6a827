/* A stand-in for the OpenMP device runtime (LLVM 22's libomptarget
   devicertl is not installed here): the entry points the gfx90a
   target regions call, so that the device link resolves. Compiled with
   --target=amdgcn-amd-amdhsa -mcpu=gfx90a and given to the device link with
   -Xoffload-linker; the kernels never run (the stub libomptarget fails every
   launch). */
int __kmpc_target_init(void *kernel_environment, void *launch_environment) { return -1; }
void __kmpc_target_deinit(void) {}
int __kmpc_get_hardware_thread_id_in_block(void) { return 0; }
