/*
 * stream.c - the statistics stream (emu_stats_stream, XGPU_STATS): the document is
 * written as the program runs, one launch record as each launch finishes, so the memory
 * it costs does not grow with the number of launches, and the totals are written when
 * the stream ends (emu_stats_stream_end, or emu_destroy).
 *
 * The document goes to PATH.PID.part in PATH's directory (created, never an existing
 * file) and is renamed to PATH once complete: PATH is always a whole JSON document, the
 * last complete one, never half a document. A path that exists and is not a regular
 * file (a terminal, a pipe, /dev/stdout) is written directly. A failure to write stops
 * the writing, and emu_stats_stream_end reports it (with errno's text); the launches go
 * on. Writing allocates nothing: the FILE's buffer is the stream's own, the document is
 * written value by value (jsonw.h), and the sums grow only with distinct names.
 *
 * A launch is held until its figures are complete: a functional launch is written when
 * it is recorded, a timing launch when the timing model adds its counters (tm_record);
 * one still held when the next is recorded, or when the stream ends, is written then.
 * After a fork the child leaves the file alone: only the process that opened it writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "stats/log.h"
#include "stats/stats_int.h"

/* Writes the held launch (if any) and adds it to the sums. */
static void stream_write(EmuDevice *d, EmuStatsStream *s)
{
    if (!s->held)
        return;
    s->held = 0;
    const TmReport *rep = &s->rep;
    EmuLaunchRec r = {&s->st, s->has_ctr ? &s->ctr : NULL,
                      rep->n || rep->unit || rep->gpu ? rep : NULL, s->iv, s->niv};
    if (s->f && getpid() == s->pid) {
        emu_doc_launch(&s->w, d, &r);
        jw_flush(&s->w);
    }
    emu_acc_add(&s->acc, &r);
    tm_report_free(&s->rep);
    free(s->iv);
    s->iv = NULL;
    s->niv = 0;
}

void emu_stream_launch(EmuDevice *d, EmuStatsStream *s, const EmuLaunchStats *st)
{
    stream_write(d, s);
    s->st = *st;
    s->index = d->nlaunches++;
    s->have = s->held = 1;
    s->has_ctr = 0;
    s->iv = emu_series_take(d, &s->niv);
    if (d->cfg.emu_mode != EMU_MODE_TIMING)
        stream_write(d, s);
}

void emu_stream_timing(EmuDevice *d, EmuStatsStream *s, size_t i, const TmCounters *ctr,
                       TmReport *rep)
{
    if (!s->held || i != s->index)
        return;
    s->ctr = *ctr;
    s->has_ctr = 1;
    if (rep) { /* taken over */
        s->rep = *rep;
        *rep = (TmReport){0};
    }
    stream_write(d, s);
}

/* Opens the file the document is written to: path itself when it exists and is not a
 * regular file, else a new PATH.PID.part beside it (s->tmp). NULL with errno set. */
static FILE *stream_open(EmuStatsStream *s, const char *path)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        errno = EISDIR;
        return NULL;
    }
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return fopen(path, "w");
    size_t n = strlen(path) + 40;
    if (!(s->tmp = malloc(n)))
        return NULL;
    int fd = -1;
    for (int k = 0; fd < 0 && k < 100; k++) {
        if (k)
            snprintf(s->tmp, n, "%s.%ld-%d.part", path, (long)getpid(), k);
        else
            snprintf(s->tmp, n, "%s.%ld.part", path, (long)getpid());
        fd = open(s->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (fd >= 0 && !f) {
        int e = errno;
        close(fd);
        unlink(s->tmp);
        errno = e;
    }
    if (!f) {
        free(s->tmp);
        s->tmp = NULL;
    }
    return f;
}

void emu_stream_free(EmuStatsStream *s)
{
    if (!s)
        return;
    tm_report_free(&s->rep);
    free(s->iv);
    emu_acc_free(&s->acc);
    free(s->path);
    free(s->tmp);
    free(s);
}

EmuStatus emu_stats_stream(EmuDevice *d, const char *path, char *err, size_t errlen)
{
    char dummy[8];
    if (!err)
        err = dummy, errlen = sizeof dummy;
    if (!d || !path || !*path || emu_log_stream(d)) {
        snprintf(err, errlen, "%s", !d || !path || !*path ? "no device or no path"
                                                          : "the statistics already stream");
        return EMU_ERR_INVALID_VALUE;
    }
    EmuStatsStream *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path)) || emu_log_set_stream(d, NULL)) {
        emu_stream_free(s);
        snprintf(err, errlen, "out of host memory");
        return EMU_ERR_OUT_OF_MEMORY;
    }
    errno = 0;
    if (!(s->f = stream_open(s, path))) {
        snprintf(err, errlen, "%s", strerror(errno ? errno : EIO));
        emu_stream_free(s);
        return EMU_ERR_INVALID_VALUE;
    }
    setvbuf(s->f, s->buf, _IOFBF, sizeof s->buf);
    s->pid = getpid();
    s->acc.per_kernel = d->cfg.emu_summary;
    jw_init(&s->w, s->f);
    emu_doc_head(&s->w, d);
    for (size_t i = 0; i < d->nlaunches; i++) { /* launches the log has already */
        EmuLaunchRec r;
        emu_stats_rec(d, i, &r);
        emu_doc_launch(&s->w, d, &r);
        emu_acc_add(&s->acc, &r);
    }
    jw_flush(&s->w);
    emu_log_set_stream(d, s);
    return EMU_OK;
}

/* Closes the file and puts it in place; errno's value of the first failure, or 0. */
static int stream_close(EmuDevice *d, EmuStatsStream *s)
{
    emu_doc_tail(&s->w, d, &s->acc);
    int e = jw_finish(&s->w);
    errno = 0;
    if (fclose(s->f) != 0 && !e)
        e = errno ? errno : EIO;
    s->f = NULL;
    if (s->tmp && !e && rename(s->tmp, s->path) != 0)
        e = errno ? errno : EIO;
    if (s->tmp && e)
        unlink(s->tmp);
    return e;
}

EmuStatus emu_stats_stream_end(EmuDevice *d, char *err, size_t errlen)
{
    EmuStatsStream *s = emu_log_stream(d);
    if (!s || !s->f)
        return EMU_OK;
    stream_write(d, s);
    if (getpid() != s->pid) { /* a fork's child: the file is its parent's */
        fclose(s->f);
        s->f = NULL;
        return EMU_OK;
    }
    int e = stream_close(d, s);
    if (!e && !s->acc.oom)
        return EMU_OK;
    if (err && errlen)
        snprintf(err, errlen, "%s", e ? strerror(e)
                                      : "out of host memory while summing the launches "
                                        "(the totals may lack observer figures)");
    return e ? EMU_ERR_INVALID_VALUE : EMU_ERR_OUT_OF_MEMORY;
}
