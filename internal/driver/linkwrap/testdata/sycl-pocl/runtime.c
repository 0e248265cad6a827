/* A minimal SYCL runtime over OpenCL that really runs the images a SYCL
   link registers, on any OpenCL device that takes SPIR 1.2 bitcode (pocl's
   CPU device in the tests).

   - __sycl_register_lib / __sycl_unregister_lib receive the descriptor that
     linker-wrapper's registration object passes (version 1, one
     __sycl.tgt_device_image of version 3 per image: docs/wrapper-objects.md,
     the SYCL layout of internal/wrap). Every descriptor is remembered.
   - okit_launch(kernel, closure, size, n) finds the one registered image
     whose entries name the kernel, translates it from SPIR-V to SPIR bitcode
     with `llvm-spirv-15 -r` ($OKIT_LLVM_SPIRV overrides the program), builds
     it with clCreateProgramWithBinary + clBuildProgram, passes the closure
     as the kernel's single by-value argument and runs n work items.
   - Specialization constants: okit_set_spec_const_i32(symbolic ID, v) looks
     the ID up in the image's "SYCL/specialization constants" property set
     ({u32 SpecId, u32 offset, u32 size} descriptors after the 8-byte
     bit-count prefix) and translates with --spec-const=<SpecId>:i32:<v>;
     without a value set, the OpSpecConstant default stays.
   - USM: okit_malloc_shared is clSVMAlloc fine-grained memory, so the
     pointers inside the closure are valid on both sides.

   Stdout gets "register images=N", one "launch <kernel> image=<i>/<N>
   spec=[<args>]" line per launch and "unregister images=N"; failures print
   "okit-runtime: error: ..." on stderr and exit 2. Built programs are cached
   per (image, spec-constant arguments); every translation prints
   "translate image=<i> spec=[<args>]". */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "offload_abi.h"

extern char **environ;

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "okit-runtime: error: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  fflush(stdout);
  exit(2);
}

#define MAXN 64
static struct sycl_bin_desc *descs[MAXN];
static int ndescs;

void __sycl_register_lib(struct sycl_bin_desc *d) {
  if (ndescs == MAXN) die("too many descriptors");
  if (d->version != 1) die("descriptor version %u, want 1", d->version);
  for (unsigned i = 0; i < d->num_images; i++)
    if (d->images[i].version != 3) die("image %u: version %u, want 3", i, d->images[i].version);
  descs[ndescs++] = d;
  printf("register images=%u\n", d->num_images);
}

void __sycl_unregister_lib(struct sycl_bin_desc *d) {
  for (int i = 0; i < ndescs; i++)
    if (descs[i] == d) {
      descs[i] = descs[--ndescs];
      printf("unregister images=%u\n", d->num_images);
      fflush(stdout);
      return;
    }
  die("unregister of a descriptor never registered");
}

/* OpenCL state, made on first use. */
static cl_platform_id plat;
static cl_device_id dev;
static cl_context ctx;
static cl_command_queue queue;

static void check(cl_int err, const char *what) {
  if (err != CL_SUCCESS) die("%s: OpenCL error %d", what, err);
}

static void cl_init(void) {
  if (ctx) return;
  cl_platform_id ps[16];
  cl_uint np = 0;
  check(clGetPlatformIDs(16, ps, &np), "clGetPlatformIDs");
  if (np > 16) np = 16;
  for (cl_uint i = 0; i < np && !plat; i++) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_ALL, 1, &dev, &nd) == CL_SUCCESS && nd > 0) plat = ps[i];
  }
  if (!plat) die("no OpenCL device (is pocl-opencl-icd installed?)");
  cl_device_svm_capabilities svm = 0;
  check(clGetDeviceInfo(dev, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, NULL), "CL_DEVICE_SVM_CAPABILITIES");
  if (!(svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER)) die("the device has no fine-grained SVM buffers");
  cl_int err;
  ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  check(err, "clCreateContext");
  queue = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
  check(err, "clCreateCommandQueueWithProperties");
}

/* USM shared allocations. */
static void *allocs[MAXN];
static int nallocs;

void *okit_malloc_shared(size_t bytes) {
  cl_init();
  if (nallocs == MAXN) die("too many allocations");
  void *p = clSVMAlloc(ctx, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, bytes, 0);
  if (!p) die("clSVMAlloc of %zu bytes failed", bytes);
  allocs[nallocs++] = p;
  return p;
}

void okit_free(void *p) {
  for (int i = 0; i < nallocs; i++)
    if (allocs[i] == p) {
      clSVMFree(ctx, p);
      allocs[i] = allocs[--nallocs];
      return;
    }
  die("okit_free of %p: not allocated", p);
}

/* Specialization-constant values set by the host. */
static struct {
  char name[128];
  int value;
} specs[MAXN];
static int nspecs;

void okit_set_spec_const_i32(const char *id, int value) {
  for (int i = 0; i < nspecs; i++)
    if (!strcmp(specs[i].name, id)) {
      specs[i].value = value;
      return;
    }
  if (nspecs == MAXN || strlen(id) >= sizeof specs[0].name) die("cannot set spec constant %s", id);
  strcpy(specs[nspecs].name, id);
  specs[nspecs++].value = value;
}

void okit_clear_spec_consts(void) { nspecs = 0; }

static uint32_t u32(const unsigned char *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

/* spec_args writes the llvm-spirv --spec-const value for image im ("" if
   no value set applies to it). */
static void spec_args(const struct sycl_device_image *im, char *out, size_t cap) {
  out[0] = 0;
  for (const struct sycl_propset *s = im->props_begin; s && s < im->props_end; s++) {
    if (strcmp(s->name, "SYCL/specialization constants")) continue;
    for (const struct sycl_prop *q = s->begin; q && q < s->end; q++) {
      for (int k = 0; k < nspecs; k++) {
        if (strcmp(q->name, specs[k].name)) continue;
        if (q->type != 2 || q->size != 8 + 12) die("spec constant %s: want one {id, offset, size} descriptor", q->name);
        uint32_t id = u32(q->val + 8), size = u32(q->val + 16);
        if (size != 4) die("spec constant %s: size %u, want 4", q->name, size);
        size_t n = strlen(out);
        snprintf(out + n, cap - n, "%s%u:i32:%d", n ? " " : "", id, specs[k].value);
      }
    }
  }
}

static unsigned char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) die("open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc(n > 0 ? n : 1);
  if (!b || fread(b, 1, n, f) != (size_t)n) die("read %s", path);
  fclose(f);
  *len = (size_t)n;
  return b;
}

/* scalar_nulls returns a copy of SPIR-V module p in which every
   OpConstantNull of a scalar type is the equivalent OpConstant 0
   (OpConstantFalse for bool). LLVM 22's SPIR-V backend writes zero scalars
   that way, which the SPIR-V spec allows, but llvm-spirv 15 asserts on it
   ("SPIRVConstantNull::validate() ... Invalid type"). */
static unsigned char *scalar_nulls(const unsigned char *p, size_t n, size_t *outn) {
  size_t nw = n / 4;
  if (n % 4 || nw < 5 || u32(p) != 0x07230203u) die("image is not a SPIR-V module");
  uint32_t bound = u32(p + 12);
  if (bound > (1u << 24)) die("SPIR-V id bound %u too large", bound);
  unsigned char *width = calloc(bound ? bound : 1, 1); /* 1 bool, else bits/8 + 1 */
  uint32_t *out = malloc(n * 2);                       /* a 3-word null becomes at most 5 words */
  if (!width || !out) die("out of memory");
  memcpy(out, p, 20);
  size_t o = 5;
  for (size_t i = 5; i < nw;) {
    uint32_t w = u32(p + 4 * i), wc = w >> 16, op = w & 0xffff;
    if (wc == 0 || i + wc > nw) die("malformed SPIR-V instruction at word %zu", i);
    uint32_t a1 = wc > 1 ? u32(p + 4 * i + 4) : 0, a2 = wc > 2 ? u32(p + 4 * i + 8) : 0;
    if (op == 20 && wc >= 2 && a1 < bound) width[a1] = 1;                             /* OpTypeBool */
    if ((op == 21 || op == 22) && wc >= 3 && a1 < bound && a2 <= 64) width[a1] = a2 / 8 + 1; /* OpTypeInt/Float */
    if (op == 46 && wc == 3 && a1 < bound && width[a1]) {                            /* OpConstantNull */
      if (width[a1] == 1) {
        out[o++] = 3u << 16 | 42; /* OpConstantFalse */
        out[o++] = a1, out[o++] = a2;
      } else {
        uint32_t words = width[a1] - 1 > 4 ? 2 : 1;
        out[o++] = (3 + words) << 16 | 43; /* OpConstant */
        out[o++] = a1, out[o++] = a2;
        for (uint32_t k = 0; k < words; k++) out[o++] = 0;
      }
    } else {
      memcpy(out + o, p + 4 * i, 4 * wc);
      o += wc;
    }
    i += wc;
  }
  free(width);
  *outn = o * 4;
  return (unsigned char *)out;
}

/* translate runs llvm-spirv -r on the image and returns SPIR bitcode. */
static unsigned char *translate(const struct sycl_device_image *im, const char *spec, size_t *len) {
  const char *tmp = getenv("TMPDIR");
  char in[4096], out[4096];
  snprintf(in, sizeof in, "%s/okit-image-XXXXXX.spv", tmp && *tmp ? tmp : "/tmp");
  int fd = mkstemps(in, 4);
  if (fd < 0) die("mkstemps %s", in);
  size_t n;
  unsigned char *spv = scalar_nulls(im->start, (size_t)(im->end - im->start), &n);
  if (write(fd, spv, n) != (ssize_t)n) die("write %s", in);
  close(fd);
  free(spv);
  snprintf(out, sizeof out, "%.*s.bc", (int)(strlen(in) - 4), in);
  const char *prog = getenv("OKIT_LLVM_SPIRV");
  if (!prog || !*prog) prog = "llvm-spirv-15";
  char specopt[2048];
  snprintf(specopt, sizeof specopt, "--spec-const=%s", spec);
  char *argv[8];
  int a = 0;
  argv[a++] = (char *)prog;
  argv[a++] = "-r";
  if (*spec) argv[a++] = specopt;
  argv[a++] = in;
  argv[a++] = "-o";
  argv[a++] = out;
  argv[a] = NULL;
  pid_t pid;
  int st;
  if (posix_spawnp(&pid, prog, NULL, NULL, argv, environ) != 0) die("cannot run %s", prog);
  if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) die("%s -r %s failed (status %d)", prog, in, st);
  unsigned char *bc = read_file(out, len);
  unlink(in);
  unlink(out);
  return bc;
}

static struct {
  const struct sycl_device_image *im;
  char spec[2048];
  cl_program prog;
} progs[MAXN];
static int nprogs;

static cl_program build(const struct sycl_device_image *im, int index, const char *spec) {
  for (int i = 0; i < nprogs; i++)
    if (progs[i].im == im && !strcmp(progs[i].spec, spec)) return progs[i].prog;
  if (nprogs == MAXN) die("too many programs");
  printf("translate image=%d spec=[%s]\n", index, spec);
  size_t len;
  unsigned char *bc = translate(im, spec, &len);
  const unsigned char *bins[1] = {bc};
  cl_int status, err;
  cl_program p = clCreateProgramWithBinary(ctx, 1, &dev, &len, bins, &status, &err);
  check(err, "clCreateProgramWithBinary");
  check(status, "clCreateProgramWithBinary status");
  err = clBuildProgram(p, 1, &dev, "", NULL, NULL);
  if (err != CL_SUCCESS) {
    char log[16384] = "";
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    die("clBuildProgram: OpenCL error %d:\n%s", err, log);
  }
  free(bc);
  progs[nprogs].im = im;
  strcpy(progs[nprogs].spec, spec);
  progs[nprogs++].prog = p;
  return p;
}

void okit_launch(const char *kernel, const void *closure, size_t size, size_t n) {
  cl_init();
  const struct sycl_device_image *found = NULL;
  int index = -1, total = 0, hits = 0;
  for (int d = 0; d < ndescs; d++)
    for (unsigned i = 0; i < descs[d]->num_images; i++, total++) {
      const struct sycl_device_image *im = &descs[d]->images[i];
      for (const struct offload_entry *e = im->entries_begin; e < im->entries_end; e++)
        if (!strcmp(e->name, kernel)) {
          found = im, index = total;
          hits++;
        }
    }
  if (hits != 1) die("kernel %s: in %d registered images, want exactly 1", kernel, hits);
  char spec[2048];
  spec_args(found, spec, sizeof spec);
  printf("launch %s image=%d/%d spec=[%s]\n", kernel, index, total, spec);
  cl_program p = build(found, index, spec);
  cl_int err;
  cl_kernel k = clCreateKernel(p, kernel, &err);
  check(err, "clCreateKernel");
  cl_uint nargs = 0;
  check(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL), "CL_KERNEL_NUM_ARGS");
  if (nargs != 1) die("kernel %s: %u arguments, want the closure only", kernel, nargs);
  check(clSetKernelArg(k, 0, size, closure), "clSetKernelArg");
  check(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, nallocs * sizeof(void *), allocs), "clSetKernelExecInfo");
  check(clEnqueueNDRangeKernel(queue, k, 1, NULL, &n, NULL, 0, NULL, NULL), "clEnqueueNDRangeKernel");
  check(clFinish(queue), "clFinish");
  clReleaseKernel(k);
  fflush(stdout);
}
