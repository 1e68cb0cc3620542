/* Internal to the EDN reader, which is three files of one job each:
 *
 *   edn_scan.c   EDN text -> a tree of nodes (the value parser)
 *   edn_lines.c  the history file's layout: op maps (each may span lines),
 *                perhaps all inside one vector
 *   read_edn.c   Jepsen op maps -> transactions (psi_read_edn_buf)
 *
 * Nodes live in one arena owned by the parser and refer to each other by
 * index; index 0 is a sentinel, so 0 means "none". Nothing is copied out of
 * the input buffer: a node records where its text is. */
#ifndef PSI_FORMATS_EDN_H
#define PSI_FORMATS_EDN_H

#include "core/history.h"
#include "formats/input.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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

/* One parsed value. */
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
    uint8_t esc;    /* JSON EDN_STRING: written with an escape (edn_keyword_is) */
} edn_node;

/* The value parser's context: the input, the stretch of it being parsed
 * and the node arena. `line` is the number of the line that starts at
 * `line_start` (that of the op map being parsed); diagnostics name `name`
 * and the line and column of a byte at or after it. The parser owns
 * `nodes` (edn_parser_free). */
typedef struct edn_parser {
    const char *buf;
    const char *name; /* for diagnostics */
    psi_diag *d;
    size_t pos, end;   /* cursor and end of the text being parsed */
    size_t line_start; /* offset of the first byte of line `line` */
    uint64_t line;     /* 1-based */
    edn_node *nodes;
    size_t n_nodes, cap_nodes;
    /* The input is Jepsen JSON (json_scan.c), not EDN: values are parsed as
     * JSON, and a string names what a keyword names in EDN. */
    bool json;
    /* edn_name_spelling's output (owned, grown as needed). */
    char *scratch;
    size_t cap_scratch;
} edn_parser;

/* ---- edn_scan.c ---- */

void edn_parser_init(edn_parser *p, const char *name, const char *buf, psi_diag *d);
void edn_parser_free(edn_parser *p);
/* Drops every node (values of the previous map are no longer needed). */
void edn_clear_nodes(edn_parser *p);
/* Points the parser at [start, end); `start` begins line `line`. */
void edn_set_line(edn_parser *p, size_t start, size_t end, uint64_t line);
/* Skips whitespace (newlines included), commas and ; comments. */
void edn_skip_ws(edn_parser *p);
/* Parses one value at p->pos (not at p->end) into the arena (appending).
 * *out is 0 when the value was a #_ discard. JSON when p->json. */
psi_status edn_parse_value(edn_parser *p, uint32_t *out);

/* "a map", "an integer", ... for messages. */
const char *edn_kind_name(uint8_t kind);
/* Length of the valid UTF-8 sequence at s[0..n) that starts with a byte of
 * 0x80 or more, or 0 if it is not valid (overlong forms, surrogates and
 * code points past U+10FFFF included): EDN and JSON strings alike. */
size_t edn_utf8_len(const unsigned char *s, size_t n);

/* The value of hex digit c, or -1. */
static inline int edn_hex_digit(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* Whether JSON node nd is the string `name`, escapes decoded
 * (edn_spell.c): "typ\u0065" is "type". Out of line on purpose: with it
 * inline, edn_keyword_is grew enough that GCC stopped unrolling the EDN
 * reader's loop over field names (+3.6 % instructions reading EDN). */
bool json_string_is(const edn_parser *p, const edn_node *nd, const char *name);

/* Whether node n is the keyword :name (in JSON, the string "name", escapes
 * decoded). Inline: the reader asks it for every key of every op map, with
 * literal names; strings without escapes compare their bytes. */
static inline bool edn_keyword_is(const edn_parser *p, uint32_t n, const char *name)
{
    const edn_node *nd = &p->nodes[n];
    if (p->json)
        return json_string_is(p, nd, name);
    size_t len = strlen(name);
    return nd->kind == EDN_KEYWORD && nd->len == len + 1 &&
           memcmp(p->buf + nd->pos + 1, name, len) == 0;
}

/* Whether node n is a name (a keyword in EDN, a string in JSON), such as a
 * micro-op's function. */
static inline bool edn_is_name(const edn_parser *p, uint32_t n)
{
    return p->nodes[n].kind == (p->json ? EDN_STRING : EDN_KEYWORD);
}

/* The line and column of byte `pos` (at or after p->line_start), the
 * column counting characters (not UTF-8 continuation bytes) from 1. Counts
 * newlines from p->line_start: for diagnostics only. */
void edn_place(const edn_parser *p, size_t pos, uint64_t *line, uint64_t *col);
/* "line L, column C" of byte `pos` in buf (for messages); returns buf. */
const char *edn_where(const edn_parser *p, size_t pos, char *buf, size_t cap);
/* Fills p->d with "NAME:LINE:COL: message" for byte `pos` and returns st. */
psi_status edn_error(const edn_parser *p, psi_status st, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Text of a node for messages, as a "%.*s" pair: at most 40 bytes. */
#define EDN_NODE_TEXT(p, n) (int)((n)->len > 40 ? 40 : (n)->len), (p)->buf + (n)->pos

/* ---- edn_lines.c ---- */

/* Where an op map is, to parse it again later: [at, end), its first byte
 * on line `line`, which starts at line_start. */
typedef struct edn_mark {
    size_t line_start, at, end;
    uint64_t line;
} edn_mark;

/* The history's layout while it is read: how far lines are counted and the
 * optional vector around the whole history. */
typedef struct edn_lines {
    const char *buf;
    size_t len;
    size_t pos;        /* where the next map is looked for */
    size_t counted;    /* newlines before this byte are counted... */
    uint64_t line;     /* ...: it is on this line, */
    size_t line_start; /* which starts here */
    enum { WRAP_UNKNOWN, WRAP_NONE, WRAP_OPEN, WRAP_CLOSED } wrap;
    size_t wrap_pos, wrap_line_start; /* where the '[' is */
    uint64_t wrap_line;
} edn_lines;

/* Starts reading buf[0..len) (a UTF-8 byte order mark is skipped). */
void edn_lines_init(edn_lines *L, const char *buf, size_t len);
/* The next op map: *root is its node in p's arena (the previous map's
 * nodes are dropped) and *mark says where it is; *root is 0 at the end of
 * the input. Errors name their line and column. */
psi_status edn_next_map(edn_lines *L, edn_parser *p, uint32_t *root, edn_mark *mark);
/* Parses the op map at `mark` again, appending to the arena, and leaves
 * the parser's line context at its start (so later errors are placed from
 * there). */
psi_status edn_reparse(edn_parser *p, const edn_mark *mark, uint32_t *root);
/* Points the parser at the rest of the input from byte `pos`, its line
 * context at the line of that byte (counting lines up to it). */
void edn_lines_frame(edn_lines *L, edn_parser *p, size_t pos);

/* ---- json_scan.c (p->json) ---- */

/* One JSON value at p->pos (not at p->end), appended to the arena. */
psi_status json_parse_value(edn_parser *p, uint32_t *out);
/* edn_next_map for JSON: the next operation object of a JSON Lines file or
 * of the one array around the whole history. */
psi_status json_next_map(edn_lines *L, edn_parser *p, uint32_t *root, edn_mark *mark);

/* ---- edn_spell.c ---- */

/* The spelling of a named scalar node nd (a key or value that is not a
 * non-negative 64-bit integer: a keyword, string, symbol, boolean or
 * negative integer) as the builder interns it. A string, EDN or JSON, has
 * its escapes decoded and written again in one canonical way (only \" \\
 * and control characters escaped, as \n \t \r \b \f or \u00XX; all else,
 * UTF-8 included, as is), so "x", "\u0078" and (EDN) "\170" are one key,
 * and the spelling is a valid JSON and EDN string. A negative integer is
 * -DECIMAL whatever its base (written into buf); anything else is its
 * text. Points into the buffer, buf or p->scratch (valid until the next
 * call). NULL with a diagnostic in p->d for an EDN string holding a lone
 * surrogate, or when out of memory. */
const char *edn_name_spelling(edn_parser *p, const edn_node *nd, char buf[24], size_t *len);
/* Appends code point c at o in the canonical string spelling
 * (edn_name_spelling: \" \\ \b \f \n \r \t, other control characters as
 * \u00XX, the rest as UTF-8); at most 6 bytes. Returns the end. */
char *edn_spell_cp(char *o, unsigned long c);

/* A completion's :start-ts and :commit-ts (nodes start and commit, 0 when
 * absent; edn_ts.c): both or neither, signed 64-bit integers, start <=
 * commit, else an error at the value's place. *has says whether there
 * were any. */
psi_status edn_timestamps(const edn_parser *p, uint32_t start, uint32_t commit, bool *has,
                          int64_t *start_ts, int64_t *commit_ts);

#endif
