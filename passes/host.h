/*
 * host.h - the host pass (host.c): XMem atom and Locality Descriptor tables for one
 * translation unit's host IR. The driver calls it between clang's front end and code
 * generation.
 */
#ifndef XGPU_HOST_H
#define XGPU_HOST_H

#include <llvm-c/Core.h>

/* Runs the pass over m. Returns 1 when it changed the module, 0 when the translation
 * unit has no annotations, -1 after printing located errors on stderr. */
int xgpu_host_pass(LLVMModuleRef m);

/* Reads host bitcode from in, runs the pass, writes bitcode to out. 0 on success. */
int xgpu_host_pass_file(const char *in, const char *out);

#endif
