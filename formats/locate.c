/* Places of operations in their input file (see locate.h): the file is
 * read again and the operation's transaction walked from psi_txn.src. */
#include "formats/locate.h"

#include "formats/input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The input file, read once per call (per log for Cobra). */
typedef struct src_file {
    char *path;
    char *buf;
    size_t len;
    bool ok;
} src_file;

static void src_load(src_file *f, const char *path)
{
    if (f->path && strcmp(f->path, path) == 0)
        return;
    free(f->path);
    free(f->buf);
    *f = (src_file){.path = strdup(path)};
    psi_diag scratch;
    f->ok = f->path && psi_read_file(path, &f->buf, &f->len, &scratch) == PSI_OK;
}

static void src_free(src_file *f)
{
    free(f->path);
    free(f->buf);
}

/* Offset of the first byte of line `line` (from 1), or SIZE_MAX. */
static size_t line_start(const src_file *f, uint64_t line)
{
    size_t at = 0;
    for (uint64_t l = 1; l < line; l++) {
        const char *nl = memchr(f->buf + at, '\n', f->len - at);
        if (!nl)
            return SIZE_MAX;
        at = (size_t)(nl - f->buf) + 1;
    }
    return at;
}

/* Column (from 1, counting characters, not UTF-8 continuation bytes) of
 * byte `at` on the line starting at `ls`. */
static uint64_t column(const char *buf, size_t ls, size_t at)
{
    uint64_t col = 1;
    for (size_t i = ls; i < at; i++)
        col += ((unsigned char)buf[i] & 0xC0) != 0x80;
    return col;
}

static bool read_u64(const char **p, const char *end, uint64_t *v)
{
    while (*p < end && (**p == ' ' || **p == '\t'))
        (*p)++;
    return psi_input_u64(p, end, v) == PSI_DIGITS_OK;
}

/* PolySI text: the k-th line (from 0) of transaction t at or after its
 * first line, "r(KEY,VALUE,SESSION,TXN)" with t's session and id (TXN -1
 * for an aborted transaction: IsoVista's aborted write on line src). */
static bool locate_text(const psi_history *h, const src_file *f, uint32_t t, uint32_t op,
                        psi_place *pl)
{
    const psi_txn *tx = &h->txns[t];
    uint32_t k = op - tx->first_op, seen = 0;
    size_t at = line_start(f, tx->src);
    for (uint64_t line = tx->src; at != SIZE_MAX && at < f->len; line++) {
        const char *nl = memchr(f->buf + at, '\n', f->len - at);
        const char *e = nl ? nl : f->buf + f->len, *p = f->buf + at;
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        const char *opstart = p;
        uint64_t v[4];
        bool is_op = p < e && (*p == 'r' || *p == 'w');
        if (is_op) {
            char kind = *p++;
            while (p < e && (*p == ' ' || *p == '\t'))
                p++;
            is_op = p < e && *p++ == '(';
            bool minus_one = false; /* TXN -1: an aborted write (read_text.c) */
            for (int i = 0; i < 4 && is_op; i++) {
                if (i == 3) {
                    while (p < e && (*p == ' ' || *p == '\t'))
                        p++;
                    minus_one = e - p >= 2 && p[0] == '-' && p[1] == '1';
                    if (minus_one) {
                        p += 2;
                        v[3] = 0;
                        continue;
                    }
                }
                is_op = read_u64(&p, e, &v[i]);
                while (p < e && (*p == ' ' || *p == '\t'))
                    p++;
                if (is_op && i < 3)
                    is_op = p < e && *p++ == ',';
            }
            /* The reader gives each -1 line its own aborted transaction,
             * whose id is not in the file: it starts at its line. */
            bool same_txn = minus_one ? tx->status == PSI_TXN_ABORTED : v[3] == tx->id;
            if (is_op && v[2] == h->sessions[tx->session].id && same_txn && seen++ == k) {
                const psi_op *o = &h->ops[op];
                if (v[0] != h->keys[o->key] || v[1] != o->value ||
                    (kind == 'w') != (o->kind == PSI_OP_WRITE))
                    return false;
                *pl = (psi_place){.where = PSI_AT_LINE,
                                  .exact = true,
                                  .line = line,
                                  .col = column(f->buf, at, (size_t)(opstart - f->buf))};
                return true;
            }
        }
        if (!nl)
            break;
        at = (size_t)(nl - f->buf) + 1;
    }
    return false;
}

/* Whether the EDN reader kept the micro-op at p ('[' of [:f KEY VALUE]) of
 * a transaction with status `st`: it drops every read of an :info
 * completion and the nil reads of a :fail one, unless the completion is
 * marked :polysi/reads :observed (read_edn.c). */
static bool edn_kept(const char *p, const char *end, uint8_t st, bool observed)
{
    if (st == PSI_TXN_COMMITTED || observed)
        return true;
    const char *q = p + 1;
    while (q < end && strchr(" \t\r\n,", *q))
        q++;
    bool is_read =
        end - q >= 2 && q[0] == ':' && q[1] == 'r' && (end - q == 2 || strchr(" \t\r\n,]", q[2]));
    if (!is_read)
        return true;
    if (st == PSI_TXN_UNKNOWN)
        return false;
    for (int field = 0; field < 2; field++) { /* past :r and the key */
        while (q < end && !strchr(" \t\r\n,]", *q))
            q++;
        while (q < end && strchr(" \t\r\n,", *q))
            q++;
    }
    bool nil =
        end - q >= 3 && memcmp(q, "nil", 3) == 0 && (end - q == 3 || strchr(" \t\r\n,]", q[3]));
    return !nil;
}

/* EDN: the k-th micro-op the reader kept (edn_kept) of the :value vector of
 * the op map that starts on transaction t's line (maps may span lines).
 * The micro-op's key is compared when it is an integer. */
static bool locate_edn(const psi_history *h, const src_file *f, uint32_t t, uint32_t op,
                       psi_place *pl)
{
    const psi_txn *tx = &h->txns[t];
    uint32_t k = op - tx->first_op;
    size_t at = line_start(f, tx->src);
    if (at == SIZE_MAX)
        return false;
    const char *b = f->buf, *end = f->buf + f->len;
    const char *v = NULL;
    for (const char *p = b + at; p + 6 <= end && !v; p++) {
        if (*p == '"') { /* skip a string */
            for (p++; p < end && *p != '"'; p++)
                p += *p == '\\';
            continue;
        }
        if (memcmp(p, ":value", 6) == 0 && (p + 6 == end || strchr(" \t\r\n,[", p[6])))
            v = p + 6;
    }
    /* Only our writer marks completions, on the map's first (only) line. */
    bool observed = false;
    if (v) {
        const char *m = b + at, *nl = memchr(m, '\n', (size_t)(end - m)), *stop = nl ? nl : end;
        for (const char *p = m; p + 13 <= stop && !observed; p++)
            observed = memcmp(p, ":polysi/reads", 13) == 0;
    }
    while (v && v < end && strchr(" \t\r\n,", *v))
        v++;
    if (!v || v >= end || (*v != '[' && *v != '('))
        return false;
    /* Walk the elements of the vector at depth 1. */
    int depth = 0;
    uint32_t idx = 0;
    for (const char *p = v; p < end; p++) {
        char c = *p;
        if (c == '"') {
            for (p++; p < end && *p != '"'; p++)
                p += *p == '\\';
            continue;
        }
        if (c == ';') {
            while (p < end && *p != '\n')
                p++;
            continue;
        }
        if (c == '[' || c == '(' || c == '{') {
            if (depth == 1 && c == '[' && !edn_kept(p, end, tx->status, observed)) {
                depth++;
                continue;
            }
            if (depth == 1 && idx++ == k) {
                /* [:f KEY ...]: compare an integer key. */
                const char *q = p + 1;
                while (q < end && strchr(" \t\r\n,", *q))
                    q++;
                while (q < end && !strchr(" \t\r\n,]", *q))
                    q++; /* the micro-op's function */
                uint64_t key;
                const char *q0 = q;
                while (q < end && strchr(" \t\r\n,", *q))
                    q++;
                q0 = q;
                if (psi_input_u64(&q, end, &key) == PSI_DIGITS_OK && q > q0 &&
                    key != h->keys[h->ops[op].key])
                    return false;
                uint64_t line = 1;
                size_t ls = 0;
                for (size_t i = 0; i < (size_t)(p - b); i++)
                    if (b[i] == '\n') {
                        line++;
                        ls = i + 1;
                    }
                *pl = (psi_place){.where = PSI_AT_LINE,
                                  .exact = true,
                                  .line = line,
                                  .col = column(b, ls, (size_t)(p - b))};
                return true;
            }
            depth++;
        } else if (c == ']' || c == ')' || c == '}') {
            if (--depth <= 0)
                return false;
        }
    }
    return false;
}

/* AWDIT's test format: the k-th operation line from the transaction's
 * first line (blank lines skipped; a separator ends the transaction). */
static bool locate_awdit(const psi_history *h, const src_file *f, uint32_t t, uint32_t op,
                         psi_place *pl)
{
    const psi_txn *tx = &h->txns[t];
    uint32_t k = op - tx->first_op, seen = 0;
    size_t at = line_start(f, tx->src);
    for (uint64_t line = tx->src; at != SIZE_MAX && at < f->len; line++) {
        const char *nl = memchr(f->buf + at, '\n', f->len - at);
        const char *e = nl ? nl : f->buf + f->len, *p = f->buf + at;
        while (p < e && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        if (p < e && (*p == '-' || *p == '='))
            return false;
        if (p < e && (*p == 'r' || *p == 'w') && seen++ == k) {
            const psi_op *o = &h->ops[op];
            const char *q = p + 1;
            uint64_t key, value;
            if (!read_u64(&q, e, &key) || !read_u64(&q, e, &value) || key != h->keys[o->key] ||
                value != o->value || (*p == 'w') != (o->kind == PSI_OP_WRITE))
                return false;
            *pl = (psi_place){.where = PSI_AT_LINE,
                              .exact = true,
                              .line = line,
                              .col = column(f->buf, at, (size_t)(p - f->buf))};
            return true;
        }
        if (!nl)
            break;
        at = (size_t)(nl - f->buf) + 1;
    }
    return false;
}

static uint64_t le64(const unsigned char *p)
{
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--)
        x = x << 8 | p[i];
    return x;
}

static uint64_t be64(const unsigned char *p)
{
    uint64_t x = 0;
    for (int i = 0; i < 8; i++)
        x = x << 8 | p[i];
    return x;
}

/* dbcop: src is the transaction's event count; events of 18 bytes follow
 * (is_write, key, value, success); the k-th event that happened. */
static bool locate_dbcop(const psi_history *h, const src_file *f, uint32_t t, uint32_t op,
                         psi_place *pl)
{
    const psi_txn *tx = &h->txns[t];
    const unsigned char *b = (const unsigned char *)f->buf;
    uint32_t k = op - tx->first_op, seen = 0;
    if (tx->src > f->len || f->len - tx->src < 8)
        return false;
    uint64_t n = le64(b + tx->src);
    size_t e = tx->src + 8;
    for (uint64_t i = 0; i < n && f->len - e >= 18; i++, e += 18) {
        if (!b[e + 17] || seen++ != k)
            continue;
        const psi_op *o = &h->ops[op];
        if (le64(b + e + 1) != h->keys[o->key] || le64(b + e + 9) != o->value ||
            (b[e] == 1) != (o->kind == PSI_OP_WRITE))
            return false;
        *pl = (psi_place){.where = PSI_AT_OFFSET, .exact = true, .offset = e};
        return true;
    }
    return false;
}

/* Cobra: src is the offset of the S record in the session's log; W (24
 * bytes after the tag) and R (32) records follow. */
static bool locate_cobra(const psi_history *h, const src_file *f, uint32_t t, uint32_t op,
                         psi_place *pl)
{
    const psi_txn *tx = &h->txns[t];
    const unsigned char *b = (const unsigned char *)f->buf;
    uint32_t k = op - tx->first_op, seen = 0;
    if (tx->src >= f->len || b[tx->src] != 'S')
        return false;
    for (size_t at = tx->src + 9; at < f->len;) {
        unsigned char tag = b[at];
        size_t need = tag == 'W' ? 24 : tag == 'R' ? 32 : 0;
        if (!need || f->len - at - 1 < need)
            return false;
        if (seen++ == k) {
            uint64_t key = be64(b + at + 1 + (tag == 'W' ? 8 : 16));
            if (key != h->keys[h->ops[op].key] || (tag == 'W') != (h->ops[op].kind == PSI_OP_WRITE))
                return false;
            pl->where = PSI_AT_OFFSET;
            pl->exact = true;
            pl->offset = at;
            return true;
        }
        at += 1 + need;
    }
    return false;
}

psi_status psi_locate_ops(const psi_history *h, const uint32_t *ops, size_t n, psi_place *places,
                          psi_diag *d)
{
    src_file f = {0};
    psi_status st = PSI_OK;
    memset(places, 0, n * sizeof *places);
    for (size_t i = 0; i < n && st == PSI_OK; i++) {
        psi_place *pl = &places[i];
        if (ops[i] >= h->n_ops || !h->source)
            continue;
        uint32_t t = psi_history_op_txn(h, ops[i]);
        const psi_txn *tx = &h->txns[t];
        char *file = NULL;
        if (h->format == PSI_FMT_COBRA) {
            size_t len = strlen(h->source) + 32;
            if ((file = malloc(len)))
                snprintf(file, len, "%s/T%llu.log", h->source,
                         (unsigned long long)h->sessions[tx->session].id);
        } else {
            file = strdup(h->source);
        }
        if (!file) {
            st = psi_diag_nomem(d, "locating operations");
            break;
        }
        src_load(&f, file);
        bool found = false;
        if (f.ok) {
            switch (h->format) {
            case PSI_FMT_TEXT:
                found = locate_text(h, &f, t, ops[i], pl);
                break;
            case PSI_FMT_EDN:
                found = locate_edn(h, &f, t, ops[i], pl);
                break;
            case PSI_FMT_DBCOP:
                found = locate_dbcop(h, &f, t, ops[i], pl);
                break;
            case PSI_FMT_COBRA:
                found = locate_cobra(h, &f, t, ops[i], pl);
                break;
            case PSI_FMT_AWDIT:
                found = locate_awdit(h, &f, t, ops[i], pl);
                break;
            default:
                break;
            }
        }
        if (!found) {
            /* The transaction's own place, as the reader recorded it. */
            bool text = h->format == PSI_FMT_TEXT || psi_format_is_jepsen(h->format) ||
                        h->format == PSI_FMT_AWDIT;
            *pl = (psi_place){.where = text ? PSI_AT_LINE : PSI_AT_OFFSET,
                              .line = tx->src,
                              .col = 1,
                              .offset = tx->src};
            if (!text && h->format != PSI_FMT_DBCOP && h->format != PSI_FMT_COBRA)
                pl->where = PSI_AT_NONE;
        }
        pl->file = file;
    }
    src_free(&f);
    if (st != PSI_OK)
        psi_places_free(places, n);
    return st;
}

void psi_places_free(psi_place *places, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(places[i].file);
        places[i].file = NULL;
    }
}

void psi_place_format(const psi_place *p, char *buf, size_t n)
{
    if (!p->file || p->where == PSI_AT_NONE)
        snprintf(buf, n, "%s", "");
    else if (p->where == PSI_AT_LINE)
        snprintf(buf, n, "%s:%llu:%llu", p->file, (unsigned long long)p->line,
                 (unsigned long long)p->col);
    else
        snprintf(buf, n, "%s: byte %llu", p->file, (unsigned long long)p->offset);
}
