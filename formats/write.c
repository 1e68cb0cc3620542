/* psi_write_history (write.h): one entry point over the writers, for the
 * programs that let the user pick the output format (generate, collect). */
#include "formats/write.h"

#include "formats/output.h"

psi_status psi_write_history(const psi_history *h, psi_format fmt, const char *path,
                             const char *comment, psi_diag *d)
{
    switch (fmt) {
    case PSI_FMT_TEXT:
        return psi_write_text_commented(h, path, comment, d);
    case PSI_FMT_DBCOP:
        return psi_write_dbcop(h, path, d);
    case PSI_FMT_EDN:
        return psi_write_edn_commented(h, path, comment, d);
    case PSI_FMT_JSON:
        return psi_write_json_commented(h, path, comment, d);
    default:
        return psi_diag_set(d, PSI_ERR_USAGE, "%s: cannot write the %s format", path,
                            psi_format_name(fmt));
    }
}
