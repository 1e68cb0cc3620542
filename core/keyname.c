/* The key-spelling index (see keyname.h). */
#include "core/keyname.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* qsort has no context argument and globals are not allowed: sort pairs
 * that carry the spelling (or the integer) with the key. */
typedef struct name_ent {
    const char *s;
    uint32_t k;
} name_ent;

typedef struct ext_ent {
    uint64_t ext;
    uint32_t k;
} ext_ent;

static int name_cmp(const void *a, const void *b)
{
    return strcmp(((const name_ent *)a)->s, ((const name_ent *)b)->s);
}

static int ext_cmp(const void *a, const void *b)
{
    uint64_t x = ((const ext_ent *)a)->ext, y = ((const ext_ent *)b)->ext;
    return x < y ? -1 : x > y;
}

psi_status psi_key_lookup_init(psi_key_lookup *kl, const psi_history *h, psi_diag *d)
{
    memset(kl, 0, sizeof *kl);
    kl->h = h;
    if (!h->key_names && h->n_keys) {
        uint64_t lo = h->keys[0], hi = h->keys[0];
        for (uint32_t k = 1; k < h->n_keys; k++) {
            lo = h->keys[k] < lo ? h->keys[k] : lo;
            hi = h->keys[k] > hi ? h->keys[k] : hi;
        }
        /* a table at most twice the keys: no sort, one line per lookup */
        if (hi - lo < 2 * (uint64_t)h->n_keys) {
            kl->table_min = lo;
            kl->table_span = hi - lo + 1;
            kl->table = malloc(kl->table_span * sizeof *kl->table);
            if (!kl->table)
                return psi_diag_nomem(d, "indexing key names");
            memset(kl->table, 0xff, kl->table_span * sizeof *kl->table);
            /* external keys are distinct (one dense key each); were
             * one repeated, its lowest dense key would be kept */
            for (uint32_t k = h->n_keys; k-- > 0;)
                kl->table[h->keys[k] - lo] = k;
            return PSI_OK;
        }
    }
    size_t n = h->n_keys ? h->n_keys : 1;
    uint32_t **out = h->key_names ? &kl->by_name : &kl->by_ext;
    *out = malloc(n * sizeof **out);
    void *tmp = malloc(n * (h->key_names ? sizeof(name_ent) : sizeof(ext_ent)));
    if (!*out || !tmp) {
        free(tmp);
        psi_key_lookup_free(kl);
        return psi_diag_nomem(d, "indexing key names");
    }
    if (h->key_names) {
        name_ent *e = tmp;
        for (uint32_t k = 0; k < h->n_keys; k++)
            e[k] = (name_ent){h->key_names[k], k};
        if (h->n_keys)
            qsort(e, h->n_keys, sizeof *e, name_cmp);
        for (uint32_t k = 0; k < h->n_keys; k++)
            kl->by_name[k] = e[k].k;
    } else {
        ext_ent *e = tmp;
        for (uint32_t k = 0; k < h->n_keys; k++)
            e[k] = (ext_ent){h->keys[k], k};
        if (h->n_keys)
            qsort(e, h->n_keys, sizeof *e, ext_cmp);
        kl->ext = malloc(n * sizeof *kl->ext);
        if (!kl->ext) {
            free(tmp);
            psi_key_lookup_free(kl);
            return psi_diag_nomem(d, "indexing key names");
        }
        for (uint32_t k = 0; k < h->n_keys; k++) {
            kl->by_ext[k] = e[k].k;
            kl->ext[k] = e[k].ext;
        }
    }
    free(tmp);
    return PSI_OK;
}

uint32_t psi_key_lookup_ext(const psi_key_lookup *kl, uint64_t ext)
{
    const psi_history *h = kl->h;
    if (h->key_names) /* keys[k] == k */
        return ext < h->n_keys ? (uint32_t)ext : UINT32_MAX;
    if (kl->table)
        return ext - kl->table_min < kl->table_span ? kl->table[ext - kl->table_min] : UINT32_MAX;
    size_t b = 0, e = h->n_keys;
    while (b < e) {
        size_t m = b + (e - b) / 2;
        uint64_t x = kl->ext[m];
        if (x == ext)
            return kl->by_ext[m];
        if (x < ext)
            b = m + 1;
        else
            e = m;
    }
    return UINT32_MAX;
}

uint32_t psi_key_lookup_name(const psi_key_lookup *kl, const char *name)
{
    const psi_history *h = kl->h;
    if (!h->key_names) {
        uint64_t v;
        return psi_name_u64(name, &v) ? psi_key_lookup_ext(kl, v) : UINT32_MAX;
    }
    assert(kl->by_name);
    size_t b = 0, e = h->n_keys;
    while (b < e) {
        size_t m = b + (e - b) / 2;
        int c = strcmp(h->key_names[kl->by_name[m]], name);
        if (c == 0)
            return kl->by_name[m];
        if (c < 0)
            b = m + 1;
        else
            e = m;
    }
    return UINT32_MAX;
}

void psi_key_lookup_free(psi_key_lookup *kl)
{
    free(kl->by_name);
    free(kl->by_ext);
    free(kl->ext);
    free(kl->table);
    memset(kl, 0, sizeof *kl);
}
