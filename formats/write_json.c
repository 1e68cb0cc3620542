/* Writer for Jepsen JSON histories, the inverse of the JSON reader
 * (json_scan.c + read_edn.c) and the JSON twin of write_edn.c: the same
 * operations, one JSON object per line (JSON Lines), an invoke followed by
 * its completion (the invoke only when real time knows it, see
 * write_edn.c):
 *     {"type":"invoke","f":"txn","value":[["r",1,null],["w",1,3]],"process":2}
 *     {"type":"ok","f":"txn","value":[["r",1,5],["w",1,3]],"process":2,"index":7}
 * The invoke carries the writes and null for every read; the completion
 * the values read, the status ("ok" committed, "fail" aborted, "info"
 * unknown) and the transaction id as "index". Sessions become processes,
 * written session by session in order, so reading back gives the same
 * sessions, order and ids. Micro-ops: ["r",k,v] (["r",k,null] for an
 * initial-value read), ["w",k,v], ["append",k,v], ["r",k,[v1,...,vn]] for
 * list reads. A completion whose reads the reader would take for "not
 * known" carries "polysi/reads":"observed" (see write_edn.c and
 * psi_write_needs_observed_mark), and "start-ts" and "commit-ts" the
 * transaction's timestamps when it has them. Keys and values other than integers
 * are written as spelled (history.h) when JSON can say them: strings,
 * negative integers, booleans; a keyword or symbol is refused (as a
 * string it would merge :x with "x"). JSON has no comments: the header comment
 * of psi_write_history is not written. Output goes through psi_out. The
 * walk is write_jepsen.c's, shared with the EDN writer; this file is
 * JSON's spelling of it. */
#include "formats/write.h"

#include "formats/output.h"

#include <string.h>

static bool is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Whether spelling s (history.h: as the reader kept it) is a JSON value
 * that reads back as the same spelling: a string in JSON's escapes (EDN
 * strings may hold raw newlines or other escapes), an integer (negative
 * ones included), true or false. Keywords (:x) and symbols have no JSON
 * form: writing them as strings would merge :x with "x". */
static bool json_spellable(const char *s)
{
    size_t n = strlen(s);
    if (strcmp(s, "true") == 0 || strcmp(s, "false") == 0)
        return true;
    if (n && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))) {
        size_t i = s[0] == '-';
        if (i == n || (s[i] == '0' && n > i + 1))
            return false;
        for (; i < n; i++)
            if (s[i] < '0' || s[i] > '9')
                return false;
        return true;
    }
    if (n < 2 || s[0] != '"' || s[n - 1] != '"')
        return false;
    for (size_t i = 1; i + 1 < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == '"')
            return false;
        if (c != '\\')
            continue;
        char e = s[++i];
        if (e == 'u') {
            for (int k = 1; k <= 4; k++)
                if (i + (size_t)k + 1 >= n || !is_hex(s[i + (size_t)k]))
                    return false;
            i += 4;
        } else if (!strchr("\"\\/bfnrt", e) || e == '\0' || i + 1 >= n) {
            return false;
        }
    }
    return true;
}

static const psi_jepsen_syntax JSON = {
    .fmt = "json",
    .writing = "writing JSON",
    .comment_prefix = NULL, /* JSON has no comments */
    .sep = ",",
    .nil = "null",
    .w = "[\"w\",",
    .append = "[\"append\",",
    .r = "[\"r\",",
    .inv_head = "{\"type\":\"invoke\",\"f\":\"txn\",\"value\":",
    .process = ",\"process\":",
    .cmp_head = "{\"type\":",
    .txn_value = ",\"f\":\"txn\",\"value\":",
    .index = ",\"index\":",
    .observed = ",\"polysi/reads\":\"observed\"",
    .start_ts = ",\"start-ts\":",
    .commit_ts = ",\"commit-ts\":",
    /* PSI_TXN_INITIAL: committed as recorded; the check merged it. */
    .status = {[PSI_TXN_COMMITTED] = "\"ok\"",
               [PSI_TXN_ABORTED] = "\"fail\"",
               [PSI_TXN_UNKNOWN] = "\"info\"",
               [PSI_TXN_INITIAL] = "\"ok\""},
    .spellable = json_spellable,
    .cannot_spell = "JSON cannot spell (JSON has strings, numbers and booleans, no keywords or "
                    "symbols)",
};

psi_status psi_write_json_commented(const psi_history *h, const char *path, const char *comment,
                                    psi_diag *d)
{
    return psi_write_jepsen(h, path, comment, &JSON, d);
}

psi_status psi_write_json(const psi_history *h, const char *path, psi_diag *d)
{
    return psi_write_json_commented(h, path, NULL, d);
}
