/* Reader for Jepsen / Elle EDN histories (formats.md §4): one EDN map per
 * line, e.g.
 *     {:type :ok, :f :txn, :value [[:r 1 nil] [:w 1 3]], :process 2, :index 7}
 *
 * Two layers. A small strict EDN parser turns one line into a tree of nodes
 * kept in a per-line arena (indices, no per-value malloc, nothing copied out
 * of the buffer); it knows maps, vectors, lists, sets, keywords, symbols,
 * integers, floats, strings, characters, nil/true/false, tagged literals
 * (#inst "...", #object[...], #jepsen.history.Op{...}), #_ discards, commas
 * as whitespace and ; comments, and refuses nesting deeper than
 * EDN_MAX_DEPTH. Above it, the history layer interprets op maps.
 *
 * The whole history may also be one EDN vector with one map per line,
 *     [{:type :invoke, ...}
 *      {:type :ok, ...}]
 * as jepsen.history prints it.
 *
 * Interpretation (each choice is deliberate; tests/edn/ pins them down):
 * - Keys used: :type, :f, :process, :value, :index; any other key is ignored.
 *   A map without :type or :process is an error.
 * - :f other than :txn (nemesis ops, :read/:write single-register ops...) and
 *   a :process that is a name (keyword, symbol or string: :nemesis, named
 *   processes) make the line skipped. A missing :f counts as :txn. Any
 *   other non-integer :process (1.5, nil, a collection) is an error: such a
 *   transaction is neither a session's nor something to skip.
 * - :process is the session. :invoke announces an operation; the next
 *   completion of the same process completes it, and the completion's :value
 *   is used (values filled in). :ok -> committed, :fail -> aborted, :info ->
 *   PSI_TXN_UNKNOWN. An :invoke never completed by the end of the input is
 *   treated like :info. A completion without an invoke is accepted (some
 *   histories hold only completions). A process that invokes again while its
 *   previous operation is pending is an error.
 * - :info reads are unknown (the invoke's nil means "not known", not
 *   "initial"), so every read of an :info transaction is dropped and its
 *   writes are kept. For :fail, reads with a nil value are dropped for the
 *   same reason (the client usually returns the invoke's value); reads with
 *   a value are kept. If a :fail/:info completion has no :value (or nil), the
 *   invoke's :value is used.
 * - Micro-ops: [:r k v] (v nil: initial value, PSI_OPF_INIT, also in
 *   list-append histories, where it means the same as []; v a vector or
 *   list: a list-append read, [] being the initial empty list), [:w k v],
 *   [:append k v] (a write with PSI_OPF_APPEND). Any other micro-op (:cas,
 *   :inc, ...) is refused with its place, never dropped.
 * - Keys and values are non-negative integers up to 2^64-1 (hex 0x.. and a
 *   trailing N accepted). Negative numbers, strings and keywords are refused
 *   with their place: hashing them would make collisions possible.
 *   Integers too large for 64 bits are errors only where a number is used
 *   (an ignored field such as a huge :time is legal EDN and ignored).
 * - Transaction ids: every transaction's :index (of its completion, or of
 *   its invoke if never completed) when all have one and they are unique;
 *   otherwise the line numbers. txn.src is the line its values came from
 *   (the completion's, or the invoke's if never completed).
 * - An input without any transaction (no map at all, or only nemesis and
 *   other non-:txn ops) is refused as an empty history, as in every format.
 * - Each value must end on the line it starts on (Jepsen prints newlines in
 *   strings as \n), so a truncated line is reported on that line.
 * Columns in diagnostics count characters (UTF-8 aware) from 1. */
#include "formats/read.h"

#include "core/vec.h"

#include <Judy.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EDN_MAX_DEPTH = 100 };

typedef enum edn_kind {
    EDN_NIL,
    EDN_BOOL,
    EDN_INT,
    EDN_FLOAT,
    EDN_STRING,
    EDN_CHAR,
    EDN_KEYWORD,
    EDN_SYMBOL,
    EDN_MAP,
    EDN_VECTOR,
    EDN_LIST,
    EDN_SET,
    EDN_TAGGED,
} edn_kind;

/* One parsed value. Nodes refer to each other by index into the arena;
 * index 0 is a sentinel, so 0 means "none". */
typedef struct edn_node {
    uint64_t u;     /* EDN_INT: magnitude; EDN_BOOL: 1 for true */
    size_t pos;     /* offset of the value's first byte in the buffer */
    uint32_t len;   /* atoms: length of the text (capped; for messages) */
    uint32_t next;  /* next sibling in the enclosing collection */
    uint32_t child; /* collections and tagged values: first child */
    uint32_t count; /* collections: number of children */
    uint8_t kind;   /* edn_kind */
    uint8_t neg;    /* EDN_INT: written with '-' */
    uint8_t big;    /* EDN_INT: magnitude does not fit 64 bits */
} edn_node;

typedef struct edn_parser {
    const char *buf;
    const char *name; /* for diagnostics */
    psi_diag *d;
    size_t pos, end;   /* cursor and end of the current line */
    size_t line_start; /* offset of the current line's first byte */
    uint64_t line;     /* 1-based */
    edn_node *nodes;
    size_t n_nodes, cap_nodes;
} edn_parser;

static const char *kind_name(uint8_t k)
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

/* Characters, not bytes: UTF-8 continuation bytes do not start a column. */
static uint64_t column(const edn_parser *p, size_t pos)
{
    uint64_t col = 1;
    for (size_t i = p->line_start; i < pos; i++)
        if (((unsigned char)p->buf[i] & 0xC0) != 0x80)
            col++;
    return col;
}

static psi_status perr(const edn_parser *p, psi_status st, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static psi_status perr(const edn_parser *p, psi_status st, size_t pos, const char *fmt, ...)
{
    char msg[PSI_DIAG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return psi_diag_line(p->d, st, p->name, p->line, column(p, pos), "%s", msg);
}

/* Text of a node for messages: at most 40 bytes. */
#define NODE_TEXT(p, n) (int)((n)->len > 40 ? 40 : (n)->len), (p)->buf + (n)->pos

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
    [0x0A] = C_DELIM,        [' '] = C_WS | C_DELIM,  [','] = C_WS | C_DELIM,
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

static int hex_val(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static void skip_ws(edn_parser *p)
{
    while (p->pos < p->end) {
        char c = p->buf[p->pos];
        if (is_ws(c))
            p->pos++;
        else if (c == ';')
            p->pos = p->end; /* comment to the end of the line */
        else
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
        return perr(p, PSI_ERR_LIMIT, pos, "line holds too many EDN values");
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
        for (; j < n && hex_val(s[j]) >= 0; j++) {
            if (mag > UINT64_MAX >> 4)
                big = true;
            mag = mag << 4 | (uint64_t)hex_val(s[j]);
        }
        ok = j > i + 2 && (j == n || (j + 1 == n && s[j] == 'N'));
        is_int = true;
    } else {
        size_t j = i;
        for (; j < n && is_digit(s[j]); j++) {
            uint64_t dgt = (uint64_t)(s[j] - '0');
            if (mag > (UINT64_MAX - dgt) / 10)
                big = true;
            mag = mag * 10 + dgt;
        }
        if (j == n || (j + 1 == n && s[j] == 'N')) {
            if (s[i] == '0' && j - i > 1)
                return perr(p, PSI_ERR_SYNTAX, start,
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
        return perr(p, PSI_ERR_SYNTAX, start, "malformed number '%.*s'", (int)(n > 40 ? 40 : n), s);
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
                    if (i + k >= p->end || hex_val(p->buf[i + k]) < 0)
                        return perr(p, PSI_ERR_SYNTAX, i,
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
                return perr(p, PSI_ERR_SYNTAX, i, "invalid escape '\\%c' in string",
                            (unsigned char)e >= 0x20 ? e : '?');
            }
        } else if (c < 0x20 && c != '\t') {
            return perr(p, PSI_ERR_SYNTAX, i, "control character (byte 0x%02x) in string", c);
        } else {
            i++;
        }
    }
    return perr(p, PSI_ERR_SYNTAX, p->end,
                "line ends inside the string opened at column %llu (missing '\"')",
                (unsigned long long)column(p, start));
}

static psi_status parse_value(edn_parser *p, unsigned depth, uint32_t *out);

/* Parses values until one is not discarded by #_; errors at the line's end. */
static psi_status parse_next_value(edn_parser *p, unsigned depth, const char *after,
                                   size_t after_pos, uint32_t *out)
{
    for (;;) {
        skip_ws(p);
        if (p->pos >= p->end)
            return perr(p, PSI_ERR_SYNTAX, p->end,
                        "line ends where a value was expected after %s at column %llu", after,
                        (unsigned long long)column(p, after_pos));
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
        skip_ws(p);
        if (p->pos >= p->end)
            return perr(p, PSI_ERR_SYNTAX, p->end,
                        "line ends inside %s opened at column %llu (missing '%c')",
                        kind_name((uint8_t)kind), (unsigned long long)column(p, open_pos), closer);
        char c = p->buf[p->pos];
        if (c == closer) {
            if (kind == EDN_MAP && count % 2)
                return perr(p, PSI_ERR_SYNTAX, p->pos,
                            "map opened at column %llu has a key without a value",
                            (unsigned long long)column(p, open_pos));
            p->pos++;
            break;
        }
        if (c == ')' || c == ']' || c == '}')
            return perr(p, PSI_ERR_SYNTAX, p->pos,
                        "'%c' cannot close %s opened at column %llu (expected '%c')", c,
                        kind_name((uint8_t)kind), (unsigned long long)column(p, open_pos), closer);
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
        return perr(p, PSI_ERR_SYNTAX, start, "line ends after '#'");
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
            return perr(p, PSI_ERR_SYNTAX, start, "'##' without a symbolic value");
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
        skip_ws(p);
        if (p->pos >= p->end || p->buf[p->pos] != '{')
            return perr(p, PSI_ERR_SYNTAX, p->pos, "expected '{' after '#:' namespace");
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
    return perr(p, PSI_ERR_SYNTAX, start, "unsupported dispatch '#%c'",
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
        return perr(p, PSI_ERR_LIMIT, start, "values nested more than %d deep", EDN_MAX_DEPTH);
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
        return perr(p, PSI_ERR_SYNTAX, start, "unexpected '%c'", c);
    case '\\': {
        if (start + 1 >= p->end)
            return perr(p, PSI_ERR_SYNTAX, start, "line ends after '\\'");
        size_t stop = token_end(p, start + 2);
        p->pos = stop;
        return new_node(p, EDN_CHAR, start, stop - start, out);
    }
    case ':': {
        size_t stop = token_end(p, start + 1);
        if (stop == start + 1)
            return perr(p, PSI_ERR_SYNTAX, start, "':' without a keyword name");
        p->pos = stop;
        return new_node(p, EDN_KEYWORD, start, stop - start, out);
    }
    default:
        break;
    }
    if ((unsigned char)c < 0x20)
        return perr(p, PSI_ERR_SYNTAX, start, "unexpected control character (byte 0x%02x)",
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

/* ---- The history layer ---- */

/* An :invoke waiting for its completion: where its line is, to parse it
 * again only if its :value is needed. */
typedef struct edn_pending {
    size_t line_start, at, end; /* its line, and where its map starts */
    uint64_t line;
    bool active;
} edn_pending;

/* Per transaction, in builder order: the provisional id (a line number) and
 * its :index, for choosing the ids once everything is read. */
typedef struct edn_txn_id {
    uint64_t line;
    uint64_t index;
} edn_txn_id;

typedef struct edn_reader {
    edn_parser p;
    psi_builder *b;
    uint64_t max_ops;
    Pvoid_t pending_index; /* JudyL: process -> slot in pending[] + 1 */
    edn_pending *pending;
    size_t n_pending, cap_pending;
    edn_txn_id *ids;
    size_t n_ids, cap_ids;
    bool all_indexed; /* every transaction so far has an :index */
    uint64_t *vals;   /* scratch for a list read */
    size_t cap_vals;
    uint64_t n_maps; /* maps seen (any kind) */
    /* The whole history may be one vector, [{...}\n {...}\n ...], as
     * jepsen.history prints it; still one map per line. */
    enum { WRAP_UNKNOWN, WRAP_NONE, WRAP_OPEN, WRAP_CLOSED } wrap;
    uint64_t wrap_line, wrap_col; /* where the '[' is */
    size_t last_start, last_end;  /* the last non-blank line */
    uint64_t last_line;
} edn_reader;

enum edn_type { T_INVOKE, T_OK, T_FAIL, T_INFO };

/* The fields of an op map that matter; 0 when absent. */
typedef struct edn_op {
    uint32_t map, type, f, process, value, index;
} edn_op;

static bool keyword_is(const edn_parser *p, uint32_t n, const char *name)
{
    const edn_node *nd = &p->nodes[n];
    size_t len = strlen(name);
    return nd->kind == EDN_KEYWORD && nd->len == len + 1 &&
           memcmp(p->buf + nd->pos + 1, name, len) == 0;
}

static psi_status op_fields(edn_parser *p, uint32_t map, edn_op *op)
{
    static const char *const names[] = {"type", "f", "process", "value", "index"};
    memset(op, 0, sizeof *op);
    op->map = map;
    uint32_t *slots[] = {&op->type, &op->f, &op->process, &op->value, &op->index};
    for (uint32_t k = p->nodes[map].child; k; k = p->nodes[p->nodes[k].next].next) {
        uint32_t v = p->nodes[k].next;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            if (!keyword_is(p, k, names[i]))
                continue;
            if (*slots[i])
                return perr(p, PSI_ERR_SYNTAX, p->nodes[k].pos, "duplicate key :%s in the map",
                            names[i]);
            *slots[i] = v;
        }
    }
    return PSI_OK;
}

/* A non-negative integer that fits 64 bits, or an error naming its place. */
static psi_status get_u64(const edn_parser *p, uint32_t n, const char *what, uint64_t *out)
{
    const edn_node *nd = &p->nodes[n];
    if (nd->kind != EDN_INT) {
        const char *hint = (nd->kind == EDN_STRING || nd->kind == EDN_KEYWORD)
                               ? " (only integer keys and values are supported)"
                               : "";
        if (nd->kind == EDN_NIL || nd->kind >= EDN_MAP) /* no text worth quoting */
            return perr(p, PSI_ERR_SYNTAX, nd->pos, "expected an integer %s, found %s%s", what,
                        kind_name(nd->kind), hint);
        return perr(p, PSI_ERR_SYNTAX, nd->pos, "expected an integer %s, found %s '%.*s'%s", what,
                    kind_name(nd->kind), NODE_TEXT(p, nd), hint);
    }
    if (nd->big)
        return perr(p, PSI_ERR_SYNTAX, nd->pos,
                    "integer %s '%.*s' does not fit 64 bits (at most 18446744073709551615)", what,
                    NODE_TEXT(p, nd));
    if (nd->neg && nd->u != 0)
        return perr(p, PSI_ERR_SYNTAX, nd->pos,
                    "negative %s '%.*s' is not supported (must be a non-negative integer)", what,
                    NODE_TEXT(p, nd));
    *out = nd->u;
    return PSI_OK;
}

/* Sets the parser's line context to [start, end) numbered `line`. */
static void set_line(edn_parser *p, size_t start, size_t end, uint64_t line)
{
    p->pos = p->line_start = start;
    p->end = end;
    p->line = line;
}

/* Parses the op map at p->pos into the arena (appending): *root is the map,
 * or 0 when the rest of the line is blank; *at is where it starts. Text
 * after it is the caller's business. */
static psi_status parse_map(edn_parser *p, uint32_t *root, size_t *at)
{
    *root = 0;
    uint32_t v = 0;
    for (;;) {
        skip_ws(p);
        if (p->pos >= p->end)
            return PSI_OK; /* blank, comment, or only discarded values */
        *at = p->pos;
        psi_status st = parse_value(p, 0, &v);
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
        return perr(p, PSI_ERR_SYNTAX, nd->pos, "expected a map (one operation per line), found %s",
                    kind_name(nd->kind));
    *root = v;
    return PSI_OK;
}

static psi_status check_limit(edn_reader *r, size_t pos)
{
    if (r->max_ops && psi_builder_n_ops(r->b) > r->max_ops)
        return perr(&r->p, PSI_ERR_LIMIT, pos, "more than %llu operations (the configured limit)",
                    (unsigned long long)r->max_ops);
    return PSI_OK;
}

/* One micro-op [:f k v] of a transaction with status `st`. */
static psi_status add_micro_op(edn_reader *r, uint32_t mop, psi_txn_status status)
{
    edn_parser *p = &r->p;
    const edn_node *m = &p->nodes[mop];
    if (m->kind != EDN_VECTOR)
        return perr(p, PSI_ERR_SYNTAX, m->pos,
                    "expected a micro-op such as [:r 1 nil] or [:w 1 2], found %s",
                    kind_name(m->kind));
    uint32_t fn = m->child;
    if (!fn || p->nodes[fn].kind != EDN_KEYWORD)
        return perr(p, PSI_ERR_SYNTAX, fn ? p->nodes[fn].pos : m->pos,
                    "a micro-op starts with :r, :w or :append");
    bool is_r = keyword_is(p, fn, "r"), is_w = keyword_is(p, fn, "w"),
         is_app = keyword_is(p, fn, "append");
    if (!is_r && !is_w && !is_app)
        return perr(p, PSI_ERR_INPUT, p->nodes[fn].pos,
                    "unsupported micro-op '%.*s' (this reader knows :r, :w and :append)",
                    NODE_TEXT(p, &p->nodes[fn]));
    if (m->count != 3)
        return perr(p, PSI_ERR_SYNTAX, m->pos,
                    "micro-op '%.*s' has %u elements, expected 3 ([%.*s key value])",
                    NODE_TEXT(p, &p->nodes[fn]), (unsigned)m->count, NODE_TEXT(p, &p->nodes[fn]));
    uint32_t kn = p->nodes[fn].next, vn = p->nodes[kn].next;
    uint64_t key, val = 0;
    psi_status st = get_u64(p, kn, "key", &key);
    if (st != PSI_OK)
        return st;
    const edn_node *v = &p->nodes[vn];

    if (!is_r) {
        if ((st = get_u64(p, vn, "value", &val)) != PSI_OK)
            return st;
        st = psi_builder_op(r->b, PSI_OP_WRITE, key, val, is_app ? PSI_OPF_APPEND : 0u, p->d);
        return st != PSI_OK ? st : check_limit(r, m->pos);
    }

    /* A read: nil, an integer, or a list-append read's vector/list. */
    bool keep = status == PSI_TXN_COMMITTED || (status == PSI_TXN_ABORTED && v->kind != EDN_NIL);
    if (v->kind == EDN_NIL) {
        if (keep)
            st = psi_builder_op(r->b, PSI_OP_READ, key, 0, PSI_OPF_INIT, p->d);
    } else if (v->kind == EDN_VECTOR || v->kind == EDN_LIST) {
        uint32_t n = v->count;
        if (!psi_grow((void **)&r->vals, &r->cap_vals, n ? n : 1, sizeof *r->vals))
            return psi_diag_nomem(p->d, "reading a list");
        uint32_t i = 0;
        for (uint32_t e = v->child; e; e = p->nodes[e].next)
            if ((st = get_u64(p, e, "list element", &r->vals[i++])) != PSI_OK)
                return st;
        if (keep)
            st = psi_builder_list_read(r->b, key, r->vals, n, p->d);
    } else {
        if ((st = get_u64(p, vn, "value read (or nil, or a list)", &val)) != PSI_OK)
            return st;
        if (keep)
            st = psi_builder_op(r->b, PSI_OP_READ, key, val, 0, p->d);
    }
    return st != PSI_OK ? st : check_limit(r, m->pos);
}

/* Hands one transaction to the builder. `value` (0: none) is in the line
 * the parser's context currently names; `src` is the line the transaction
 * is attributed to (and its provisional id). */
static psi_status add_txn(edn_reader *r, uint64_t session, uint32_t value, psi_txn_status status,
                          bool has_index, uint64_t index, uint64_t src)
{
    edn_parser *p = &r->p;
    if (value && p->nodes[value].kind != EDN_VECTOR && p->nodes[value].kind != EDN_LIST)
        return perr(p, PSI_ERR_SYNTAX, p->nodes[value].pos,
                    "expected :value to be a vector of micro-ops such as [[:r 1 nil] [:w 1 "
                    "2]], found %s",
                    kind_name(p->nodes[value].kind));
    if (!psi_grow((void **)&r->ids, &r->cap_ids, r->n_ids + 1, sizeof *r->ids))
        return psi_diag_nomem(p->d, "reading EDN transactions");
    r->ids[r->n_ids++] = (edn_txn_id){.line = src, .index = index};
    r->all_indexed = r->all_indexed && has_index;

    psi_status st = psi_builder_begin(r->b, session, src, src, p->d);
    if (st != PSI_OK)
        return st;
    for (uint32_t e = value ? p->nodes[value].child : 0; e; e = p->nodes[e].next)
        if ((st = add_micro_op(r, e, status)) != PSI_OK)
            return st;
    return psi_builder_end(r->b, status, p->d);
}

static psi_status get_index(const edn_parser *p, const edn_op *op, bool *has, uint64_t *index)
{
    *has = op->index != 0;
    *index = 0;
    return *has ? get_u64(p, op->index, ":index", index) : PSI_OK;
}

/* Parses a pending invoke's line again (appending to the arena) and points
 * the parser's context at it. */
static psi_status reparse_invoke(edn_reader *r, const edn_pending *pd, edn_op *op)
{
    set_line(&r->p, pd->line_start, pd->end, pd->line);
    r->p.pos = pd->at;
    uint32_t root;
    size_t at;
    psi_status st = parse_map(&r->p, &root, &at);
    if (st != PSI_OK)
        return st;
    return op_fields(&r->p, root, op);
}

/* Parses the current line: *root is its op map, or 0 if it holds none
 * (blank, or only the history vector's '[' / ']'); *at is where the map
 * starts. Handles the optional vector around the whole history. */
static psi_status parse_op_line(edn_reader *r, uint32_t *root, size_t *at)
{
    edn_parser *p = &r->p;
    *root = 0;
    skip_ws(p);
    if (p->pos >= p->end)
        return PSI_OK; /* blank line */
    r->last_start = p->line_start;
    r->last_end = p->end;
    r->last_line = p->line;
    if (r->wrap == WRAP_UNKNOWN) {
        r->wrap = WRAP_NONE;
        if (p->buf[p->pos] == '[') {
            r->wrap = WRAP_OPEN;
            r->wrap_line = p->line;
            r->wrap_col = column(p, p->pos);
            p->pos++;
        }
    }
    if (r->wrap == WRAP_CLOSED)
        return perr(p, PSI_ERR_SYNTAX, p->pos,
                    "text after the ']' that closed the history vector opened on line %llu",
                    (unsigned long long)r->wrap_line);
    psi_status st = PSI_OK;
    skip_ws(p);
    *at = p->pos;
    if (!(r->wrap == WRAP_OPEN && p->pos < p->end && p->buf[p->pos] == ']'))
        st = parse_map(p, root, at);
    if (st != PSI_OK)
        return st;
    skip_ws(p);
    if (r->wrap == WRAP_OPEN && p->pos < p->end && p->buf[p->pos] == ']') {
        r->wrap = WRAP_CLOSED;
        p->pos++;
        skip_ws(p);
    }
    if (p->pos < p->end)
        return perr(p, PSI_ERR_SYNTAX, p->pos,
                    "unexpected text after the map (one map per line expected)");
    return PSI_OK;
}

/* One line of the input: an op map to interpret, or nothing. */
static psi_status handle_line(edn_reader *r, size_t start, size_t end, uint64_t line)
{
    edn_parser *p = &r->p;
    p->n_nodes = 1; /* keep the sentinel */
    set_line(p, start, end, line);
    uint32_t root;
    size_t at;
    psi_status st = parse_op_line(r, &root, &at);
    if (st != PSI_OK || root == 0)
        return st;
    r->n_maps++;

    edn_op op;
    if ((st = op_fields(p, root, &op)) != PSI_OK)
        return st;
    const edn_node *m = &p->nodes[root];
    if (!op.type)
        return perr(p, PSI_ERR_SYNTAX, m->pos, "the map has no :type");
    enum edn_type type;
    if (keyword_is(p, op.type, "invoke"))
        type = T_INVOKE;
    else if (keyword_is(p, op.type, "ok"))
        type = T_OK;
    else if (keyword_is(p, op.type, "fail"))
        type = T_FAIL;
    else if (keyword_is(p, op.type, "info"))
        type = T_INFO;
    else
        return perr(p, PSI_ERR_SYNTAX, p->nodes[op.type].pos,
                    "unknown :type '%.*s' (expected :invoke, :ok, :fail or :info)",
                    NODE_TEXT(p, &p->nodes[op.type]));
    if (op.f && !keyword_is(p, op.f, "txn"))
        return PSI_OK; /* not a transaction: nemesis and other ops */
    if (!op.process)
        return perr(p, PSI_ERR_SYNTAX, m->pos, "the map has no :process");
    uint8_t pk = p->nodes[op.process].kind;
    if (pk == EDN_KEYWORD || pk == EDN_SYMBOL || pk == EDN_STRING)
        return PSI_OK; /* :nemesis or another named process */
    if (pk != EDN_INT) /* 1.5, nil, [..]: not a session, and not a name to skip */
        return perr(p, PSI_ERR_SYNTAX, p->nodes[op.process].pos,
                    "a transaction's :process must be an integer (its session) or a name "
                    "such as :nemesis");
    uint64_t process;
    if ((st = get_u64(p, op.process, ":process", &process)) != PSI_OK)
        return st;
    bool has_index;
    uint64_t index;
    if ((st = get_index(p, &op, &has_index, &index)) != PSI_OK)
        return st;

    Word_t *slot;
    JLI(slot, r->pending_index, (Word_t)process);
    if (slot == PJERR)
        return psi_diag_nomem(p->d, "indexing EDN processes");
    if (*slot == 0) {
        if (!psi_grow((void **)&r->pending, &r->cap_pending, r->n_pending + 1, sizeof *r->pending))
            return psi_diag_nomem(p->d, "reading EDN operations");
        r->pending[r->n_pending++] = (edn_pending){0};
        *slot = (Word_t)r->n_pending;
    }
    edn_pending *pd = &r->pending[*slot - 1];

    if (type == T_INVOKE) {
        if (pd->active)
            return perr(p, PSI_ERR_INPUT, m->pos,
                        "process %llu invokes a new operation while its operation invoked "
                        "on line %llu has not completed",
                        (unsigned long long)process, (unsigned long long)pd->line);
        *pd =
            (edn_pending){.line_start = start, .at = at, .end = end, .line = line, .active = true};
        return PSI_OK;
    }

    psi_txn_status status = type == T_OK     ? PSI_TXN_COMMITTED
                            : type == T_FAIL ? PSI_TXN_ABORTED
                                             : PSI_TXN_UNKNOWN;
    uint32_t value = op.value;
    bool had_invoke = pd->active;
    edn_pending inv = *pd;
    pd->active = false;
    if (!value || p->nodes[value].kind == EDN_NIL) {
        if (type == T_OK)
            return perr(p, PSI_ERR_SYNTAX, value ? p->nodes[value].pos : m->pos,
                        "an :ok transaction needs a :value of micro-ops");
        value = 0;
        if (had_invoke) {
            /* Fall back on the invoke's micro-ops; errors in them name the
             * invoke's line, the transaction is still this line's. */
            edn_op iop;
            if ((st = reparse_invoke(r, &inv, &iop)) != PSI_OK)
                return st;
            if (iop.value && p->nodes[iop.value].kind != EDN_NIL)
                value = iop.value;
        }
    }
    return add_txn(r, process, value, status, has_index, index, line);
}

/* Invokes never completed: outcome unknown, like :info. */
static psi_status finish_pending(edn_reader *r)
{
    Word_t process = 0;
    Word_t *slot;
    JLF(slot, r->pending_index, process);
    while (slot) {
        edn_pending *pd = &r->pending[*slot - 1];
        if (pd->active) {
            r->p.n_nodes = 1;
            edn_op op;
            psi_status st = reparse_invoke(r, pd, &op);
            if (st != PSI_OK)
                return st;
            bool has_index;
            uint64_t index;
            if ((st = get_index(&r->p, &op, &has_index, &index)) != PSI_OK)
                return st;
            uint32_t value = op.value && r->p.nodes[op.value].kind != EDN_NIL ? op.value : 0;
            st = add_txn(r, (uint64_t)process, value, PSI_TXN_UNKNOWN, has_index, index, pd->line);
            if (st != PSI_OK)
                return st;
        }
        JLN(slot, r->pending_index, process);
    }
    return PSI_OK;
}

static int cmp_id_line(const void *a, const void *b)
{
    uint64_t x = ((const edn_txn_id *)a)->line, y = ((const edn_txn_id *)b)->line;
    return (x > y) - (x < y);
}

static int cmp_id_index(const void *a, const void *b)
{
    uint64_t x = ((const edn_txn_id *)a)->index, y = ((const edn_txn_id *)b)->index;
    return (x > y) - (x < y);
}

/* Replaces the provisional (line number) ids by :index values when every
 * transaction has one and they are unique. */
static void choose_ids(edn_reader *r, psi_history *h)
{
    if (!r->all_indexed || r->n_ids == 0)
        return;
    qsort(r->ids, r->n_ids, sizeof *r->ids, cmp_id_index);
    for (size_t i = 1; i < r->n_ids; i++)
        if (r->ids[i].index == r->ids[i - 1].index)
            return;
    qsort(r->ids, r->n_ids, sizeof *r->ids, cmp_id_line);
    for (uint32_t t = 1; t < h->n_txns; t++) {
        edn_txn_id key = {.line = h->txns[t].id};
        const edn_txn_id *hit = bsearch(&key, r->ids, r->n_ids, sizeof *r->ids, cmp_id_line);
        if (hit)
            h->txns[t].id = hit->index;
    }
}

static void reader_free(edn_reader *r)
{
    JudyLFreeArray(&r->pending_index, PJE0); /* not JLFA: clang -Wsign-compare */
    free(r->pending);
    free(r->ids);
    free(r->vals);
    free(r->p.nodes);
    psi_builder_free(r->b);
}

psi_status psi_read_edn_buf(const char *name, const char *buf, size_t len, uint64_t max_ops,
                            psi_history **out, psi_diag *d)
{
    *out = NULL;
    if (!name)
        name = "<input>";
    edn_reader r = {.max_ops = max_ops, .all_indexed = true};
    r.p.buf = buf;
    r.p.name = name;
    r.p.d = d;
    r.b = psi_builder_new(name, PSI_FMT_EDN);
    if (!r.b)
        return psi_diag_nomem(d, "starting an EDN history");

    psi_status st = PSI_OK;
    size_t pos = len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0 ? 3 : 0; /* UTF-8 BOM */
    uint64_t line = 0;
    while (pos < len && st == PSI_OK) {
        line++;
        const char *nl = memchr(buf + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - buf) : len;
        st = handle_line(&r, pos, end, line);
        pos = nl ? end + 1 : len;
    }
    if (st == PSI_OK && r.wrap == WRAP_OPEN) {
        set_line(&r.p, r.last_start, r.last_end, r.last_line);
        st = perr(&r.p, PSI_ERR_SYNTAX, r.last_end,
                  "input ends inside the history vector opened at line %llu, column %llu "
                  "(missing ']')",
                  (unsigned long long)r.wrap_line, (unsigned long long)r.wrap_col);
    }
    if (st == PSI_OK)
        st = finish_pending(&r);
    if (st == PSI_OK && r.n_maps == 0)
        st = psi_diag_line(d, PSI_ERR_INPUT, name, 1, 1,
                           "empty history: no EDN map in the file (one operation map per line "
                           "expected)");
    if (st == PSI_OK && psi_builder_n_txns(r.b) == 0)
        st = psi_diag_line(d, PSI_ERR_INPUT, name, 1, 1,
                           "empty history: no transaction (no :f :txn operation of an integer "
                           ":process) in the file");
    if (st != PSI_OK) {
        reader_free(&r);
        return st;
    }
    psi_history *h;
    st = psi_builder_finish(r.b, &h, d);
    r.b = NULL; /* finish freed it */
    if (st == PSI_OK) {
        choose_ids(&r, h);
        *out = h;
    }
    reader_free(&r);
    return st;
}
