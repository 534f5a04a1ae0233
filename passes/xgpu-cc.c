/*
 * xgpu-cc - the compiler driver.
 *
 * For each CUDA source it runs five steps (docs/cli.md):
 *   1. clang -x cuda --cuda-device-only -emit-llvm   -> device bitcode (nvptx64)
 *   2. xgpu_lower_file (in process, passes/lower)      -> fat container (XFatHeader + gpubin)
 *   3. clang -x cuda --cuda-host-only with -fcuda-include-gpubinary <fatbin> -emit-llvm
 *      -Xclang -disable-llvm-passes                       -> host bitcode
 *   4. xgpu_host_pass_file (in process, passes/host.c)  -> atom / descriptor tables
 *   5. clang -O<n> -c host bitcode                        -> host object
 * Step 2 also records the kernels' source signatures from a libclang parse of the source
 * (passes/frontend.c), run on a thread beside step 1. The driver then links every object
 * with libxgpurt. C and C++ inputs are compiled as host code (steps 3-5 without CUDA),
 * objects are passed to the linker, and device IR (.ll/.bc) inputs can be lowered alone
 * (-S prints xgpu assembly, --cuda-device-only writes the fat container).
 *
 * The host launch ABI is pinned: clang is told the CUDA SDK version explicitly
 * (-target-sdk-version), and never reads a CUDA installation (-nocudainc -nocudalib), so
 * the generated calls (__cudaPushCallConfiguration, cudaLaunchKernel, registration) do not
 * depend on what is installed on the machine.
 *
 * nvcc's environment. Every .cu is compiled with cuda_runtime.h included first
 * (-include), as nvcc does, and with nvcc's host compiler's leniency where clang has a
 * flag for it: narrowing conversions in braced initializers and the `register` storage
 * class are warnings, not errors. -E and -M/-MM preprocess (host side) only; -MD/-MMD and
 * their -MF/-MT/-MQ/-MP go to the host compile of each source.
 *
 * A launch written `k << < g, b >> > (...)`, which nvcc reads and clang does not, is
 * compiled through a rewritten copy of the source that a VFS overlay gives the source's
 * own name (prepare_source). <omp.h> is clang's; -fopenmp (or -Xcompiler -fopenmp, nvcc's
 * spelling: -Xcompiler options go to host compiles only) links libomp, and without it
 * libomp is linked as needed so that omp_* calls still link.
 *
 * Diagnostics are clang's own (the host pass prints located ones for annotations), plus
 * a located note where clang's error has a cause xgpu names (dynamic parallelism). A step
 * that fails without printing anything is named with its exit status; a front end that
 * fails or crashes fails the compile. The driver's exit status is the first failing
 * step's. An output path that names one of the inputs is refused before anything runs.
 * SIGTERM, SIGINT, SIGHUP and SIGPIPE remove the temporary directory and end the driver
 * by the same signal.
 */
#define _GNU_SOURCE /* vasprintf, getdents64 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "frontend.h"
#include "launches.h"
#include "host.h"
#include "lower/lower.h"
#include "xgpu/diag.h"

#define MAX_ARGS 512

/* The CUDA SDK version whose launch ABI clang generates (cudaLaunchKernel). */
#define XGPU_CUDA_SDK "12.0"
/* The virtual GPU architecture clang compiles device code for. */
#define XGPU_CUDA_ARCH "sm_70"

typedef enum InKind { IN_CUDA, IN_C, IN_CXX, IN_OBJ, IN_DEVIR } InKind;

typedef struct Input {
    const char *path;
    InKind kind;
} Input;

typedef struct Argv {
    const char *v[MAX_ARGS];
    int n;
} Argv;

/* The front end's parse of a CUDA source (kernel signatures). It runs on a thread of its
 * own while clang, a child process, compiles the device side, so it costs no wall time
 * where a second core is free. */
typedef struct SigJob {
    const char *src;
    Argv *args; /* the device compile's clang arguments */
    XgpuSignatures sigs;
    pthread_t thread;
    int running;
} SigJob;

typedef struct Driver {
    Input inputs[MAX_ARGS];
    int ninputs;
    const char *output;
    int compile_only;   /* -c */
    int emit_asm;       /* -S (device IR inputs, or .cu with --cuda-device-only) */
    int device_only;    /* --cuda-device-only */
    int verbose;        /* -v */
    int keep_temps;     /* --keep-temps */
    int preprocess;     /* -E, -M or -MM: run clang's preprocessor (host side) only */
    int debug;          /* -g */
    unsigned opt;       /* -O level */
    unsigned max_regs;  /* --max-regs */
    unsigned regs;      /* --regs */
    unsigned rthld;     /* --rthld (Memento reuse threshold) */
    unsigned phase_delta; /* --phase-delta (Zorua: percent change that starts a phase) */
    unsigned phase_gap;   /* --phase-gap (Zorua: instructions between boundaries) */
    const char *reuse_profile; /* --reuse-profile */
    int no_assist;      /* --no-assist: no .xgpu.assist section */
    Argv cflags;        /* -I -D -U -W -std -f... forwarded to every compile */
    Argv ldflags;       /* -L -l -Wl, ... forwarded to the link */
    Argv ppflags;       /* -E -M -MM */
    Argv depflags;      /* -MD -MMD -MP -MF -MT -MQ: the host compile's dependency file */
    int dep_file, dep_target; /* -MF, -MT/-MQ given */
    const char *clang;
    SigJob sigjob;      /* the front end of the .cu being compiled */
    char said[16384];   /* the start of the last step's stderr, uncoloured (for hints) */
    size_t nsaid;
    int in_escape;
    char incdir[PATH_MAX];
    char libdir[PATH_MAX];
    char tmpdir[PATH_MAX];
    int ntemps;
    const char *overlay; /* the .cu being compiled is read through this VFS overlay */
    Argv hostflags;     /* -Xcompiler: host compiles and the link only */
    int openmp;         /* -fopenmp (or -Xcompiler -fopenmp) given */
} Driver;

static void push(Argv *a, const char *s)
{
    if (a->n >= MAX_ARGS - 1) {
        fprintf(stderr, "xgpu-cc: error: too many arguments\n");
        exit(1);
    }
    a->v[a->n++] = s;
    a->v[a->n] = NULL;
}

static void pushall(Argv *a, const Argv *b)
{
    for (int i = 0; i < b->n; i++)
        push(a, b->v[i]);
}

static char *fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *s = NULL;
    if (vasprintf(&s, f, ap) < 0) {
        fprintf(stderr, "xgpu-cc: error: out of memory\n");
        exit(1);
    }
    va_end(ap);
    return s;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: xgpu-cc [options] file...\n"
            "Compiles CUDA (.cu), C (.c), C++ (.cc .cpp .cxx), objects (.o .a) and device IR\n"
            "(.ll .bc) into a program that runs its kernels on the xgpu emulator.\n"
            "  -o FILE            output file (default a.out, or NAME.o with -c)\n"
            "  -c                 compile only, do not link\n"
            "  -S                 with device IR input or --cuda-device-only: write xgpu assembly\n"
            "  -E, -M, -MM        preprocess only (host side), or list the dependencies\n"
            "  -MD -MMD -MF FILE -MT T -MQ T -MP   dependency file of each compile\n"
            "  --cuda-device-only compile device code only; write the fat device binary\n"
            "  -O0 -O1 -O2 -O3    optimization level (default -O2)\n"
            "  -g                 debug information (source lines in the device binary)\n"
            "  -I DIR -D NAME[=V] -U NAME -std=... -W... -f...   passed to clang\n"
            "  -L DIR -l LIB -Wl,...                           passed to the linker\n"
            "  --max-regs=N       at most N registers per thread (spills to local memory)\n"
            "  --regs=N           exactly N registers per thread: at most N (spills), and a\n"
            "                     kernel that needs fewer still declares N (occupancy)\n"
            "  --rthld=N          Memento reuse threshold: an operand reused within N\n"
            "                     instructions is near (default 12; .xgpu.reuse)\n"
            "  --reuse-profile=FILE   take the reuse bits from a profile recorded with\n"
            "                     XGPU_REUSE_PROFILE=FILE (majority per operand)\n"
            "  --phase-delta=P    Zorua: a phase starts where live registers or live shared\n"
            "                     bytes change by P percent or more (default 25; .xgpu.phases)\n"
            "  --phase-gap=N      Zorua: at least N instructions between phase boundaries\n"
            "                     (default 10)\n"
            "  --no-assist        leave the CABA assist routines out of the device binary\n"
            "                     (.xgpu.assist)\n"
            "  --keep-temps       keep intermediate files (printed with -v)\n"
            "  -v                 print the commands run\n"
            "  --help             this text\n");
}

static InKind kind_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot)
        return IN_OBJ;
    if (!strcmp(dot, ".cu"))
        return IN_CUDA;
    if (!strcmp(dot, ".c"))
        return IN_C;
    if (!strcmp(dot, ".cc") || !strcmp(dot, ".cpp") || !strcmp(dot, ".cxx") ||
        !strcmp(dot, ".C"))
        return IN_CXX;
    if (!strcmp(dot, ".ll") || !strcmp(dot, ".bc"))
        return IN_DEVIR;
    return IN_OBJ;
}

/* Options that take a separate argument ("-I dir") when not joined ("-Idir"). */
static int takes_arg(const char *a)
{
    static const char *const two[] = {"-I", "-D", "-U", "-L", "-l", "-include", "-isystem",
                                      "-o", "-x", "-MF", "-MT", "-MQ", NULL};
    for (int i = 0; two[i]; i++)
        if (!strcmp(a, two[i]))
            return 1;
    return 0;
}

static int parse_uint(const char *s, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || v > 100000)
        return -1;
    *out = (unsigned)v;
    return 0;
}

static int is_openmp_flag(const char *a)
{
    return !strcmp(a, "-fopenmp") || !strncmp(a, "-fopenmp=", 9);
}

/* nvcc's -Xcompiler A,B,C: each option of the list, for the host compiler. */
static void push_list(Driver *d, Argv *a, const char *list)
{
    for (const char *p = list; *p;) {
        size_t k = strcspn(p, ",");
        if (k) {
            char *one = fmt("%.*s", (int)k, p);
            d->openmp |= is_openmp_flag(one);
            push(a, one);
        }
        p += k + (p[k] == ',');
    }
}

static int parse_args(Driver *d, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || !a[1]) {
            if (d->ninputs == MAX_ARGS) {
                fprintf(stderr, "xgpu-cc: error: too many input files (at most %d): %s\n",
                        MAX_ARGS, a);
                return -1;
            }
            d->inputs[d->ninputs].path = a;
            d->inputs[d->ninputs++].kind = kind_of(a);
            continue;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        }
        if (takes_arg(a)) {
            if (i + 1 >= argc) {
                fprintf(stderr, "xgpu-cc: error: argument to '%s' is missing\n", a);
                return -1;
            }
            const char *v = argv[++i];
            if (!strcmp(a, "-o"))
                d->output = v;
            else if (!strcmp(a, "-x")) {
                fprintf(stderr, "xgpu-cc: error: '-x' is not supported; the input kind comes "
                                "from the file extension\n");
                return -1;
            } else if (!strcmp(a, "-MF") || !strcmp(a, "-MT") || !strcmp(a, "-MQ")) {
                d->dep_file |= a[2] == 'F';
                d->dep_target |= a[2] != 'F';
                push(&d->depflags, a);
                push(&d->depflags, v);
            } else {
                Argv *dst = (!strcmp(a, "-L") || !strcmp(a, "-l")) ? &d->ldflags : &d->cflags;
                push(dst, a);
                push(dst, v);
            }
        } else if (!strcmp(a, "-c"))
            d->compile_only = 1;
        else if (!strcmp(a, "-E") || !strcmp(a, "-M") || !strcmp(a, "-MM")) {
            d->preprocess = 1;
            push(&d->ppflags, a);
        } else if (!strcmp(a, "-MD") || !strcmp(a, "-MMD") || !strcmp(a, "-MP"))
            push(&d->depflags, a);
        else if (!strcmp(a, "-S"))
            d->emit_asm = 1;
        else if (!strcmp(a, "--cuda-device-only"))
            d->device_only = 1;
        else if (!strcmp(a, "-v"))
            d->verbose = 1;
        else if (!strcmp(a, "--keep-temps"))
            d->keep_temps = 1;
        else if (!strcmp(a, "-g")) {
            d->debug = 1;
            push(&d->cflags, a);
        } else if (a[1] == 'O') {
            const char *lv = a + 2;
            if (!*lv)
                d->opt = 2;
            else if (!strcmp(lv, "s") || !strcmp(lv, "z"))
                d->opt = 2;
            else if (parse_uint(lv, &d->opt) || d->opt > 3) {
                fprintf(stderr, "xgpu-cc: error: invalid optimization level '%s'\n", a);
                return -1;
            }
        } else if (!strncmp(a, "--max-regs=", 11)) {
            if (parse_uint(a + 11, &d->max_regs) || d->max_regs < 4 || d->max_regs > 255) {
                fprintf(stderr, "xgpu-cc: error: --max-regs expects a number from 4 to 255, "
                                "got '%s'\n", a + 11);
                return -1;
            }
        } else if (!strncmp(a, "--regs=", 7)) {
            if (parse_uint(a + 7, &d->regs) || d->regs < 4 || d->regs > 255) {
                fprintf(stderr, "xgpu-cc: error: --regs expects a number from 4 to 255, "
                                "got '%s'\n", a + 7);
                return -1;
            }
        } else if (!strcmp(a, "--no-assist")) {
            d->no_assist = 1;
        } else if (!strncmp(a, "--reuse-profile=", 16)) {
            d->reuse_profile = a + 16;
        } else if (!strncmp(a, "--rthld=", 8)) {
            if (parse_uint(a + 8, &d->rthld) || d->rthld < 1 || d->rthld > 255) {
                fprintf(stderr, "xgpu-cc: error: --rthld expects a number from 1 to 255, "
                                "got '%s'\n", a + 8);
                return -1;
            }
        } else if (!strncmp(a, "--phase-delta=", 14)) {
            if (parse_uint(a + 14, &d->phase_delta) || d->phase_delta < 1 ||
                d->phase_delta > XPHASE_DELTA_MAX) {
                fprintf(stderr, "xgpu-cc: error: --phase-delta expects a percentage from 1 to "
                                "%u, got '%s'\n", XPHASE_DELTA_MAX, a + 14);
                return -1;
            }
        } else if (!strncmp(a, "--phase-gap=", 12)) {
            if (parse_uint(a + 12, &d->phase_gap) || d->phase_gap < 1 ||
                d->phase_gap > XPHASE_GAP_MAX) {
                fprintf(stderr, "xgpu-cc: error: --phase-gap expects a number from 1 to %u, "
                                "got '%s'\n", XPHASE_GAP_MAX, a + 12);
                return -1;
            }
        } else if (!strcmp(a, "-Xcompiler") || !strcmp(a, "--compiler-options") ||
                   !strncmp(a, "-Xcompiler=", 11) || !strncmp(a, "--compiler-options=", 19)) {
            const char *v = strchr(a, '=') ? strchr(a, '=') + 1 : i + 1 < argc ? argv[++i] : NULL;
            if (!v) {
                fprintf(stderr, "xgpu-cc: error: argument to '%s' is missing\n", a);
                return -1;
            }
            push_list(d, &d->hostflags, v);
        } else if (!strncmp(a, "-L", 2) || !strncmp(a, "-l", 2) || !strncmp(a, "-Wl,", 4) ||
                   !strcmp(a, "-pthread") || !strcmp(a, "-static"))
            push(&d->ldflags, a);
        else {
            d->openmp |= is_openmp_flag(a);
            push(&d->cflags, a); /* -I.. -D.. -std=.. -W.. -f.. and anything else for clang */
        }
    }
    if (d->ninputs == 0) {
        fprintf(stderr, "xgpu-cc: error: no input files\n");
        return -1;
    }
    return 0;
}

/* ---- the temporary directory on a fatal signal ------------------------------------------
 *
 * SIGTERM, SIGINT, SIGHUP and SIGPIPE (make -j stopping, a CI timeout, `xgpu-cc ... | head`)
 * remove the temporary directory and then end the driver by the same signal, so that its
 * exit status still says what happened. A signal handler takes no context pointer, so
 * what it needs is the driver's one piece of process-wide state: the directory's name
 * (written before the handlers are installed) and the step running (a child the handler
 * kills and reaps first, so that it writes nothing more into the directory). The handler
 * uses only async-signal-safe calls. The front end's thread blocks these signals, so the
 * handler runs on the main thread; children start with the default dispositions. A
 * signal that was ignored when the driver started (nohup, a shell's background job) stays
 * ignored. */

static struct {
    char dir[PATH_MAX];
    volatile sig_atomic_t child; /* the running step's pid, or 0 */
} cleanup;

static const int fatal_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGPIPE};

static void fatal_set(sigset_t *set)
{
    sigemptyset(set);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++)
        sigaddset(set, fatal_signals[i]);
}

/* Removes the entries of dir (a flat directory) and dir itself; async-signal-safe. */
static void remove_dir_now(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (int pass = 0; fd >= 0 && pass < 4; pass++) { /* again if entries moved under us */
        char buf[4096] __attribute__((aligned(8)));
        ssize_t k;
        int removed = 0;
        lseek(fd, 0, SEEK_SET);
        while ((k = getdents64(fd, buf, sizeof buf)) > 0)
            for (ssize_t off = 0; off < k;) {
                struct dirent64 *e = (struct dirent64 *)(buf + off);
                if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                    removed |= unlinkat(fd, e->d_name, 0) == 0;
                off += e->d_reclen;
            }
        if (!removed)
            break;
    }
    if (fd >= 0)
        close(fd);
    rmdir(dir);
}

static void on_fatal_signal(int sig)
{
    pid_t child = (pid_t)cleanup.child;
    if (child > 0) {
        kill(child, SIGKILL);
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    remove_dir_now(cleanup.dir);
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig); /* delivered when the handler returns and unblocks it */
}

static void catch_fatal_signals(const char *dir)
{
    snprintf(cleanup.dir, sizeof cleanup.dir, "%s", dir);
    struct sigaction sa = {.sa_handler = on_fatal_signal, .sa_flags = SA_RESTART};
    fatal_set(&sa.sa_mask);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++) {
        struct sigaction was;
        if (sigaction(fatal_signals[i], NULL, &was) == 0 && was.sa_handler == SIG_IGN)
            continue; /* ignored by who started us (nohup, a background job): stays so */
        sigaction(fatal_signals[i], &sa, NULL);
    }
}

/* Copies the child's stderr to ours as it arrives, keeping its start in d->said; returns
 * the number of bytes seen. */
static size_t relay(Driver *d, int fd)
{
    char buf[4096];
    size_t seen = 0;
    d->nsaid = 0;
    d->in_escape = 0;
    for (;;) {
        ssize_t k = read(fd, buf, sizeof buf);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            d->said[d->nsaid] = '\0';
            return seen;
        }
        seen += (size_t)k;
        for (ssize_t i = 0; i < k && d->nsaid < sizeof d->said - 1; i++) {
            if (buf[i] == '\033') /* colour escapes: ESC [ ... m */
                d->in_escape = 1;
            else if (!d->in_escape)
                d->said[d->nsaid++] = buf[i];
            else if (buf[i] == 'm')
                d->in_escape = 0;
        }
        for (ssize_t off = 0; off < k;) {
            ssize_t w = write(2, buf + off, (size_t)(k - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                break;
            off += w;
        }
    }
}

/* Runs a step. Its stderr passes through a pipe, so that a step which fails without a
 * word (a broken XGPU_CLANG, a crash) is still named. */
static int run(Driver *d, Argv *cmd)
{
    if (d->verbose) {
        for (int i = 0; i < cmd->n; i++)
            fprintf(stderr, "%s%s", i ? " " : "", cmd->v[i]);
        fputc('\n', stderr);
    }
    fflush(NULL);
    int err[2];
    if (pipe(err)) {
        fprintf(stderr, "xgpu-cc: error: cannot start %s: %s\n", cmd->v[0], strerror(errno));
        return 1;
    }
    sigset_t fatal, old;
    fatal_set(&fatal);
    pthread_sigmask(SIG_BLOCK, &fatal, &old); /* the handler sees the child's pid */
    pid_t pid = fork();
    if (pid < 0) {
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        fprintf(stderr, "xgpu-cc: error: cannot start %s: %s\n", cmd->v[0], strerror(errno));
        close(err[0]), close(err[1]);
        return 1;
    }
    if (pid == 0) {
        for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++) {
            struct sigaction was; /* ours back to the default; ignored ones stay ignored */
            if (sigaction(fatal_signals[i], NULL, &was) == 0 && was.sa_handler == on_fatal_signal)
                signal(fatal_signals[i], SIG_DFL);
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        dup2(err[1], 2);
        close(err[0]), close(err[1]);
        execvp(cmd->v[0], (char *const *)cmd->v);
        fprintf(stderr, "xgpu-cc: error: cannot run %s: %s\n", cmd->v[0], strerror(errno));
        _exit(127);
    }
    cleanup.child = pid;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close(err[1]);
    size_t said = relay(d, err[0]);
    close(err[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) {
            cleanup.child = 0;
            return 1;
        }
    cleanup.child = 0;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    if (WIFEXITED(st)) {
        if (!said)
            fprintf(stderr, "xgpu-cc: error: %s failed with exit status %d and printed nothing "
                            "(is XGPU_CLANG a working clang?)\n", cmd->v[0], WEXITSTATUS(st));
        return WEXITSTATUS(st);
    }
    fprintf(stderr, "xgpu-cc: error: %s terminated by signal %d\n", cmd->v[0], WTERMSIG(st));
    return 1;
}

/* clang, with colours when our stderr is a terminal (its own is a pipe). */
static void push_clang(Driver *d, Argv *c)
{
    push(c, d->clang);
    if (isatty(2))
        push(c, "-fcolor-diagnostics");
}

static const char *temp(Driver *d, const char *input, const char *ext)
{
    const char *base = strrchr(input, '/');
    base = base ? base + 1 : input;
    return fmt("%s/%d-%s%s", d->tmpdir, d->ntemps++, base, ext);
}

/* Arguments shared by the device and host compilations of a CUDA source. */
static void cuda_common(Driver *d, Argv *c)
{
    push_clang(d, c);
    push(c, "-x");
    push(c, "cuda");
    push(c, "--cuda-gpu-arch=" XGPU_CUDA_ARCH);
    push(c, "-nocudainc");
    push(c, "-nocudalib");
    push(c, "-Wno-unknown-cuda-version");
    push(c, "-Xclang");
    push(c, "-target-sdk-version=" XGPU_CUDA_SDK);
    push(c, "-D__XGPU__=1");
    push(c, "-isystem");
    push(c, fmt("%s/xgpu/cuda", d->incdir));
    push(c, "-I");
    push(c, d->incdir);
    push(c, fmt("-O%u", d->opt));
    /* nvcc's environment: cuda_runtime.h first, nvcc's host compiler's leniency */
    push(c, "-include");
    push(c, "cuda_runtime.h");
    push(c, "-Wno-error=c++11-narrowing");
    push(c, "-Wno-error=register");
    if (d->overlay) {
        push(c, "-ivfsoverlay");
        push(c, d->overlay);
    }
    pushall(c, &d->cflags);
}

static void *sig_thread(void *arg)
{
    SigJob *j = arg;
    xgpu_frontend_signatures(j->src, j->args->v, j->args->n, &j->sigs);
    return NULL;
}

/* Starts the parse of src with the device compile's arguments (parsed in place when no
 * thread can be had). */
static void sig_start(Driver *d, const char *src)
{
    Argv *c = calloc(1, sizeof *c);
    if (!c)
        return;
    cuda_common(d, c);
    push(c, "--cuda-device-only");
    if (d->verbose)
        fprintf(stderr, "xgpu-frontend %s\n", src);
    d->sigjob = (SigJob){.src = src, .args = c};
    sigset_t fatal, old;
    fatal_set(&fatal);
    pthread_sigmask(SIG_BLOCK, &fatal, &old); /* inherited: the thread never takes them */
    int started = pthread_create(&d->sigjob.thread, NULL, sig_thread, &d->sigjob) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (started)
        d->sigjob.running = 1;
    else
        sig_thread(&d->sigjob);
}

/* Waits for the parse; the signatures stay in d->sigjob.sigs until sig_free. */
static void sig_wait(Driver *d)
{
    if (d->sigjob.running)
        pthread_join(d->sigjob.thread, NULL);
    d->sigjob.running = 0;
}

static void sig_free(Driver *d)
{
    sig_wait(d);
    xgpu_frontend_free(&d->sigjob.sigs);
    free(d->sigjob.args);
    d->sigjob = (SigJob){0};
}

/* A path as a JSON string (the VFS overlay is YAML, which reads JSON's double-quoted
 * strings). */
static void put_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* The whole of a regular file of at most `max` bytes, or NULL (anything else: a device,
 * a FIFO, a file too large to be a source). */
static char *read_source(const char *path, size_t max, size_t *len)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    char *t = NULL;
    if (f && !fstat(fileno(f), &st) && S_ISREG(st.st_mode) && (uint64_t)st.st_size <= max &&
        (t = malloc((size_t)st.st_size + 1))) {
        *len = fread(t, 1, (size_t)st.st_size, f);
        t[*len] = '\0';
    }
    if (f)
        fclose(f);
    return t;
}

/* nvcc reads `k << < g, b >> > (args)` as a launch and clang does not: when src has such
 * launches, the compiles of src read a rewritten copy in the temporary directory (the
 * user's file is never written) through a VFS overlay that gives the copy src's own name,
 * so that __FILE__, quoted includes, dependency lists and diagnostics (lines and columns
 * are kept) all still name src. Returns 0, or 1 after an error. */
static int prepare_source(Driver *d, const char *src)
{
    size_t n = 0;
    d->overlay = NULL;
    char *text = read_source(src, 256u << 20, &n);
    if (!text || !xgpu_fix_launches(text, n)) {
        free(text);
        return 0; /* nothing to rewrite (or not a file to read: clang says why) */
    }
    const char *copy = temp(d, src, ".launch.cu"), *yaml = temp(d, src, ".vfs.yaml");
    char cwd[PATH_MAX];
    FILE *f = fopen(copy, "wb");
    int bad = !f || fwrite(text, 1, n, f) != n;
    bad |= f && fclose(f);
    free(text);
    if (!bad && src[0] != '/' && !getcwd(cwd, sizeof cwd))
        bad = 1;
    FILE *y = bad ? NULL : fopen(yaml, "w");
    if (y) {
        fputs("{ \"version\": 0, \"use-external-names\": false, \"roots\": [ { \"type\": "
              "\"file\", \"name\": ", y);
        char *abs = src[0] == '/' ? strdup(src) : fmt("%s/%s", cwd, src);
        put_json_string(y, abs ? abs : src);
        free(abs);
        fputs(", \"external-contents\": ", y);
        put_json_string(y, copy);
        fputs(" } ] }\n", y);
    }
    if (bad || !y || fclose(y)) {
        fprintf(stderr, "xgpu-cc: error: cannot write %s: %s\n", bad ? copy : yaml,
                strerror(errno));
        return 1;
    }
    d->overlay = yaml;
    return 0;
}

/* clang's errors that mean "xgpu does not support this" get a note saying so, at the
 * place of each error. */
static const struct {
    const char *error, *note;
} hints[] = {
    {"error: reference to __global__ function",
     "dynamic parallelism (launching a kernel from device code) is not supported by xgpu"},
};

/* When loc[0..n) ends in ":DIGITS", that number in *v and the length before the colon;
 * else n. */
static size_t cut_number(const char *loc, size_t n, unsigned *v)
{
    size_t i = n;
    while (i && loc[i - 1] >= '0' && loc[i - 1] <= '9' && n - i < 9)
        i--;
    if (i == n || i == 0 || loc[i - 1] != ':')
        return n;
    *v = 0;
    for (size_t k = i; k < n; k++)
        *v = *v * 10 + (unsigned)(loc[k] - '0');
    return i - 1;
}

/* A note at the place clang printed as loc[0..n): "file:line:col", "file:line" or "file". */
static void note_at(const char *loc, size_t n, const char *note)
{
    unsigned line = 0, col = 0;
    size_t end = cut_number(loc, n, &col), start = cut_number(loc, end, &line);
    if (start == end) /* one number: the line */
        line = col, col = 0;
    char *file = strndup(loc, start);
    xdiag(NULL, XDIAG_NOTE, file ? file : "<input>", line, col, "xgpu-cc: %s", note);
    free(file);
}

static void note_hints(const Driver *d)
{
    for (const char *line = d->said; *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        for (size_t i = 0; i < sizeof hints / sizeof *hints; i++) {
            const char *at = memmem(line, n, hints[i].error, strlen(hints[i].error));
            const char *colon = at ? memmem(line, n, ": error:", 8) : NULL;
            if (colon)
                note_at(line, (size_t)(colon - line), hints[i].note);
        }
        line += n + (end != NULL);
    }
}

static int compile_device(Driver *d, const char *src, const char *bc)
{
    Argv c = {0};
    cuda_common(d, &c);
    push(&c, "--cuda-device-only");
    push(&c, "-emit-llvm");
    push(&c, "-c");
    push(&c, src);
    push(&c, "-o");
    push(&c, bc);
    sig_start(d, src);
    int rc = run(d, &c);
    if (rc) { /* no lowering follows */
        note_hints(d);
        sig_free(d);
    }
    return rc;
}

static int lower(Driver *d, const char *src_name, const char *ir, const char *fat, FILE *asm_out)
{
    sig_wait(d); /* a .cu's front end, started with its device compile */
    if (d->sigjob.sigs.errors) {
        fputs(d->sigjob.sigs.errors, stderr);
        sig_free(d);
        return 1;
    }
    XgpuLowerOptions o = {0};
    o.signatures = d->sigjob.sigs.v;
    o.nsignatures = d->sigjob.sigs.n;
    o.opt_level = d->opt;
    o.max_regs = d->max_regs ? d->max_regs : 255;
    if (d->regs) { /* --regs=N: a limit of N (or --max-regs if lower) and a floor of N */
        o.max_regs = d->max_regs && d->max_regs < d->regs ? d->max_regs : d->regs;
        o.min_regs = o.max_regs;
    }
    o.rthld = d->rthld;
    o.phase_delta = d->phase_delta;
    o.phase_gap = d->phase_gap;
    o.reuse_profile = d->reuse_profile;
    o.no_assist = d->no_assist;
    const char *dump = getenv("XGPU_DUMP"); /* as the pipeline reads it: set and not "0" */
    o.debug_dumps = dump && strcmp(dump, "0") != 0;
    o.source_name = src_name;
    if (d->verbose)
        fprintf(stderr, "xgpu-lower -O%u --max-regs=%u%s %s -o %s\n", o.opt_level, o.max_regs,
                o.no_assist ? " --no-assist" : "", ir, fat ? fat : "-");
    int rc = xgpu_lower_file(ir, &o, fat, asm_out) ? 1 : 0;
    sig_free(d);
    return rc;
}

/* "dir/name.cu" -> "name" + ext (in the working directory, as a compiler's default). */
static char *base_with(const char *path, const char *ext)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t n = dot ? (size_t)(dot - base) : strlen(base);
    return fmt("%.*s%s", (int)n, base, ext);
}

/* -MD and friends for the host compile of src whose object is obj: the dependency file
 * and its target are named after the object the user sees (NAME.o beside -o with -c),
 * not after the driver's temporary files. */
static void push_depflags(Driver *d, Argv *c, const char *src, const char *obj)
{
    if (!d->depflags.n)
        return;
    pushall(c, &d->depflags);
    const char *target = d->compile_only ? obj : base_with(src, ".o");
    int writes = 0;
    for (int i = 0; i < d->depflags.n; i++)
        writes |= !strcmp(d->depflags.v[i], "-MD") || !strcmp(d->depflags.v[i], "-MMD");
    if (writes && !d->dep_file) {
        push(c, "-MF");
        push(c, base_with(target, ".d"));
    }
    if (!d->dep_target) {
        push(c, "-MT");
        push(c, target);
    }
}

static int compile_host_cuda(Driver *d, const char *src, const char *fat, const char *bc,
                             const char *obj)
{
    Argv c = {0};
    cuda_common(d, &c);
    push(&c, "--cuda-host-only");
    push(&c, "-Xclang");
    push(&c, "-fcuda-include-gpubinary");
    push(&c, "-Xclang");
    push(&c, fat);
    push(&c, "-emit-llvm");
    push(&c, "-Xclang");
    push(&c, "-disable-llvm-passes");
    pushall(&c, &d->hostflags);
    push_depflags(d, &c, src, obj);
    push(&c, "-c");
    push(&c, src);
    push(&c, "-o");
    push(&c, bc);
    return run(d, &c);
}

/* The start of a host compile of a C or C++ source. */
static void host_c_common(Driver *d, Argv *c, const Input *in)
{
    push_clang(d, c);
    push(c, in->kind == IN_CXX ? "-xc++" : "-xc");
    push(c, "-I");
    push(c, fmt("%s/xgpu/cuda", d->incdir));
    push(c, "-I");
    push(c, d->incdir);
    push(c, fmt("-O%u", d->opt));
    pushall(c, &d->cflags);
    pushall(c, &d->hostflags);
}

static int compile_host_c(Driver *d, const Input *in, const char *bc, const char *obj)
{
    Argv c = {0};
    host_c_common(d, &c, in);
    push(&c, "-emit-llvm");
    push(&c, "-Xclang");
    push(&c, "-disable-llvm-passes");
    push_depflags(d, &c, in->path, obj);
    push(&c, "-c");
    push(&c, in->path);
    push(&c, "-o");
    push(&c, bc);
    return run(d, &c);
}

/* Code-generation options of cflags that still matter for bitcode input (-f..., -m...);
 * language options (-std, -I, -D) were consumed by the front end. */
static int codegen_flag(const char *a)
{
    return (a[0] == '-' && (a[1] == 'f' || a[1] == 'm')) || !strncmp(a, "-g", 2);
}

/* The host pass (passes/host.c) over host bitcode, then optimization and code
 * generation, so LLVM's pipeline runs once, after the pass. */
static int host_backend(Driver *d, const char *src, const char *bc, const char *fat,
                        const char *obj)
{
    const char *done = temp(d, src, ".host2.bc");
    if (d->verbose)
        fprintf(stderr, "xgpu-host %s -o %s\n", bc, done);
    if (xgpu_host_pass_file(bc, fat, done))
        return 1;
    Argv c = {0};
    push_clang(d, &c);
    push(&c, fmt("-O%u", d->opt));
    push(&c, "-Wno-unused-command-line-argument");
    for (int i = 0; i < d->cflags.n; i++)
        if (codegen_flag(d->cflags.v[i]))
            push(&c, d->cflags.v[i]);
    for (int i = 0; i < d->hostflags.n; i++)
        if (codegen_flag(d->hostflags.v[i]))
            push(&c, d->hostflags.v[i]);
    push(&c, "-c");
    push(&c, done);
    push(&c, "-o");
    push(&c, obj);
    return run(d, &c);
}

/* A C or C++ source: host code only. */
static int compile_host(Driver *d, const Input *in, const char *obj)
{
    const char *bc = temp(d, in->path, ".host.bc");
    int rc = compile_host_c(d, in, bc, obj);
    return rc ? rc : host_backend(d, in->path, bc, NULL, obj);
}

static const char *object_name(Driver *d, const Input *in)
{
    if (d->compile_only && d->output && d->ninputs == 1)
        return d->output;
    if (!d->compile_only)
        return temp(d, in->path, ".o");
    return base_with(in->path, ".o");
}

/* Device-only work: lower device IR, or compile a .cu's device side, to assembly or a
 * fat binary. */
static int device_output(Driver *d, const Input *in)
{
    const char *ir = in->path;
    int rc;
    if (in->kind == IN_CUDA) {
        ir = temp(d, in->path, ".dev.bc");
        if ((rc = prepare_source(d, in->path)) || (rc = compile_device(d, in->path, ir)))
            return rc;
    }
    if (d->emit_asm) {
        FILE *out = stdout;
        if (d->output && strcmp(d->output, "-") && !(out = fopen(d->output, "w"))) {
            fprintf(stderr, "xgpu-cc: error: cannot write %s: %s\n", d->output, strerror(errno));
            return 1;
        }
        rc = lower(d, in->path, ir, NULL, out);
        if (out != stdout)
            fclose(out);
        return rc;
    }
    return lower(d, in->path, ir, d->output ? d->output : "a.gpubin", NULL);
}

static int compile_one(Driver *d, const Input *in, Argv *link)
{
    if (in->kind == IN_OBJ) {
        push(link, in->path);
        return 0;
    }
    if (in->kind == IN_DEVIR) {
        fprintf(stderr, "xgpu-cc: error: %s: device IR can only be lowered with -S or "
                        "--cuda-device-only\n", in->path);
        return 1;
    }
    const char *obj = object_name(d, in);
    int rc;
    if (in->kind == IN_CUDA) {
        const char *bc = temp(d, in->path, ".dev.bc");
        const char *fat = temp(d, in->path, ".fatbin");
        const char *hbc = temp(d, in->path, ".host.bc");
        rc = prepare_source(d, in->path);
        if (rc || (rc = compile_device(d, in->path, bc)) ||
            (rc = lower(d, in->path, bc, fat, NULL)) ||
            (rc = compile_host_cuda(d, in->path, fat, hbc, obj)) ||
            (rc = host_backend(d, in->path, hbc, fat, obj)))
            return rc;
        d->overlay = NULL;
    } else if ((rc = compile_host(d, in, obj)))
        return rc;
    push(link, obj);
    return 0;
}

/* OpenMP at the link. With -fopenmp, clang links its runtime (libomp). Without it, a
 * program that includes <omp.h> and calls omp_* functions still links, as nvcc's users
 * expect: libomp is linked as needed (only when something calls into it), when clang
 * finds one. */
static void push_openmp(Driver *d, Argv *c)
{
    if (d->openmp) {
        push(c, "-fopenmp");
        return;
    }
    char *argv[] = {(char *)d->clang, "-print-file-name=libomp.so", NULL}, *out = NULL;
    size_t n = 0;
    if (xgpu_frontend_capture(argv, &out, &n) == 0 && out && out[0] == '/') {
        out[strcspn(out, "\n")] = '\0';
        if (access(out, R_OK) == 0) {
            push(c, "-Wl,--push-state,--as-needed");
            push(c, out);
            push(c, "-Wl,--pop-state");
            return; /* out stays with the command */
        }
    }
    free(out);
}

static int link_all(Driver *d, Argv *objs)
{
    Argv c = {0};
    push_clang(d, &c);
    pushall(&c, objs);
    push(&c, "-o");
    push(&c, d->output ? d->output : "a.out");
    pushall(&c, &d->ldflags);
    push(&c, "-L");
    push(&c, d->libdir);
    push(&c, fmt("-Wl,-rpath,%s", d->libdir));
    push(&c, "-lxgpurt");
#ifdef XGPU_SANITIZE_LINK
    push(&c, XGPU_SANITIZE_LINK);
#endif
    push(&c, "-lstdc++");
    push(&c, "-lm");
    push_openmp(d, &c);
    return run(d, &c);
}

/* Finds headers and libraries: XGPU_HOME (an install prefix) wins over the build tree
 * the driver was built in. A prefix without xgpu's headers is an error here, not clang's
 * "undeclared identifier 'blockIdx'" later. */
static int locate(Driver *d)
{
    const char *home = getenv("XGPU_HOME");
    if (home && *home) {
        snprintf(d->incdir, sizeof d->incdir, "%s/include", home);
        snprintf(d->libdir, sizeof d->libdir, "%s/lib", home);
        char *probe = fmt("%s/xgpu/cuda/cuda_runtime.h", d->incdir);
        int missing = access(probe, R_OK) != 0;
        if (missing)
            fprintf(stderr, "xgpu-cc: error: XGPU_HOME=%s: xgpu's headers are not found under "
                    "it (no %s: %s); XGPU_HOME must name an xgpu install prefix with include/ "
                    "and lib/, or be unset to use the build tree\n", home, probe,
                    strerror(errno));
        free(probe);
        if (missing)
            return -1;
    } else {
        snprintf(d->incdir, sizeof d->incdir, "%s", XGPU_INCLUDE_DIR);
        snprintf(d->libdir, sizeof d->libdir, "%s", XGPU_LIB_DIR);
    }
    const char *clang = getenv("XGPU_CLANG");
    d->clang = clang && *clang ? clang : XGPU_CLANG;
    return 0;
}

static void remove_temps(Driver *d)
{
    if (d->keep_temps) {
        if (d->verbose)
            fprintf(stderr, "xgpu-cc: kept intermediate files in %s\n", d->tmpdir);
        return;
    }
    DIR *dir = opendir(d->tmpdir);
    if (dir) {
        struct dirent *e;
        while ((e = readdir(dir)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                char *p = fmt("%s/%s", d->tmpdir, e->d_name);
                unlink(p);
                free(p);
            }
        closedir(dir);
    }
    if (rmdir(d->tmpdir))
        fprintf(stderr, "xgpu-cc: warning: cannot remove %s: %s\n", d->tmpdir, strerror(errno));
}

/* -E, -M, -MM: clang's preprocessor on one source (the host side of a .cu, as nvcc's -E
 * shows it), to -o or stdout. */
static int preprocess(Driver *d, const Input *in)
{
    if (in->kind != IN_CUDA && in->kind != IN_C && in->kind != IN_CXX) {
        fprintf(stderr, "xgpu-cc: error: %s: -E, -M and -MM need a .cu, C or C++ source\n",
                in->path);
        return 1;
    }
    Argv c = {0};
    if (in->kind == IN_CUDA) {
        cuda_common(d, &c);
        push(&c, "--cuda-host-only");
        pushall(&c, &d->hostflags);
    } else
        host_c_common(d, &c, in);
    pushall(&c, &d->ppflags);
    pushall(&c, &d->depflags);
    push(&c, in->path);
    if (d->output) {
        push(&c, "-o");
        push(&c, d->output);
    }
    return run(d, &c);
}

/* gcc's rule: an output that is one of the inputs would destroy it. */
static int output_is_input(const Driver *d)
{
    const char *out = d->output ? d->output : d->compile_only ? NULL : "a.out";
    struct stat so, si;
    if (!out || !strcmp(out, "-") || stat(out, &so))
        return 0;
    for (int i = 0; i < d->ninputs; i++)
        if (!stat(d->inputs[i].path, &si) && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
            fprintf(stderr, "xgpu-cc: error: input file '%s' is the same as output file '%s'\n",
                    d->inputs[i].path, out);
            return 1;
        }
    return 0;
}

int main(int argc, char **argv)
{
    static Driver d;
    d.opt = 2;
    if (parse_args(&d, argc, argv) || output_is_input(&d) || locate(&d))
        return 1;
    const char *tmp = getenv("TMPDIR");
    snprintf(d.tmpdir, sizeof d.tmpdir, "%s/xgpu-cc-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(d.tmpdir)) {
        fprintf(stderr, "xgpu-cc: error: cannot create a temporary directory: %s\n",
                strerror(errno));
        return 1;
    }
    if (!d.keep_temps)
        catch_fatal_signals(d.tmpdir);
    int rc = 0;
    if (d.preprocess) {
        if (d.ninputs != 1 && d.output) {
            fprintf(stderr, "xgpu-cc: error: cannot specify -o with -E/-M and several inputs\n");
            rc = 1;
        }
        for (int i = 0; i < d.ninputs && !rc; i++)
            rc = preprocess(&d, &d.inputs[i]);
    } else if (d.emit_asm || d.device_only) {
        if (d.ninputs != 1) {
            fprintf(stderr, "xgpu-cc: error: -S and --cuda-device-only take one input\n");
            rc = 1;
        } else if (d.inputs[0].kind != IN_CUDA && d.inputs[0].kind != IN_DEVIR) {
            fprintf(stderr, "xgpu-cc: error: %s: -S and --cuda-device-only need a .cu, .ll or "
                            ".bc input\n", d.inputs[0].path);
            rc = 1;
        } else
            rc = device_output(&d, &d.inputs[0]);
    } else {
        if (d.compile_only && d.output && d.ninputs > 1) {
            fprintf(stderr, "xgpu-cc: error: cannot specify -o with -c and several inputs\n");
            rc = 1;
        }
        Argv objs = {0};
        for (int i = 0; i < d.ninputs && !rc; i++)
            rc = compile_one(&d, &d.inputs[i], &objs);
        if (!rc && !d.compile_only)
            rc = link_all(&d, &objs);
    }
    sig_free(&d); /* a front end no lowering waited for (device_output's early exits) */
    remove_temps(&d);
    return rc;
}
