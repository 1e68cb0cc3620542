/* The witness text format (README, "Witnesses"): what `polysi-solve check
 * --witness` writes for an accepted history and `polysi-solve
 * verify-witness` reads back.
 *
 *     polysi-witness 1                 header, the first non-comment line
 *     isolation si|ser                 informational
 *     key K (S,ID) (S,ID) ...          a key's committed writers, first
 *                                      installed first (the initial value
 *                                      precedes them all)
 *     order (S,ID) (S,ID) ...          ser only: a serialization order
 *
 * Version 2 (written only when needed, so unique-value witnesses stay
 * version 1) adds, for histories with repeated values or a recorded
 * initial state (core/index.h):
 *     init (S,ID)                      the recorded initial state merged
 *                                      into the initial transaction
 *     read (S,ID) K (S',ID')|init      the writer the external read of key
 *                                      K by (S,ID) read from
 *
 * Version 3 adds two things (a version-3 reader takes both):
 * ordering hints (`check --version-order`; never written for an accepted
 * history's witness)
 *     chain K (S,ID) (S,ID) ...        writers of key K known to be
 *                                      installed in this order: any
 *                                      subsequence of K's version order;
 *                                      a key may have several chains
 * A version-order file may also use key lines: there too they are read as
 * chains (complete when they name every committed writer of the key).
 * And witnesses of the levels other than SI and SER (written only for
 * them), with any level on the isolation line, as `check --isolation`
 * takes it:
 *     isolation pl2|rc|ra|cc|pc|psi   the level; the order line is then
 *                                      a commit order (check/level.h),
 *                                      no key lines are needed
 *
 * Version 4 (written only for histories whose keys have names: EDN
 * keywords, strings or symbols, JSON strings) spells every key as the
 * history does, in key, chain and read lines alike (README, "Witnesses"):
 *     key :x (S,ID) ...                a keyword or symbol, as is
 *     key "acct 1" (S,ID) ...          a string, JSON's escapes allowed
 *                                      ("a\u0062" is "ab")
 *     key 7 (S,ID) ...                 an integer, matched by its decimal
 *                                      spelling (the key 7, not the 8th key)
 * Witness lines carry no values, so nothing else is spelled.
 *
 * Version 5 (written only when needed) lets a read line name one writer
 * per read event of the key by the reader, in program order:
 *     read (S,ID) K W1 W2 ...          W1 for the first read of K by
 *                                      (S,ID), W2 for its next read of K
 *                                      before its own write of K, ...
 * Under RC and PL-2 each such read is a read event of its own (a
 * non-repeatable read may see another writer, check/level.h), and with
 * repeated values its writer is a choice the witness must carry. Keys
 * are spelled as in version 4 (an integer spelling names the integer
 * key of an integer history).
 *
 * Lines whose first non-blank character is '#' are comments; blank lines
 * are ignored. Keys are the history's external keys, transactions are
 * (session id, transaction id) as in the history's input.
 *
 * A psi_witness is what the text says and nothing more: the parser checks
 * syntax only. Whether the keys and transactions exist, whether a key is
 * ordered twice or a second order line appears is for the checker
 * (interpret/witness_check.c) to refuse, naming the lines recorded here.
 * interpret/witness.c builds a psi_witness from the solver's model.
 *
 * Ownership: psi_witness_parse and psi_witness_build allocate the arrays
 * of a psi_witness and its key names; psi_witness_free releases them. */
#ifndef PSI_FORMATS_WITNESS_H
#define PSI_FORMATS_WITNESS_H

#include "core/diag.h"
#include "core/history.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct psi_txn_names; /* core/txnid.h (internal): names resolved to a history's transactions */

/* A transaction named in a witness. */
typedef struct psi_witness_txn {
    uint64_t sid, tid; /* session id, transaction id */
    uint64_t line;     /* the line it is on (0 when built, not parsed) */
} psi_witness_txn;

/* A line listing transactions: a key's version order, or the
 * serialization order. */
typedef struct psi_witness_line {
    uint64_t line;   /* its line number (0 when built, not parsed) */
    uint64_t key;    /* key lines: the external key */
    size_t first, n; /* its transactions: tx[first .. first + n) */
    /* Key and chain lines: the key's spelling (owned), from a version-4
     * file or psi_witness_name_keys; NULL otherwise. Until
     * psi_witness_resolve_keys runs, `key` means nothing when it is set. */
    char *key_name;
} psi_witness_line;

/* A read line (version 2). */
typedef struct psi_witness_read {
    uint64_t line;
    psi_witness_txn reader;
    uint64_t key;
    char *key_name; /* as in psi_witness_line */
    bool init;      /* read the initial value (writer unused) */
    psi_witness_txn writer;
    /* Which read event of the key by the reader, from 0 in program order
     * (version 5: RC's and PL-2's repeat reads, see above). Built and
     * parsed witnesses keep a line's events consecutive, 0, 1, 2, ... */
    uint32_t event;
} psi_witness_read;

typedef struct psi_witness {
    unsigned version;   /* 1 to 5 */
    bool has_isolation; /* an isolation line is present */
    bool ser;           /* it says ser (else si, or level) */
    /* Version 3: the weak level the isolation line names, lower case
     * ("rc"); empty for si and ser. Which names exist is the checker's
     * business (interpret/witness_level.c); the parser takes a word. */
    char level[8];
    /* The transactions of all lines, line by line. */
    psi_witness_txn *tx;
    size_t n_tx;
    /* psi_witness_parse_named (named set): the key and chain lines'
     * transactions as the history's indices, line by line; those lines'
     * first and n index txn[], and their transactions are on their line.
     * tx[] then holds the order line's alone. NULL otherwise. */
    bool named;
    uint32_t *txn;
    size_t n_txn;
    /* The key lines, in text order. */
    psi_witness_line *keys;
    size_t n_keys;
    bool has_order;             /* an order line is present */
    psi_witness_line order;     /* the first order line */
    uint64_t second_order_line; /* line of a second order line, 0 if none */
    bool has_init;              /* version 2: an init line (the first one) */
    psi_witness_txn init;
    uint64_t second_init_line; /* line of a second init line, 0 if none */
    psi_witness_read *reads;   /* version 2: the read lines, in text order */
    size_t n_reads;
    psi_witness_line *chains; /* version 3: the chain lines, in text order */
    size_t n_chains;
} psi_witness;

/* Parses text[0..len) (any bytes; named `name` in messages). A malformed
 * witness is PSI_ERR_SYNTAX with "NAME:LINE:COL: ..." (or "NAME: not a
 * witness ..." when the header is missing). On failure *out is left empty
 * (nothing to free). */
psi_status psi_witness_parse(const char *name, const char *text, size_t len, psi_witness *out,
                             psi_diag *d);

/* psi_witness_parse, resolving the transactions of key and chain lines
 * (a version order's chains: millions of names) to the indices of the
 * history `names` was built for while the text is read, so that no entry
 * per name is kept and nothing visits the names again (w->named, w->txn).
 * A name that is not one transaction's stops the parse: *resolved is then
 * false, the status PSI_OK and *out empty, and the caller parses the text
 * with psi_witness_parse (its consumers then name what is wrong). Errors,
 * and *out on them, as psi_witness_parse. */
psi_status psi_witness_parse_named(const char *name, const char *text, size_t len,
                                   struct psi_txn_names *names, psi_witness *out, bool *resolved,
                                   psi_diag *d);

/* The lowest format version that can carry w's lines: 5 when a read line
 * names more than one read event, 4 when a key is spelled, 3 with a level other than si/ser or
 * chain lines, 2 with an init or read line, else 1. The writer writes it; builders set w->version
 * to it. */
unsigned psi_witness_min_version(const psi_witness *w);

/* Writes w as text to f: an opening comment naming `history` (NULL: "a
 * history") and how to re-check it, the header (psi_witness_min_version,
 * not w->version), then the isolation, key and
 * order lines present in w. A write error on f is PSI_ERR_IO naming `path`
 * (the output's name). */
psi_status psi_witness_write(const psi_witness *w, const char *history, FILE *f, const char *path,
                             psi_diag *d);

/* Gives every key, chain and read line of w, built for h (its keys dense
 * ids), its key's spelling when h's keys have names, so the writer writes
 * version 4; nothing when they are integers. PSI_ERR_NOMEM. */
psi_status psi_witness_name_keys(psi_witness *w, const psi_history *h, psi_diag *d);

/* Maps every spelled key of a parsed witness to h's external key (which is
 * the dense key in a named history, keys[k] == k), in place, so checkers
 * look keys up as for versions 1-3. An integer spelling names the key
 * spelled so in a named history, the integer key otherwise. A spelling h
 * does not have is PSI_ERR_INPUT "FILE:LINE:1: key S is not in ...". */
psi_status psi_witness_resolve_keys(psi_witness *w, const psi_history *h, const char *file,
                                    psi_diag *d);

void psi_witness_free(psi_witness *w);

#endif
