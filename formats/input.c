/* Input for the readers (see input.h): loading a file into one buffer,
 * reading it through a bounded window (psi_stream, for the dbcop reader),
 * and reading the first bytes of a file to guess its format. The messages
 * name the path; the caller adds nothing. */
#include "formats/input.h"

#include "core/vec.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One read(2) of at most n bytes into buf, retried when a signal
 * interrupts it; *got is 0 at the end of the file. */
static psi_status read_some(int fd, const char *path, void *buf, size_t n, size_t *got, psi_diag *d)
{
    for (;;) {
        ssize_t k = read(fd, buf, n);
        if (k >= 0) {
            *got = (size_t)k;
            return PSI_OK;
        }
        if (errno != EINTR)
            return psi_diag_file(d, PSI_ERR_IO, path, "cannot read: %s", strerror(errno));
    }
}

psi_status psi_stream_open(const char *path, size_t window, psi_stream *s, psi_diag *d)
{
    assert(window >= 4096);
    memset(s, 0, sizeof *s);
    s->fd = -1;
    s->size = PSI_STREAM_SIZE_UNKNOWN;
    /* Standard input is read like a pipe and left open (not ours). */
    bool is_stdin = strcmp(path, "-") == 0;
    s->name = is_stdin ? PSI_STDIN_NAME : path;
    int fd = is_stdin ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return psi_diag_file(d, PSI_ERR_IO, s->name, "cannot open: %s", strerror(errno));
    s->fd = fd;
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        return psi_diag_file(d, PSI_ERR_IO, s->name, "cannot stat: %s", strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return psi_diag_file(d, PSI_ERR_IO, s->name, "cannot read: %s", strerror(EISDIR));
    /* A regular file's size is a promise only when it is not 0: /proc
     * files say 0 and have content. It is corrected at the end of the
     * input (psi_stream_fill_slow). */
    if (S_ISREG(sb.st_mode) && sb.st_size > 0)
        s->size = (uint64_t)sb.st_size;
    if (!(s->own_win = malloc(window)))
        return psi_diag_nomem(d, "reading the input file");
    s->win = s->own_win;
    s->cap = window;
    return PSI_OK;
}

void psi_stream_mem(psi_stream *s, const char *name, const void *buf, size_t len)
{
    /* cap: the window is the whole input, as much as a fill may ask. */
    *s = (psi_stream){
        .name = name, .win = buf, .cap = len, .end = len, .size = len, .fd = -1, .eof = true};
}

void psi_stream_close(psi_stream *s)
{
    if (s->fd >= 0)
        close(s->fd);
    free(s->own_win);
    s->own_win = NULL;
    s->win = NULL;
    s->start = s->end = 0;
    s->fd = -1;
}

/* The end of the input was seen: its length is now known exactly (a file
 * may have been shorter or longer than fstat said). */
static void at_end(psi_stream *s)
{
    s->eof = true;
    s->size = s->base + s->end;
}

psi_status psi_stream_fill_slow(psi_stream *s, size_t n, psi_diag *d)
{
    if (s->eof || s->fd < 0)
        return PSI_OK;
    assert(s->own_win && n <= s->cap);
    /* Move the unread bytes to the front: they are fewer than n, so at
     * most a few bytes for the readers' small items. */
    size_t have = psi_stream_avail(s);
    memmove(s->own_win, s->own_win + s->start, have);
    s->base += s->start;
    s->start = 0;
    s->end = have;
    while (s->end < n) {
        size_t got = 0;
        psi_status st = read_some(s->fd, s->name, s->own_win + s->end, s->cap - s->end, &got, d);
        if (st != PSI_OK)
            return st;
        if (got == 0) {
            at_end(s);
            return PSI_OK;
        }
        s->end += got;
    }
    if (s->size != PSI_STREAM_SIZE_UNKNOWN && s->base + s->end > s->size)
        s->size = PSI_STREAM_SIZE_UNKNOWN; /* it grew: known again at the end */
    return PSI_OK;
}

psi_status psi_stream_slurp(psi_stream *s, char **buf, size_t *len, psi_diag *d)
{
    *buf = NULL;
    *len = 0;
    size_t have = psi_stream_avail(s);
    /* Regular files are read in one go into a buffer of their exact size;
     * pipes and devices grow the buffer as data arrives. */
    uint64_t off = psi_stream_offset(s);
    if (s->size != PSI_STREAM_SIZE_UNKNOWN && s->size - off >= SIZE_MAX / 2)
        return psi_diag_file(d, PSI_ERR_LIMIT, s->name, "file too large to load");
    size_t cap = s->size != PSI_STREAM_SIZE_UNKNOWN ? (size_t)(s->size - off) + 1 : 65536;
    if (cap < have + 1)
        cap = have + 1;
    char *p = malloc(cap);
    if (!p)
        return psi_diag_nomem(d, "loading the input file");
    psi_hint_huge(p, cap);
    memcpy(p, s->win + s->start, have);
    s->start = s->end;
    psi_status st = PSI_OK;
    size_t n = have, got = 0;
    for (int fd = s->eof ? -1 : s->fd; fd >= 0;) {
        if (n + 1 >= cap) {
            /* Full: probe for EOF before growing, so a regular file read in
             * one go is never copied into a doubled buffer. */
            char probe;
            if ((st = read_some(fd, s->name, &probe, 1, &got, d)) != PSI_OK || got == 0)
                break;
            if (cap > SIZE_MAX / 2) {
                st = psi_diag_file(d, PSI_ERR_LIMIT, s->name, "file too large to load");
                break;
            }
            char *q = realloc(p, cap * 2);
            if (!q) {
                st = psi_diag_nomem(d, "loading the input file");
                break;
            }
            p = q;
            cap *= 2;
            psi_hint_huge(p, cap);
            p[n++] = probe;
            continue;
        }
        if ((st = read_some(fd, s->name, p + n, cap - 1 - n, &got, d)) != PSI_OK || got == 0)
            break;
        n += got;
    }
    if (st != PSI_OK) {
        free(p);
        return st;
    }
    s->base = off + n;
    s->start = s->end = 0;
    s->eof = true;
    s->size = s->base;
    p[n] = '\0';
    *buf = p;
    *len = n;
    return PSI_OK;
}

psi_status psi_read_file(const char *path, char **buf, size_t *len, psi_diag *d)
{
    *buf = NULL;
    *len = 0;
    psi_stream s;
    psi_status st = psi_stream_open(path, 4096, &s, d);
    if (st == PSI_OK)
        st = psi_stream_slurp(&s, buf, len, d);
    psi_stream_close(&s);
    return st;
}

psi_status psi_read_head(const char *path, unsigned char *buf, size_t cap, size_t *n, psi_diag *d)
{
    *n = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return psi_diag_file(d, PSI_ERR_IO, path, "cannot open: %s", strerror(errno));
    psi_status st = PSI_OK;
    while (*n < cap) {
        size_t got = 0;
        if ((st = read_some(fd, path, buf + *n, cap - *n, &got, d)) != PSI_OK || got == 0)
            break;
        *n += got;
    }
    close(fd);
    return st;
}

bool psi_input_txn_ref(const char **p, const char *end, uint64_t *sid, uint64_t *tid)
{
    const char *q = *p;
    if (q >= end || *q != '(')
        return false;
    q++;
    if (!psi_input_field_u64(&q, end, sid) || q >= end || *q != ',')
        return false;
    q++;
    if (!psi_input_field_u64(&q, end, tid) || q >= end || *q != ')')
        return false;
    q++;
    if (q < end && !psi_input_blank(*q))
        return false;
    *p = q;
    return true;
}
