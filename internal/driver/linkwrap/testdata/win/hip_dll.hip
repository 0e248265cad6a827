// The DLL of the exe+DLL case: its own kernel and device variable, which
// the DLL's registration code (run by _DllMainCRTStartup, crt.c with
// -DOKIT_DLL) registers, beside the executable's.
#include "mini_hip.h"
__device__ int dll_counter;
__global__ void kern_dll(int *p) { *p = dll_counter; }
#ifdef __HIP_DEVICE_COMPILE__
#define EXPORT
#else
#define EXPORT __declspec(dllexport)
#endif
extern "C" EXPORT void dll_launch(int *p) { kern_dll<<<1, 1>>>(p); }
