/* The layout of an EDN history file (see edn.h): a sequence of op maps,
 *     {:type :invoke, :f :txn, :value [[:r 1 nil]], :process 0}
 *     {:type :ok, :f :txn, :value [[:r 1 3]], :process 0}
 * or the same maps inside one vector around the whole history, as
 * jepsen.history prints it:
 *     [{:type :invoke, ...}
 *      {:type :ok, ...}]
 * A map may span lines (pretty-printed histories) and a line may hold
 * several maps. Whitespace, commas, comments and discarded values (#_)
 * between maps are skipped; a record such as #jepsen.history.Op{...} is
 * the map it wraps. read_edn.c only asks for the next map and, for a
 * pending :invoke, the same map again.
 *
 * Lines are counted lazily: the line of each map's first byte is found by
 * counting newlines (memchr) from the previous map's start, so the input is
 * scanned once by the parser and once by memchr, both linear. */
#include "formats/edn.h"

#include <assert.h>

void edn_lines_init(edn_lines *L, const char *buf, size_t len)
{
    size_t bom = psi_input_bom(buf, len);
    *L = (edn_lines){.buf = buf,
                     .len = len,
                     .pos = bom,
                     .counted = bom,
                     .line = 1,
                     .line_start = bom,
                     .wrap = WRAP_UNKNOWN};
}

/* Moves the line count forward to byte `pos` (never backward). */
static void count_lines_to(edn_lines *L, size_t pos)
{
    assert(pos >= L->counted && pos <= L->len);
    const char *b = L->buf;
    size_t i = L->counted;
    const char *nl;
    while (i < pos && (nl = memchr(b + i, '\n', pos - i)) != NULL) {
        L->line++;
        i = (size_t)(nl - b) + 1;
        L->line_start = i;
    }
    L->counted = pos;
}

void edn_lines_frame(edn_lines *L, edn_parser *p, size_t pos)
{
    count_lines_to(L, pos);
    edn_set_line(p, L->line_start, L->len, L->line);
    p->pos = pos;
}

psi_status edn_next_map(edn_lines *L, edn_parser *p, uint32_t *root, edn_mark *mark)
{
    *root = 0;
    if (p->json)
        return json_next_map(L, p, root, mark);
    for (;;) {
        edn_clear_nodes(p);
        edn_lines_frame(L, p, L->pos);
        edn_skip_ws(p);
        L->pos = p->pos;
        if (p->pos >= p->end) {
            if (L->wrap == WRAP_OPEN) {
                edn_lines_frame(L, p, L->pos);
                /* Named at its '[': the end of a truncated file says little. */
                edn_set_line(p, L->wrap_line_start, L->len, L->wrap_line);
                return edn_error(p, PSI_ERR_SYNTAX, L->wrap_pos,
                                 "the history vector opened here is never closed: the input "
                                 "ends inside it (missing ']')");
            }
            return PSI_OK;
        }
        char c = p->buf[p->pos];
        edn_lines_frame(L, p, p->pos); /* errors below name this line */
        if (L->wrap == WRAP_UNKNOWN) {
            L->wrap = WRAP_NONE;
            if (c == '[') {
                L->wrap = WRAP_OPEN;
                L->wrap_pos = p->pos;
                L->wrap_line = L->line;
                L->wrap_line_start = L->line_start;
                L->pos = p->pos + 1;
                continue;
            }
        }
        if (L->wrap == WRAP_CLOSED) {
            char where[64];
            edn_parser q = *p;
            edn_set_line(&q, L->wrap_line_start, L->len, L->wrap_line);
            return edn_error(p, PSI_ERR_SYNTAX, p->pos,
                             "text after the ']' that closed the history vector opened at %s",
                             edn_where(&q, L->wrap_pos, where, sizeof where));
        }
        if (L->wrap == WRAP_OPEN && c == ']') {
            L->wrap = WRAP_CLOSED;
            L->pos = p->pos + 1;
            continue;
        }
        size_t at = p->pos;
        uint32_t v;
        psi_status st = edn_parse_value(p, &v);
        if (st != PSI_OK)
            return st;
        L->pos = p->pos;
        if (v == 0)
            continue; /* #_ discarded it */
        const edn_node *nd = &p->nodes[v];
        if (nd->kind == EDN_TAGGED && p->nodes[nd->child].kind == EDN_MAP)
            v = nd->child;
        else if (nd->kind != EDN_MAP)
            return edn_error(p, PSI_ERR_SYNTAX, nd->pos, "expected an operation map, found %s",
                             edn_kind_name(nd->kind));
        *root = v;
        *mark = (edn_mark){.line_start = L->line_start, .at = at, .end = p->pos, .line = L->line};
        return PSI_OK;
    }
}

psi_status edn_reparse(edn_parser *p, const edn_mark *mark, uint32_t *root)
{
    edn_set_line(p, mark->line_start, mark->end, mark->line);
    p->pos = mark->at;
    uint32_t v;
    psi_status st = edn_parse_value(p, &v);
    if (st != PSI_OK)
        return st;
    /* It parsed the first time: the same text gives the same map. */
    assert(v != 0);
    if (p->nodes[v].kind == EDN_TAGGED)
        v = p->nodes[v].child;
    assert(p->nodes[v].kind == EDN_MAP);
    *root = v;
    return PSI_OK;
}
