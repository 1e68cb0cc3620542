/* The tuning options (table in options.h): defaults, setting and reading
 * them by name, and starting the schedules they drive. */
#include "internal.h"

#include <assert.h>
#include <string.h>

/* Whether a value fits an option's kind (its range is checked separately). */
#define PSI_SAT_OPT_FITS_INT(v)  ((double)(uint64_t)(v) == (v))
#define PSI_SAT_OPT_FITS_REAL(v) 1

static const psi_sat_options defaults = {
#define PSI_SAT_OPT_DEFAULT(name, kind, def, lo, hi, doc) .name = def,
    PSI_SAT_OPTIONS(PSI_SAT_OPT_DEFAULT)
#undef PSI_SAT_OPT_DEFAULT
};

/* Starts the schedules from the options. Runs again whenever an option
 * changes, which is allowed only before the first solve, so nothing the
 * search derived from the old values survives. */
static void seed(psi_sat *s)
{
    const psi_sat_options *o = &s->opt;
    /* The search starts in focused mode unless only stable mode is wanted. */
    s->stable = o->modes == 2;
    s->var_decay = s->stable ? o->decay_stable : o->decay_focused;
    s->mode_len = o->mode_conflicts;
    s->mode_switch_at = o->mode_conflicts;
    s->mode_props_unit = s->mode_props_at = 0;
    s->luby_i = 1;
    s->luby_limit = o->luby_unit;
    s->reduce_at = o->reduce_first;
    s->reduce_inc = o->reduce_step;
    s->rephase_at = o->rephase_interval;
    for (uint32_t v = 0; v < s->nvars; v++)
        s->phase[v] = s->target[v] = s->best[v] = o->initial_phase ? 0 : 1; /* 1 = negative */
}

void psi_options_init(psi_sat *s)
{
#define PSI_SAT_OPT_IN_RANGE(name, kind, def, lo, hi, doc)                                         \
    assert((double)(def) >= (lo) && (double)(def) <= (hi) && PSI_SAT_OPT_FITS_##kind(def));
    PSI_SAT_OPTIONS(PSI_SAT_OPT_IN_RANGE)
#undef PSI_SAT_OPT_IN_RANGE
    s->opt = defaults;
    seed(s);
}

int psi_sat_set_option(psi_sat *s, const char *name, double value)
{
    if (!name || s->started)
        return PSI_SAT_EINVAL;
#define PSI_SAT_OPT_SET(opt_name, kind, def, lo, hi, doc)                                          \
    if (!strcmp(name, #opt_name)) {                                                                \
        if (!(value >= (lo) && value <= (hi)) || !PSI_SAT_OPT_FITS_##kind(value))                  \
            return PSI_SAT_EINVAL;                                                                 \
        s->opt.opt_name = (PSI_SAT_OPT_TYPE_##kind)value;                                          \
        seed(s);                                                                                   \
        return 0;                                                                                  \
    }
    PSI_SAT_OPTIONS(PSI_SAT_OPT_SET)
#undef PSI_SAT_OPT_SET
    return PSI_SAT_EINVAL;
}

int psi_sat_get_option(const psi_sat *s, const char *name, double *value)
{
    if (!name)
        return PSI_SAT_EINVAL;
#define PSI_SAT_OPT_GET(opt_name, kind, def, lo, hi, doc)                                          \
    if (!strcmp(name, #opt_name)) {                                                                \
        *value = (double)s->opt.opt_name;                                                          \
        return 0;                                                                                  \
    }
    PSI_SAT_OPTIONS(PSI_SAT_OPT_GET)
#undef PSI_SAT_OPT_GET
    return PSI_SAT_EINVAL;
}
