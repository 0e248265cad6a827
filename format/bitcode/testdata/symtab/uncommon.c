/* -fcommon, TLS, weak, hidden, static, aliases, sections. */
int common_v;
__attribute__((visibility("hidden"))) int hidden_common;
__attribute__((weak)) int weak_v = 1;
static int local_v;
int defined_v = 2;
extern int undef_v;
int fn(void) { return local_v + undef_v; }
__attribute__((weak)) extern int weak_undef;
int use_weak(void) { return &weak_undef != 0; }
#ifndef __APPLE__
__thread int tls_v;
int fn_alias(void) __attribute__((alias("fn")));
__attribute__((section(".my_section"))) int in_section = 3;
#endif
