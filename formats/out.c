/* The output file every writer shares (see output.h, psi_out): a temporary
 * file beside the target, renamed over it only when all writes succeeded. */
#include "formats/output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct psi_out {
    int fd;
    bool in_place; /* writing straight to path (stdout, device, FIFO) */
    int err;       /* first errno of a failed write, 0 if none */
    char *path;
    char *tmp; /* temporary file renamed over path on commit */
};

psi_out *psi_out_open(const char *path, psi_diag *d)
{
    psi_out *o = calloc(1, sizeof *o);
    if (!o || !(o->path = strdup(path))) {
        free(o);
        psi_diag_nomem(d, "opening the output");
        return NULL;
    }
    struct stat sb;
    if (strcmp(path, "-") == 0) {
        o->fd = STDOUT_FILENO;
        o->in_place = true;
        return o;
    }
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        if (S_ISDIR(sb.st_mode)) {
            psi_diag_file(d, PSI_ERR_IO, path, "cannot write: %s", strerror(EISDIR));
            goto fail;
        }
        o->fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
        if (o->fd < 0) {
            psi_diag_file(d, PSI_ERR_IO, path, "cannot open for writing: %s", strerror(errno));
            goto fail;
        }
        o->in_place = true;
        return o;
    }
    /* The temporary name is path.tmp<pid>.<n>; created with O_EXCL and mode
     * 0666 so the umask applies as for any new file (mkstemp would make it
     * 0600, and fixing that needs umask(), which is not thread-safe). */
    size_t n = strlen(path) + 48;
    o->tmp = malloc(n);
    if (!o->tmp) {
        psi_diag_nomem(d, "opening the output");
        goto fail;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long salt = (unsigned long)ts.tv_nsec ^ ((unsigned long)ts.tv_sec << 20);
    o->fd = -1;
    for (unsigned attempt = 0; attempt < 64 && o->fd < 0; attempt++) {
        snprintf(o->tmp, n, "%s.tmp%ld.%lx", path, (long)getpid(),
                 (salt + attempt * 0x9e3779b9ul) & 0xffffffful);
        o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (o->fd < 0 && errno != EEXIST)
            break;
    }
    if (o->fd < 0) {
        psi_diag_file(d, PSI_ERR_IO, path, "cannot create a temporary file beside it: %s",
                      strerror(errno));
        goto fail;
    }
    return o;
fail:
    free(o->tmp);
    free(o->path);
    free(o);
    return NULL;
}

void psi_out_write(psi_out *o, const void *bytes, size_t n)
{
    const char *p = bytes;
    while (n && !o->err) {
        ssize_t k = write(o->fd, p, n);
        if (k < 0) {
            if (errno != EINTR)
                o->err = errno;
            continue;
        }
        p += k;
        n -= (size_t)k;
    }
}

psi_status psi_out_close(psi_out *o, bool commit, psi_diag *d)
{
    psi_status st = PSI_OK;
    if (!o)
        return PSI_OK;
    if (commit && !o->err && !o->in_place && fsync(o->fd) != 0)
        o->err = errno;
    if (o->fd != STDOUT_FILENO && close(o->fd) != 0 && !o->err)
        o->err = errno;
    if (commit && o->err)
        st = psi_diag_file(d, PSI_ERR_IO, o->path, "write failed: %s", strerror(o->err));
    if (o->tmp) {
        if (commit && st == PSI_OK && rename(o->tmp, o->path) != 0)
            st = psi_diag_file(d, PSI_ERR_IO, o->path, "cannot replace it with %s: %s", o->tmp,
                               strerror(errno));
        if (!commit || st != PSI_OK)
            (void)unlink(o->tmp);
    }
    free(o->tmp);
    free(o->path);
    free(o);
    return st;
}

void psi_out_comment(psi_out *o, const char *prefix, const char *text)
{
    if (!text || !*text)
        return;
    psi_out_write(o, prefix, strlen(prefix));
    for (const char *p = text; *p; p++) {
        char c = *p == '\n' || *p == '\r' ? ' ' : *p;
        psi_out_write(o, &c, 1);
    }
    psi_out_write(o, "\n", 1);
}
