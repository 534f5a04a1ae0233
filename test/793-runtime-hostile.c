/*
 * 793-runtime-hostile: libxgpurt given bad input keeps the host program alive and says
 * what is wrong.
 *
 *   - A fat binary whose XFatHeader size is larger or smaller than the gpubin that
 *     follows (the .nv_fatbin section of a compiled program patched at offset 16, or a
 *     container built in memory) is rejected when its module loads: one line
 *     "xgpu: <object>: corrupt device binary: ..." and cudaErrorInvalidKernelImage.
 *   - Every copy checks each side against the direction it names: a device pointer
 *     where the host side should be is cudaErrorInvalidValue (plain, async, 2D and
 *     symbol copies), cudaMemcpyDefault works for all four combinations.
 *   - cudaHostRegister twice is cudaErrorHostMemoryAlreadyRegistered (712),
 *     cudaHostUnregister of memory never registered cudaErrorHostMemoryNotRegistered (713).
 *   - cudaGetErrorName/String know every CUDA 12.0 code; any other code gives
 *     "unrecognized error code" from both.
 *   - What a kernel printed before a failed device assertion is on stdout before the
 *     host's report of the synchronizing call that returns the fault.
 *   - Managed memory: the classic cudaMallocManaged program in both modes, and the
 *     runtime's checks of managed pointers, prefetching and advice.
 * xgpu-cc must have been built (the whole build does that).
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xgpu/cuda/cuda_runtime_api.h"
#include "xgpu/gpubin.h"
#include "xtest.h"

/* CUDA's cudaMemAttach* values (cuda_runtime_api.h does not declare them yet). */
#define ATTACH_GLOBAL 1u
#define ATTACH_HOST 2u


/* ---- helpers ------------------------------------------------------------------------ */

/* Copies the program at from to to, with the 8 bytes at offset 16 of its .nv_fatbin
 * section (the XFatHeader's size) replaced by size, or by the old size + delta when
 * size is 0. Returns the old size. */
static uint64_t patch_fat_size(const char *from, const char *to, uint64_t size, int delta)
{
    size_t len;
    char *img = xt_read(from, &len);
    cr_assert_not_null(img);
    Elf64_Ehdr eh;
    cr_assert_geq(len, sizeof eh);
    memcpy(&eh, img, sizeof eh);
    cr_assert_leq(eh.e_shoff + (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), len);
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh.e_shoff);
    const char *names = img + sh[eh.e_shstrndx].sh_offset;
    long off = -1;
    for (unsigned i = 0; i < eh.e_shnum; i++)
        if (!strcmp(names + sh[i].sh_name, ".nv_fatbin"))
            off = (long)sh[i].sh_offset;
    cr_assert_geq(off, 0, "no .nv_fatbin section in %s", from);
    uint64_t magic;
    memcpy(&magic, img + off, 8);
    cr_assert_eq(magic, XFAT_MAGIC);
    uint64_t old;
    memcpy(&old, img + off + 16, 8);
    if (!size)
        size = old + (uint64_t)delta;
    memcpy(img + off + 16, &size, 8);
    FILE *f = fopen(to, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(img, 1, len, f), len);
    fclose(f);
    chmod(to, 0755);
    free(img);
    return old;
}

/* Runs a compiled rt_fatbin whose container size was set to size (or changed by
 * delta): the program must exit 3 (its launch failed) with the located message naming
 * why, not crash. Returns the real size. */
static uint64_t expect_corrupt(uint64_t size, int delta, const char *why)
{
    const char *exe = xt_compile_e2e("rt_fatbin", "");
    const char *bad = xt_tmp("rt_fatbin_patched");
    uint64_t real = patch_fat_size(exe, bad, size, delta);
    char *out = NULL;
    int rc = xt_runf(&out, "%s", bad);
    cr_assert_eq(rc, 3, "size %#llx: exit %d:\n%s", (unsigned long long)size, rc, out);
    cr_assert(strstr(out, "launch: cudaErrorInvalidKernelImage"), "%s", out);
    char want[512];
    snprintf(want, sizeof want, "xgpu: %s: corrupt device binary: ", bad);
    cr_assert(strstr(out, want), "no '%s' in:\n%s", want, out);
    cr_assert(strstr(out, why), "no '%s' in:\n%s", why, out);
    cr_assert(strstr(out, "(container at file offset 0x"), "%s", out);
    free(out);
    return real;
}

/* Sends stderr to a file until read_stderr(). */
static char stderr_path[] = XGPU_BUILD_DIR "/test-793-stderr-XXXXXX";
static int saved_stderr = -1;

static void capture_stderr(void)
{
    int fd = mkstemp(stderr_path);
    cr_assert_geq(fd, 0);
    fflush(stderr);
    saved_stderr = dup(2);
    cr_assert_geq(dup2(fd, 2), 0);
    close(fd);
}

static char *read_stderr(void)
{
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    char *text = xt_read(stderr_path, NULL);
    remove(stderr_path);
    cr_assert_not_null(text);
    return text;
}

/* A module with one kernel (writes 1 to its argument) and one 16-byte variable. */
static const char module_src[] =
    ".global var 16 4 = 1 0 0 0 2 0 0 0 3 0 0 0 4 0 0 0\n"
    ".kernel one\n"
    ".param 8\n"
    "    ld.param.u64 r0, [0]\n"
    "    mov.u32 r2, 1\n"
    "    st.global.u32 [r0], r2\n"
    "    exit\n";

static int var_shadow[4];
static void stub_one(void) {}
static XtFatWrapper wrapper;

static void register_module(void *fat)
{
    wrapper = (XtFatWrapper){XT_FAT_MAGIC, 1, fat, NULL};
    void **h = __cudaRegisterFatBinary(&wrapper);
    __cudaRegisterFunction(h, (const void *)stub_one, "one", "one", -1, NULL, NULL, NULL, NULL,
                           NULL);
    __cudaRegisterVar(h, (char *)var_shadow, "var", "var", 0, sizeof var_shadow, 0, 0);
    __cudaRegisterFatBinaryEnd(h);
}

static void setup(void)
{
    register_module(xt_fat_from_asm(module_src));
}

static cudaError_t launch_one(void *out)
{
    void *args[] = {&out};
    return cudaLaunchKernel((const void *)stub_one, (dim3){1, 1, 1}, (dim3){1, 1, 1}, args, 0,
                            NULL);
}

/* ---- corrupt fat binaries ----------------------------------------------------------- */

Test(fatbin, intact_program_runs)
{
    xt_expect_pass(xt_compile_e2e("rt_fatbin", ""), "");
}

Test(fatbin, size_larger_than_the_image)
{
    /* past the segment, or inside it but past the ELF image: the layout decides */
    expect_corrupt(0x10000, 0, "65536 bytes");
}

Test(fatbin, size_far_past_the_mapped_segment)
{
    expect_corrupt(0x7fffffffffffffffull, 0, "image of 9223372036854775807 bytes past the end");
}

Test(fatbin, size_slightly_larger_inside_the_segment)
{
    char why[128];
    const char *exe = xt_compile_e2e("rt_fatbin", "");
    uint64_t real = patch_fat_size(exe, xt_tmp("rt_fatbin_probe"), 0, 0);
    snprintf(why, sizeof why, "the header gives %llu bytes, the ELF image has %llu",
             (unsigned long long)real + 16, (unsigned long long)real);
    expect_corrupt(0, 16, why);
}

Test(fatbin, size_smaller_than_the_image)
{
    expect_corrupt(100, 0, "section header table ends at byte ");
    expect_corrupt(0, -1, "ends at byte ");
}

Test(fatbin, container_built_in_memory_with_a_wrong_size)
{
    uint8_t *fat = xt_fat_from_asm(module_src);
    uint64_t size;
    memcpy(&size, fat + 16, 8);
    size += 8;
    memcpy(fat + 16, &size, 8);
    register_module(fat);
    capture_stderr();
    int *d;
    cr_assert_eq(cudaMalloc((void **)&d, 4), cudaSuccess);
    cr_assert_eq(launch_one(d), cudaErrorInvalidKernelImage);
    cr_assert_eq(launch_one(d), cudaErrorInvalidKernelImage, "still rejected, not retried");
    cr_assert_eq(cudaMemcpyToSymbol(var_shadow, d, 4, 0, cudaMemcpyDeviceToDevice),
                 cudaErrorInvalidKernelImage);
    char *log = read_stderr();
    cr_assert(strstr(log, "corrupt device binary: the header gives "), "%s", log);
    cr_assert(strstr(log, "(container built in memory)"), "%s", log);
    cr_assert_null(strstr(strstr(log, "corrupt") + 1, "corrupt"), "reported once:\n%s", log);
    free(log);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess, "not sticky");
}

/* ---- copy directions ---------------------------------------------------------------- */

Test(memcpy, host_to_host_with_a_device_pointer_is_invalid_value, .init = setup)
{
    int *d, h[4] = {1, 2, 3, 4}, g[4] = {0};
    cr_assert_eq(cudaMalloc((void **)&d, sizeof h), cudaSuccess);
    cr_assert_eq(cudaMemcpy(h, d, sizeof h, cudaMemcpyHostToHost), cudaErrorInvalidValue);
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidValue);
    cr_assert_eq(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToHost), cudaErrorInvalidValue);
    cr_assert_eq(cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyHostToHost, 0), cudaErrorInvalidValue);
    cr_assert_eq(cudaMemcpy2D(h, 8, d, 8, 8, 2, cudaMemcpyHostToHost), cudaErrorInvalidValue);
    cr_assert_eq(cudaMemcpy2DAsync(d, 8, h, 8, 8, 2, cudaMemcpyHostToHost, 0),
                 cudaErrorInvalidValue);
    cr_assert_eq(cudaMemcpy(g, h, sizeof h, cudaMemcpyHostToHost), cudaSuccess);
    cr_assert_arr_eq(g, h, sizeof h);
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidValue);
    cr_assert_eq(cudaGetLastError(), cudaSuccess, "not sticky");
}

Test(memcpy, each_side_must_match_the_direction, .init = setup)
{
    int *d, *e, h[4] = {5, 6, 7, 8};
    cr_assert_eq(cudaMalloc((void **)&d, sizeof h), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&e, sizeof h), cudaSuccess);
    /* a device pointer where the host side should be */
    cr_assert_eq(cudaMemcpy(d, e, sizeof h, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    cr_assert_eq(cudaMemcpy(d, e, sizeof h, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    /* a host pointer where the device side should be */
    cr_assert_eq(cudaMemcpy(h, h, sizeof h, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    cr_assert_eq(cudaMemcpy(h, h, sizeof h, cudaMemcpyDeviceToDevice), cudaErrorInvalidValue);
    cr_assert_eq(cudaMemcpyAsync(d, h, sizeof h, cudaMemcpyDeviceToHost, 0),
                 cudaErrorInvalidValue);
    cr_assert_eq(cudaMemcpy2D(d, 8, e, 8, 8, 2, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    cr_assert_eq(cudaMemcpy(d, h, sizeof h, (enum cudaMemcpyKind)9),
                 cudaErrorInvalidMemcpyDirection);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess, "nothing sticky");
}

Test(memcpy, default_infers_all_four_directions, .init = setup)
{
    int *d, *e, a[4] = {1, 2, 3, 4}, b[4] = {0}, c[4] = {0};
    cr_assert_eq(cudaMalloc((void **)&d, sizeof a), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&e, sizeof a), cudaSuccess);
    cr_assert_eq(cudaMemcpy(d, a, sizeof a, cudaMemcpyDefault), cudaSuccess);  /* H2D */
    cr_assert_eq(cudaMemcpy(e, d, sizeof a, cudaMemcpyDefault), cudaSuccess);  /* D2D */
    cr_assert_eq(cudaMemcpy(b, e, sizeof a, cudaMemcpyDefault), cudaSuccess);  /* D2H */
    cr_assert_eq(cudaMemcpy(c, b, sizeof a, cudaMemcpyDefault), cudaSuccess);  /* H2H */
    cr_assert_arr_eq(c, a, sizeof a);
    int r[4] = {0};
    cr_assert_eq(cudaMemcpy2D(r, 8, d, 8, 8, 2, cudaMemcpyDefault), cudaSuccess);
    cr_assert_arr_eq(r, a, sizeof a);
    cr_assert_eq(cudaMemcpyAsync(r, e, 4, cudaMemcpyDefault, 0), cudaSuccess);
}

Test(memcpy, symbol_copies_check_the_other_side, .init = setup)
{
    int *d, h[4] = {9, 9, 9, 9}, back[4] = {0};
    cr_assert_eq(cudaMalloc((void **)&d, sizeof h), cudaSuccess);
    /* ToSymbol: the source named host must be host memory, named device device memory */
    cr_assert_eq(cudaMemcpyToSymbol(var_shadow, d, sizeof h, 0, cudaMemcpyHostToDevice),
                 cudaErrorInvalidValue);
    cr_assert_eq(cudaMemcpyToSymbol(var_shadow, h, sizeof h, 0, cudaMemcpyDeviceToDevice),
                 cudaErrorInvalidValue);
    cr_assert_eq(cudaMemcpyToSymbolAsync(var_shadow, d, sizeof h, 0, cudaMemcpyHostToDevice, 0),
                 cudaErrorInvalidValue);
    cr_assert_eq(cudaMemcpyToSymbol(var_shadow, h, sizeof h, 0, cudaMemcpyHostToHost),
                 cudaErrorInvalidMemcpyDirection);
    /* FromSymbol: the destination likewise */
    cr_assert_eq(cudaMemcpyFromSymbol(d, var_shadow, sizeof h, 0, cudaMemcpyDeviceToHost),
                 cudaErrorInvalidValue);
    cr_assert_eq(cudaMemcpyFromSymbol(back, var_shadow, sizeof h, 0, cudaMemcpyDeviceToDevice),
                 cudaErrorInvalidValue);
    cr_assert_eq(cudaMemcpyFromSymbolAsync(d, var_shadow, sizeof h, 0, cudaMemcpyDeviceToHost,
                                           0),
                 cudaErrorInvalidValue);
    /* and the right ones still work, cudaMemcpyDefault included */
    cr_assert_eq(cudaMemcpyFromSymbol(back, var_shadow, sizeof h, 0, cudaMemcpyDefault),
                 cudaSuccess);
    int init[4] = {1, 2, 3, 4};
    cr_assert_arr_eq(back, init, sizeof init);
    cr_assert_eq(cudaMemcpyToSymbol(var_shadow, h, sizeof h, 0, cudaMemcpyDefault), cudaSuccess);
    cr_assert_eq(cudaMemcpyFromSymbol(d, var_shadow, sizeof h, 0, cudaMemcpyDefault),
                 cudaSuccess);
    cr_assert_eq(cudaMemcpy(back, d, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
    cr_assert_arr_eq(back, h, sizeof h);
}

/* ---- host registration -------------------------------------------------------------- */

Test(hostmem, unregister_of_unregistered_memory)
{
    static char buf[8192];
    cr_assert_eq(cudaHostUnregister(buf), 713); /* cudaErrorHostMemoryNotRegistered */
    cr_assert_eq(cudaGetLastError(), 713);
    cr_assert_str_eq(cudaGetErrorName((cudaError_t)713), "cudaErrorHostMemoryNotRegistered");
    cr_assert_eq(cudaHostUnregister(NULL), cudaErrorInvalidValue);
}

Test(hostmem, register_twice_and_overlapping)
{
    static char buf[8192];
    cr_assert_eq(cudaHostRegister(buf, 4096, cudaHostRegisterDefault), cudaSuccess);
    cr_assert_eq(cudaHostRegister(buf, 4096, cudaHostRegisterDefault), 712);
    cr_assert_str_eq(cudaGetErrorName(cudaGetLastError()), "cudaErrorHostMemoryAlreadyRegistered");
    cr_assert_eq(cudaHostRegister(buf + 4000, 200, cudaHostRegisterDefault), 712, "overlap");
    cr_assert_eq(cudaHostRegister(buf + 4096, 4096, cudaHostRegisterDefault), cudaSuccess,
                 "adjacent");
    cr_assert_eq(cudaHostUnregister(buf + 8), 713, "not the start of a range");
    cr_assert_eq(cudaHostUnregister(buf), cudaSuccess);
    cr_assert_eq(cudaHostUnregister(buf), 713, "already unregistered");
    cr_assert_eq(cudaHostUnregister(buf + 4096), cudaSuccess);
    void *pinned;
    cr_assert_eq(cudaMallocHost(&pinned, 100), cudaSuccess);
    cr_assert_eq(cudaHostRegister(pinned, 100, 0), 712, "pinned memory is registered already");
    cr_assert_eq(cudaFreeHost(pinned), cudaSuccess);
    int *d;
    cr_assert_eq(cudaMalloc((void **)&d, 64), cudaSuccess);
    cr_assert_eq(cudaHostRegister(d, 64, 0), cudaErrorInvalidValue, "device memory");
}

Test(hostmem, reset_forgets_registrations)
{
    static char buf[4096];
    cr_assert_eq(cudaHostRegister(buf, sizeof buf, 0), cudaSuccess);
    cr_assert_eq(cudaDeviceReset(), cudaSuccess);
    cr_assert_eq(cudaHostUnregister(buf), 713);
    cr_assert_eq(cudaHostRegister(buf, sizeof buf, 0), cudaSuccess);
}

/* ---- error names -------------------------------------------------------------------- */

/* CUDA 12.0's cudaError enum. */
static const struct {
    int code;
    const char *name;
} cuda12[] = {
    {0, "cudaSuccess"}, {1, "cudaErrorInvalidValue"}, {2, "cudaErrorMemoryAllocation"},
    {3, "cudaErrorInitializationError"}, {4, "cudaErrorCudartUnloading"},
    {5, "cudaErrorProfilerDisabled"}, {6, "cudaErrorProfilerNotInitialized"},
    {7, "cudaErrorProfilerAlreadyStarted"}, {8, "cudaErrorProfilerAlreadyStopped"},
    {9, "cudaErrorInvalidConfiguration"}, {12, "cudaErrorInvalidPitchValue"},
    {13, "cudaErrorInvalidSymbol"}, {16, "cudaErrorInvalidHostPointer"},
    {17, "cudaErrorInvalidDevicePointer"}, {18, "cudaErrorInvalidTexture"},
    {19, "cudaErrorInvalidTextureBinding"}, {20, "cudaErrorInvalidChannelDescriptor"},
    {21, "cudaErrorInvalidMemcpyDirection"}, {22, "cudaErrorAddressOfConstant"},
    {23, "cudaErrorTextureFetchFailed"}, {24, "cudaErrorTextureNotBound"},
    {25, "cudaErrorSynchronizationError"}, {26, "cudaErrorInvalidFilterSetting"},
    {27, "cudaErrorInvalidNormSetting"}, {28, "cudaErrorMixedDeviceExecution"},
    {31, "cudaErrorNotYetImplemented"}, {32, "cudaErrorMemoryValueTooLarge"},
    {34, "cudaErrorStubLibrary"}, {35, "cudaErrorInsufficientDriver"},
    {36, "cudaErrorCallRequiresNewerDriver"}, {37, "cudaErrorInvalidSurface"},
    {43, "cudaErrorDuplicateVariableName"}, {44, "cudaErrorDuplicateTextureName"},
    {45, "cudaErrorDuplicateSurfaceName"}, {46, "cudaErrorDevicesUnavailable"},
    {49, "cudaErrorIncompatibleDriverContext"}, {52, "cudaErrorMissingConfiguration"},
    {53, "cudaErrorPriorLaunchFailure"}, {65, "cudaErrorLaunchMaxDepthExceeded"},
    {66, "cudaErrorLaunchFileScopedTex"}, {67, "cudaErrorLaunchFileScopedSurf"},
    {68, "cudaErrorSyncDepthExceeded"}, {69, "cudaErrorLaunchPendingCountExceeded"},
    {98, "cudaErrorInvalidDeviceFunction"}, {100, "cudaErrorNoDevice"},
    {101, "cudaErrorInvalidDevice"}, {102, "cudaErrorDeviceNotLicensed"},
    {103, "cudaErrorSoftwareValidityNotEstablished"}, {127, "cudaErrorStartupFailure"},
    {200, "cudaErrorInvalidKernelImage"}, {201, "cudaErrorDeviceUninitialized"},
    {205, "cudaErrorMapBufferObjectFailed"}, {206, "cudaErrorUnmapBufferObjectFailed"},
    {207, "cudaErrorArrayIsMapped"}, {208, "cudaErrorAlreadyMapped"},
    {209, "cudaErrorNoKernelImageForDevice"}, {210, "cudaErrorAlreadyAcquired"},
    {211, "cudaErrorNotMapped"}, {212, "cudaErrorNotMappedAsArray"},
    {213, "cudaErrorNotMappedAsPointer"}, {214, "cudaErrorECCUncorrectable"},
    {215, "cudaErrorUnsupportedLimit"}, {216, "cudaErrorDeviceAlreadyInUse"},
    {217, "cudaErrorPeerAccessUnsupported"}, {218, "cudaErrorInvalidPtx"},
    {219, "cudaErrorInvalidGraphicsContext"}, {220, "cudaErrorNvlinkUncorrectable"},
    {221, "cudaErrorJitCompilerNotFound"}, {222, "cudaErrorUnsupportedPtxVersion"},
    {223, "cudaErrorJitCompilationDisabled"}, {224, "cudaErrorUnsupportedExecAffinity"},
    {225, "cudaErrorUnsupportedDevSideSync"}, {300, "cudaErrorInvalidSource"},
    {301, "cudaErrorFileNotFound"}, {302, "cudaErrorSharedObjectSymbolNotFound"},
    {303, "cudaErrorSharedObjectInitFailed"}, {304, "cudaErrorOperatingSystem"},
    {400, "cudaErrorInvalidResourceHandle"}, {401, "cudaErrorIllegalState"},
    {402, "cudaErrorLossyQuery"}, {500, "cudaErrorSymbolNotFound"},
    {600, "cudaErrorNotReady"}, {700, "cudaErrorIllegalAddress"},
    {701, "cudaErrorLaunchOutOfResources"}, {702, "cudaErrorLaunchTimeout"},
    {703, "cudaErrorLaunchIncompatibleTexturing"}, {704, "cudaErrorPeerAccessAlreadyEnabled"},
    {705, "cudaErrorPeerAccessNotEnabled"}, {708, "cudaErrorSetOnActiveProcess"},
    {709, "cudaErrorContextIsDestroyed"}, {710, "cudaErrorAssert"},
    {711, "cudaErrorTooManyPeers"}, {712, "cudaErrorHostMemoryAlreadyRegistered"},
    {713, "cudaErrorHostMemoryNotRegistered"}, {714, "cudaErrorHardwareStackError"},
    {715, "cudaErrorIllegalInstruction"}, {716, "cudaErrorMisalignedAddress"},
    {717, "cudaErrorInvalidAddressSpace"}, {718, "cudaErrorInvalidPc"},
    {719, "cudaErrorLaunchFailure"}, {720, "cudaErrorCooperativeLaunchTooLarge"},
    {800, "cudaErrorNotPermitted"}, {801, "cudaErrorNotSupported"},
    {802, "cudaErrorSystemNotReady"}, {803, "cudaErrorSystemDriverMismatch"},
    {804, "cudaErrorCompatNotSupportedOnDevice"}, {805, "cudaErrorMpsConnectionFailed"},
    {806, "cudaErrorMpsRpcFailure"}, {807, "cudaErrorMpsServerNotReady"},
    {808, "cudaErrorMpsMaxClientsReached"}, {809, "cudaErrorMpsMaxConnectionsReached"},
    {810, "cudaErrorMpsClientTerminated"}, {811, "cudaErrorCdpNotSupported"},
    {812, "cudaErrorCdpVersionMismatch"}, {900, "cudaErrorStreamCaptureUnsupported"},
    {901, "cudaErrorStreamCaptureInvalidated"}, {902, "cudaErrorStreamCaptureMerge"},
    {903, "cudaErrorStreamCaptureUnmatched"}, {904, "cudaErrorStreamCaptureUnjoined"},
    {905, "cudaErrorStreamCaptureIsolation"}, {906, "cudaErrorStreamCaptureImplicit"},
    {907, "cudaErrorCapturedEvent"}, {908, "cudaErrorStreamCaptureWrongThread"},
    {909, "cudaErrorTimeout"}, {910, "cudaErrorGraphExecUpdateFailure"},
    {911, "cudaErrorExternalDevice"}, {912, "cudaErrorInvalidClusterSize"},
    {999, "cudaErrorUnknown"}, {10000, "cudaErrorApiFailureBase"},
};

Test(errors, every_cuda12_code_has_its_name_and_a_text)
{
    for (size_t i = 0; i < sizeof cuda12 / sizeof cuda12[0]; i++) {
        cudaError_t e = (cudaError_t)cuda12[i].code;
        cr_assert_str_eq(cudaGetErrorName(e), cuda12[i].name, "code %d", cuda12[i].code);
        const char *s = cudaGetErrorString(e);
        cr_assert(s && *s && strcmp(s, "unrecognized error code"), "code %d", cuda12[i].code);
    }
    cr_assert_str_eq(cudaGetErrorName((cudaError_t)46), "cudaErrorDevicesUnavailable");
}

Test(errors, unknown_codes_are_unrecognized)
{
    static const int unknown[] = {10, 11, 47, 99, 226, 706, 721, 913, 998, 1000, 12345, -1};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        cr_assert_str_eq(cudaGetErrorName((cudaError_t)unknown[i]), "unrecognized error code",
                         "code %d", unknown[i]);
        cr_assert_str_eq(cudaGetErrorString((cudaError_t)unknown[i]), "unrecognized error code",
                         "code %d", unknown[i]);
    }
}

/* ---- device assertions -------------------------------------------------------------- */

static void expect_assert_order(const char *how)
{
    const char *exe = xt_compile_e2e("rt_assert", "");
    char *out = NULL;
    int rc = xt_runf(&out, "%s %s 2>/dev/null", exe, how);
    cr_assert_eq(rc, 0, "%s: exit %d:\n%s", how, rc, out);
    const char *launched = strstr(out, "host: launched\n");
    const char *printed = strstr(out, "kernel: thread 1\n");
    const char *failed = strstr(out, "Assertion `v[threadIdx.x] == 0' failed.\n");
    const char *sync = strstr(out, "host: sync: cudaErrorLaunchFailure\n");
    cr_assert(launched && printed && failed && sync, "%s:\n%s", how, out);
    cr_assert(launched < printed && printed < failed && failed < sync, "%s: order:\n%s", how,
              out);
    cr_assert_null(strstr(failed + 1, "Assertion"), "%s: printed once:\n%s", how, out);
    free(out);
}

Test(assert, text_comes_at_device_synchronize)
{
    expect_assert_order("device");
}

Test(assert, text_comes_at_stream_synchronize)
{
    expect_assert_order("stream");
}

Test(assert, text_comes_at_event_synchronize)
{
    expect_assert_order("event");
}

Test(assert, text_comes_at_a_blocking_copy)
{
    expect_assert_order("memcpy");
}

/* ---- managed memory ----------------------------------------------------------------- */

Test(managed, intro_program_functional)
{
    XT_SKIP_UNDER_ASAN();
    char *out = NULL;
    const char *exe = xt_compile_e2e("rt_managed", "");
    int rc = xt_runf(&out, "XGPU_MODE=functional %s", exe);
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, out);
    cr_assert(strstr(out, "Max error: 0\n") && strstr(out, "PASS"), "%s", out);
    free(out);
}

Test(managed, intro_program_timing)
{
    XT_SKIP_UNDER_ASAN();
    char *out = NULL;
    const char *exe = xt_compile_e2e("rt_managed", "");
    int rc = xt_runf(&out, "XGPU_MODE=timing %s", exe);
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, out);
    cr_assert(strstr(out, "Max error: 0\n") && strstr(out, "PASS"), "%s", out);
    free(out);
}

/* One copy of a managed block: the launch does not add the block's size to the peak
 * resident size (a second, device-side copy would), in either mode. */
static void expect_held_once(const char *mode)
{
    XT_SKIP_UNDER_ASAN();
    char *out = NULL;
    const char *exe = xt_compile_e2e("um_footprint", "-O2");
    int rc = xt_runf(&out, "XGPU_MODE=%s %s 64", mode, exe);
    cr_assert_eq(rc, 0, "exit %d:\n%s", rc, out);
    long size = 0, growth = -1;
    const char *p = strstr(out, "size_kib:"), *q = strstr(out, "growth_kib:");
    cr_assert(p && q && sscanf(p, "size_kib: %ld", &size) == 1 &&
              sscanf(q, "growth_kib: %ld", &growth) == 1, "%s", out);
    cr_expect_eq(size, 64 << 10);
    cr_expect_lt(growth, size / 8, "%s: the launch grew the peak by %ld KiB of %ld", mode,
                 growth, size);
    cr_expect(strstr(out, "PASS"), "%s", out);
    free(out);
}

Test(managed, held_once_functional)
{
    expect_held_once("functional");
}

Test(managed, held_once_timing)
{
    expect_held_once("timing");
}

Test(managed, same_pointer_on_host_and_device, .init = setup)
{
    XT_SKIP_UNDER_ASAN();
    int *m;
    cr_assert_eq(cudaMallocManaged((void **)&m, 3 * sizeof(int), ATTACH_GLOBAL),
                 cudaSuccess);
    cr_assert_eq((uintptr_t)m % 4096, 0);
    m[0] = 41;
    m[2] = 7;
    cr_assert_eq(launch_one(m), cudaSuccess); /* writes 1 to m[0] */
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    cr_assert_eq(m[0], 1);
    cr_assert_eq(m[2], 7);
    cr_assert_eq(cudaMemset(m, 0xff, 3 * sizeof(int)), cudaSuccess);
    cr_assert_eq(m[1], -1);
    cr_assert_eq(cudaMemset(m, 0, 4 * sizeof(int)), cudaErrorInvalidValue, "past the block");
    int h[4];
    cr_assert_eq(cudaMemcpy(h, m, 4 * sizeof(int), cudaMemcpyDeviceToHost),
                 cudaErrorInvalidValue, "past the block");
    cr_assert_eq(cudaMemcpy(h, m, 3 * sizeof(int), cudaMemcpyHostToHost), cudaSuccess,
                 "managed memory is host memory too");
    cr_assert_eq(cudaFree(m + 1), cudaErrorInvalidValue, "not the start");
    cr_assert_eq(cudaFree(m), cudaSuccess);
    cr_assert_eq(cudaMemcpy(h, m, 4, cudaMemcpyHostToHost), cudaErrorInvalidValue,
                 "freed: a device address again");
}

Test(managed, bad_arguments)
{
    XT_SKIP_UNDER_ASAN();
    void *p;
    cr_assert_eq(cudaMallocManaged(&p, 0, ATTACH_GLOBAL), cudaErrorInvalidValue);
    cr_assert_eq(cudaMallocManaged(&p, 16, 4 /* cudaMemAttachSingle */), cudaErrorInvalidValue);
    cr_assert_eq(cudaMallocManaged(NULL, 16, ATTACH_GLOBAL), cudaErrorInvalidValue);
    cr_assert_eq(cudaMallocManaged(&p, (size_t)1 << 62, ATTACH_GLOBAL),
                 cudaErrorMemoryAllocation);
    cr_assert_eq(cudaMallocManaged(&p, 16, ATTACH_HOST), cudaSuccess);
    cr_assert_eq(cudaDeviceReset(), cudaSuccess, "frees managed memory");
    cr_assert_eq(cudaFree(p), cudaErrorInvalidValue);
}

/* cudaMemPrefetchAsync and cudaMemAdvise are looked up by name: cuda_runtime_api.h does
 * not declare them yet. */
typedef cudaError_t (*PrefetchFn)(const void *, size_t, int, cudaStream_t);
typedef cudaError_t (*AdviseFn)(const void *, size_t, int, int);

Test(managed, prefetch_and_advice_are_checked)
{
    XT_SKIP_UNDER_ASAN();
    PrefetchFn prefetch = (PrefetchFn)dlsym(RTLD_DEFAULT, "cudaMemPrefetchAsync");
    AdviseFn advise = (AdviseFn)dlsym(RTLD_DEFAULT, "cudaMemAdvise");
    cr_assert(prefetch && advise);
    float *m, *d;
    cr_assert_eq(cudaMallocManaged((void **)&m, 1024, ATTACH_GLOBAL), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&d, 1024), cudaSuccess);
    cr_assert_eq(prefetch(m, 1024, 0, 0), cudaSuccess);
    cr_assert_eq(prefetch(m, 1024, -1 /* cudaCpuDeviceId */, 0), cudaSuccess);
    cr_assert_eq(prefetch(m, 1025, 0, 0), cudaErrorInvalidValue);
    cr_assert_eq(prefetch(d, 1024, 0, 0), cudaErrorInvalidValue, "not managed");
    cr_assert_eq(prefetch(m, 1024, 3, 0), cudaErrorInvalidDevice);
    cr_assert_eq(prefetch(m, 1024, 0, (cudaStream_t)m), cudaErrorInvalidResourceHandle);
    cr_assert_eq(advise(m, 512, 1 /* SetReadMostly */, 0), cudaSuccess);
    cr_assert_eq(advise(m, 512, 3 /* SetPreferredLocation */, -1), cudaSuccess);
    cr_assert_eq(advise(m, 512, 7, 0), cudaErrorInvalidValue);
    cr_assert_eq(advise(m, 512, 5, 2), cudaErrorInvalidDevice);
    cr_assert_eq(advise(d, 512, 1, 0), cudaErrorInvalidValue);
    cr_assert_eq(cudaFree(m), cudaSuccess);
}
