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

/* Gives the host shadows of __managed__ variables their initial values from the device
 * binary in the fat container file fat (managed.c). 1 when it changed the module, 0 when
 * there is nothing to do, -1 after printing an error. */
int xgpu_host_managed(LLVMModuleRef m, const char *fat);

/* Reads host bitcode from in, runs the pass (and, with a fat container for a CUDA source,
 * xgpu_host_managed), writes bitcode to out. 0 on success. */
int xgpu_host_pass_file(const char *in, const char *fat, const char *out);

#endif
