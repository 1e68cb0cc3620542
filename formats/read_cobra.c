/* Reader of Cobra logs (formats.md §3): a directory holding one file per
 * session, T<n>.log for session n (other files, such as *.debug and *.error,
 * are ignored). Each log is a stream of records, big-endian 64-bit fields
 * after a one-byte ASCII tag:
 *
 *     'S' txn_id                          transaction start
 *     'W' write_id key value              write
 *     'R' writer_txn_id write_id key value read, naming the write it saw
 *     'C' txn_id                          commit
 *
 * Model mapping: session id n from the file name, transaction ids as in the
 * log (they must be unique across all logs); txn.src is the byte offset of
 * the transaction's S record in its own log. op.value is the write_id for
 * writes and reads alike: write ids are unique in the history, so the
 * write-read relation comes from ids, and the logged value (a hash) is not
 * needed. A read whose writer txn id or write id is 0xbebeebee (initial
 * value) or 0xdeadbeef (missing key) reads the initial transaction
 * (PSI_OPF_INIT). A write whose id is 0 or one of those markers is refused.
 *
 * A transaction that starts (S) but has no C before the next S or the end
 * of its log gets PSI_TXN_UNKNOWN: the client stopped watching it, so it may
 * or may not have committed. A later validation pass promotes it to
 * committed only if a committed read observes its write. Any other record
 * outside a transaction (W/R/C before the first S or after a C, or a C whose
 * txn id is not the open transaction's) is an error with its byte offset.
 * Logs without any transaction are refused as an empty history. */
#include "formats/read.h"

#include "formats/input.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COBRA_INIT_MARK    0xbebeebeeull
#define COBRA_MISSING_MARK 0xdeadbeefull

static uint64_t be64(const unsigned char *p)
{
    return (uint64_t)p[0] << 56 | (uint64_t)p[1] << 48 | (uint64_t)p[2] << 40 |
           (uint64_t)p[3] << 32 | (uint64_t)p[4] << 24 | (uint64_t)p[5] << 16 |
           (uint64_t)p[6] << 8 | (uint64_t)p[7];
}

static bool is_init_mark(uint64_t x)
{
    return x == COBRA_INIT_MARK || x == COBRA_MISSING_MARK;
}

/* Re-locates a builder diagnostic (which names only the source) at file:offset. */
static psi_status locate(psi_status st, const char *file, size_t off, psi_diag *d)
{
    if (st == PSI_OK || st == PSI_ERR_NOMEM || !d)
        return st;
    char msg[PSI_DIAG_MAX];
    memcpy(msg, d->msg, sizeof msg);
    msg[sizeof msg - 1] = '\0';
    return psi_diag_offset(d, st, file, off, "%s", msg);
}

/* Where a transaction id was found to repeat (set when parse_log fails on it). */
typedef struct cobra_dup {
    bool found;
    uint64_t txn;
    size_t off;
} cobra_dup;

/* Parses one session log into the builder. */
static psi_status parse_log(psi_builder *b, const char *file, const unsigned char *buf, size_t len,
                            uint64_t session, uint64_t limit, cobra_dup *dup, psi_diag *d)
{
    bool open = false;
    uint64_t open_id = 0;
    size_t open_off = 0;
    psi_status st = PSI_OK;
    size_t off = 0;
    while (off < len) {
        unsigned char tag = buf[off];
        size_t need;
        switch (tag) {
        case 'S':
        case 'C':
            need = 8;
            break;
        case 'W':
            need = 24;
            break;
        case 'R':
            need = 32;
            break;
        default:
            if (tag >= 0x21 && tag < 0x7f)
                return psi_diag_offset(d, PSI_ERR_SYNTAX, file, off,
                                       "unknown record tag '%c'; expected S, W, R or C", tag);
            return psi_diag_offset(d, PSI_ERR_SYNTAX, file, off,
                                   "unknown record tag byte 0x%02x; expected S, W, R or C", tag);
        }
        if (len - off - 1 < need)
            return psi_diag_offset(d, PSI_ERR_SYNTAX, file, off,
                                   "truncated file: %c record needs %zu bytes after its tag, "
                                   "only %zu left",
                                   tag, need, len - off - 1);
        const unsigned char *p = buf + off + 1;
        if (tag != 'S' && !open)
            return psi_diag_offset(d, PSI_ERR_SYNTAX, file, off,
                                   "%c record outside a transaction (no S record opens one)", tag);
        switch (tag) {
        case 'S':
            if (open && (st = psi_builder_end(b, PSI_TXN_UNKNOWN, d)) != PSI_OK)
                return st;
            open_id = be64(p);
            open_off = off;
            st = psi_builder_begin(b, session, open_id, off, d);
            if (st == PSI_ERR_INPUT)
                *dup = (cobra_dup){.found = true, .txn = open_id, .off = off};
            if (st != PSI_OK)
                return locate(st, file, off, d);
            open = true;
            break;
        case 'C':
            if (be64(p) != open_id)
                return psi_diag_offset(
                    d, PSI_ERR_SYNTAX, file, off,
                    "C record commits transaction %llu, but the open transaction is %llu "
                    "(S at byte %zu)",
                    (unsigned long long)be64(p), (unsigned long long)open_id, open_off);
            if ((st = psi_builder_end(b, PSI_TXN_COMMITTED, d)) != PSI_OK)
                return st;
            open = false;
            break;
        case 'W':
        case 'R': {
            if (psi_builder_n_ops(b) >= limit)
                return psi_diag_offset(d, PSI_ERR_LIMIT, file, off,
                                       "history has more than %llu operations (the limit)",
                                       (unsigned long long)limit);
            if (tag == 'W') {
                uint64_t wid = be64(p), key = be64(p + 8);
                if (wid == 0 || is_init_mark(wid))
                    return psi_diag_offset(d, PSI_ERR_INPUT, file, off + 1,
                                           "write to key %llu has write id 0x%llx, which is "
                                           "reserved for the initial value",
                                           (unsigned long long)key, (unsigned long long)wid);
                st = psi_builder_op(b, PSI_OP_WRITE, key, wid, 0, d);
            } else {
                uint64_t wtxn = be64(p), wid = be64(p + 8), key = be64(p + 16);
                bool init = is_init_mark(wtxn) || is_init_mark(wid);
                st = psi_builder_op(b, PSI_OP_READ, key, init ? 0 : wid, init ? PSI_OPF_INIT : 0u,
                                    d);
            }
            if (st != PSI_OK)
                return locate(st, file, off, d);
            break;
        }
        }
        off += 1 + need;
    }
    if (open && (st = psi_builder_end(b, PSI_TXN_UNKNOWN, d)) != PSI_OK)
        return st;
    return PSI_OK;
}

/* Session id of a log named T<n>.log (n decimal, fits in u64). */
static bool log_session(const char *base, uint64_t *session)
{
    if (base[0] != 'T')
        return false;
    const char *p = base + 1;
    return psi_input_u64(&p, p + strlen(p), session) == PSI_DIGITS_OK && strcmp(p, ".log") == 0;
}

bool psi_cobra_dir_has_logs(const char *dir)
{
    DIR *dh = opendir(dir);
    if (!dh)
        return false;
    bool found = false;
    struct dirent *e;
    uint64_t session;
    while (!found && (e = readdir(dh)) != NULL)
        found = log_session(e->d_name, &session);
    closedir(dh);
    return found;
}

psi_status psi_read_cobra_buf(const char *name, const unsigned char *buf, size_t len,
                              uint64_t max_ops, psi_history **out, psi_diag *d)
{
    *out = NULL;
    name = psi_input_name(name);
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    uint64_t session = 0;
    if (!log_session(base, &session))
        session = 0;
    psi_builder *b = psi_builder_new(name, PSI_FMT_COBRA);
    if (!b)
        return psi_diag_nomem(d, "reading the history");
    cobra_dup dup = {0};
    psi_status st = parse_log(b, name, buf, len, session, psi_input_op_limit(max_ops), &dup, d);
    if (st == PSI_OK && psi_builder_n_txns(b) == 0)
        st = psi_diag_offset(d, PSI_ERR_INPUT, name, 0,
                             "empty history: the log has no transactions");
    if (st != PSI_OK) {
        psi_builder_free(b);
        return st;
    }
    return psi_builder_finish(b, out, d);
}

typedef struct cobra_log {
    uint64_t session;
    char *name; /* base name */
} cobra_log;

static int cmp_log(const void *a, const void *b)
{
    const cobra_log *x = a, *y = b;
    if (x->session != y->session)
        return (x->session > y->session) - (x->session < y->session);
    return strcmp(x->name, y->name);
}

static void free_logs(cobra_log *logs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(logs[i].name);
    free(logs);
}

/* Lists dir's T<n>.log files, sorted by session. */
static psi_status list_logs(const char *dir, cobra_log **out, size_t *n_out, psi_diag *d)
{
    *out = NULL;
    *n_out = 0;
    DIR *dh = opendir(dir);
    if (!dh)
        return psi_diag_file(d, PSI_ERR_IO, dir, "cannot open directory: %s", strerror(errno));
    cobra_log *logs = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(dh)) != NULL) {
        uint64_t session;
        if (!log_session(e->d_name, &session))
            continue;
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 32;
            cobra_log *q = realloc(logs, nc * sizeof *q);
            if (!q)
                goto nomem;
            logs = q;
            cap = nc;
        }
        logs[n].session = session;
        if (!(logs[n].name = strdup(e->d_name)))
            goto nomem;
        n++;
    }
    closedir(dh);
    if (n == 0) {
        free(logs);
        return psi_diag_set(d, PSI_ERR_INPUT,
                            "%s: no Cobra session logs in this directory (expected files "
                            "named T<n>.log)",
                            dir);
    }
    qsort(logs, n, sizeof *logs, cmp_log);
    for (size_t i = 1; i < n; i++)
        if (logs[i].session == logs[i - 1].session) {
            psi_status st =
                psi_diag_file(d, PSI_ERR_INPUT, dir, "%s and %s both name session %llu",
                              logs[i - 1].name, logs[i].name, (unsigned long long)logs[i].session);
            free_logs(logs, n);
            return st;
        }
    *out = logs;
    *n_out = n;
    return PSI_OK;
nomem:
    closedir(dh);
    free_logs(logs, n);
    return psi_diag_nomem(d, "listing Cobra logs");
}

static char *log_path(const char *dir, const char *name)
{
    size_t dlen = strlen(dir), n = dlen + 1 + strlen(name) + 1;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s%s%s", dir, dlen && dir[dlen - 1] == '/' ? "" : "/", name);
    return p;
}

/* Offset of the S record of `txn` in buf[0..limit), if any. Only called on
 * logs already parsed without error up to `limit`. */
static bool find_start(const unsigned char *buf, size_t limit, uint64_t txn, size_t *at)
{
    size_t off = 0;
    while (off < limit) {
        unsigned char tag = buf[off];
        size_t need = tag == 'W' ? 24 : tag == 'R' ? 32 : 8;
        if (limit - off - 1 < need)
            return false;
        if (tag == 'S' && be64(buf + off + 1) == txn) {
            *at = off;
            return true;
        }
        off += 1 + need;
    }
    return false;
}

/* Rewrites the builder's "repeated id" diagnostic to name the first use:
 * the logs are read again, which costs nothing unless the input is bad. */
static void explain_dup(const char *dir, const cobra_log *logs, size_t upto, const char *file,
                        const cobra_dup *dup, psi_diag *d)
{
    for (size_t j = 0; j <= upto; j++) {
        char *p = log_path(dir, logs[j].name), *buf = NULL;
        size_t len, at;
        psi_diag scratch;
        if (p && psi_read_file(p, &buf, &len, &scratch) == PSI_OK &&
            find_start((const unsigned char *)buf, j == upto ? dup->off : len, dup->txn, &at)) {
            psi_diag_offset(d, PSI_ERR_INPUT, file, dup->off,
                            "transaction id %llu was already used by the transaction that "
                            "starts at %s: byte %zu; transaction ids must be unique across "
                            "all logs",
                            (unsigned long long)dup->txn, p, at);
            j = upto;
        }
        free(buf);
        free(p);
    }
}

psi_status psi_read_cobra_dir(const char *dir, uint64_t max_ops, psi_history **out, psi_diag *d)
{
    return psi_read_cobra_mem(dir, max_ops, NULL, out, d);
}

psi_status psi_read_cobra_mem(const char *dir, uint64_t max_ops, const psi_progress *progress,
                              psi_history **out, psi_diag *d)
{
    *out = NULL;
    cobra_log *logs;
    size_t n_logs;
    psi_status st = list_logs(dir, &logs, &n_logs, d);
    if (st != PSI_OK)
        return st;
    psi_builder *b = psi_builder_new(dir, PSI_FMT_COBRA);
    if (!b) {
        st = psi_diag_nomem(d, "reading the history");
        goto done;
    }
    for (size_t i = 0; i < n_logs && st == PSI_OK; i++) {
        /* Progress in logs read: their sizes are not known in advance. */
        psi_progress_report(progress, "load", i, n_logs, 0);
        char *path = log_path(dir, logs[i].name), *buf;
        if (!path) {
            st = psi_diag_nomem(d, "reading the history");
            break;
        }
        size_t len;
        st = psi_read_file(path, &buf, &len, d);
        if (st == PSI_OK) {
            cobra_dup dup = {0};
            st = parse_log(b, path, (const unsigned char *)buf, len, logs[i].session,
                           psi_input_op_limit(max_ops), &dup, d);
            free(buf);
            if (dup.found)
                explain_dup(dir, logs, i, path, &dup, d);
        }
        free(path);
    }
    if (st == PSI_OK && psi_builder_n_txns(b) == 0)
        st = psi_diag_set(d, PSI_ERR_INPUT,
                          "%s: empty history: no transaction in its %zu Cobra log%s", dir, n_logs,
                          n_logs == 1 ? "" : "s");
    if (st == PSI_OK) {
        st = psi_builder_finish(b, out, d);
        b = NULL;
    }
done:
    psi_builder_free(b);
    free_logs(logs, n_logs);
    return st;
}
