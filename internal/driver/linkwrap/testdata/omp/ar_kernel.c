// One archive member for the lazy-extraction tests (archive_e2e_test.go):
// KNAME_run runs a target region and prints whether it ran on the device.
// -DCALLS=f: KNAME_run then calls f (a member that needs another member).
// -DENTRY: also defines KNAME_entry, a program entry point that jumps to
// _start (for -e/--entry). -DTABLE: the region reads ar_table, a declare
// target global defined in another member (ar_table.c).
#include <omp.h>
#include <stdio.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define STR2(x) #x
#define STR(x) STR2(x)

#ifdef CALLS
void CALLS(void);
#endif
#ifdef TABLE
#pragma omp declare target
extern int ar_table[4];
#pragma omp end declare target
#endif

void CAT(KNAME, _run)(void) {
  int dev = 0, t = 0;
#pragma omp target map(tofrom : dev, t)
  {
    dev = !omp_is_initial_device();
#ifdef TABLE
    t = ar_table[0] + ar_table[3];
#endif
  }
  printf("%s on_device=%d%s\n", STR(KNAME), dev, t ? " table" : "");
#ifdef CALLS
  CALLS();
#endif
}

#ifdef ENTRY
__attribute__((naked)) void CAT(KNAME, _entry)(void) { __asm__("jmp _start"); }
#endif
