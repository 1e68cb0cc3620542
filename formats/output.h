/* Internal to formats/: what the writers share. The output file (out.c),
 * the decimal digits of a number, and the refusal of operations that the
 * register formats, text and dbcop, cannot express (write_check.c). The
 * writers build on these and never on the readers. */
#ifndef PSI_FORMATS_OUTPUT_H
#define PSI_FORMATS_OUTPUT_H

#include "core/history.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Output file for the writers. Bytes go to a temporary file beside `path`
 * that psi_out_close(o, true, d) renames over `path` only when every write
 * succeeded, so a failed conversion (ENOSPC, ...) never leaves a truncated
 * file behind. Paths that are not regular files (/dev/null, a FIFO) are
 * written in place; "-" is standard output. Write errors are remembered and
 * reported (PSI_ERR_IO, naming the path) by psi_out_close, which always
 * frees `o`; commit = false discards the output. */
typedef struct psi_out psi_out;
psi_out *psi_out_open(const char *path, psi_diag *d);
void psi_out_write(psi_out *o, const void *bytes, size_t n);
psi_status psi_out_close(psi_out *o, bool commit, psi_diag *d);
/* Writes text as one comment line: prefix, text with its line breaks made
 * spaces, a newline. Nothing when text is NULL or empty. */
void psi_out_comment(psi_out *o, const char *prefix, const char *text);

/* The text and EDN writers with a header comment (write.h's
 * psi_write_history dispatches to them). */
psi_status psi_write_text_commented(const psi_history *h, const char *path, const char *comment,
                                    psi_diag *d);
psi_status psi_write_edn_commented(const psi_history *h, const char *path, const char *comment,
                                   psi_diag *d);

/* The JSON writer (write.h's psi_write_json) with a header comment: JSON
 * has no comments, so `comment` is not written (kept for symmetry). */
psi_status psi_write_json_commented(const psi_history *h, const char *path, const char *comment,
                                    psi_diag *d);

/* Whether the completion of transaction t, written in a Jepsen format (EDN
 * or JSON), needs the mark `polysi/reads observed` to keep its reads: an
 * aborted transaction with a read of the initial value (written nil, which
 * a :fail's reads mean "not known"), or an unknown one with any read (an
 * :info's reads are all "not known"). write_jepsen.c. */
bool psi_write_needs_observed_mark(const psi_history *h, uint32_t t);

/* The spelling of one Jepsen format (EDN, JSON) for psi_write_jepsen: the
 * two write the same operations in the same order (psi_write_events) and
 * differ only in these strings and in which names they can spell. A
 * transaction is two lines, its invoke and its completion:
 *   inv_head OPS process ID "}\n"
 *   cmp_head STATUS txn_value OPS process ID index ID [observed]
 *       [start_ts START commit_ts COMMIT] "}\n"
 * (the invoke only when it is known: psi_write_events)
 * and a micro-op is  w KEY sep VALUE "]"
 * (append for list appends),  r KEY sep nil "]"  (invoke, initial value),
 * r KEY sep "[" V sep ... "]]"  (list read) or  r KEY sep VALUE "]". */
typedef struct psi_jepsen_syntax {
    const char *fmt;            /* short name, in refusals: "edn", "json" */
    const char *writing;        /* out-of-memory context: "writing EDN" */
    const char *comment_prefix; /* header comment line, or NULL: none */
    const char *sep, *nil, *w, *append, *r;
    const char *inv_head, *process, *cmp_head, *txn_value, *index, *observed;
    const char *start_ts, *commit_ts; /* the completion's timestamps, each before its integer */
    const char *status[4];            /* by psi_txn_status */
    /* Whether a name (history.h spelling) can be written as is; NULL: all
     * can. The first that cannot makes psi_write_jepsen refuse, saying
     * "which " cannot_spell. */
    bool (*spellable)(const char *s);
    const char *cannot_spell;
} psi_jepsen_syntax;

/* Writes h in the Jepsen format sx (write_jepsen.c): every session's
 * transactions in order, each an invoke line and its completion (see
 * write_edn.c), through psi_out; refuses with a diagnostic what the format
 * cannot express (psi_write_check_jepsen, sx->spellable). */
psi_status psi_write_jepsen(const psi_history *h, const char *path, const char *comment,
                            const psi_jepsen_syntax *sx, psi_diag *d);

enum { PSI_U64_DIGITS = 20 }; /* the most digits a u64 has */

/* Writes the decimal digits of x at p (at most PSI_U64_DIGITS bytes, no
 * NUL) and returns the end. Inline: writers call it for every field. */
static inline char *psi_put_u64(char *p, uint64_t x)
{
    char tmp[PSI_U64_DIGITS];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + x % 10);
        x /= 10;
    } while (x);
    while (n)
        *p++ = tmp[--n];
    return p;
}

/* Refuses, naming `path`, transaction t of h when an operation of it has
 * no place in a register format: a list-append read or append, or a write
 * of 0 (the format's initial value). `fmt` is the format's short name
 * ("cannot write as text"), `who` names it in the explanation ("the text
 * format has only register reads and writes"). */
psi_status psi_write_check_ops(const psi_history *h, uint32_t t, const char *path, const char *fmt,
                               const char *who, psi_diag *d);

/* Refuses, naming `path`, a history that is no longer its input: one whose
 * aborted transactions' operations a check dropped after validation
 * (h->n_dropped_ops, psi_index_drop_aborted). Written out, its aborted
 * transactions would come back empty, and a G1a the input had would be
 * gone. Every whole-history writer calls this first. */
psi_status psi_write_check_whole(const psi_history *h, const char *path, const char *fmt,
                                 psi_diag *d);

/* Refuses, naming `path`, a history that the Jepsen formats (EDN, JSON:
 * `fmt`) cannot express: a write of 0 read from a format where 0 is the
 * initial value (text, dbcop, AWDIT), whose reads of 0 may read it; in
 * EDN and JSON they could only read the initial nil. */
psi_status psi_write_check_jepsen(const psi_history *h, const char *path, const char *fmt,
                                  psi_diag *d);

/* One line of a Jepsen writer (EDN, JSON): transaction txn's invoke or
 * completion. */
typedef struct psi_write_event {
    uint64_t time; /* h->rt's, 0 without real time */
    uint32_t txn;
    uint32_t completes; /* 0: the invoke, 1: the completion */
} psi_write_event;

/* The order the Jepsen writers put lines in (*out malloc'd, the caller
 * frees it): without real time session by session, completions only (an
 * invoke would make up real time: the reader takes it from the lines'
 * places); with it (h->rt) in real time, an invoke for every transaction
 * whose invoke is known, so that the reader, which takes real time from
 * the lines' places when invokes have no :index, reads back the same
 * precedence. Sessions keep their order either way. */
psi_status psi_write_events(const psi_history *h, psi_write_event **out, size_t *n, psi_diag *d);

#endif
