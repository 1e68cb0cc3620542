/* Whole-file input for the readers (see input.h): loading a file into one
 * buffer, and reading the first bytes of a file to guess its format. The
 * messages name the path; the caller adds nothing. */
#include "formats/input.h"

#include "core/vec.h"

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

psi_status psi_read_file(const char *path, char **buf, size_t *len, psi_diag *d)
{
    *buf = NULL;
    *len = 0;
    /* Standard input is read like a pipe and left open (not ours). */
    bool is_stdin = strcmp(path, "-") == 0;
    if (is_stdin)
        path = PSI_STDIN_NAME;
    int fd = is_stdin ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return psi_diag_file(d, PSI_ERR_IO, path, "cannot open: %s", strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return psi_diag_file(d, PSI_ERR_IO, path, "cannot stat: %s", strerror(e));
    }
    if (S_ISDIR(sb.st_mode)) {
        close(fd);
        return psi_diag_file(d, PSI_ERR_IO, path, "cannot read: %s", strerror(EISDIR));
    }
    /* Regular files are read in one go into a buffer of their exact size;
     * pipes and devices grow the buffer as data arrives. */
    if (S_ISREG(sb.st_mode) && (uint64_t)sb.st_size >= SIZE_MAX / 2) {
        close(fd);
        return psi_diag_file(d, PSI_ERR_LIMIT, path, "file too large to load");
    }
    size_t cap = S_ISREG(sb.st_mode) ? (size_t)sb.st_size + 1 : 65536;
    char *p = malloc(cap);
    if (!p) {
        close(fd);
        return psi_diag_nomem(d, "loading the input file");
    }
    psi_hint_huge(p, cap);
    psi_status st = PSI_OK;
    size_t n = 0, got = 0;
    for (;;) {
        if (n + 1 >= cap) {
            /* Full: probe for EOF before growing, so a regular file read in
             * one go is never copied into a doubled buffer. */
            char probe;
            if ((st = read_some(fd, path, &probe, 1, &got, d)) != PSI_OK || got == 0)
                break;
            if (cap > SIZE_MAX / 2) {
                st = psi_diag_file(d, PSI_ERR_LIMIT, path, "file too large to load");
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
        if ((st = read_some(fd, path, p + n, cap - 1 - n, &got, d)) != PSI_OK || got == 0)
            break;
        n += got;
    }
    close(fd);
    if (st != PSI_OK) {
        free(p);
        return st;
    }
    p[n] = '\0';
    *buf = p;
    *len = n;
    return PSI_OK;
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
