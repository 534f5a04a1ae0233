/*
 * managed.c - the host copies of __managed__ variables.
 *
 * clang implements managed memory for HIP only; in CUDA a __managed__ variable (which
 * the project's headers spell __device__ plus annotate("xgpu.managed")) is a device
 * variable whose host shadow clang leaves undefined. The runtime treats the shadow as
 * the variable's host copy (docs/runtime.md), so the shadow must start with the
 * variable's initial value, as a managed variable does on CUDA before the first launch.
 * This pass gives every annotated shadow of the host module the initializer that the
 * lowering stored for the device variable of the same name in the translation unit's
 * device binary (zero when it stored none).
 *
 * Requires: host IR from clang's CUDA host compile and the device binary (fat container)
 * of the same source. Changes: the initializers of those shadows (a shadow is replaced by
 * a byte-array global of the same name, linkage and alignment).
 */
#include "host.h"
#include "lower/lower.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/gpubin.h"

/* The device binary in a fat container file (the first container). */
static XGpubin *read_fat(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0, k;
    do {
        if (n == cap) {
            uint8_t *p = realloc(buf, cap = cap ? 2 * cap : 65536);
            if (!p)
                break;
            buf = p;
        }
        k = fread(buf + n, 1, cap - n, f);
        n += k;
    } while (k > 0);
    fclose(f);
    const void *elf;
    size_t elflen, next;
    XGpubin *g = NULL;
    char err[256];
    if (buf && !xfat_parse(buf, n, &elf, &elflen, &next, err, sizeof err))
        xgpubin_read(elf, elflen, &g, err, sizeof err);
    free(buf);
    return g;
}

/* Gives shadow the bytes of v (zero when v has none). */
static void set_initial(LLVMModuleRef m, LLVMValueRef shadow, const XGlobal *v)
{
    LLVMContextRef ctx = LLVMGetModuleContext(m);
    if (!v->init) {
        LLVMSetInitializer(shadow, LLVMConstNull(LLVMGlobalGetValueType(shadow)));
        return;
    }
    LLVMValueRef bytes = LLVMConstStringInContext(ctx, (const char *)v->init,
                                                  (unsigned)v->size, 1);
    LLVMValueRef g = LLVMAddGlobal(m, LLVMTypeOf(bytes), "");
    LLVMSetInitializer(g, bytes);
    LLVMSetLinkage(g, LLVMGetLinkage(shadow));
    LLVMSetAlignment(g, LLVMGetAlignment(shadow));
    LLVMReplaceAllUsesWith(shadow, g);
    size_t len;
    char *name = strdup(LLVMGetValueName2(shadow, &len));
    LLVMDeleteGlobal(shadow);
    if (name)
        LLVMSetValueName2(g, name, strlen(name));
    free(name);
}

int xgpu_host_managed(LLVMModuleRef m, const char *fat)
{
    LLVMValueRef ann = LLVMGetNamedGlobal(m, "llvm.global.annotations");
    if (!ann || !fat)
        return 0;
    XGpubin *g = NULL;
    int changed = 0;
    for (LLVMValueRef v = LLVMGetFirstGlobal(m), next; v; v = next) {
        next = LLVMGetNextGlobal(v);
        LLVMValueRef init = LLVMGetInitializer(v);
        if (!init || !LLVMIsUndef(init) || !lower_annotated(m, v, XGPU_MANAGED_ANNOTATION))
            continue; /* (a shadow given its bytes has a defined initializer) */
        if (!g && !(g = read_fat(fat))) {
            fprintf(stderr, "xgpu-cc: error: %s: cannot read the device binary\n", fat);
            return -1;
        }
        size_t len;
        const char *name = LLVMGetValueName2(v, &len);
        for (uint32_t i = 0; i < g->nglobals; i++)
            if (g->globals[i].managed && !strcmp(g->globals[i].name, name) &&
                g->globals[i].size <= 0xffffffffu) {
                set_initial(m, v, &g->globals[i]);
                changed = 1;
                break;
            }
    }
    xgpubin_free(g);
    return changed;
}
