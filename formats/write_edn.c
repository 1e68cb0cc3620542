/* Writer for Jepsen / Elle EDN histories (formats.md §4), the inverse of
 * read_edn.c. A transaction of a history with real time becomes an
 * :invoke line followed (in real-time order) by its completion, as Jepsen
 * writes them:
 *     {:type :invoke, :f :txn, :value [[:r 1 nil] [:w 1 3]], :process 2}
 *     {:type :ok, :f :txn, :value [[:r 1 5] [:w 1 3]], :process 2, :index 7}
 * Without real time (a history from another format, or a completion that
 * had no invoke) only the completion is written, as in Elle's own
 * histories: an invoke would make up real time from the lines' order,
 * which strict-SER and strong-SI would then check.
 * The invoke carries the writes and nil for every read (what a client knows
 * before running it); the completion carries the values read and its status
 * (:ok committed, :fail aborted, :info unknown) and the transaction id as
 * :index (the invoke has none, so ids read back unchanged; a tool that
 * wants a dense :index on every line must renumber). Sessions become
 * processes; transactions are written session by session in session order,
 * so reading back gives the same sessions and the same order.
 * Micro-ops: [:r k v] ([:r k nil] for an initial-value read), [:w k v],
 * [:append k v] for PSI_OPF_APPEND writes, [:r k [v1 ... vn]] for list reads.
 * By the reader's rules a nil read of a :fail completion and every read of
 * an :info completion mean "not known" (Jepsen clients return the invoke's
 * value when they fail). So that such reads of an aborted or unknown
 * transaction survive a round trip, its completion then carries
 * `:polysi/reads :observed`: its reads are what was observed, nil being the
 * initial value. Other tools ignore the unknown key. A completion also
 * carries the transaction's :start-ts and :commit-ts when it has them.
 * Output goes through psi_out (output.h): a failed write leaves no partial
 * file, and "-" is standard output. The walk is write_jepsen.c's, shared
 * with the JSON writer; this file is EDN's spelling of it. */
#include "formats/write.h"

#include "formats/output.h"

static const psi_jepsen_syntax EDN = {
    .fmt = "edn",
    .writing = "writing EDN",
    .comment_prefix = "; ",
    .sep = " ",
    .nil = "nil",
    .w = "[:w ",
    .append = "[:append ",
    .r = "[:r ",
    .inv_head = "{:type :invoke, :f :txn, :value ",
    .process = ", :process ",
    .cmp_head = "{:type ",
    .txn_value = ", :f :txn, :value ",
    .index = ", :index ",
    .observed = ", :polysi/reads :observed",
    .start_ts = ", :start-ts ",
    .commit_ts = ", :commit-ts ",
    /* PSI_TXN_INITIAL: committed as recorded; the check merged it. */
    .status = {[PSI_TXN_COMMITTED] = ":ok",
               [PSI_TXN_ABORTED] = ":fail",
               [PSI_TXN_UNKNOWN] = ":info",
               [PSI_TXN_INITIAL] = ":ok"},
    .spellable = NULL, /* EDN spells every name the readers keep */
};

psi_status psi_write_edn_commented(const psi_history *h, const char *path, const char *comment,
                                   psi_diag *d)
{
    return psi_write_jepsen(h, path, comment, &EDN, d);
}

psi_status psi_write_edn(const psi_history *h, const char *path, psi_diag *d)
{
    return psi_write_edn_commented(h, path, NULL, d);
}
