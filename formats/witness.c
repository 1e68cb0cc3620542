/* Parsing and writing the witness text format (see witness.h). The text is
 * untrusted: any bytes are handled, and whatever does not parse is a syntax
 * error naming line and column (in bytes, from 1). */
#include "formats/witness.h"

#include "core/keyname.h"
#include "core/txnid.h"
#include "core/vec.h"
#include "formats/edn.h" /* edn_spell_cp, edn_hex_digit: strings spelled as the readers spell them */
#include "formats/input.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Parser state: the witness being filled and its arrays' capacities. */
typedef struct wparse {
    const char *name;
    psi_diag *d;
    psi_witness *w;
    bool has_header;
    size_t cap_tx, cap_keys, cap_reads, cap_chains, cap_txn;
    /* psi_witness_parse_named: key and chain lines' transactions are
     * resolved to names' indices as they are read; unresolved is set (and
     * the parse stopped) at the first name that has no one transaction. */
    psi_txn_names *names;
    bool unresolved;
} wparse;

static psi_status syntax(wparse *ps, uint64_t line, const char *ls, const char *at,
                         const char *what)
{
    return psi_diag_line(ps->d, PSI_ERR_SYNTAX, ps->name, line, (uint64_t)(at - ls) + 1, "%s",
                         what);
}

/* How many names behind the parse psi_witness_parse_named looks names up:
 * each name's table slot is fetched when it is read, and it is looked up
 * this many names later, by which time the slot has come (a name is about
 * ten bytes of text; the slots are all over a table of the history's
 * size, so each look-up alone would wait for memory). */
#define NAMES_BEHIND 32

/* A name read and fetched, not yet looked up: it goes in w->txn[at]. */
typedef struct pending_name {
    uint64_t sid, tid;
    size_t at;
} pending_name;

/* Looks p up into w->txn[p->at]; a name that is not one transaction's
 * stops the parse (ps->unresolved). */
static psi_status look_up(wparse *ps, const pending_name *p)
{
    uint32_t x = psi_txn_names_find(ps->names, p->sid, p->tid);
    if (x == PSI_TXN_NAMES_NOMEM)
        return PSI_ERR_NOMEM; /* d says so */
    if (x == PSI_TXN_NAMES_NONE) {
        ps->unresolved = true; /* the plain parse's to report, if wrong */
        return PSI_ERR_INPUT;
    }
    ps->w->txn[p->at] = x;
    return PSI_OK;
}

/* Transactions "(S,ID)" separated by blanks until the end of the line:
 * into w->tx, or (resolve: a key or chain line of psi_witness_parse_named)
 * into w->txn as the transactions ps->names gives. */
static psi_status parse_txns(wparse *ps, uint64_t line, const char *ls, const char *p,
                             const char *end, bool resolve, psi_witness_line *out)
{
    psi_witness *w = ps->w;
    resolve = resolve && ps->names;
    out->first = resolve ? w->n_txn : w->n_tx;
    out->line = line;
    pending_name behind[NAMES_BEHIND]; /* the line's names read, not looked up: a ring */
    size_t n_read = 0;
    for (;;) {
        p = psi_input_skip_blanks(p, end);
        if (p >= end)
            break;
        psi_witness_txn t = {.line = line};
        const char *at = p;
        if (*p != '(')
            return syntax(ps, line, ls, at, "expected a transaction written (SESSION,ID)");
        p++;
        if (!psi_input_field_u64(&p, end, &t.sid) || p >= end || *p != ',')
            return syntax(ps, line, ls, at, "expected a transaction written (SESSION,ID)");
        p++;
        if (!psi_input_field_u64(&p, end, &t.tid) || p >= end || *p != ')')
            return syntax(ps, line, ls, at, "expected a transaction written (SESSION,ID)");
        p++;
        if (p < end && !psi_input_blank(*p))
            return syntax(ps, line, ls, p, "expected a blank after a transaction");
        if (resolve) {
            if (!psi_grow((void **)&w->txn, &ps->cap_txn, w->n_txn + 1, sizeof *w->txn))
                return psi_diag_nomem(ps->d, "reading a witness");
            psi_txn_names_prefetch(ps->names, t.tid);
            pending_name *slot = &behind[n_read++ % NAMES_BEHIND];
            if (n_read > NAMES_BEHIND) {
                psi_status st = look_up(ps, slot); /* read NAMES_BEHIND names ago */
                if (st != PSI_OK)
                    return st;
            }
            *slot = (pending_name){.sid = t.sid, .tid = t.tid, .at = w->n_txn++};
            continue;
        }
        if (!psi_grow((void **)&w->tx, &ps->cap_tx, w->n_tx + 1, sizeof *w->tx))
            return psi_diag_nomem(ps->d, "reading a witness");
        w->tx[w->n_tx++] = t;
    }
    for (size_t i = n_read > NAMES_BEHIND ? n_read - NAMES_BEHIND : 0; i < n_read; i++) {
        psi_status st = look_up(ps, &behind[i % NAMES_BEHIND]);
        if (st != PSI_OK)
            return st;
    }
    out->n = (resolve ? w->n_txn : w->n_tx) - out->first;
    return PSI_OK;
}

/* One transaction "(S,ID)" at *p (psi_input_txn_ref). */
static bool parse_one_txn(const char **p, const char *end, psi_witness_txn *t)
{
    return psi_input_txn_ref(p, end, &t->sid, &t->tid);
}

/* Whether the word wd (followed by a blank or the line's end) is at *p;
 * if so *p moves past it. */
static bool word(const char **p, const char *end, const char *wd)
{
    size_t n = strlen(wd);
    if ((size_t)(end - *p) < n || memcmp(*p, wd, n) != 0)
        return false;
    if ((size_t)(end - *p) > n && !psi_input_blank((*p)[n]))
        return false;
    *p += n;
    return true;
}

/* Four hex digits at p (before end) as a code unit, or -1. */
static long hex4(const char *p, const char *end)
{
    if (end - p < 4)
        return -1;
    long v = 0;
    for (int i = 0; i < 4; i++) {
        int x = edn_hex_digit(p[i]);
        if (x < 0)
            return -1;
        v = v * 16 + x;
    }
    return v;
}

/* A key's spelling in version 4 (README, "Witnesses"), at p (< end, not a
 * blank), ending at a blank or the line's end:
 *   "..."   a string, with JSON's escapes; it is spelled again the one way
 *           the EDN and JSON readers spell strings (edn_spell_cp), so
 *           "a\u0062" names the key "ab";
 *   digits  an integer, spelled in decimal without leading zeros;
 *   other   any other run of non-blank bytes, as is (`:x`, `foo`, `-3`).
 * On success *name is an owned NUL-terminated spelling and *stop is past
 * the token. On failure *name is NULL, *err says why and *err_at where;
 * a NULL *err is out of memory. */
static bool scan_key(const char *p, const char *end, const char **stop, char **name,
                     const char **err_at, const char **err)
{
    *name = NULL;
    *err = NULL;
    *err_at = p;
    const char *q = p;
    if (*p == '(') {
        *err = "expected a key before the transactions";
        return false;
    }
    if (*p != '"') {
        while (q < end && !psi_input_blank(*q))
            q++;
        const char *s = p;
        uint64_t v;
        char num[24];
        bool integer = psi_input_u64(&s, q, &v) == PSI_DIGITS_OK && s == q;
        if (integer)
            snprintf(num, sizeof num, "%llu", (unsigned long long)v);
        size_t n = integer ? strlen(num) : (size_t)(q - p);
        *name = malloc(n + 1);
        if (!*name)
            return false;
        memcpy(*name, integer ? num : p, n);
        (*name)[n] = '\0';
        *stop = q;
        return true;
    }
    /* A string: each input byte or escape becomes at most 6 bytes. */
    for (q = p + 1; q < end && *q != '"'; q++)
        if (*q == '\\' && q + 1 < end)
            q++;
    if (q >= end) {
        *err = "unterminated string key";
        return false;
    }
    if (q + 1 < end && !psi_input_blank(q[1])) {
        *err_at = q + 1;
        *err = "expected a blank after the key";
        return false;
    }
    const char *close = q;
    char *o = malloc((size_t)(close - p) * 6 + 3), *out = o;
    if (!o)
        return false;
    *o++ = '"';
    for (q = p + 1; q < close;) {
        unsigned long c = (unsigned char)*q;
        if (c != '\\') {
            q++;
            /* raw control characters take their escape; the rest as is */
            if (c < 0x20)
                o = edn_spell_cp(o, c);
            else
                *o++ = (char)c;
            continue;
        }
        const char *at = q;
        char e = q[1];
        q += 2;
        if (e == 'u') {
            long u = hex4(q, close);
            q += 4;
            if (u >= 0xD800 && u <= 0xDBFF && close - q >= 6 && q[0] == '\\' && q[1] == 'u') {
                long lo = hex4(q + 2, close);
                if (lo >= 0xDC00 && lo <= 0xDFFF) {
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                    q += 6;
                }
            }
            if (u < 0 || (u >= 0xD800 && u <= 0xDFFF)) {
                *err_at = at;
                *err = "bad \\u escape in a string key (four hex digits, surrogates paired)";
                free(out);
                return false;
            }
            c = (unsigned long)u;
        } else {
            const char *k = e ? strchr("\"\\/bfnrt", e) : NULL;
            if (!k) {
                *err_at = at;
                *err = "bad escape in a string key (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)";
                free(out);
                return false;
            }
            c = (unsigned char)"\"\\/\b\f\n\r\t"[k - "\"\\/bfnrt"];
        }
        o = edn_spell_cp(o, c);
    }
    *o++ = '"';
    *o = '\0';
    *name = out;
    *stop = close + 1;
    return true;
}

/* The key field of a key, chain or read line at *q: before version 4 an
 * unsigned integer (the external key), from version 4 a spelling
 * (scan_key), kept in *name for psi_witness_resolve_keys. */
static psi_status parse_key(wparse *ps, uint64_t line, const char *ls, const char **q,
                            const char *le, uint64_t *key, char **name)
{
    const char *at = *q;
    *name = NULL;
    *key = 0;
    if (ps->w->version < 4) {
        if (!psi_input_field_u64(q, le, key) || (*q < le && !psi_input_blank(**q)))
            return syntax(ps, line, ls, at, "expected a key (an unsigned integer)");
        return PSI_OK;
    }
    const char *err, *err_at;
    if (at >= le)
        return syntax(ps, line, ls, at, "expected a key");
    if (!scan_key(at, le, q, name, &err_at, &err))
        return err ? syntax(ps, line, ls, err_at, err) : psi_diag_nomem(ps->d, "reading a witness");
    return PSI_OK;
}

/* The header line, "polysi-witness 1", at q. */
static psi_status parse_header(wparse *ps, uint64_t line, const char *ls, const char *q,
                               const char *le)
{
    uint64_t v;
    if (!word(&q, le, "polysi-witness"))
        return syntax(ps, line, ls, q, "expected the header 'polysi-witness 1'");
    q = psi_input_skip_blanks(q, le);
    if (!psi_input_field_u64(&q, le, &v) || v < 1 || v > 5)
        return syntax(ps, line, ls, q, "unsupported witness version (expected 1 to 5)");
    ps->w->version = (unsigned)v;
    q = psi_input_skip_blanks(q, le);
    if (q != le)
        return syntax(ps, line, ls, q, "unexpected text after the header");
    ps->has_header = true;
    return PSI_OK;
}

/* A line after the header, at q (its first non-blank byte). */
static psi_status parse_directive(wparse *ps, uint64_t line, const char *ls, const char *q,
                                  const char *le)
{
    psi_witness *w = ps->w;
    bool chain = false; /* a chain line (version 3), parsed like a key line */
    if (word(&q, le, "isolation")) {
        q = psi_input_skip_blanks(q, le);
        const char *at = q;
        if (word(&q, le, "si")) {
            w->ser = false;
        } else if (word(&q, le, "ser")) {
            w->ser = true;
        } else if (w->version >= 3) {
            /* a level's name: letters and digits, at most 7 */
            size_t n = 0;
            while (q + n < le && n < sizeof w->level - 1 &&
                   ((q[n] >= 'a' && q[n] <= 'z') || (q[n] >= '0' && q[n] <= '9')))
                n++;
            if (n == 0 || (q + n < le && !psi_input_blank(q[n])))
                return syntax(ps, line, ls, at,
                              "expected a level: si, ser, pl2, rc, ra, cc, pc or psi");
            memcpy(w->level, q, n);
            w->level[n] = '\0';
            q += n;
        } else {
            return syntax(ps, line, ls, at, "expected 'si' or 'ser'");
        }
        q = psi_input_skip_blanks(q, le);
        if (q != le)
            return syntax(ps, line, ls, q, "unexpected text after the isolation level");
        if (w->has_isolation)
            return syntax(ps, line, ls, ls, "isolation given twice");
        w->has_isolation = true;
    } else if (word(&q, le, "key") || (w->version >= 3 && (chain = word(&q, le, "chain")))) {
        q = psi_input_skip_blanks(q, le);
        psi_witness_line kl;
        uint64_t key;
        char *name;
        psi_status st = parse_key(ps, line, ls, &q, le, &key, &name);
        if (st == PSI_OK)
            st = parse_txns(ps, line, ls, q, le, true, &kl);
        if (st == PSI_OK) {
            kl.key = key;
            kl.key_name = name;
            bool ok =
                chain ? psi_grow((void **)&w->chains, &ps->cap_chains, w->n_chains + 1,
                                 sizeof *w->chains)
                      : psi_grow((void **)&w->keys, &ps->cap_keys, w->n_keys + 1, sizeof *w->keys);
            if (!ok)
                st = psi_diag_nomem(ps->d, "reading a witness");
            else if (chain)
                w->chains[w->n_chains++] = kl;
            else
                w->keys[w->n_keys++] = kl;
        }
        if (st != PSI_OK) {
            free(name); /* not in w yet */
            return st;
        }
    } else if (word(&q, le, "order")) {
        psi_witness_line ol = {0};
        psi_status st = parse_txns(ps, line, ls, q, le, false, &ol);
        if (st != PSI_OK)
            return st;
        /* A second order line is well-formed; the checker refuses it. */
        if (w->has_order) {
            if (!w->second_order_line)
                w->second_order_line = line;
        } else {
            w->order = ol;
            w->has_order = true;
        }
    } else if (w->version >= 2 && word(&q, le, "init")) {
        q = psi_input_skip_blanks(q, le);
        psi_witness_txn t = {.line = line};
        const char *at = q;
        if (!parse_one_txn(&q, le, &t))
            return syntax(ps, line, ls, at, "expected a transaction written (SESSION,ID)");
        q = psi_input_skip_blanks(q, le);
        if (q != le)
            return syntax(ps, line, ls, q, "unexpected text after the initial transaction");
        if (w->has_init) {
            if (!w->second_init_line)
                w->second_init_line = line;
        } else {
            w->init = t;
            w->has_init = true;
        }
    } else if (w->version >= 2 && word(&q, le, "read")) {
        psi_witness_read r = {.line = line, .reader.line = line, .writer.line = line};
        q = psi_input_skip_blanks(q, le);
        const char *at = q;
        if (!parse_one_txn(&q, le, &r.reader))
            return syntax(ps, line, ls, at, "expected the reader written (SESSION,ID)");
        q = psi_input_skip_blanks(q, le);
        psi_status st = parse_key(ps, line, ls, &q, le, &r.key, &r.key_name);
        /* One writer per read event of the key, in program order: from
         * version 5 several (the repeat reads of RC and PL-2), each its
         * own psi_witness_read with its own copy of the key's spelling. */
        for (bool first = true; st == PSI_OK; first = false) {
            q = psi_input_skip_blanks(q, le);
            if (!first && (q == le || w->version < 5))
                break;
            at = q;
            r.init = false;
            r.writer = (psi_witness_txn){.line = line};
            if (word(&q, le, "init"))
                r.init = true;
            else if (!parse_one_txn(&q, le, &r.writer)) {
                st = syntax(ps, line, ls, at,
                            first || w->version < 5
                                ? "expected the writer written (SESSION,ID), or init"
                                : "expected another writer written (SESSION,ID), or init");
                break;
            }
            if (!psi_grow((void **)&w->reads, &ps->cap_reads, w->n_reads + 1, sizeof *w->reads)) {
                st = psi_diag_nomem(ps->d, "reading a witness");
                break;
            }
            w->reads[w->n_reads++] = r;
            r.event++;
            if (r.key_name && !(r.key_name = strdup(r.key_name))) {
                st = psi_diag_nomem(ps->d, "reading a witness");
                break;
            }
        }
        free(r.key_name); /* the copy no read took (w owns the others) */
        if (st == PSI_OK && q != le)
            st = syntax(ps, line, ls, q, "unexpected text after the writer");
        if (st != PSI_OK)
            return st;
    } else {
        return syntax(ps, line, ls, q,
                      w->version >= 3   ? "expected 'key', 'chain', 'order', 'isolation', 'init' "
                                          "or 'read'"
                      : w->version >= 2 ? "expected 'key', 'order', 'isolation', 'init' or 'read'"
                                        : "expected 'key', 'order' or 'isolation'");
    }
    return PSI_OK;
}

static psi_status parse(wparse *ps, const char *text, size_t len)
{
    psi_lines it = {.buf = text, .len = len};
    size_t start, stop;
    while (psi_next_line(&it, &start, &stop)) {
        const char *ls = text + start, *le = text + stop;
        const char *nul = memchr(ls, '\0', stop - start);
        if (nul)
            return syntax(ps, it.line, ls, nul, "NUL byte in the witness");
        const char *q = psi_input_skip_blanks(ls, le);
        if (q == le || *q == '#')
            continue;
        psi_status st = ps->has_header ? parse_directive(ps, it.line, ls, q, le)
                                       : parse_header(ps, it.line, ls, q, le);
        if (st != PSI_OK)
            return st;
    }
    if (!ps->has_header)
        return psi_diag_set(ps->d, PSI_ERR_SYNTAX, "%s: not a witness (no 'polysi-witness 1' line)",
                            ps->name);
    return PSI_OK;
}

psi_status psi_witness_parse(const char *name, const char *text, size_t len, psi_witness *out,
                             psi_diag *d)
{
    memset(out, 0, sizeof *out);
    wparse ps = {.name = name, .d = d, .w = out};
    psi_status st = parse(&ps, text, len);
    if (st != PSI_OK)
        psi_witness_free(out);
    return st;
}

psi_status psi_witness_parse_named(const char *name, const char *text, size_t len,
                                   psi_txn_names *names, psi_witness *out, bool *resolved,
                                   psi_diag *d)
{
    memset(out, 0, sizeof *out);
    wparse ps = {.name = name, .d = d, .w = out, .names = names};
    psi_status st = parse(&ps, text, len);
    *resolved = !ps.unresolved;
    if (ps.unresolved)
        st = PSI_OK; /* a name the plain parse keeps, not an error here */
    else if (st == PSI_OK)
        out->named = true;
    if (st != PSI_OK || ps.unresolved)
        psi_witness_free(out);
    return st;
}

static void put_line(const psi_witness *w, const psi_witness_line *l, FILE *f)
{
    assert(!w->named); /* the writer writes built or plainly parsed witnesses */
    for (size_t i = l->first; i < l->first + l->n; i++)
        fprintf(f, " (%llu,%llu)", (unsigned long long)w->tx[i].sid,
                (unsigned long long)w->tx[i].tid);
    fputc('\n', f);
}

/* Whether `name` reads back as itself (scan_key): it names a key in a
 * version-4 witness without ambiguity. Readers give no other spelling, but
 * the writer does not rely on that. */
static bool spellable(const char *name)
{
    size_t n = strlen(name);
    const char *stop, *err_at, *err;
    char *back = NULL;
    bool ok = n > 0 && scan_key(name, name + n, &stop, &back, &err_at, &err) && stop == name + n &&
              strcmp(back, name) == 0;
    free(back);
    return ok;
}

static void put_key(FILE *f, uint64_t key, const char *name)
{
    if (name)
        fprintf(f, " %s", name);
    else
        fprintf(f, " %llu", (unsigned long long)key);
}

/* Whether any key, chain or read line of w spells its key. */
static bool any_named(const psi_witness *w)
{
    bool named = false;
    for (size_t k = 0; k < w->n_keys; k++)
        named |= w->keys[k].key_name != NULL;
    for (size_t k = 0; k < w->n_chains; k++)
        named |= w->chains[k].key_name != NULL;
    for (size_t k = 0; k < w->n_reads; k++)
        named |= w->reads[k].key_name != NULL;
    return named;
}

unsigned psi_witness_min_version(const psi_witness *w)
{
    for (size_t k = 0; k < w->n_reads; k++)
        if (w->reads[k].event)
            return 5;
    if (any_named(w))
        return 4;
    if (w->level[0] || w->n_chains)
        return 3;
    return w->has_init || w->n_reads ? 2 : 1;
}

psi_status psi_witness_write(const psi_witness *w, const char *history, FILE *f, const char *path,
                             psi_diag *d)
{
    /* The lowest version that carries what w holds (version 4 only when a
     * key is spelled: witnesses of integer histories stay what they were,
     * byte for byte), whatever w->version says. */
    unsigned version = psi_witness_min_version(w);
    if (version >= 4) {
        const char *bad = NULL;
        for (size_t k = 0; k < w->n_keys && !bad; k++)
            if (w->keys[k].key_name && !spellable(w->keys[k].key_name))
                bad = w->keys[k].key_name;
        for (size_t k = 0; k < w->n_chains && !bad; k++)
            if (w->chains[k].key_name && !spellable(w->chains[k].key_name))
                bad = w->chains[k].key_name;
        for (size_t k = 0; k < w->n_reads && !bad; k++)
            if (w->reads[k].key_name && !spellable(w->reads[k].key_name))
                bad = w->reads[k].key_name;
        if (bad)
            return psi_diag_set(d, PSI_ERR_INPUT,
                                "key %.200s cannot be spelled in a witness (README, \"Witnesses\")",
                                bad);
    }
    if (w->level[0])
        fprintf(f,
                "# polysi-solve witness for %s: a commit order under which every read\n"
                "# satisfies the axiom of isolation level %s (README, \"Isolation levels\").\n"
                "# Re-check with: polysi-solve verify-witness --isolation %s HISTORY THIS-FILE\n",
                history ? history : "a history", w->level, w->level);
    else
        fprintf(f,
                "# polysi-solve witness for %s: the version order of every key, first\n"
                "# installed first (the initial value precedes them all)%s.\n"
                "# Re-check with: polysi-solve verify-witness%s HISTORY THIS-FILE\n",
                history ? history : "a history", w->has_order ? ", and a serialization order" : "",
                w->ser ? " --isolation ser" : "");
    fprintf(f, "polysi-witness %u\n", version);
    if (w->has_isolation)
        fprintf(f, "isolation %s\n", w->level[0] ? w->level : w->ser ? "ser" : "si");
    if (w->has_init)
        fprintf(f, "init (%llu,%llu)\n", (unsigned long long)w->init.sid,
                (unsigned long long)w->init.tid);
    for (size_t k = 0; k < w->n_keys; k++) {
        fputs("key", f);
        put_key(f, w->keys[k].key, w->keys[k].key_name);
        put_line(w, &w->keys[k], f);
    }
    for (size_t k = 0; k < w->n_chains; k++) {
        fputs("chain", f);
        put_key(f, w->chains[k].key, w->chains[k].key_name);
        put_line(w, &w->chains[k], f);
    }
    if (w->has_order) {
        fputs("order", f);
        put_line(w, &w->order, f);
    }
    for (size_t i = 0; i < w->n_reads; i++) {
        const psi_witness_read *r = &w->reads[i];
        /* a read event after the first continues its line (version 5) */
        if (!r->event) {
            if (i)
                fputc('\n', f);
            fprintf(f, "read (%llu,%llu)", (unsigned long long)r->reader.sid,
                    (unsigned long long)r->reader.tid);
            put_key(f, r->key, r->key_name);
        }
        assert(!r->event ||
               (i && w->reads[i - 1].event + 1 == r->event &&
                w->reads[i - 1].reader.sid == r->reader.sid &&
                w->reads[i - 1].reader.tid == r->reader.tid && w->reads[i - 1].key == r->key));
        if (r->init)
            fputs(" init", f);
        else
            fprintf(f, " (%llu,%llu)", (unsigned long long)r->writer.sid,
                    (unsigned long long)r->writer.tid);
    }
    if (w->n_reads)
        fputc('\n', f);
    if (ferror(f))
        return psi_diag_set(d, PSI_ERR_IO, "%s: cannot write the witness",
                            path ? path : "<output>");
    return PSI_OK;
}

psi_status psi_witness_name_keys(psi_witness *w, const psi_history *h, psi_diag *d)
{
    if (!h->key_names)
        return PSI_OK;
    for (size_t k = 0; k < w->n_keys + w->n_chains + w->n_reads; k++) {
        uint64_t key;
        char **name;
        if (k < w->n_keys) {
            key = w->keys[k].key;
            name = &w->keys[k].key_name;
        } else if (k < w->n_keys + w->n_chains) {
            key = w->chains[k - w->n_keys].key;
            name = &w->chains[k - w->n_keys].key_name;
        } else {
            key = w->reads[k - w->n_keys - w->n_chains].key;
            name = &w->reads[k - w->n_keys - w->n_chains].key_name;
        }
        assert(key < h->n_keys); /* keys[k] == k in a named history */
        if (*name)
            continue;
        *name = strdup(h->key_names[key]);
        if (!*name)
            return psi_diag_nomem(d, "building a witness");
    }
    return PSI_OK;
}

/* Resolves one spelled key (see psi_witness_resolve_keys). */
static psi_status resolve_one(const psi_key_lookup *kl, const char *file, uint64_t line,
                              const char *name, uint64_t *key, psi_diag *d)
{
    if (!name)
        return PSI_OK;
    uint32_t k = psi_key_lookup_name(kl, name);
    if (k == UINT32_MAX)
        return psi_diag_line(d, PSI_ERR_INPUT, file, line, 1, "key %.200s is not in %s", name,
                             kl->h->source ? kl->h->source : "the history");
    *key = kl->h->keys[k];
    return PSI_OK;
}

psi_status psi_witness_resolve_keys(psi_witness *w, const psi_history *h, const char *file,
                                    psi_diag *d)
{
    bool named = false;
    for (size_t k = 0; k < w->n_keys; k++)
        named |= w->keys[k].key_name != NULL;
    for (size_t k = 0; k < w->n_chains; k++)
        named |= w->chains[k].key_name != NULL;
    for (size_t k = 0; k < w->n_reads; k++)
        named |= w->reads[k].key_name != NULL;
    if (!named)
        return PSI_OK;
    psi_key_lookup kl;
    psi_status st = psi_key_lookup_init(&kl, h, d);
    for (size_t k = 0; k < w->n_keys && st == PSI_OK; k++)
        st = resolve_one(&kl, file, w->keys[k].line, w->keys[k].key_name, &w->keys[k].key, d);
    for (size_t k = 0; k < w->n_chains && st == PSI_OK; k++)
        st = resolve_one(&kl, file, w->chains[k].line, w->chains[k].key_name, &w->chains[k].key, d);
    for (size_t k = 0; k < w->n_reads && st == PSI_OK; k++)
        st = resolve_one(&kl, file, w->reads[k].line, w->reads[k].key_name, &w->reads[k].key, d);
    if (kl.h)
        psi_key_lookup_free(&kl);
    return st;
}

void psi_witness_free(psi_witness *w)
{
    for (size_t k = 0; k < w->n_keys; k++)
        free(w->keys[k].key_name);
    for (size_t k = 0; k < w->n_chains; k++)
        free(w->chains[k].key_name);
    for (size_t k = 0; k < w->n_reads; k++)
        free(w->reads[k].key_name);
    free(w->tx);
    free(w->txn);
    free(w->keys);
    free(w->reads);
    free(w->chains);
    memset(w, 0, sizeof *w);
}
