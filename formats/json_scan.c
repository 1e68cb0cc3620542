/* Jepsen JSON histories (formats.md, README "Formats"): the same operations
 * as the EDN reader's, written as JSON objects,
 *     {"type":"ok","f":"txn","value":[["w","x",2]],"process":0,"index":2}
 * one object per line (JSON Lines) or all of them in one top-level array,
 * pretty-printed or not.
 *
 * This file is the JSON counterpart of edn_scan.c + edn_lines.c: it parses
 * JSON text into the same node tree (object -> EDN_MAP whose keys are
 * EDN_STRING nodes, array -> EDN_VECTOR, string -> EDN_STRING, integer ->
 * EDN_INT, other numbers -> EDN_FLOAT, null -> EDN_NIL, true/false ->
 * EDN_BOOL), so read_edn.c interprets the operations unchanged: with
 * p->json set, edn_keyword_is takes the string "type" for the keyword
 * :type (edn.h). Strings are kept as their text in the buffer, quotes
 * included, like EDN strings; they are validated here (escapes, UTF-8,
 * control characters), not decoded.
 *
 * It is strict JSON (RFC 8259): no comments, no trailing commas, no
 * leading zeros, keys are strings. Nesting deeper than EDN_MAX_DEPTH is
 * refused. Every error names its line and column (characters, from 1). */
#include "formats/edn.h"

#include "core/vec.h"

#include <assert.h>
#include <stdio.h>

static bool json_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void skip_ws(edn_parser *p)
{
    while (p->pos < p->end && json_ws(p->buf[p->pos]))
        p->pos++;
}

static psi_status node(edn_parser *p, edn_kind kind, size_t pos, size_t len, uint32_t *out)
{
    if (p->n_nodes >= UINT32_MAX)
        return edn_error(p, PSI_ERR_LIMIT, pos, "operation holds too many JSON values");
    if (!psi_grow((void **)&p->nodes, &p->cap_nodes, p->n_nodes + 1, sizeof *p->nodes))
        return psi_diag_nomem(p->d, "parsing JSON");
    *out = (uint32_t)p->n_nodes;
    p->nodes[p->n_nodes++] = (edn_node){
        .pos = pos, .len = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len, .kind = (uint8_t)kind};
    return PSI_OK;
}

/* What is at byte pos, for "found ..." in messages. */
static const char *found(const edn_parser *p, size_t pos, char *buf, size_t cap)
{
    if (pos >= p->end)
        return "the end of the input";
    unsigned char c = (unsigned char)p->buf[pos];
    if (c >= 0x20 && c < 0x7F)
        snprintf(buf, cap, "'%c'", c);
    else
        snprintf(buf, cap, "byte 0x%02x", c);
    return buf;
}

/* The four hex digits of a \u escape at s (i is the backslash), or -1. */
static long u_escape(const edn_parser *p, size_t i)
{
    if (i + 6 > p->end || p->buf[i + 1] != 'u')
        return -1;
    long v = 0;
    for (size_t k = 2; k < 6; k++) {
        int h = edn_hex_digit(p->buf[i + k]);
        if (h < 0)
            return -1;
        v = v << 4 | h;
    }
    return v;
}

static psi_status parse_string(edn_parser *p, uint32_t *out)
{
    size_t start = p->pos, i = start + 1;
    bool esc = false;
    while (i < p->end) {
        unsigned char c = (unsigned char)p->buf[i];
        if (c == '"') {
            p->pos = i + 1;
            psi_status st = node(p, EDN_STRING, start, i + 1 - start, out);
            if (st == PSI_OK)
                p->nodes[*out].esc = esc;
            return st;
        }
        if (c == '\\') {
            esc = true;
            if (i + 1 >= p->end)
                break;
            char e = p->buf[i + 1];
            if (e == 'u') {
                long u = u_escape(p, i);
                if (u < 0)
                    return edn_error(p, PSI_ERR_SYNTAX, i,
                                     "malformed \\u escape in string: four hex digits expected");
                if (u >= 0xDC00 && u <= 0xDFFF)
                    return edn_error(p, PSI_ERR_SYNTAX, i,
                                     "\\u%04lX is a low surrogate without a high one before it",
                                     (unsigned long)u);
                if (u >= 0xD800 && u <= 0xDBFF) {
                    long lo = u_escape(p, i + 6);
                    if (lo < 0xDC00 || lo > 0xDFFF)
                        return edn_error(p, PSI_ERR_SYNTAX, i,
                                         "\\u%04lX is a high surrogate not followed by a low "
                                         "one (\\uDC00-\\uDFFF)",
                                         (unsigned long)u);
                    i += 6;
                }
                i += 6;
            } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' ||
                       e == 'r' || e == 't') {
                i += 2;
            } else {
                return edn_error(p, PSI_ERR_SYNTAX, i,
                                 "invalid escape '\\%c' in string (JSON has \\\" \\\\ \\/ \\b "
                                 "\\f \\n \\r \\t \\uXXXX)",
                                 (unsigned char)e >= 0x20 && (unsigned char)e < 0x7F ? e : '?');
            }
        } else if (c < 0x20) {
            return edn_error(p, PSI_ERR_SYNTAX, i,
                             "control character (byte 0x%02x) in string: JSON needs it escaped%s",
                             c, c == '\n' ? " (is the string closed?)" : "");
        } else if (c >= 0x80) {
            size_t n = edn_utf8_len((const unsigned char *)p->buf + i, p->end - i);
            if (n == 0)
                return edn_error(p, PSI_ERR_SYNTAX, i, "invalid UTF-8 (byte 0x%02x) in string", c);
            i += n;
        } else {
            i++;
        }
    }
    return edn_error(p, PSI_ERR_SYNTAX, start,
                     "string never closed: the input ends inside it (missing '\"')");
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?: integers become EDN_INT
 * (magnitude, sign, `big` when it does not fit 64 bits: only the reader
 * knows whether the number is used), the others EDN_FLOAT. */
static psi_status parse_number(edn_parser *p, uint32_t *out)
{
    size_t start = p->pos, i = start;
    const char *s = p->buf;
    bool neg = s[i] == '-';
    if (neg)
        i++;
    if (i >= p->end || s[i] < '0' || s[i] > '9')
        return edn_error(p, PSI_ERR_SYNTAX, start, "malformed number: a digit must follow '-'");
    const char *q = s + i;
    uint64_t mag = 0;
    bool big = psi_input_u64(&q, s + p->end, &mag) == PSI_DIGITS_OVERFLOW;
    size_t j = (size_t)(q - s);
    if (s[i] == '0' && j - i > 1)
        return edn_error(p, PSI_ERR_SYNTAX, start, "malformed number: JSON has no leading zeros");
    bool is_int = true;
    if (j < p->end && s[j] == '.') {
        is_int = false;
        size_t k = ++j;
        while (j < p->end && s[j] >= '0' && s[j] <= '9')
            j++;
        if (j == k)
            return edn_error(p, PSI_ERR_SYNTAX, start,
                             "malformed number: a digit must follow the decimal point");
    }
    if (j < p->end && (s[j] == 'e' || s[j] == 'E')) {
        is_int = false;
        j++;
        if (j < p->end && (s[j] == '+' || s[j] == '-'))
            j++;
        size_t k = j;
        while (j < p->end && s[j] >= '0' && s[j] <= '9')
            j++;
        if (j == k)
            return edn_error(p, PSI_ERR_SYNTAX, start,
                             "malformed number: the exponent has no digits");
    }
    psi_status st = node(p, is_int ? EDN_INT : EDN_FLOAT, start, j - start, out);
    if (st != PSI_OK)
        return st;
    edn_node *nd = &p->nodes[*out];
    nd->u = big || !is_int ? 0 : mag;
    nd->neg = neg;
    nd->big = is_int && big;
    p->pos = j;
    return PSI_OK;
}

static psi_status parse_value(edn_parser *p, unsigned depth, uint32_t *out);

/* An object or an array; p->pos is at its '{' or '['. */
static psi_status parse_coll(edn_parser *p, unsigned depth, bool object, uint32_t *out)
{
    size_t open = p->pos;
    char closer = object ? '}' : ']';
    const char *what = object ? "object" : "array";
    uint32_t self, last = 0, count = 0;
    psi_status st = node(p, object ? EDN_MAP : EDN_VECTOR, open, 1, &self);
    if (st != PSI_OK)
        return st;
    p->pos++;
    skip_ws(p);
    bool empty = p->pos < p->end && p->buf[p->pos] == closer;
    while (!empty) {
        skip_ws(p);
        if (p->pos >= p->end)
            break;
        uint32_t child;
        if (object) {
            if (p->buf[p->pos] != '"') {
                char f[16];
                return edn_error(p, PSI_ERR_SYNTAX, p->pos,
                                 "expected a key (a string in double quotes) in the object, "
                                 "found %s",
                                 found(p, p->pos, f, sizeof f));
            }
            if ((st = parse_string(p, &child)) != PSI_OK)
                return st;
            if (last)
                p->nodes[last].next = child;
            else
                p->nodes[self].child = child;
            last = child;
            count++;
            skip_ws(p);
            if (p->pos >= p->end)
                break;
            if (p->buf[p->pos] != ':') {
                char f[16];
                return edn_error(p, PSI_ERR_SYNTAX, p->pos,
                                 "expected ':' after the object's key, found %s",
                                 found(p, p->pos, f, sizeof f));
            }
            p->pos++;
            skip_ws(p);
            if (p->pos >= p->end)
                break;
        }
        if ((st = parse_value(p, depth + 1, &child)) != PSI_OK)
            return st;
        if (last)
            p->nodes[last].next = child;
        else
            p->nodes[self].child = child;
        last = child;
        count++;
        skip_ws(p);
        if (p->pos >= p->end)
            break;
        char c = p->buf[p->pos];
        if (c == closer)
            break;
        if (c != ',') {
            char f[16], where[64];
            return edn_error(p, PSI_ERR_SYNTAX, p->pos,
                             "expected ',' or '%c' in the %s opened at %s, found %s", closer, what,
                             edn_where(p, open, where, sizeof where),
                             found(p, p->pos, f, sizeof f));
        }
        p->pos++;
        skip_ws(p);
        if (p->pos < p->end && p->buf[p->pos] == closer)
            return edn_error(p, PSI_ERR_SYNTAX, p->pos,
                             "'%c' after ',': JSON has no trailing commas", closer);
    }
    if (p->pos >= p->end)
        return edn_error(p, PSI_ERR_SYNTAX, open,
                         "%s opened here is never closed: the input ends inside it "
                         "(missing '%c')",
                         object ? "an object" : "an array", closer);
    p->pos++; /* the closer */
    p->nodes[self].count = count;
    *out = self;
    return PSI_OK;
}

static psi_status parse_value(edn_parser *p, unsigned depth, uint32_t *out)
{
    size_t start = p->pos;
    assert(start < p->end);
    char c = p->buf[start];
    *out = 0;
    if (depth >= EDN_MAX_DEPTH)
        return edn_error(p, PSI_ERR_LIMIT, start, "values nested more than %d deep", EDN_MAX_DEPTH);
    if (c == '{' || c == '[')
        return parse_coll(p, depth, c == '{', out);
    if (c == '"')
        return parse_string(p, out);
    if (c == '-' || (c >= '0' && c <= '9'))
        return parse_number(p, out);
    static const struct {
        const char *text;
        edn_kind kind;
        uint64_t u;
    } words[] = {{"null", EDN_NIL, 0}, {"true", EDN_BOOL, 1}, {"false", EDN_BOOL, 0}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t n = strlen(words[i].text);
        if (p->end - start >= n && memcmp(p->buf + start, words[i].text, n) == 0) {
            psi_status st = node(p, words[i].kind, start, n, out);
            if (st == PSI_OK)
                p->nodes[*out].u = words[i].u;
            p->pos = start + n;
            return st;
        }
    }
    char f[16];
    return edn_error(p, PSI_ERR_SYNTAX, start,
                     "expected a JSON value (object, array, string, number, true, false or "
                     "null), found %s",
                     found(p, start, f, sizeof f));
}

psi_status json_parse_value(edn_parser *p, uint32_t *out)
{
    assert(p->json);
    return parse_value(p, 0, out);
}

/* ---- The history's layout ---- */

psi_status json_next_map(edn_lines *L, edn_parser *p, uint32_t *root, edn_mark *mark)
{
    *root = 0;
    edn_clear_nodes(p);
    edn_lines_frame(L, p, L->pos);
    skip_ws(p);
    if (L->wrap == WRAP_UNKNOWN) {
        L->wrap = WRAP_NONE;
        if (p->pos < p->end && p->buf[p->pos] == '[') {
            edn_lines_frame(L, p, p->pos);
            L->wrap = WRAP_OPEN;
            L->wrap_pos = p->pos;
            L->wrap_line = L->line;
            L->wrap_line_start = L->line_start;
            p->pos++;
            skip_ws(p);
            if (p->pos < p->end && p->buf[p->pos] == ']') {
                p->pos++;
                L->wrap = WRAP_CLOSED;
                skip_ws(p);
            }
        }
    } else if (L->wrap == WRAP_OPEN) {
        /* After an element of the history array: ',' or ']'. */
        if (p->pos < p->end && p->buf[p->pos] == ']') {
            p->pos++;
            L->wrap = WRAP_CLOSED;
            skip_ws(p);
        } else if (p->pos < p->end && p->buf[p->pos] == ',') {
            p->pos++;
            skip_ws(p);
            if (p->pos < p->end && p->buf[p->pos] == ']') {
                edn_lines_frame(L, p, p->pos);
                return edn_error(p, PSI_ERR_SYNTAX, p->pos,
                                 "']' after ',': JSON has no trailing commas");
            }
        } else if (p->pos < p->end) {
            char f[16];
            size_t at = p->pos;
            edn_lines_frame(L, p, at);
            return edn_error(p, PSI_ERR_SYNTAX, at,
                             "expected ',' or ']' between the operations of the history array, "
                             "found %s",
                             found(p, at, f, sizeof f));
        }
    }
    L->pos = p->pos;
    if (p->pos >= p->end) {
        if (L->wrap == WRAP_OPEN) {
            /* Named at its '[': the end of a truncated file says little. */
            edn_set_line(p, L->wrap_line_start, L->len, L->wrap_line);
            return edn_error(p, PSI_ERR_SYNTAX, L->wrap_pos,
                             "the history array opened here is never closed: the input ends "
                             "inside it (missing ']')");
        }
        return PSI_OK;
    }
    size_t at = p->pos;
    edn_lines_frame(L, p, at); /* errors below name this line */
    if (L->wrap == WRAP_CLOSED) {
        char where[64];
        edn_parser q = *p;
        edn_set_line(&q, L->wrap_line_start, L->len, L->wrap_line);
        return edn_error(p, PSI_ERR_SYNTAX, at,
                         "text after the ']' that closed the history array opened at %s",
                         edn_where(&q, L->wrap_pos, where, sizeof where));
    }
    uint32_t v;
    psi_status st = parse_value(p, 0, &v);
    if (st != PSI_OK)
        return st;
    if (p->nodes[v].kind != EDN_MAP)
        return edn_error(p, PSI_ERR_SYNTAX, at, "expected an operation object, found %s",
                         p->nodes[v].kind == EDN_VECTOR ? "an array"
                                                        : edn_kind_name(p->nodes[v].kind));
    L->pos = p->pos;
    *root = v;
    *mark = (edn_mark){.line_start = L->line_start, .at = at, .end = p->pos, .line = L->line};
    return PSI_OK;
}
