/* The anomaly vocabulary: every name a report gives a violation, Elle's
 * name for the same thing (Kingsbury & Alvaro, "Elle: Inferring Isolation
 * Anomalies from Experimental Observations"), and a short description. One
 * table, in psi_cex_kind order; a new kind is one enum constant
 * (interpret/explain.h) and one row here. The README's table ("Anomaly
 * names") lists the same rows.
 *
 * Names follow Elle wherever Elle has one: G0, G1a, G1b, G1c, G-single,
 * G-nonadjacent, G2-item, lost update (Elle's lost-update), internal,
 * incompatible order. A long fork is Elle's G-nonadjacent with two
 * anti-dependencies and nothing else but reads-from and session order
 * (Jepsen's long-fork workload checks exactly that shape); it keeps its
 * own name because testers look for it by that name. */
#include "interpret/explain.h"

typedef struct vocab {
    const char *name;  /* what reports say */
    const char *elle;  /* Elle's keyword, NULL when Elle has none */
    const char *title; /* what it is, in a few words */
} vocab;

static const vocab table[] = {
    [PSI_CEX_LOST_UPDATE] = {"lost update", "lost-update",
                             "two transactions read the same version of a key and both overwrite "
                             "it"},
    [PSI_CEX_LONG_FORK] = {"long fork", "G-nonadjacent",
                           "two readers see two writes in opposite orders"},
    [PSI_CEX_G_SINGLE] = {"G-single", "G-single",
                          "a cycle with exactly one anti-dependency (read skew; a causality "
                          "violation when the rest is session order and reads-from)"},
    [PSI_CEX_G2_ITEM] = {"G2-item", "G2-item",
                         "a cycle with adjacent anti-dependencies (write skew with two "
                         "transactions): forbidden by serializability, allowed by snapshot "
                         "isolation"},
    [PSI_CEX_G0] = {"G0", "G0", "write cycle: a cycle of write-write dependencies"},
    [PSI_CEX_G1A] = {"G1a", "G1a", "aborted read"},
    [PSI_CEX_G1B] = {"G1b", "G1b", "intermediate read"},
    [PSI_CEX_G1C] = {"G1c", "G1c",
                     "circular information flow: a cycle of write-write and write-read "
                     "dependencies"},
    [PSI_CEX_INT] = {"internal", "internal",
                     "a read disagrees with its own transaction's writes or earlier reads"},
    [PSI_CEX_UNWRITTEN] = {"unwritten read", NULL, "a read of a value no transaction wrote"},
    [PSI_CEX_CYCLE] = {"cycle", NULL, "a forbidden cycle that could not be shown"},
    [PSI_CEX_G_NONADJACENT] = {"G-nonadjacent", "G-nonadjacent",
                               "a cycle whose anti-dependencies are never adjacent"},
    [PSI_CEX_INCOMPATIBLE_ORDER] = {"incompatible order", "incompatible-order",
                                    "two reads of a list that are not prefixes of one another"},
    [PSI_CEX_NONMONOTONIC_READ] = {"non-monotonic read", NULL,
                                   "a transaction reads a key from a writer older than one an "
                                   "earlier read of it observed (violates read committed)"},
    [PSI_CEX_FRACTURED_READ] = {"fractured read", NULL,
                                "a transaction sees some writes of a transaction (or of its own "
                                "session) but an older version of another key it wrote "
                                "(violates read atomic)"},
    [PSI_CEX_CAUSALITY_VIOLATION] = {"causality violation", NULL,
                                     "a read misses a write in its causal past, session order "
                                     "and reads-from (violates causal consistency)"},
    [PSI_CEX_NONREPEATABLE_READ] = {"non-repeatable read", NULL,
                                    "a transaction reads a key twice and sees two committed "
                                    "versions (allowed by read committed and PL-2 only)"},
    [PSI_CEX_STALE_READ] = {"stale read", NULL,
                            "by the timestamps, a read misses a version committed before its "
                            "transaction started"},
    [PSI_CEX_FUTURE_READ] = {"future read", NULL,
                             "by the timestamps, a read sees a version committed only after its "
                             "transaction started"},
    [PSI_CEX_SESSION_TIME] = {"session order against time", NULL,
                              "by the timestamps, a transaction does not commit before the next "
                              "one of its session starts"},
};

_Static_assert(sizeof table / sizeof table[0] == PSI_CEX_KIND_LAST + 1,
               "every psi_cex_kind has a row in the vocabulary");

static const vocab *row(psi_cex_kind k)
{
    return (unsigned)k <= PSI_CEX_KIND_LAST && table[k].name ? &table[k] : NULL;
}

const char *psi_cex_kind_name(psi_cex_kind k)
{
    const vocab *v = row(k);
    return v ? v->name : "?";
}

const char *psi_cex_kind_elle(psi_cex_kind k)
{
    const vocab *v = row(k);
    return v ? v->elle : NULL;
}

const char *psi_cex_kind_title(psi_cex_kind k)
{
    const vocab *v = row(k);
    return v ? v->title : "?";
}

psi_cex_kind psi_cex_kind_of_anomaly(psi_anomaly_kind k)
{
    switch (k) {
    case PSI_ANOM_INT:
        return PSI_CEX_INT;
    case PSI_ANOM_G1A:
        return PSI_CEX_G1A;
    case PSI_ANOM_G1B:
        return PSI_CEX_G1B;
    case PSI_ANOM_UNWRITTEN:
        return PSI_CEX_UNWRITTEN;
    case PSI_ANOM_INCOMPATIBLE_ORDER:
        return PSI_CEX_INCOMPATIBLE_ORDER;
    }
    return PSI_CEX_CYCLE;
}
