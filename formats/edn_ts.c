/* EDN/JSON per-transaction timestamps, :start-ts and :commit-ts (issue 15,
 * see edn.h edn_timestamps): kept apart from read_edn.c, which interprets
 * the rest of an operation map. */
#include "formats/edn.h"

#include <stdint.h>

/* A signed integer that fits 64 bits, or an error naming its place. */
static psi_status get_i64(const edn_parser *p, uint32_t n, const char *what, int64_t *out)
{
    const edn_node *nd = &p->nodes[n];
    if (nd->kind == EDN_INT && !nd->big && nd->u <= (uint64_t)INT64_MAX + (nd->neg != 0)) {
        *out = nd->neg ? (int64_t)(0 - nd->u) : (int64_t)nd->u;
        return PSI_OK;
    }
    if (nd->kind == EDN_INT)
        return edn_error(p, PSI_ERR_SYNTAX, nd->pos,
                         "%s '%.*s' does not fit a signed 64-bit integer", what,
                         EDN_NODE_TEXT(p, nd));
    if (nd->kind == EDN_NIL || nd->kind >= EDN_MAP) /* no text worth quoting */
        return edn_error(p, PSI_ERR_SYNTAX, nd->pos, "expected an integer %s, found %s", what,
                         edn_kind_name(nd->kind));
    return edn_error(p, PSI_ERR_SYNTAX, nd->pos, "expected an integer %s, found %s '%.*s'", what,
                     edn_kind_name(nd->kind), EDN_NODE_TEXT(p, nd));
}

psi_status edn_timestamps(const edn_parser *p, uint32_t start, uint32_t commit, bool *has,
                          int64_t *start_ts, int64_t *commit_ts)
{
    *has = false;
    if (!start && !commit)
        return PSI_OK;
    if (!start || !commit)
        return edn_error(p, PSI_ERR_SYNTAX, p->nodes[start ? start : commit].pos,
                         "a transaction with :start-ts needs :commit-ts too, and the other way "
                         "round");
    psi_status st;
    if ((st = get_i64(p, start, ":start-ts", start_ts)) != PSI_OK ||
        (st = get_i64(p, commit, ":commit-ts", commit_ts)) != PSI_OK)
        return st;
    if (*start_ts > *commit_ts)
        return edn_error(p, PSI_ERR_INPUT, p->nodes[commit].pos,
                         "the transaction commits (:commit-ts %lld) before it starts (:start-ts "
                         "%lld)",
                         (long long)*commit_ts, (long long)*start_ts);
    *has = true;
    return PSI_OK;
}
