/* Entry point of the readers: format detection and dispatch.
 *
 * psi_read_history loads the file with one read into one buffer
 * (input.c), picks a format (given, or guessed from the bytes and the name
 * as psi_detect_format does) and hands the buffer to the format's *_buf
 * reader; Cobra directories are read by psi_read_cobra_dir. Nothing here
 * knows a format's syntax, and no reader calls back into this file. The
 * writers' output file is in out.c. */
#include "formats/read.h"

#include "formats/input.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- Format detection ---- */

static bool has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcmp(s + n - m, suf) == 0;
}

static psi_format format_from_extension(const char *path)
{
    if (has_suffix(path, ".edn"))
        return PSI_FMT_EDN;
    if (has_suffix(path, ".json") || has_suffix(path, ".jsonl"))
        return PSI_FMT_JSON;
    if (has_suffix(path, ".txt"))
        return PSI_FMT_TEXT;
    if (has_suffix(path, ".bincode"))
        return PSI_FMT_DBCOP;
    if (has_suffix(path, ".log"))
        return PSI_FMT_COBRA;
    return PSI_FMT_AUTO;
}

static bool is_blank(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* A history that starts with '{' or '[' at s[i]: Jepsen JSON when its
 * first op map's first key is a string ({"type": ...), EDN otherwise
 * ({:type ...}, [{:type ...}], [] ...). */
static psi_format json_or_edn(const unsigned char *s, size_t i, size_t n)
{
    if (s[i] == '[')
        for (i++; i < n && is_blank(s[i]); i++)
            ;
    if (i >= n || s[i] != '{')
        return PSI_FMT_EDN;
    for (i++; i < n && is_blank(s[i]); i++)
        ;
    return i < n && s[i] == '"' ? PSI_FMT_JSON : PSI_FMT_EDN;
}

/* Sniffs the first bytes. A NUL byte means binary: every binary format here
 * has NULs in its first bytes (dbcop's little-endian u64 header, Cobra's
 * big-endian txn id), text formats never do. Returns PSI_FMT_AUTO when the
 * bytes say nothing (empty, blank, or text of no known shape). */
static psi_format format_from_content(const unsigned char *s, size_t n, bool *binary)
{
    *binary = memchr(s, 0, n) != NULL;
    if (*binary)
        return PSI_FMT_AUTO;
    size_t i = psi_input_bom(s, n);
    while (i < n && is_blank(s[i]))
        i++;
    if (i == n)
        return PSI_FMT_AUTO;
    if (s[i] == '{' || s[i] == '[')
        return json_or_edn(s, i, n);
    if (s[i] == ';') /* an EDN comment */
        return PSI_FMT_EDN;
    if (s[i] == '#') {
        /* A text comment, or an EDN tagged literal such as
         * #jepsen.history.Op{...}: a tag is a symbol glued to the '#', and a
         * map or vector follows it on the same line. */
        size_t j = i + 1;
        while (j < n && (isalnum(s[j]) || s[j] == '.' || s[j] == '-' || s[j] == '_' || s[j] == '/'))
            j++;
        if (j > i + 1 && j < n && (s[j] == '{' || s[j] == '['))
            return PSI_FMT_EDN;
        return PSI_FMT_TEXT;
    }
    if (s[i] == 'r' || s[i] == 'w') {
        size_t j = i + 1;
        while (j < n && (s[j] == ' ' || s[j] == '\t'))
            j++;
        if (j < n && s[j] == '(')
            return PSI_FMT_TEXT;
        /* AWDIT's test format: r KEY VALUE */
        if (j > i + 1 && j < n && s[j] >= '0' && s[j] <= '9')
            return PSI_FMT_AWDIT;
    }
    if (n - i >= 3 && (memcmp(s + i, "---", 3) == 0 || memcmp(s + i, "===", 3) == 0))
        return PSI_FMT_AWDIT; /* a separator first: an empty first transaction */
    return PSI_FMT_AUTO;
}

/* How many first bytes say a file's format. */
enum { SAMPLE = 4096 };

/* The format of a file named `path` that starts with s[0..n). */
static psi_format format_of(const char *path, const unsigned char *s, size_t n)
{
    bool binary;
    psi_format by_content = format_from_content(s, n < SAMPLE ? n : SAMPLE, &binary);
    psi_format by_ext = format_from_extension(path);
    if (by_content != PSI_FMT_AUTO)
        return by_content;
    if (binary)
        return by_ext == PSI_FMT_COBRA ? PSI_FMT_COBRA : PSI_FMT_DBCOP; /* .log: one log */
    if (by_ext != PSI_FMT_AUTO)
        return by_ext; /* empty, or text of no known shape: trust the name */
    /* Text of no known shape (a typo on the first line): dbcop always has
     * NUL bytes in its header, so this is text, and the text reader says
     * where it goes wrong. */
    return n ? PSI_FMT_TEXT : PSI_FMT_DBCOP;
}

/* Whether the buffer holds nothing but a byte order mark and whitespace. */
static bool is_empty_input(const char *buf, size_t len)
{
    for (size_t i = psi_input_bom(buf, len); i < len; i++)
        if (!is_blank((unsigned char)buf[i]))
            return false;
    return true;
}

psi_status psi_detect_format(const char *path, psi_format *fmt, psi_diag *d)
{
    *fmt = PSI_FMT_AUTO;
    struct stat sb;
    if (stat(path, &sb) != 0)
        return psi_diag_file(d, PSI_ERR_IO, path, "cannot open: %s", strerror(errno));
    if (S_ISDIR(sb.st_mode)) {
        *fmt = PSI_FMT_COBRA;
        return PSI_OK;
    }
    unsigned char sample[SAMPLE];
    size_t n;
    psi_status st = psi_read_head(path, sample, sizeof sample, &n, d);
    if (st != PSI_OK)
        return st;
    *fmt = format_of(path, sample, n);
    return PSI_OK;
}

/* ---- Initial state ---- */

psi_initial_state psi_initial_state_from_name(const char *name, bool *ok)
{
    *ok = true;
    if (strcmp(name, "implicit") == 0)
        return PSI_INITIAL_IMPLICIT;
    if (strcmp(name, "recorded") == 0)
        return PSI_INITIAL_RECORDED;
    *ok = strcmp(name, "default") == 0;
    return PSI_INITIAL_DEFAULT;
}

const char *psi_initial_state_name(psi_initial_state s)
{
    switch (s) {
    case PSI_INITIAL_IMPLICIT:
        return "implicit";
    case PSI_INITIAL_RECORDED:
        return "recorded";
    case PSI_INITIAL_DEFAULT:
        break;
    }
    return "default";
}

/* ---- Dispatch ---- */

/* Whether format f can be read with a recorded initial state: the register
 * formats whose initial value is the number 0 (AWDIT's own default; text
 * and dbcop on request). EDN and JSON's initial value is nil, Cobra's a
 * marker: neither is a value some transaction could have written. */
static bool recordable(psi_format f)
{
    return f == PSI_FMT_AWDIT || f == PSI_FMT_TEXT || f == PSI_FMT_DBCOP;
}

static psi_status not_recordable(const char *path, const char *what, psi_diag *d)
{
    return psi_diag_file(d, PSI_ERR_USAGE, path,
                         "--initial-state recorded is supported for the text, dbcop and AWDIT "
                         "formats, whose initial value is 0; %s",
                         what);
}

/* A directory of Cobra session logs. */
static psi_status read_cobra_dir(const char *dir, const psi_read_opts *opts, psi_history **out,
                                 psi_diag *d)
{
    if (opts && opts->initial_state == PSI_INITIAL_RECORDED)
        return not_recordable(dir, "this directory is read as Cobra's session logs", d);
    return psi_read_cobra_mem(dir, opts ? opts->max_ops : 0, opts ? &opts->progress : NULL, out, d);
}

/* --initial-state recorded for a text or dbcop history, read as the format
 * says (implicit: a read of 0 reads the initial value, PSI_OPF_INIT): a
 * read of 0 is then an ordinary read of value 0, which must read a recorded
 * write of 0 (core/initial.c merges a first transaction writing only 0
 * into the initial one, and flags reads of what it wrote again). Nothing
 * else differs between the two readings of these formats. */
static void make_recorded(psi_history *h)
{
    for (uint32_t o = 0; o < h->n_ops; o++) {
        psi_op *op = &h->ops[o];
        if (op->kind == PSI_OP_READ && !(op->flags & PSI_OPF_LIST)) {
            assert(!(op->flags & PSI_OPF_INIT) || op->value == 0);
            op->flags &= (uint8_t)~PSI_OPF_INIT;
        }
    }
    h->initial_state = PSI_INITIAL_RECORDED;
}

/* A directory: Cobra's session logs, or (a dbcop run's output folder) a
 * history.bincode and no T<n>.log, read as dbcop with a note saying so.
 * `dbcop` when --format dbcop was given. */
static psi_status read_dir_as_dbcop(const char *dir, const psi_read_opts *opts, bool dbcop,
                                    psi_history **out, psi_diag *d)
{
    size_t n = strlen(dir);
    char *file = malloc(n + sizeof "/history.bincode");
    if (!file)
        return psi_diag_nomem(d, "reading a directory");
    memcpy(file, dir, n);
    strcpy(file + n, n && dir[n - 1] == '/' ? "history.bincode" : "/history.bincode");
    struct stat sb;
    bool has_bincode = stat(file, &sb) == 0 && S_ISREG(sb.st_mode);
    if (!dbcop && (!has_bincode || psi_cobra_dir_has_logs(dir))) {
        free(file);
        return read_cobra_dir(dir, opts, out, d);
    }
    if (!has_bincode) {
        free(file);
        return psi_diag_file(d, PSI_ERR_INPUT, dir,
                             "a directory read as dbcop needs a history.bincode in it");
    }
    psi_read_opts o = opts ? *opts : (psi_read_opts){0};
    o.format = PSI_FMT_DBCOP;
    psi_status st = psi_read_history(file, &o, out, d);
    free(file);
    if (st == PSI_OK && !dbcop)
        (*out)->note = "the directory holds no Cobra session log (T<n>.log): read its "
                       "history.bincode as dbcop";
    return st;
}

psi_status psi_read_history(const char *path, const psi_read_opts *opts, psi_history **out,
                            psi_diag *d)
{
    *out = NULL;
    psi_format fmt = opts ? opts->format : PSI_FMT_AUTO;
    uint64_t max_ops = opts ? opts->max_ops : 0;
    const psi_progress *pr = opts ? &opts->progress : NULL;
    bool is_stdin = strcmp(path, "-") == 0;
    struct stat sb;
    if (!is_stdin && stat(path, &sb) != 0)
        return psi_diag_file(d, PSI_ERR_IO, path, "cannot open: %s", strerror(errno));
    if (!is_stdin && S_ISDIR(sb.st_mode) && (fmt == PSI_FMT_AUTO || fmt == PSI_FMT_DBCOP))
        return read_dir_as_dbcop(path, opts, fmt == PSI_FMT_DBCOP, out, d);
    if (!is_stdin && S_ISDIR(sb.st_mode) && fmt == PSI_FMT_COBRA)
        return read_cobra_dir(path, opts, out, d);

    /* The format is guessed from the first bytes read (not by opening the
     * file twice, which would lose data from a pipe); dbcop then reads on
     * through the window, every other reader gets the whole file. */
    psi_stream in;
    psi_status st = psi_stream_open(path, SAMPLE * 256, &in, d);
    if (st == PSI_OK)
        st = psi_stream_fill(&in, SAMPLE, d);
    if (st != PSI_OK) {
        psi_stream_close(&in);
        return st;
    }
    if (is_stdin)
        path = PSI_STDIN_NAME;
    size_t n_head = psi_stream_avail(&in);
    const unsigned char *head = in.win + in.start;
    bool blank_head = is_empty_input((const char *)head, n_head);
    if (blank_head && in.eof) {
        psi_stream_close(&in);
        return psi_diag_line(d, PSI_ERR_INPUT, path, 1, 1, "%s",
                             n_head ? "empty history: the file holds only whitespace"
                                    : "empty history: the file is empty");
    }
    if (fmt == PSI_FMT_AUTO)
        fmt = format_of(is_stdin ? "" : path, head, n_head);
    if (fmt == PSI_FMT_DBCOP && !blank_head) {
        st = psi_read_dbcop_stream(&in, max_ops, pr, out, d);
        psi_stream_close(&in);
        if (st == PSI_OK && opts && opts->initial_state == PSI_INITIAL_RECORDED)
            make_recorded(*out);
        return st;
    }
    char *buf;
    size_t len;
    st = psi_stream_slurp(&in, &buf, &len, d);
    psi_stream_close(&in);
    if (st != PSI_OK)
        return st;
    if (is_empty_input(buf, len)) {
        free(buf);
        return psi_diag_line(d, PSI_ERR_INPUT, path, 1, 1, "%s",
                             len ? "empty history: the file holds only whitespace"
                                 : "empty history: the file is empty");
    }
    psi_initial_state init = opts ? opts->initial_state : PSI_INITIAL_DEFAULT;
    if (init == PSI_INITIAL_RECORDED && !recordable(fmt)) {
        free(buf);
        char what[96];
        snprintf(what, sizeof what, "this file is read as %s, whose initial value is not 0",
                 psi_format_name(fmt));
        return not_recordable(path, what, d);
    }
    switch (fmt) {
    case PSI_FMT_TEXT:
        st = psi_read_text_mem(path, buf, len, max_ops, pr, out, d);
        break;
    case PSI_FMT_DBCOP:
        st = psi_read_dbcop_mem(path, (const unsigned char *)buf, len, max_ops, pr, out, d);
        break;
    case PSI_FMT_COBRA:
        st = psi_read_cobra_buf(path, (const unsigned char *)buf, len, max_ops, out, d);
        break;
    case PSI_FMT_EDN:
        st = psi_read_edn_mem(path, buf, len, max_ops, pr, out, d);
        break;
    case PSI_FMT_JSON:
        st = psi_read_json_mem(path, buf, len, max_ops, pr, out, d);
        break;
    case PSI_FMT_AWDIT:
        st = psi_read_awdit_mem(path, buf, len, max_ops, init != PSI_INITIAL_IMPLICIT, pr, out, d);
        break;
    case PSI_FMT_AUTO:
    default:
        st = psi_diag_file(d, PSI_ERR_USAGE, path, "no history format given");
        break;
    }
    free(buf);
    if (st == PSI_OK && init == PSI_INITIAL_RECORDED && fmt != PSI_FMT_AWDIT)
        make_recorded(*out);
    return st;
}
