/* The little of Windows that the minimal C runtime (crt.c) and the stub
   runtimes (amdhip64.c, cudart.c, omptarget.c, sycl.c) need, without the
   MSVC CRT or the Windows SDK: kernel32 declarations (kernel32.def is the
   import library's source), mem* functions the compiler may call, and
   okit_printf, a small printf (%s %c %d %u %x %p with 0, width, l, ll and z)
   that writes each call with one WriteFile to standard output. %p prints an
   address as <module>+0x<rva> (the module that holds it, found with
   VirtualQuery and GetModuleFileNameA), "null" for 0; the test turns
   <module>+0x<rva> into the symbol at that address from the module's COFF
   symbol table (lld-link /debug:symtab), so that logs of programs linked
   by two wrappers (with different layouts) compare equal.
   Include it in exactly one translation unit of each executable or DLL. */
#ifndef OKIT_WINRT_H
#define OKIT_WINRT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

typedef unsigned long okit_dword;
struct okit_mbi {
  void *base, *allocation_base;
  okit_dword allocation_protect;
  unsigned short partition_id;
  size_t region_size;
  okit_dword state, protect, type;
};
__declspec(dllimport) void *__stdcall GetStdHandle(okit_dword);
__declspec(dllimport) int __stdcall WriteFile(void *, const void *, okit_dword, okit_dword *, void *);
__declspec(dllimport) __declspec(noreturn) void __stdcall ExitProcess(unsigned);
__declspec(dllimport) size_t __stdcall VirtualQuery(const void *, struct okit_mbi *, size_t);
__declspec(dllimport) okit_dword __stdcall GetModuleFileNameA(void *, char *, okit_dword);

void *memcpy(void *d, const void *s, size_t n) {
  unsigned char *o = d;
  const unsigned char *i = s;
  while (n--) *o++ = *i++;
  return d;
}
void *memset(void *d, int c, size_t n) {
  unsigned char *o = d;
  while (n--) *o++ = (unsigned char)c;
  return d;
}
int memcmp(const void *a, const void *b, size_t n) {
  const unsigned char *x = a, *y = b;
  for (; n; n--, x++, y++)
    if (*x != *y) return *x - *y;
  return 0;
}
size_t strlen(const char *s) {
  size_t n = 0;
  while (s[n]) n++;
  return n;
}
int strcmp(const char *a, const char *b) {
  while (*a && *a == *b) a++, b++;
  return (unsigned char)*a - (unsigned char)*b;
}

struct okit_buf {
  char b[512];
  size_t n;
};
static void okit_flush(struct okit_buf *o) {
  okit_dword w;
  if (o->n) WriteFile(GetStdHandle((okit_dword)-11), o->b, (okit_dword)o->n, &w, 0);
  o->n = 0;
}
static void okit_putc(struct okit_buf *o, char c) {
  if (o->n == sizeof o->b) okit_flush(o);
  o->b[o->n++] = c;
}
static void okit_puts(struct okit_buf *o, const char *s) {
  while (*s) okit_putc(o, *s++);
}
static void okit_num(struct okit_buf *o, unsigned long long v, unsigned base, int width, char pad) {
  char t[24];
  int n = 0;
  do t[n++] = "0123456789abcdef"[v % base], v /= base;
  while (v);
  while (width-- > n) okit_putc(o, pad);
  while (n) okit_putc(o, t[--n]);
}
static void okit_addr(struct okit_buf *o, const void *p) {
  struct okit_mbi m;
  char path[260];
  if (!p) {
    okit_puts(o, "null");
    return;
  }
  if (!VirtualQuery(p, &m, sizeof m) || !m.allocation_base || !GetModuleFileNameA(m.allocation_base, path, sizeof path)) {
    okit_puts(o, "?");
    return;
  }
  const char *base = path;
  for (const char *c = path; *c; c++)
    if (*c == '\\' || *c == '/') base = c + 1;
  okit_puts(o, base);
  okit_puts(o, "+0x");
  okit_num(o, (unsigned long long)((const char *)p - (const char *)m.allocation_base), 16, 0, ' ');
}
static void okit_printf(const char *f, ...) {
  struct okit_buf o;
  va_list ap;
  o.n = 0;
  va_start(ap, f);
  for (; *f; f++) {
    if (*f != '%') {
      okit_putc(&o, *f);
      continue;
    }
    char pad = ' ';
    int width = 0, lng = 0;
    if (*++f == '0') pad = '0', f++;
    while (*f >= '0' && *f <= '9') width = width * 10 + (*f++ - '0');
    while (*f == 'l' || *f == 'z') lng++, f++;
    switch (*f) {
    case 's': {
      const char *s = va_arg(ap, const char *);
      okit_puts(&o, s ? s : "(null)");
      break;
    }
    case 'c': okit_putc(&o, (char)va_arg(ap, int)); break;
    case 'p': okit_addr(&o, va_arg(ap, const void *)); break;
    case 'd': {
      long long v = lng ? va_arg(ap, long long) : va_arg(ap, int);
      if (v < 0) okit_putc(&o, '-'), v = -v;
      okit_num(&o, (unsigned long long)v, 10, width, pad);
      break;
    }
    case 'u':
    case 'x': {
      unsigned long long v = lng ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned);
      okit_num(&o, v, *f == 'u' ? 10 : 16, width, pad);
      break;
    }
    default: okit_putc(&o, *f); break;
    }
  }
  va_end(ap);
  okit_flush(&o);
}

static uint64_t okit_fnv(const unsigned char *d, uint64_t n) {
  uint64_t h = 1469598103934665603ull;
  for (uint64_t i = 0; i < n; i++) h = (h ^ d[i]) * 1099511628211ull;
  return h;
}

#endif
