/* check's output files, opened before the check (see outfile.h). */
#include "cli/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

psi_status psi_outfile_open(psi_outfile *o, const char *path, psi_diag *d)
{
    *o = (psi_outfile){.path = path};
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        return PSI_OK;
    }
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        if (S_ISDIR(sb.st_mode))
            return psi_diag_file(d, PSI_ERR_IO, path, "cannot write: %s", strerror(EISDIR));
        if (!(o->f = fopen(path, "w")))
            return psi_diag_file(d, PSI_ERR_IO, path, "cannot open for writing: %s",
                                 strerror(errno));
        return PSI_OK;
    }
    /* path.tmp<pid>.<n>, created with O_EXCL and mode 0666 so the umask
     * applies as for any new file; its creation proves the directory is
     * writable before any work is done. */
    size_t n = strlen(path) + 48;
    if (!(o->tmp = malloc(n)))
        return psi_diag_nomem(d, "opening an output file");
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long salt = (unsigned long)ts.tv_nsec ^ ((unsigned long)ts.tv_sec << 20);
    int fd = -1;
    for (unsigned attempt = 0; attempt < 64 && fd < 0; attempt++) {
        snprintf(o->tmp, n, "%s.tmp%ld.%lx", path, (long)getpid(),
                 (salt + attempt * 0x9e3779b9ul) & 0xffffffful);
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        int e = errno;
        free(o->tmp);
        o->tmp = NULL;
        return psi_diag_file(d, PSI_ERR_IO, path, "cannot write beside it: %s", strerror(e));
    }
    if (!(o->f = fdopen(fd, "w"))) {
        close(fd);
        unlink(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
        return psi_diag_nomem(d, "opening an output file");
    }
    return PSI_OK;
}

psi_status psi_outfile_commit(psi_outfile *o, psi_diag *d)
{
    psi_status st = PSI_OK;
    if (!o->f)
        return PSI_OK;
    int e = 0;
    if (fflush(o->f) != 0 || ferror(o->f))
        e = errno ? errno : EIO;
    if (o->f != stdout) {
        if (!e && o->tmp && fsync(fileno(o->f)) != 0)
            e = errno;
        if (fclose(o->f) != 0 && !e)
            e = errno;
    }
    o->f = NULL;
    if (e)
        st = psi_diag_file(d, PSI_ERR_IO, o->path, "write failed: %s", strerror(e));
    if (o->tmp) {
        if (st == PSI_OK && rename(o->tmp, o->path) != 0)
            st = psi_diag_file(d, PSI_ERR_IO, o->path, "cannot replace it: %s", strerror(errno));
        if (st != PSI_OK)
            (void)unlink(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
    }
    return st;
}

void psi_outfile_discard(psi_outfile *o, bool remove_old, bool *removed)
{
    if (removed)
        *removed = false;
    if (o->f && o->f != stdout)
        fclose(o->f);
    o->f = NULL;
    if (o->tmp) {
        (void)unlink(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
        /* Only regular files (or none) get a temporary: never remove a
         * device or FIFO. */
        struct stat sb;
        if (remove_old && stat(o->path, &sb) == 0 && S_ISREG(sb.st_mode) && unlink(o->path) == 0 &&
            removed)
            *removed = true;
    }
}
