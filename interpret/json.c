/* Streaming JSON writer (see json.h). */
#include "interpret/json.h"

#include <math.h>

void psi_json_init(psi_json *j, FILE *out)
{
    j->out = out;
    j->depth = 0;
    j->need_comma[0] = false;
}

static void put_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", out);
            break;
        case '\\':
            fputs("\\\\", out);
            break;
        case '\n':
            fputs("\\n", out);
            break;
        case '\t':
            fputs("\\t", out);
            break;
        case '\r':
            fputs("\\r", out);
            break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

static void prefix(psi_json *j, const char *key)
{
    if (j->need_comma[j->depth])
        fputc(',', j->out);
    j->need_comma[j->depth] = true;
    if (key) {
        put_string(j->out, key);
        fputc(':', j->out);
    }
}

static void open_(psi_json *j, const char *key, char c)
{
    prefix(j, key);
    fputc(c, j->out);
    if (j->depth + 1 < PSI_JSON_MAX_DEPTH)
        j->depth++;
    j->need_comma[j->depth] = false;
}

static void close_(psi_json *j, char c)
{
    fputc(c, j->out);
    if (j->depth > 0)
        j->depth--;
    if (j->depth == 0)
        fputc('\n', j->out);
}

void psi_json_begin_object(psi_json *j, const char *key)
{
    open_(j, key, '{');
}

void psi_json_end_object(psi_json *j)
{
    close_(j, '}');
}

void psi_json_begin_array(psi_json *j, const char *key)
{
    open_(j, key, '[');
}

void psi_json_end_array(psi_json *j)
{
    close_(j, ']');
}

void psi_json_str(psi_json *j, const char *key, const char *val)
{
    prefix(j, key);
    put_string(j->out, val ? val : "");
}

void psi_json_u64(psi_json *j, const char *key, uint64_t val)
{
    prefix(j, key);
    fprintf(j->out, "%llu", (unsigned long long)val);
}

void psi_json_i64(psi_json *j, const char *key, int64_t val)
{
    prefix(j, key);
    fprintf(j->out, "%lld", (long long)val);
}

void psi_json_num(psi_json *j, const char *key, double val)
{
    prefix(j, key);
    if (isfinite(val))
        fprintf(j->out, "%.6g", val);
    else
        fputs("null", j->out);
}

void psi_json_bool(psi_json *j, const char *key, bool val)
{
    prefix(j, key);
    fputs(val ? "true" : "false", j->out);
}

void psi_json_null(psi_json *j, const char *key)
{
    prefix(j, key);
    fputs("null", j->out);
}
