/* The EDN value parser of the EDN reader (see edn.h): text between
 * p->pos and p->end (the rest of the input, as edn_lines.c frames it)
 * becomes a tree of nodes in the parser's arena, with no per-value malloc
 * and nothing copied out of the buffer. Values may span lines (pretty-
 * printed histories); newlines are whitespace. It is strict and complete for what
 * histories hold: maps, vectors, lists, sets, keywords, symbols, integers,
 * floats, strings, characters, nil/true/false, tagged literals (#inst
 * "...", #object[...], #jepsen.history.Op{...}), #_ discards, commas as
 * whitespace and ; comments. Nesting deeper than EDN_MAX_DEPTH is refused.
 * A value that is not closed by the end of the input is an error naming
 * where it was opened. Integers too large for 64 bits are kept (marked big) rather than
 * refused: only the reader knows whether the number is used.
 *
 * Places are a line and a column counted in characters (UTF-8 aware) from
 * 1. The parser knows the line of one place (p->line_start, the start of
 * the line the current op map starts on); the line of a later byte is
 * found by counting newlines, which only diagnostics do, so parsing never
 * tracks lines. */
#include "formats/edn.h"

#include "core/vec.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void edn_parser_init(edn_parser *p, const char *name, const char *buf, psi_diag *d)
{
    *p = (edn_parser){.buf = buf, .name = name, .d = d};
}

void edn_parser_free(edn_parser *p)
{
    free(p->nodes);
    p->nodes = NULL;
    free(p->scratch);
    p->scratch = NULL;
    p->cap_scratch = 0;
    p->n_nodes = p->cap_nodes = 0;
}

void edn_clear_nodes(edn_parser *p)
{
    p->n_nodes = 1; /* keep the sentinel */
}

/* Sets the parser's line context to [start, end) numbered `line`. */
void edn_set_line(edn_parser *p, size_t start, size_t end, uint64_t line)
{
    p->pos = p->line_start = start;
    p->end = end;
    p->line = line;
}

const char *edn_kind_name(uint8_t k)
{
    switch ((edn_kind)k) {
    case EDN_NIL:
        return "nil";
    case EDN_BOOL:
        return "a boolean";
    case EDN_INT:
        return "an integer";
    case EDN_FLOAT:
        return "a non-integer number";
    case EDN_STRING:
        return "a string";
    case EDN_CHAR:
        return "a character";
    case EDN_KEYWORD:
        return "a keyword";
    case EDN_SYMBOL:
        return "a symbol";
    case EDN_MAP:
        return "a map";
    case EDN_VECTOR:
        return "a vector";
    case EDN_LIST:
        return "a list";
    case EDN_SET:
        return "a set";
    case EDN_TAGGED:
        return "a tagged literal";
    }
    return "a value";
}

void edn_place(const edn_parser *p, size_t pos, uint64_t *line, uint64_t *col)
{
    assert(pos >= p->line_start);
    uint64_t ln = p->line;
    size_t start = p->line_start;
    for (size_t i = p->line_start; i < pos; i++)
        if (p->buf[i] == '\n') {
            ln++;
            start = i + 1;
        }
    uint64_t c = 1; /* characters, not bytes: continuation bytes do not count */
    for (size_t i = start; i < pos; i++)
        if (((unsigned char)p->buf[i] & 0xC0) != 0x80)
            c++;
    *line = ln;
    *col = c;
}

const char *edn_where(const edn_parser *p, size_t pos, char *buf, size_t cap)
{
    uint64_t line, col;
    edn_place(p, pos, &line, &col);
    snprintf(buf, cap, "line %llu, column %llu", (unsigned long long)line, (unsigned long long)col);
    return buf;
}

psi_status edn_error(const edn_parser *p, psi_status st, size_t pos, const char *fmt, ...)
{
    char msg[PSI_DIAG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    uint64_t line, col;
    edn_place(p, pos, &line, &col);
    return psi_diag_line(p->d, st, p->name, line, col, "%s", msg);
}

/* Character classes, by table: the tokenizer's inner loops test one byte
 * at a time. */
enum { C_WS = 1, C_DELIM = 2 };

static const unsigned char char_class[256] = {
    /* control characters end tokens (and are refused where a value starts) */
    [0x00] = C_DELIM,        [0x01] = C_DELIM,        [0x02] = C_DELIM,
    [0x03] = C_DELIM,        [0x04] = C_DELIM,        [0x05] = C_DELIM,
    [0x06] = C_DELIM,        [0x07] = C_DELIM,        [0x08] = C_DELIM,
    [0x0E] = C_DELIM,        [0x0F] = C_DELIM,        [0x10] = C_DELIM,
    [0x11] = C_DELIM,        [0x12] = C_DELIM,        [0x13] = C_DELIM,
    [0x14] = C_DELIM,        [0x15] = C_DELIM,        [0x16] = C_DELIM,
    [0x17] = C_DELIM,        [0x18] = C_DELIM,        [0x19] = C_DELIM,
    [0x1A] = C_DELIM,        [0x1B] = C_DELIM,        [0x1C] = C_DELIM,
    [0x1D] = C_DELIM,        [0x1E] = C_DELIM,        [0x1F] = C_DELIM,
    [0x0A] = C_WS | C_DELIM, [' '] = C_WS | C_DELIM,  [','] = C_WS | C_DELIM,
    ['\t'] = C_WS | C_DELIM, ['\r'] = C_WS | C_DELIM, ['\f'] = C_WS | C_DELIM,
    ['\v'] = C_WS | C_DELIM, ['('] = C_DELIM,         [')'] = C_DELIM,
    ['['] = C_DELIM,         [']'] = C_DELIM,         ['{'] = C_DELIM,
    ['}'] = C_DELIM,         ['"'] = C_DELIM,         [';'] = C_DELIM,
    ['\\'] = C_DELIM,
};

static bool is_ws(char c)
{
    return char_class[(unsigned char)c] & C_WS;
}

/* Ends a symbol, keyword or number token. */
static bool is_delim(char c)
{
    return char_class[(unsigned char)c] & C_DELIM;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

void edn_skip_ws(edn_parser *p)
{
    while (p->pos < p->end) {
        char c = p->buf[p->pos];
        if (is_ws(c))
            p->pos++;
        else if (c == ';') { /* comment to the end of the line */
            const char *nl = memchr(p->buf + p->pos, '\n', p->end - p->pos);
            p->pos = nl ? (size_t)(nl - p->buf) + 1 : p->end;
        } else
            break;
    }
}

static size_t token_end(const edn_parser *p, size_t from)
{
    while (from < p->end && !is_delim(p->buf[from]))
        from++;
    return from;
}

static psi_status new_node(edn_parser *p, edn_kind kind, size_t pos, size_t len, uint32_t *out)
{
    if (p->n_nodes >= UINT32_MAX)
        return edn_error(p, PSI_ERR_LIMIT, pos, "line holds too many EDN values");
    if (!psi_grow((void **)&p->nodes, &p->cap_nodes, p->n_nodes + 1, sizeof *p->nodes))
        return psi_diag_nomem(p->d, "parsing EDN");
    *out = (uint32_t)p->n_nodes;
    p->nodes[p->n_nodes++] = (edn_node){
        .pos = pos, .len = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len, .kind = (uint8_t)kind};
    return PSI_OK;
}

/* Numbers: integers ([+-]digits, 0x hex, optional N) become EDN_INT with
 * overflow noted rather than refused (see the file comment); decimals,
 * exponents, M and ratios become EDN_FLOAT; anything else is malformed. */
static psi_status parse_number(edn_parser *p, uint32_t *out)
{
    size_t start = p->pos, stop = token_end(p, start);
    const char *s = p->buf + start;
    size_t n = stop - start, i = 0;
    bool neg = false;
    if (s[0] == '+' || s[0] == '-') {
        neg = s[0] == '-';
        i = 1;
    }
    uint64_t mag = 0;
    bool big = false, ok = false, is_int = false;
    if (s[i] == '0' && i + 1 < n && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        size_t j = i + 2;
        for (; j < n && edn_hex_digit(s[j]) >= 0; j++) {
            if (mag > UINT64_MAX >> 4)
                big = true;
            mag = mag << 4 | (uint64_t)edn_hex_digit(s[j]);
        }
        ok = j > i + 2 && (j == n || (j + 1 == n && s[j] == 'N'));
        is_int = true;
    } else {
        const char *q = s + i;
        big = psi_input_u64(&q, s + n, &mag) == PSI_DIGITS_OVERFLOW;
        size_t j = (size_t)(q - s);
        if (j == n || (j + 1 == n && s[j] == 'N')) {
            if (s[i] == '0' && j - i > 1)
                return edn_error(p, PSI_ERR_SYNTAX, start,
                                 "malformed number '%.*s': EDN integers have no leading zeros",
                                 (int)(n > 40 ? 40 : n), s);
            ok = is_int = true;
        } else if (s[j] == '/') { /* ratio */
            size_t k = j + 1;
            while (k < n && is_digit(s[k]))
                k++;
            ok = k > j + 1 && k == n;
        } else {
            if (j < n && s[j] == '.')
                for (j++; j < n && is_digit(s[j]); j++)
                    ;
            if (j < n && (s[j] == 'e' || s[j] == 'E')) {
                j++;
                if (j < n && (s[j] == '+' || s[j] == '-'))
                    j++;
                size_t e = j;
                while (j < n && is_digit(s[j]))
                    j++;
                if (j == e)
                    j = n + 1; /* exponent without digits */
            }
            if (j < n && s[j] == 'M')
                j++;
            ok = j == n;
        }
    }
    if (!ok)
        return edn_error(p, PSI_ERR_SYNTAX, start, "malformed number '%.*s'",
                         (int)(n > 40 ? 40 : n), s);
    psi_status st = new_node(p, is_int ? EDN_INT : EDN_FLOAT, start, n, out);
    if (st != PSI_OK)
        return st;
    edn_node *nd = &p->nodes[*out];
    nd->u = big ? 0 : mag;
    nd->neg = neg;
    nd->big = big;
    p->pos = stop;
    return PSI_OK;
}

size_t edn_utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
    if (len == 0 || c > 0xF4 || c == 0xC0 || c == 0xC1 || n < len)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F) || (c == 0xF0 && s[1] < 0x90) ||
        (c == 0xF4 && s[1] > 0x8F))
        return 0;
    return len;
}

static psi_status parse_string(edn_parser *p, uint32_t *out)
{
    size_t start = p->pos, i = start + 1;
    while (i < p->end) {
        unsigned char c = (unsigned char)p->buf[i];
        if (c == '"') {
            p->pos = i + 1;
            return new_node(p, EDN_STRING, start, i + 1 - start, out);
        }
        if (c == '\\') {
            if (i + 1 >= p->end)
                break;
            char e = p->buf[i + 1];
            if (e == 'u') {
                for (size_t k = 2; k < 6; k++)
                    if (i + k >= p->end || edn_hex_digit(p->buf[i + k]) < 0)
                        return edn_error(
                            p, PSI_ERR_SYNTAX, i,
                            "malformed \\u escape in string: four hex digits expected");
                i += 6;
            } else if (strchr("\"\\ntrbf", e) && e != '\0') {
                i += 2;
            } else if (e >= '0' && e <= '7') { /* octal, as the Clojure reader allows */
                size_t k = i + 1;
                while (k < p->end && k < i + 4 && p->buf[k] >= '0' && p->buf[k] <= '7')
                    k++;
                i = k;
            } else {
                return edn_error(p, PSI_ERR_SYNTAX, i, "invalid escape '\\%c' in string",
                                 (unsigned char)e >= 0x20 ? e : '?');
            }
        } else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            return edn_error(p, PSI_ERR_SYNTAX, i, "control character (byte 0x%02x) in string", c);
        } else if (c >= 0x80) {
            /* EDN text is UTF-8; a history that is not is damaged. */
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

static psi_status parse_value(edn_parser *p, unsigned depth, uint32_t *out);

/* Parses values until one is not discarded by #_; errors at the input's end. */
static psi_status parse_next_value(edn_parser *p, unsigned depth, const char *after,
                                   size_t after_pos, uint32_t *out)
{
    for (;;) {
        edn_skip_ws(p);
        if (p->pos >= p->end)
            return edn_error(p, PSI_ERR_SYNTAX, after_pos,
                             "the input ends where a value was expected after %s", after);
        psi_status st = parse_value(p, depth, out);
        if (st != PSI_OK || *out != 0)
            return st;
    }
}

static psi_status parse_coll(edn_parser *p, unsigned depth, edn_kind kind, size_t open_pos,
                             char closer, uint32_t *out)
{
    uint32_t self, last = 0, count = 0;
    psi_status st = new_node(p, kind, open_pos, 1, &self);
    if (st != PSI_OK)
        return st;
    for (;;) {
        edn_skip_ws(p);
        if (p->pos >= p->end)
            return edn_error(p, PSI_ERR_SYNTAX, open_pos,
                             "%s opened here is never closed: the input ends inside it "
                             "(missing '%c')",
                             edn_kind_name((uint8_t)kind), closer);
        char c = p->buf[p->pos];
        if (c == closer) {
            char where[64];
            if (kind == EDN_MAP && count % 2)
                return edn_error(p, PSI_ERR_SYNTAX, p->pos,
                                 "map opened at %s has a key without a value",
                                 edn_where(p, open_pos, where, sizeof where));
            p->pos++;
            break;
        }
        if (c == ')' || c == ']' || c == '}') {
            char where[64];
            return edn_error(
                p, PSI_ERR_SYNTAX, p->pos, "'%c' cannot close %s opened at %s (expected '%c')", c,
                edn_kind_name((uint8_t)kind), edn_where(p, open_pos, where, sizeof where), closer);
        }
        uint32_t child;
        st = parse_value(p, depth + 1, &child);
        if (st != PSI_OK)
            return st;
        if (child == 0)
            continue; /* #_ discarded it */
        if (last)
            p->nodes[last].next = child;
        else
            p->nodes[self].child = child;
        last = child;
        count++;
    }
    p->nodes[self].count = count;
    *out = self;
    return PSI_OK;
}

/* '#' dispatch: #{set}, #_discard, ##Inf, #"regex", #'var, #:ns{map},
 * #tag value. */
static psi_status parse_dispatch(edn_parser *p, unsigned depth, uint32_t *out)
{
    size_t start = p->pos;
    if (start + 1 >= p->end)
        return edn_error(p, PSI_ERR_SYNTAX, start, "the input ends after '#'");
    char c = p->buf[start + 1];
    psi_status st;
    if (c == '{') {
        p->pos = start + 2;
        return parse_coll(p, depth, EDN_SET, start, '}', out);
    }
    if (c == '_') {
        p->pos = start + 2;
        size_t mark = p->n_nodes;
        uint32_t ignored;
        st = parse_next_value(p, depth + 1, "#_", start, &ignored);
        p->n_nodes = mark; /* drop what was discarded */
        *out = 0;
        return st;
    }
    if (c == '#') { /* ##Inf ##-Inf ##NaN */
        size_t stop = token_end(p, start + 2);
        if (stop == start + 2)
            return edn_error(p, PSI_ERR_SYNTAX, start, "'##' without a symbolic value");
        p->pos = stop;
        return new_node(p, EDN_FLOAT, start, stop - start, out);
    }
    if (c == '"') { /* regex: a string for our purposes */
        p->pos = start + 1;
        return parse_string(p, out);
    }
    if (c == '\'') {
        size_t stop = token_end(p, start + 2);
        p->pos = stop;
        return new_node(p, EDN_SYMBOL, start, stop - start, out);
    }
    if (c == ':') { /* namespaced map #:ns{...}: a map as written */
        size_t stop = token_end(p, start + 2);
        p->pos = stop;
        edn_skip_ws(p);
        if (p->pos >= p->end || p->buf[p->pos] != '{')
            return edn_error(p, PSI_ERR_SYNTAX, p->pos, "expected '{' after '#:' namespace");
        size_t open = p->pos++;
        return parse_coll(p, depth, EDN_MAP, open, '}', out);
    }
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
        size_t stop = token_end(p, start + 1);
        uint32_t self, val;
        st = new_node(p, EDN_TAGGED, start, stop - start, &self);
        if (st != PSI_OK)
            return st;
        p->pos = stop;
        st = parse_next_value(p, depth + 1, "the tag", start, &val);
        if (st != PSI_OK)
            return st;
        p->nodes[self].child = val;
        p->nodes[self].count = 1;
        *out = self;
        return PSI_OK;
    }
    return edn_error(p, PSI_ERR_SYNTAX, start, "unsupported dispatch '#%c'",
                     (unsigned char)c >= 0x20 ? c : '?');
}

/* Parses one value at p->pos (not at the line's end). *out is 0 when the
 * value was a #_ discard. */
static psi_status parse_value(edn_parser *p, unsigned depth, uint32_t *out)
{
    size_t start = p->pos;
    char c = p->buf[start];
    *out = 0;
    if (depth >= EDN_MAX_DEPTH)
        return edn_error(p, PSI_ERR_LIMIT, start, "values nested more than %d deep", EDN_MAX_DEPTH);
    switch (c) {
    case '{':
        p->pos++;
        return parse_coll(p, depth, EDN_MAP, start, '}', out);
    case '[':
        p->pos++;
        return parse_coll(p, depth, EDN_VECTOR, start, ']', out);
    case '(':
        p->pos++;
        return parse_coll(p, depth, EDN_LIST, start, ')', out);
    case '#':
        return parse_dispatch(p, depth, out);
    case '"':
        return parse_string(p, out);
    case ')':
    case ']':
    case '}':
        return edn_error(p, PSI_ERR_SYNTAX, start, "unexpected '%c'", c);
    case '\\': {
        if (start + 1 >= p->end)
            return edn_error(p, PSI_ERR_SYNTAX, start, "the input ends after '\\'");
        size_t stop = token_end(p, start + 2);
        p->pos = stop;
        return new_node(p, EDN_CHAR, start, stop - start, out);
    }
    case ':': {
        size_t stop = token_end(p, start + 1);
        if (stop == start + 1)
            return edn_error(p, PSI_ERR_SYNTAX, start, "':' without a keyword name");
        p->pos = stop;
        return new_node(p, EDN_KEYWORD, start, stop - start, out);
    }
    default:
        break;
    }
    if ((unsigned char)c < 0x20)
        return edn_error(p, PSI_ERR_SYNTAX, start, "unexpected control character (byte 0x%02x)",
                         (unsigned char)c);
    if (is_digit(c) ||
        ((c == '+' || c == '-') && start + 1 < p->end && is_digit(p->buf[start + 1])))
        return parse_number(p, out);
    size_t stop = token_end(p, start);
    size_t n = stop - start;
    const char *s = p->buf + start;
    p->pos = stop;
    if (n == 3 && memcmp(s, "nil", 3) == 0)
        return new_node(p, EDN_NIL, start, n, out);
    if ((n == 4 && memcmp(s, "true", 4) == 0) || (n == 5 && memcmp(s, "false", 5) == 0)) {
        psi_status st = new_node(p, EDN_BOOL, start, n, out);
        if (st == PSI_OK)
            p->nodes[*out].u = n == 4;
        return st;
    }
    return new_node(p, EDN_SYMBOL, start, n, out);
}

psi_status edn_parse_value(edn_parser *p, uint32_t *out)
{
    if (p->json)
        return json_parse_value(p, out);
    return parse_value(p, 0, out);
}
