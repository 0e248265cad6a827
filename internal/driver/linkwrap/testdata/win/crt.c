/* A minimal C runtime for the Windows programs the tests run under wine (no
   MSVC CRT exists here). As MSVC's: the initializers between .CRT$XCA and
   .CRT$XCZ run before main (the linker sorts .CRT$XC* sections by name, so
   the registration objects' .CRT$XCA00101 and .CRT$XCA00001 constructors
   land between them), atexit handlers run in reverse order after main,
   then the terminators between .CRT$XTA and .CRT$XTZ (the SYCL
   destructor's .CRT$XTA00001), and the process ends with ExitProcess.
   Built as is it is an executable's entry point (mainCRTStartup); with
   -DOKIT_DLL a DLL's (_DllMainCRTStartup: initializers on process attach,
   atexit handlers and terminators on detach), so that a DLL's
   registration code runs, and its atexit handlers, as they do with MSVC's
   CRT. Every step is logged, prefixed with the module's name. */
#include "winrt.h"

typedef void (*okit_fn)(void);

__attribute__((section(".CRT$XCA"), used)) static okit_fn const xc_a = 0;
__attribute__((section(".CRT$XCZ"), used)) static okit_fn const xc_z = 0;
__attribute__((section(".CRT$XTA"), used)) static okit_fn const xt_a = 0;
__attribute__((section(".CRT$XTZ"), used)) static okit_fn const xt_z = 0;

#ifdef OKIT_DLL
#define WHO "dll"
#else
#define WHO "exe"
#endif

int _fltused = 0;

static int run_table(okit_fn const *b, okit_fn const *e) {
  int n = 0;
  for (okit_fn const *p = b + 1; p < e; p++)
    if (*p) (*p)(), n++;
  return n;
}

static okit_fn atexit_fns[64];
static int atexit_n;
int atexit(okit_fn f) {
  if (atexit_n == 64) return -1;
  atexit_fns[atexit_n++] = f;
  return 0;
}

static void init(void) {
  okit_printf("crt(" WHO "): initializers\n");
  int n = run_table(&xc_a, &xc_z);
  okit_printf("crt(" WHO "): %d initializers ran\n", n);
}

static void fini(void) {
  int n = atexit_n;
  okit_printf("crt(" WHO "): atexit handlers\n");
  while (atexit_n > 0) atexit_fns[--atexit_n]();
  okit_printf("crt(" WHO "): %d atexit handlers ran; terminators\n", n);
  n = run_table(&xt_a, &xt_z);
  okit_printf("crt(" WHO "): %d terminators ran\n", n);
}

#ifdef OKIT_DLL
int __stdcall _DllMainCRTStartup(void *module, okit_dword reason, void *reserved) {
  if (reason == 1) init();      /* DLL_PROCESS_ATTACH */
  else if (reason == 0) fini(); /* DLL_PROCESS_DETACH */
  return 1;
}
#else
int main(int argc, char **argv);
void mainCRTStartup(void) {
  init();
  int rc = main(0, 0);
  okit_printf("crt(exe): main returned %d\n", rc);
  fini();
  ExitProcess((unsigned)rc);
}
#endif
