/*
 * frontend.h - the source front end: kernel signatures of a CUDA source, read with libclang.
 *
 * xgpu-cc calls xgpu_frontend_signatures for each .cu input with the arguments of its
 * device compilation, and hands the result to the lowering (XgpuLowerOptions.signatures),
 * which puts each kernel's signature into .xgpu.kernels. A source that does not parse
 * gets no signatures, and the device compile that follows prints clang's own diagnostics.
 * The front end reports only what clang accepts but xgpu cannot run correctly: a kernel
 * parameter of type long double (the host passes the 80-bit x87 format in 16 bytes, the
 * device computes long double as double), as located errors in `errors`.
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
 * (out of memory), which the caller may ignore. out is empty when src has errors. */
int xgpu_frontend_signatures(const char *src, const char *const *argv, int argc,
                             XgpuSignatures *out);
void xgpu_frontend_free(XgpuSignatures *s);

#endif
