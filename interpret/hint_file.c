/* Hint files as chains (see hint_file.h). */
#include "interpret/hint_file.h"

#include "core/txnid.h"

#include <stdlib.h>
#include <string.h>

static void add_chain(psi_hint_file *f, size_t *n, const psi_witness_line *l)
{
    bool named = f->w.named; /* entries resolved: w.txn */
    f->chains[(*n)++] = (psi_hint_chain){.key = l->key,
                                         .key_name = l->key_name, /* owned by f->w */
                                         .line = l->line,
                                         .tx = !named && f->tx ? f->tx + l->first : NULL,
                                         .txn = named && f->w.txn ? f->w.txn + l->first : NULL,
                                         .n = l->n};
}

/* The parsed witness out->w as chains and reads (out->vo). */
static psi_status to_chains(const char *name, const psi_history *h, psi_hint_file *out, psi_diag *d)
{
    psi_witness *w = &out->w;
    size_t nc = w->n_keys + w->n_chains;
    out->chains = malloc((nc ? nc : 1) * sizeof *out->chains);
    if (!out->chains) {
        psi_hint_file_free(out);
        return psi_diag_nomem(d, "reading the version order");
    }
    /* The parsed transactions become the chains' in place (a complete
     * order names every version: no second array of that size). Each
     * element is read whole before its slot is stored as the other type,
     * which allocated memory allows. */
    _Static_assert(sizeof(psi_hint_txn) == sizeof(psi_witness_txn) &&
                       _Alignof(psi_hint_txn) <= _Alignof(psi_witness_txn),
                   "hint and witness transactions share their memory");
    void *mem = w->tx;
    for (size_t i = 0; i < w->n_tx && !w->named; i++) {
        psi_witness_txn x = w->tx[i];
        psi_hint_txn y = {.sid = x.sid, .tid = x.tid, .line = x.line};
        memcpy((char *)mem + i * sizeof y, &y, sizeof y);
    }
    if (!w->named) { /* else tx[] holds order lines' entries, not used */
        out->tx = mem;
        w->tx = NULL; /* out->tx owns it now */
        w->n_tx = 0;
    }
    size_t n = 0;
    for (size_t i = 0; i < w->n_keys; i++)
        add_chain(out, &n, &w->keys[i]);
    for (size_t i = 0; i < w->n_chains; i++)
        add_chain(out, &n, &w->chains[i]);
    if (w->n_reads && !(out->reads = malloc(w->n_reads * sizeof *out->reads))) {
        psi_hint_file_free(out);
        return psi_diag_nomem(d, "reading the version order");
    }
    for (size_t i = 0; i < w->n_reads; i++) {
        const psi_witness_read *x = &w->reads[i];
        out->reads[i] =
            (psi_hint_read){.reader = {.sid = x->reader.sid, .tid = x->reader.tid, .line = x->line},
                            .key = x->key,
                            .key_name = x->key_name, /* owned by out->w */
                            .init = x->init,
                            .writer = {.sid = x->writer.sid, .tid = x->writer.tid, .line = x->line},
                            .event = x->event,
                            .line = x->line};
    }
    out->vo = (psi_version_order){.name = name,
                                  .named_in = w->named ? h : NULL,
                                  .chains = out->chains,
                                  .n_chains = n,
                                  .reads = out->reads,
                                  .n_reads = w->n_reads};
    return PSI_OK;
}

psi_status psi_hint_file_parse(const char *name, const char *text, size_t len, psi_hint_file *out,
                               psi_diag *d)
{
    memset(out, 0, sizeof *out);
    psi_status st = psi_witness_parse(name, text, len, &out->w, d);
    return st == PSI_OK ? to_chains(name, NULL, out, d) : st;
}

psi_status psi_hint_file_parse_for(const char *name, const char *text, size_t len,
                                   const psi_history *h, psi_hint_file *out, psi_diag *d)
{
    memset(out, 0, sizeof *out);
    psi_txn_names names;
    psi_status st = psi_txn_names_init(&names, h, d);
    bool resolved = false;
    if (st == PSI_OK)
        st = psi_witness_parse_named(name, text, len, &names, &out->w, &resolved, d);
    psi_txn_names_free(&names);
    if (st != PSI_OK)
        return st;
    /* A name that is no one transaction's: the plain chains, whose
     * resolution names it (or finds it is not used). */
    if (!resolved)
        return psi_hint_file_parse(name, text, len, out, d);
    return to_chains(name, h, out, d);
}

void psi_hint_file_free(psi_hint_file *f)
{
    psi_witness_free(&f->w);
    free(f->tx);
    free(f->chains);
    free(f->reads);
    memset(f, 0, sizeof *f);
}

psi_status psi_ts_file_parse(const char *name, const char *text, size_t len, psi_ts_file *out,
                             psi_diag *d)
{
    memset(out, 0, sizeof *out);
    psi_status st = psi_ts_parse(name, text, len, &out->l, d);
    if (st != PSI_OK)
        return st;
    out->e = malloc((out->l.n ? out->l.n : 1) * sizeof *out->e);
    if (!out->e) {
        psi_ts_file_free(out);
        return psi_diag_nomem(d, "reading timestamps");
    }
    for (size_t i = 0; i < out->l.n; i++) {
        const psi_ts_line *x = &out->l.e[i];
        out->e[i] = (psi_hint_ts){
            .sid = x->sid, .tid = x->tid, .start = x->start, .commit = x->commit, .line = x->line};
    }
    out->ts = (psi_timestamps){.name = name, .e = out->e, .n = out->l.n};
    return PSI_OK;
}

void psi_ts_file_free(psi_ts_file *f)
{
    psi_ts_list_free(&f->l);
    free(f->e);
    memset(f, 0, sizeof *f);
}
