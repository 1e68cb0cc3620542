/* Connection strings in libpq's key=value syntax (db.h), for the drivers
 * whose client library takes its parameters one by one, and the level and
 * driver names every driver shares. */
#include "workload/db.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const level_names[PSI_DB_LEVEL_COUNT] = {"read-uncommitted", "read-committed",
                                                            "repeatable-read", "serializable"};
static const char *const level_sql[PSI_DB_LEVEL_COUNT] = {"READ UNCOMMITTED", "READ COMMITTED",
                                                          "REPEATABLE READ", "SERIALIZABLE"};

const char *psi_db_level_name(psi_db_level l)
{
    return (unsigned)l < PSI_DB_LEVEL_COUNT ? level_names[l] : "?";
}

const char *psi_db_level_sql(psi_db_level l)
{
    return (unsigned)l < PSI_DB_LEVEL_COUNT ? level_sql[l] : "?";
}

bool psi_db_level_parse(const char *s, psi_db_level *out)
{
    for (unsigned i = 0; i < PSI_DB_LEVEL_COUNT; i++) {
        const char *a = s, *b = level_names[i];
        while (*a && *b &&
               (tolower((unsigned char)*a) == *b || (*b == '-' && (*a == ' ' || *a == '_'))))
            a++, b++;
        if (!*a && !*b) {
            *out = (psi_db_level)i;
            return true;
        }
    }
    return false;
}

const psi_db_driver *psi_db_find(const char *name)
{
    static const struct {
        const char *alias;
        const psi_db_driver *(*get)(void);
    } names[] = {{"postgres", psi_db_postgres}, {"postgresql", psi_db_postgres},
                 {"pg", psi_db_postgres},       {"mariadb", psi_db_mariadb},
                 {"mysql", psi_db_mariadb},     {"sqlite", psi_db_sqlite},
                 {"sqlite3", psi_db_sqlite}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(name, names[i].alias) == 0)
            return names[i].get();
    return NULL;
}

void psi_conninfo_free(psi_conninfo *c)
{
    free(c->buf);
    free(c->keys);
    free(c->values);
    memset(c, 0, sizeof *c);
}

psi_status psi_conninfo_parse(const char *s, psi_conninfo *out, psi_diag *d)
{
    memset(out, 0, sizeof *out);
    size_t len = strlen(s);
    /* Keys and values are never longer than the input; at most one pair
     * per two bytes ("k=" is the shortest). */
    size_t max_pairs = len / 2 + 1;
    out->buf = malloc(len + 2);
    out->keys = malloc(max_pairs * sizeof *out->keys);
    out->values = malloc(max_pairs * sizeof *out->values);
    if (!out->buf || !out->keys || !out->values) {
        psi_conninfo_free(out);
        return psi_diag_nomem(d, "parsing the connection string");
    }
    char *w = out->buf;
    size_t i = 0;
    for (;;) {
        while (i < len && isspace((unsigned char)s[i]))
            i++;
        if (i == len)
            break;
        size_t key_at = i;
        out->keys[out->n] = w;
        while (i < len && s[i] != '=' && !isspace((unsigned char)s[i]))
            *w++ = s[i++];
        *w++ = '\0';
        while (i < len && isspace((unsigned char)s[i]))
            i++;
        if (i == len || s[i] != '=' || i == key_at) {
            psi_conninfo_free(out);
            return psi_diag_set(d, PSI_ERR_USAGE,
                                "connection string: expected key=value at byte %zu", key_at);
        }
        i++;
        while (i < len && isspace((unsigned char)s[i]))
            i++;
        out->values[out->n] = w;
        if (i < len && s[i] == '\'') {
            size_t quote_at = i++;
            while (i < len && s[i] != '\'') {
                if (s[i] == '\\' && i + 1 < len)
                    i++;
                *w++ = s[i++];
            }
            if (i == len) {
                psi_conninfo_free(out);
                return psi_diag_set(d, PSI_ERR_USAGE,
                                    "connection string: unterminated quote at byte %zu", quote_at);
            }
            i++;
        } else {
            while (i < len && !isspace((unsigned char)s[i])) {
                if (s[i] == '\\' && i + 1 < len)
                    i++;
                *w++ = s[i++];
            }
        }
        *w++ = '\0';
        out->n++;
    }
    return PSI_OK;
}

const char *psi_conninfo_get(const psi_conninfo *c, const char *key)
{
    const char *v = NULL;
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->keys[i], key) == 0)
            v = c->values[i];
    return v;
}

psi_status psi_conninfo_only(const psi_conninfo *c, const char *const *allowed, const char *who,
                             psi_diag *d)
{
    for (size_t i = 0; i < c->n; i++) {
        bool ok = false;
        for (const char *const *a = allowed; *a && !ok; a++)
            ok = strcmp(c->keys[i], *a) == 0;
        if (ok)
            continue;
        char list[256] = "";
        size_t used = 0;
        for (const char *const *a = allowed; *a && used < sizeof list; a++) {
            int k = snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", *a);
            used += k > 0 ? (size_t)k : 0;
        }
        return psi_diag_set(d, PSI_ERR_USAGE,
                            "connection string: %s takes no key '%s' (it takes %s)", who,
                            c->keys[i], list);
    }
    return PSI_OK;
}
