/* A minimal streaming JSON writer for the JSON reports (`check --json`,
 * `stats --json`): objects, arrays, strings (escaped), integers and numbers,
 * with commas handled for the caller. Writes to the FILE* it is given;
 * nesting depth is bounded. A psi_json holds no memory; the FILE stays the
 * caller's (not closed or flushed here).
 *
 * It lives in interpret/, beside its only users, the renderers
 * (render_json.c, render_history.c), so a library user gets JSON reports
 * without cli/. core/ is the data model every stage shares; output formats
 * for people and programs are interpret/'s job. */
#ifndef PSI_INTERPRET_JSON_H
#define PSI_INTERPRET_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum { PSI_JSON_MAX_DEPTH = 32 };

typedef struct psi_json {
    FILE *out;
    int depth;
    bool need_comma[PSI_JSON_MAX_DEPTH];
} psi_json;

void psi_json_init(psi_json *j, FILE *out);
void psi_json_begin_object(psi_json *j, const char *key); /* key NULL inside arrays/top */
void psi_json_end_object(psi_json *j);
void psi_json_begin_array(psi_json *j, const char *key);
void psi_json_end_array(psi_json *j);
void psi_json_str(psi_json *j, const char *key, const char *val);
void psi_json_u64(psi_json *j, const char *key, uint64_t val);
void psi_json_i64(psi_json *j, const char *key, int64_t val);
void psi_json_num(psi_json *j, const char *key, double val);
void psi_json_bool(psi_json *j, const char *key, bool val);
void psi_json_null(psi_json *j, const char *key);

#endif
