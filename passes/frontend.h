/*
 * frontend.h - the source front end: kernel signatures of a CUDA source, read with libclang.
 *
 * xgpu-cc calls xgpu_frontend_signatures for each .cu input with the arguments of its
 * device compilation, and hands the result to the lowering (XgpuLowerOptions.signatures),
 * which puts each kernel's signature into .xgpu.kernels. A source that does not parse
 * gets no signatures, and the device compile that follows prints clang's own diagnostics.
 * The front end reports what clang accepts but xgpu cannot run correctly: a kernel
 * parameter of type long double (the host passes the 80-bit x87 format in 16 bytes, the
 * device computes long double as double), an included file that is not a regular file
 * (a device would be read to its end), and a parse that fails or crashes, as located
 * errors in `errors`; the driver fails the compile when there are any.
 */
#ifndef XGPU_FRONTEND_H
#define XGPU_FRONTEND_H

#include "lower/lower.h"

typedef struct XgpuSignatures {
    XgpuSignature *v; /* names and signatures are owned by the list */
    unsigned n, cap;
    char *errors;     /* "file:line:col: error: ...\n" with the source line and a caret
                       * (xgpu/diag.h), or NULL; owned by the list */
} XgpuSignatures;

/* Parses src (device side) with the clang command line argv[0..argc) (argv[0] names the
 * compiler, src is not among them) and fills out with the signature of every __global__
 * function defined in it. Returns 0; non-zero only when the list could not be built
 * (out of memory), which the caller may ignore. out is empty when src has errors; out->errors
 * is set when the source cannot be compiled as it is (see above). */
int xgpu_frontend_signatures(const char *src, const char *const *argv, int argc,
                             XgpuSignatures *out);
void xgpu_frontend_free(XgpuSignatures *s);

/* Runs argv (argv[0] looked up in PATH; stderr to /dev/null; SIGTERM, SIGINT, SIGHUP and
 * SIGPIPE at their defaults unless ignored, and unblocked) and returns its stdout, at
 * most 64 MiB, in *out (malloc'd, NUL-terminated, *len bytes). Returns the exit status,
 * 128 + the signal that ended it, or -1 when it could not be run. */
int xgpu_frontend_capture(char *const *argv, char **out, size_t *len);

#endif
