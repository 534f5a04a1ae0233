/*
 * 730-stats: XGPU_STATS=FILE makes the runtime write the emulator's statistics JSON.
 * It is written when the device goes away: at cudaDeviceReset, at process exit (the
 * atexit hook installed when the device was created), or when the last fat binary is
 * unregistered. The file lists every launch. An unwritable path costs one line on
 * stderr and nothing else; without XGPU_STATS a clean run prints nothing.
 */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xgpu/cuda/cuda_runtime_api.h"
#include "xgpu/gpubin.h"
#include "xtest.h"

/* out[tid] = tid */
static const char module_src[] =
    ".kernel iota\n"
    ".param 8\n"
    "    s2r r0, %tid.x\n"
    "    ld.param.u64 r2, [0]\n"
    "    shl.u32 r4, r0, 2\n"
    "    cvt.u64.u32 r6, r4\n"
    "    add.u64 r2, r2, r6\n"
    "    st.global.u32 [r2], r0\n"
    "    exit\n";

static void stub_iota(void) {}
static XtFatWrapper wrapper;
static void **handle;

static void setup(void)
{
    wrapper = (XtFatWrapper){0x466243b1, 1, xt_fat_from_asm(module_src), NULL};
    handle = __cudaRegisterFatBinary(&wrapper);
    __cudaRegisterFunction(handle, (const void *)stub_iota, "iota", "iota", -1, NULL, NULL, NULL,
                           NULL, NULL);
    __cudaRegisterFatBinaryEnd(handle);
}

/* Launches iota with `threads` threads and checks its result; returns 0 on success. */
static int run_iota(unsigned threads)
{
    unsigned *d, h[256];
    if (cudaMalloc((void **)&d, sizeof h) != cudaSuccess)
        return 1;
    void *args[] = {&d};
    if (cudaLaunchKernel((const void *)stub_iota, (dim3){1, 1, 1}, (dim3){threads, 1, 1}, args,
                         0, NULL) != cudaSuccess)
        return 2;
    if (cudaMemcpy(h, d, threads * sizeof(unsigned), cudaMemcpyDeviceToHost) != cudaSuccess)
        return 3;
    for (unsigned i = 0; i < threads; i++)
        if (h[i] != i)
            return 4;
    return cudaFree(d) == cudaSuccess ? 0 : 5;
}

static char *temp_path(const char *tag)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/test-730-%s-%d.json", XGPU_BUILD_DIR, tag, (int)getpid());
    remove(path);
    return path;
}

/* Parses the stats file and checks it lists `n` launches of iota. */
static void check_stats(const char *path, size_t n)
{
    json_object *root = json_object_from_file(path);
    cr_assert_not_null(root, "no valid JSON in %s", path);
    json_object *launches, *totals, *count;
    cr_assert(json_object_object_get_ex(root, "launches", &launches));
    cr_assert_eq(json_object_array_length(launches), n);
    for (size_t i = 0; i < n; i++) {
        json_object *name;
        cr_assert(json_object_object_get_ex(json_object_array_get_idx(launches, i), "name", &name));
        cr_assert_str_eq(json_object_get_string(name), "iota");
    }
    cr_assert(json_object_object_get_ex(root, "totals", &totals));
    cr_assert(json_object_object_get_ex(totals, "launches", &count));
    cr_assert_eq(json_object_get_int64(count), (int64_t)n);
    json_object_put(root);
    remove(path);
}

Test(stats, written_at_device_reset, .init = setup)
{
    char *path = temp_path("reset");
    setenv("XGPU_STATS", path, 1);
    cr_assert_eq(run_iota(32), 0);
    cr_assert_eq(run_iota(100), 0);
    cr_assert_eq(access(path, F_OK), -1, "not before the device goes away");
    cr_assert_eq(cudaDeviceReset(), cudaSuccess);
    check_stats(path, 2);
}

Test(stats, written_at_process_exit, .init = setup)
{
    char *path = temp_path("exit");
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        setenv("XGPU_STATS", path, 1);
        if (run_iota(64) == 0 && run_iota(8) == 0 && run_iota(1) == 0)
            exit(0); /* runs the runtime's atexit hook */
        _exit(1);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    check_stats(path, 3);
}

Test(stats, written_when_the_last_module_unregisters, .init = setup)
{
    char *path = temp_path("unreg");
    setenv("XGPU_STATS", path, 1);
    cr_assert_eq(run_iota(16), 0);
    __cudaUnregisterFatBinary(handle);
    check_stats(path, 1);
}

/* Runs one launch and a reset with stderr in a file; returns what was printed. */
static char *stderr_of_run(void)
{
    static char log_path[] = XGPU_BUILD_DIR "/test-730-stderr-XXXXXX";
    int fd = mkstemp(log_path);
    cr_assert_geq(fd, 0);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    close(fd);
    cr_assert_eq(run_iota(32), 0);
    cr_assert_eq(cudaDeviceReset(), cudaSuccess);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    static char buf[4096];
    FILE *f = fopen(log_path, "r");
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    remove(log_path);
    return buf;
}

Test(stats, unwritable_path_is_one_line, .init = setup)
{
    setenv("XGPU_STATS", XGPU_BUILD_DIR "/no-such-directory/stats.json", 1);
    char *log = stderr_of_run();
    cr_assert_not_null(strstr(log, "cannot write statistics"), "%s", log);
    char *nl = strchr(log, '\n');
    cr_assert(nl && nl[1] == '\0', "exactly one line: %s", log);
}

Test(stats, silent_without_stats, .init = setup)
{
    unsetenv("XGPU_STATS");
    char *log = stderr_of_run();
    cr_assert_str_eq(log, "");
}
