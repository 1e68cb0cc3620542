/* The layout of an EDN history file (see edn.h): one op map per line,
 *     {:type :invoke, :f :txn, :value [[:r 1 nil]], :process 0}
 *     {:type :ok, :f :txn, :value [[:r 1 3]], :process 0}
 * or the same lines inside one vector around the whole history, as
 * jepsen.history prints it:
 *     [{:type :invoke, ...}
 *      {:type :ok, ...}]
 * Blank lines, comments and discarded values (#_) between maps are
 * skipped. Each map must end on the line it starts on (Jepsen prints
 * newlines in strings as \n), so a truncated line is reported on that line
 * and the next line is read afresh. A reader of pretty-printed histories,
 * whose maps span lines, replaces this file; read_edn.c only asks for the
 * next map and, for a pending :invoke, the same map again. */
#include "formats/edn.h"

void edn_lines_init(edn_lines *L, const char *buf, size_t len)
{
    *L = (edn_lines){.it = {.buf = buf, .len = len, .pos = psi_input_bom(buf, len)}};
}

/* Parses the op map at p->pos into the arena (appending): *root is the map,
 * or 0 when the rest of the line is blank; *at is where it starts. Text
 * after it is the caller's business. */
static psi_status parse_map(edn_parser *p, uint32_t *root, size_t *at)
{
    *root = 0;
    uint32_t v = 0;
    for (;;) {
        edn_skip_ws(p);
        if (p->pos >= p->end)
            return PSI_OK; /* blank, comment, or only discarded values */
        *at = p->pos;
        psi_status st = edn_parse_value(p, &v);
        if (st != PSI_OK)
            return st;
        if (v)
            break;
    }
    const edn_node *nd = &p->nodes[v];
    /* A record such as #jepsen.history.Op{...} is the map it wraps. */
    if (nd->kind == EDN_TAGGED && p->nodes[nd->child].kind == EDN_MAP)
        v = nd->child;
    else if (nd->kind != EDN_MAP)
        return edn_error(p, PSI_ERR_SYNTAX, nd->pos,
                         "expected a map (one operation per line), found %s",
                         edn_kind_name(nd->kind));
    *root = v;
    return PSI_OK;
}

/* Parses the line the parser is on: *root is its op map, or 0 if it holds
 * none (blank, or only the history vector's '[' / ']'); *at is where the
 * map starts. Handles the optional vector around the whole history. */
static psi_status parse_line(edn_lines *L, edn_parser *p, uint32_t *root, size_t *at)
{
    *root = 0;
    edn_skip_ws(p);
    if (p->pos >= p->end)
        return PSI_OK; /* blank line */
    L->last_start = p->line_start;
    L->last_end = p->end;
    L->last_line = p->line;
    if (L->wrap == WRAP_UNKNOWN) {
        L->wrap = WRAP_NONE;
        if (p->buf[p->pos] == '[') {
            L->wrap = WRAP_OPEN;
            L->wrap_line = p->line;
            L->wrap_col = edn_column(p, p->pos);
            p->pos++;
        }
    }
    if (L->wrap == WRAP_CLOSED)
        return edn_error(p, PSI_ERR_SYNTAX, p->pos,
                         "text after the ']' that closed the history vector opened on line %llu",
                         (unsigned long long)L->wrap_line);
    psi_status st = PSI_OK;
    edn_skip_ws(p);
    *at = p->pos;
    if (!(L->wrap == WRAP_OPEN && p->pos < p->end && p->buf[p->pos] == ']'))
        st = parse_map(p, root, at);
    if (st != PSI_OK)
        return st;
    edn_skip_ws(p);
    if (L->wrap == WRAP_OPEN && p->pos < p->end && p->buf[p->pos] == ']') {
        L->wrap = WRAP_CLOSED;
        p->pos++;
        edn_skip_ws(p);
    }
    if (p->pos < p->end)
        return edn_error(p, PSI_ERR_SYNTAX, p->pos,
                         "unexpected text after the map (one map per line expected)");
    return PSI_OK;
}

psi_status edn_next_map(edn_lines *L, edn_parser *p, uint32_t *root, edn_mark *mark)
{
    *root = 0;
    size_t start, end;
    while (psi_next_line(&L->it, &start, &end)) {
        edn_clear_nodes(p);
        edn_set_line(p, start, end, L->it.line);
        size_t at = start;
        psi_status st = parse_line(L, p, root, &at);
        if (st != PSI_OK || *root) {
            *mark = (edn_mark){.line_start = start, .at = at, .end = end, .line = L->it.line};
            return st;
        }
    }
    if (L->wrap == WRAP_OPEN) {
        edn_set_line(p, L->last_start, L->last_end, L->last_line);
        return edn_error(p, PSI_ERR_SYNTAX, L->last_end,
                         "input ends inside the history vector opened at line %llu, column %llu "
                         "(missing ']')",
                         (unsigned long long)L->wrap_line, (unsigned long long)L->wrap_col);
    }
    return PSI_OK;
}

psi_status edn_reparse(edn_parser *p, const edn_mark *mark, uint32_t *root)
{
    edn_set_line(p, mark->line_start, mark->end, mark->line);
    p->pos = mark->at;
    size_t at;
    return parse_map(p, root, &at);
}
