/* Level names and the lattice (see level.h). */
#include "check/level.h"

#include <strings.h>

typedef struct level_row {
    const char *arg, *longname, *alias, *name;
    /* Height in the lattice (level.h) without real time: equal heights are
     * incomparable. */
    int rank;
    /* Real time: 0 none, 1 session order, 2 real time. */
    int rt;
} level_row;

static const level_row rows[] = {
    [PSI_LEVEL_SI] = {"si", "snapshot-isolation", "snapshot-isolation", "SI", 5, 0},
    [PSI_LEVEL_SER] = {"ser", "serializability", "serializability", "SER", 6, 0},
    [PSI_LEVEL_PL2] = {"pl2", "adya-pl-2", "pl-2", "PL-2", 0, 0},
    [PSI_LEVEL_RC] = {"rc", "read-committed", "read_committed", "RC", 1, 0},
    [PSI_LEVEL_RA] = {"ra", "read-atomic", "read_atomic", "RA", 2, 0},
    [PSI_LEVEL_CC] = {"cc", "causal-consistency", "causal", "CC", 3, 0},
    [PSI_LEVEL_PC] = {"pc", "prefix-consistency", "prefix", "PC", 4, 0},
    [PSI_LEVEL_PSI] = {"psi", "parallel-si", "parallel-snapshot-isolation", "PSI", 4, 0},
    [PSI_LEVEL_STRICT_SER] = {"strict-ser", "strict-serializability", "strict-serializable",
                              "strict-SER", 6, 2},
    [PSI_LEVEL_STRONG_SI] = {"strong-si", "strong-snapshot-isolation", "strong-snapshot-isolation",
                             "strong-SI", 5, 2},
    [PSI_LEVEL_STRONG_SESSION_SI] = {"strong-session-si", "strong-session-snapshot-isolation",
                                     "strong-session-snapshot-isolation", "strong-session-SI", 5,
                                     1},
    [PSI_LEVEL_STRONG_SESSION_SER] = {"strong-session-ser", "strong-session-serializability",
                                      "strong-session-serializable", "strong-session-SER", 6, 1},
};
_Static_assert(sizeof rows / sizeof rows[0] == PSI_LEVEL_LAST + 1, "a row per level");

bool psi_level_parse(const char *name, psi_level *out)
{
    for (unsigned l = 0; l <= PSI_LEVEL_LAST; l++) {
        const level_row *r = &rows[l];
        if (strcasecmp(name, r->arg) == 0 || strcasecmp(name, r->longname) == 0 ||
            strcasecmp(name, r->alias) == 0) {
            *out = (psi_level)l;
            return true;
        }
    }
    return false;
}

const char *psi_level_name(psi_level l)
{
    return (unsigned)l <= PSI_LEVEL_LAST ? rows[l].name : "?";
}

const char *psi_level_arg(psi_level l)
{
    return (unsigned)l <= PSI_LEVEL_LAST ? rows[l].arg : "?";
}

psi_level psi_level_of(bool ser, psi_level level)
{
    return level == PSI_LEVEL_SI && ser ? PSI_LEVEL_SER : level;
}

bool psi_level_implies(psi_level strong, psi_level weak)
{
    /* Without real time every level but PC and PSI is comparable with
     * every other by rank; PC and PSI share a rank and are incomparable
     * (level.h). Real time only adds: a level implies another when it is
     * at least as high in both. */
    if (strong == weak)
        return true;
    const level_row *s = &rows[strong], *w = &rows[weak];
    if (s->rt < w->rt)
        return false;
    return s->rank > w->rank || (s->rank == w->rank && s->rank != 4);
}

psi_level psi_level_base(psi_level l)
{
    if (l == PSI_LEVEL_STRONG_SI || l == PSI_LEVEL_STRONG_SESSION_SI)
        return PSI_LEVEL_SI;
    if (l == PSI_LEVEL_STRICT_SER || l == PSI_LEVEL_STRONG_SESSION_SER)
        return PSI_LEVEL_SER;
    return l;
}

bool psi_level_realtime(psi_level l)
{
    return l == PSI_LEVEL_STRICT_SER || l == PSI_LEVEL_STRONG_SI;
}

bool psi_level_is_polynomial(psi_level l)
{
    return l == PSI_LEVEL_PL2 || l == PSI_LEVEL_RC || l == PSI_LEVEL_RA || l == PSI_LEVEL_CC;
}
