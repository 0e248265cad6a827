/* ABI: the calling convention of the runtime entry points a recording stub
   defines. With -DMS_ABI the stub serves the Windows x64 templates run on
   Linux: runtime entry points use the Microsoft calling convention, and so
   does the atexit they call, which this header then provides (run from a
   destructor). */
#ifndef OKIT_MS_ABI_H
#define OKIT_MS_ABI_H

#ifdef MS_ABI
#define ABI __attribute__((ms_abi))
typedef void(ABI *ms_fn)(void);
static ms_fn ms_atexit_fns[8];
static int ms_atexit_n;
ABI int atexit(ms_fn f) {
  ms_atexit_fns[ms_atexit_n++] = f;
  return 0;
}
__attribute__((destructor)) static void ms_run_atexit(void) {
  while (ms_atexit_n > 0) ms_atexit_fns[--ms_atexit_n]();
}
#else
#define ABI
#endif

#endif
