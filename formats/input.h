/* Internal to formats/ (and its tests): the low-level input every reader
 * shares. Whole-file loading, a windowed stream (dbcop) and sniffing a
 * file's first bytes (input.c),
 * and small inline helpers on bytes already in memory: the name used in
 * diagnostics, the operation limit, the UTF-8 byte order mark, decimal
 * numbers and line splitting. The readers build on these and never on each
 * other; read.c only detects formats and dispatches. */
#ifndef PSI_FORMATS_INPUT_H
#define PSI_FORMATS_INPUT_H

#include "core/history.h"
#include "core/progress.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Reads a whole regular file (or a pipe, a device; "-" is standard input,
 * named PSI_STDIN_NAME in messages) into memory, in one read when its size
 * is known. The buffer is NUL-terminated for
 * convenience (*len excludes the NUL); the caller frees *buf. Failures name
 * the path ("cannot open", "cannot read", "file too large to load"). */
psi_status psi_read_file(const char *path, char **buf, size_t *len, psi_diag *d);

/* An input read through a bounded window, so a reader that consumes it
 * front to back (dbcop) never holds the whole file: the unread bytes are
 * win[start, end), and win[0] is at byte `base` of the input. A stream over
 * memory (psi_stream_mem) has the whole input in its window and never
 * reads. size is the input's length when known (a regular file, memory),
 * else PSI_STREAM_SIZE_UNKNOWN (a pipe: the length is known at the end). */
#define PSI_STREAM_SIZE_UNKNOWN UINT64_MAX
typedef struct psi_stream {
    const char *name;         /* in messages: the path, or PSI_STDIN_NAME */
    const unsigned char *win; /* the window (owned as own_win when reading a file) */
    unsigned char *own_win;   /* NULL for a stream over memory */
    size_t cap;               /* size of own_win */
    size_t start, end;        /* the unread bytes in win */
    uint64_t base;            /* input offset of win[0] */
    uint64_t size;            /* input length, or PSI_STREAM_SIZE_UNKNOWN */
    int fd;                   /* -1 once closed, or for memory */
    bool eof;                 /* read(2) said the end was reached */
} psi_stream;

/* Opens path ("-": standard input, duplicated and left open) for reading
 * through a window of `window` bytes (at least 4096). Failures as
 * psi_read_file's. Close it with psi_stream_close, also after a failure. */
psi_status psi_stream_open(const char *path, size_t window, psi_stream *s, psi_diag *d);
/* A stream over len bytes at buf (not copied; they outlive the stream). */
void psi_stream_mem(psi_stream *s, const char *name, const void *buf, size_t len);
/* Reads until at least n unread bytes are in the window (n <= the
 * window's size) or the input ends: fewer than n then is what is left. */
psi_status psi_stream_fill_slow(psi_stream *s, size_t n, psi_diag *d);
/* Reads the rest of the input (the unread window bytes first) into one
 * NUL-terminated buffer as psi_read_file does; the caller frees *buf. */
psi_status psi_stream_slurp(psi_stream *s, char **buf, size_t *len, psi_diag *d);
/* Frees the window and closes the descriptor; a zeroed or memory stream
 * is fine too. */
void psi_stream_close(psi_stream *s);

static inline size_t psi_stream_avail(const psi_stream *s)
{
    return s->end - s->start;
}

/* The input offset of the next unread byte. */
static inline uint64_t psi_stream_offset(const psi_stream *s)
{
    return s->base + s->start;
}

/* psi_stream_fill_slow with the common case (enough bytes already in the
 * window) inline: readers call it for every item. */
static inline psi_status psi_stream_fill(psi_stream *s, size_t n, psi_diag *d)
{
    return psi_stream_avail(s) >= n ? PSI_OK : psi_stream_fill_slow(s, n, d);
}

/* The dbcop reader over a stream positioned at the input's first byte, as
 * psi_read_dbcop_mem (which calls it on a memory stream). */
psi_status psi_read_dbcop_stream(psi_stream *s, uint64_t max_ops, const psi_progress *progress,
                                 psi_history **out, psi_diag *d);

/* Reads at most cap bytes from the start of the file at path into buf
 * (*n of them), for guessing its format. */
psi_status psi_read_head(const char *path, unsigned char *buf, size_t cap, size_t *n, psi_diag *d);

/* The readers as psi_read_history calls them: as the *_buf and *_dir
 * entry points of read.h, reporting how far they got (bytes of the input
 * parsed, stage "load") to `progress` (may be NULL). */
psi_status psi_read_text_mem(const char *name, const char *buf, size_t len, uint64_t max_ops,
                             const psi_progress *progress, psi_history **out, psi_diag *d);
psi_status psi_read_dbcop_mem(const char *name, const unsigned char *buf, size_t len,
                              uint64_t max_ops, const psi_progress *progress, psi_history **out,
                              psi_diag *d);
psi_status psi_read_edn_mem(const char *name, const char *buf, size_t len, uint64_t max_ops,
                            const psi_progress *progress, psi_history **out, psi_diag *d);
psi_status psi_read_json_mem(const char *name, const char *buf, size_t len, uint64_t max_ops,
                             const psi_progress *progress, psi_history **out, psi_diag *d);
/* recorded: AWDIT's own semantics (see read_awdit.c); false: implicit. */
psi_status psi_read_awdit_mem(const char *name, const char *buf, size_t len, uint64_t max_ops,
                              bool recorded, const psi_progress *progress, psi_history **out,
                              psi_diag *d);
psi_status psi_read_cobra_mem(const char *dir, uint64_t max_ops, const psi_progress *progress,
                              psi_history **out, psi_diag *d);

/* Whether dir holds a Cobra session log (a file named T<n>.log), as
 * psi_read_cobra_mem would find it; false if it cannot be listed. */
bool psi_cobra_dir_has_logs(const char *dir);

/* The name of standard input in diagnostics (PATH "-"). */
#define PSI_STDIN_NAME "<stdin>"

/* Readers report progress once per PSI_INPUT_PROGRESS_EVERY transactions
 * (a mask test in their loops). */
#define PSI_INPUT_PROGRESS_EVERY 4096u

/* The name diagnostics use for an input the caller did not name. */
static inline const char *psi_input_name(const char *name)
{
    return name ? name : "<input>";
}

/* The operation limit a reader enforces: max_ops when set and below the
 * model's limit, else the model's limit (PSI_MAX_OPS). */
static inline uint64_t psi_input_op_limit(uint64_t max_ops)
{
    return max_ops && max_ops < PSI_MAX_OPS ? max_ops : PSI_MAX_OPS;
}

/* Length of the UTF-8 byte order mark at the start of buf (editors on
 * Windows add one; it is not content): 3 or 0. */
static inline size_t psi_input_bom(const void *buf, size_t len)
{
    return len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
}

typedef enum psi_digits {
    PSI_DIGITS_OK,       /* *out holds the value */
    PSI_DIGITS_NONE,     /* no digit at *p */
    PSI_DIGITS_OVERFLOW, /* the value does not fit 64 bits */
} psi_digits;

/* Reads the decimal digits at *p (up to end) as an unsigned 64-bit value
 * and moves *p past all of them, also on overflow, so a caller that keeps
 * going resumes after the number. Inline: the text and EDN readers call it
 * for every field. */
static inline psi_digits psi_input_u64(const char **p, const char *end, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    bool big = false;
    for (unsigned dgt; s < end && (dgt = (unsigned)(*s - '0')) <= 9; s++) {
        /* One compare per digit until v nears the limit: this loop is
         * most of what reading a text or EDN history costs. */
        if (v >= UINT64_MAX / 10 && (v > UINT64_MAX / 10 || dgt > UINT64_MAX % 10))
            big = true;
        v = v * 10 + dgt;
    }
    if (s == *p)
        return PSI_DIGITS_NONE;
    *p = s;
    if (big)
        return PSI_DIGITS_OVERFLOW;
    *out = v;
    return PSI_DIGITS_OK;
}

/* Tokenising the line-oriented hint formats (witness.c, timestamps.c): a
 * blank inside a line is a space, a tab or the '\r' of a CRLF line end. */
static inline bool psi_input_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static inline const char *psi_input_skip_blanks(const char *p, const char *end)
{
    while (p < end && psi_input_blank(*p))
        p++;
    return p;
}

/* An unsigned decimal at *p (< end); false, leaving *p where it was, if
 * there is none or it does not fit 64 bits. */
static inline bool psi_input_field_u64(const char **p, const char *end, uint64_t *out)
{
    const char *s = *p;
    if (psi_input_u64(&s, end, out) != PSI_DIGITS_OK)
        return false;
    *p = s;
    return true;
}

/* A transaction "(S,ID)" at *p (< end), followed by a blank or the
 * line's end, as witness and timestamp lines name them (input.c); false,
 * leaving *p where it was, if there is none. */
bool psi_input_txn_ref(const char **p, const char *end, uint64_t *sid, uint64_t *tid);

/* Splits a buffer into lines for the line-oriented readers. */
typedef struct psi_lines {
    const char *buf;
    size_t len;
    size_t pos;    /* where the next line starts */
    uint64_t line; /* number of the line last returned, from 1 */
} psi_lines;

/* The next line as [*start, *end), without its '\n' (a '\r' before it
 * stays); false at the end of the buffer. A last line without '\n' counts;
 * an empty buffer has no line. */
static inline bool psi_next_line(psi_lines *it, size_t *start, size_t *end)
{
    if (it->pos >= it->len)
        return false;
    const char *nl = memchr(it->buf + it->pos, '\n', it->len - it->pos);
    *start = it->pos;
    *end = nl ? (size_t)(nl - it->buf) : it->len;
    it->pos = nl ? *end + 1 : it->len;
    it->line++;
    return true;
}

#endif
