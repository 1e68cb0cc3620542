/* Spellings of EDN and JSON scalars as keys and values (edn.h, "edn_spell.c"):
 * one canonical spelling per string, so that "ab", "a\u0062" and (EDN)
 * "a\142" name one key, and the comparison of JSON strings with field
 * names. The scanners (edn_scan.c, json_scan.c) validated every string
 * first: escapes are well formed (JSON's surrogates paired), UTF-8 is
 * valid, so decoding here needs no bounds checks beyond the closing
 * quote. */
#include "formats/edn.h"

#include "core/vec.h"

#include <assert.h>
#include <stdio.h>

/* Four hex digits at s (validated) as a code unit. */
static unsigned long hex4(const char *s)
{
    unsigned long v = 0;
    for (int k = 0; k < 4; k++)
        v = v << 4 | (unsigned long)edn_hex_digit(s[k]);
    return v;
}

/* The code point of the escape at *s (a backslash; the string closes at
 * end), moving *s past it: \uXXXX (a surrogate pair as one code point, a
 * lone surrogate as itself: the caller decides), an octal \NNN (EDN only:
 * up to three digits, as the scanner took them) or a one-letter escape. */
static unsigned long escape_cp(const char **s, const char *end)
{
    const char *i = *s;
    char e = i[1];
    unsigned long c;
    if (e == 'u') {
        c = hex4(i + 2);
        i += 6;
        if (c >= 0xD800 && c <= 0xDBFF && end - i >= 6 && i[0] == '\\' && i[1] == 'u') {
            unsigned long lo = hex4(i + 2);
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
                c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
                i += 6;
            }
        }
    } else if (e >= '0' && e <= '7') {
        c = 0;
        i++;
        for (int k = 0; k < 3 && i < end && *i >= '0' && *i <= '7'; k++, i++)
            c = c << 3 | (unsigned long)(*i - '0');
    } else {
        c = e == 'b'   ? '\b'
            : e == 'f' ? '\f'
            : e == 'n' ? '\n'
            : e == 'r' ? '\r'
            : e == 't' ? '\t'
                       : (unsigned char)e; /* \" \\ \/ */
        i += 2;
    }
    *s = i;
    return c;
}

/* Appends code point c as UTF-8 at o; returns the end. */
static char *put_utf8(char *o, unsigned long c)
{
    if (c < 0x80) {
        *o++ = (char)c;
    } else if (c < 0x800) {
        *o++ = (char)(0xC0 | c >> 6);
        *o++ = (char)(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        *o++ = (char)(0xE0 | c >> 12);
        *o++ = (char)(0x80 | (c >> 6 & 0x3F));
        *o++ = (char)(0x80 | (c & 0x3F));
    } else {
        *o++ = (char)(0xF0 | c >> 18);
        *o++ = (char)(0x80 | (c >> 12 & 0x3F));
        *o++ = (char)(0x80 | (c >> 6 & 0x3F));
        *o++ = (char)(0x80 | (c & 0x3F));
    }
    return o;
}

char *edn_spell_cp(char *o, unsigned long c)
{
    static const char short_esc[] = "\"\\\b\f\n\r\t";
    static const char short_name[] = "\"\\bfnrt";
    const char *k = c && c < 0x80 ? memchr(short_esc, (int)c, sizeof short_esc - 1) : NULL;
    if (k) {
        *o++ = '\\';
        *o++ = short_name[k - short_esc];
    } else if (c < 0x20) {
        o += snprintf(o, 7, "\\u%04lx", c);
    } else {
        o = put_utf8(o, c);
    }
    return o;
}

bool json_string_is(const edn_parser *p, const edn_node *nd, const char *name)
{
    if (nd->kind != EDN_STRING)
        return false;
    assert(nd->len >= 2 && nd->len != UINT32_MAX);
    if (!nd->esc) {
        size_t len = strlen(name);
        return nd->len == len + 2 && memcmp(p->buf + nd->pos + 1, name, len) == 0;
    }
    const char *s = p->buf + nd->pos + 1, *end = p->buf + nd->pos + nd->len - 1;
    const char *want = name;
    /* Decode each escape, compare its UTF-8 with the next bytes of name. */
    while (s < end) {
        char u8[4], *e8 = u8;
        if (*s != '\\')
            *e8++ = *s++;
        else
            e8 = put_utf8(u8, escape_cp(&s, end));
        size_t n = (size_t)(e8 - u8);
        if (strncmp(want, u8, n) != 0 || memchr(u8, '\0', n))
            return false;
        want += n;
    }
    return *want == '\0';
}

/* The spelling of string node nd (EDN or JSON): its escapes (\uXXXX,
 * EDN's octal, \n ...) and EDN's raw tabs, newlines and carriage returns
 * decoded and written again one way (edn_spell_cp), so "ab", "a\u0062"
 * and "a\142" are one value (else a read could miss its writer). NULL with
 * a diagnostic for an EDN lone surrogate (no UTF-8 for it; JSON's scanner
 * refused those) or when out of memory. Points into the buffer when
 * nothing needs rewriting, else into p->scratch (valid until the next
 * call). */
static const char *string_spelling(edn_parser *p, const edn_node *nd, size_t *len)
{
    assert(nd->kind == EDN_STRING && nd->len >= 2 && nd->len != UINT32_MAX);
    const char *s = p->buf + nd->pos, *end = s + nd->len - 1; /* at the closing quote */
    *len = nd->len;
    bool plain = true;
    for (const char *i = s + 1; i < end && plain; i++)
        plain = *i != '\\' && (unsigned char)*i >= 0x20;
    if (plain)
        return s;
    /* JSON: every escape is at least as long as what it becomes, re-escaped
     * (and no raw control byte), so the output is never longer than the
     * input. EDN: a raw control byte becomes \u00XX at worst, 6 bytes. */
    _Static_assert(SIZE_MAX / 6 > UINT32_MAX, "6 * len + 2 fits size_t");
    size_t cap = p->json ? nd->len : (size_t)nd->len * 6 + 2;
    if (!psi_grow((void **)&p->scratch, &p->cap_scratch, cap, 1)) {
        psi_diag_nomem(p->d, p->json ? "reading a JSON string" : "reading an EDN string");
        return NULL;
    }
    char *o = p->scratch;
    *o++ = '"';
    for (const char *i = s + 1; i < end;) {
        unsigned long c = (unsigned char)*i;
        if (c >= 0x20 && c != '\\') {
            *o++ = *i++; /* UTF-8 was validated by the scanner: copied as is */
            continue;
        }
        const char *at = i;
        if (c < 0x20)
            i++;
        else
            c = escape_cp(&i, end);
        if (c >= 0xD800 && c <= 0xDFFF) {
            edn_error(p, PSI_ERR_SYNTAX, (size_t)(at - p->buf),
                      "unpaired surrogate \\u%04lx in string (no character for it)", c);
            return NULL;
        }
        o = edn_spell_cp(o, c);
    }
    *o++ = '"';
    *len = (size_t)(o - p->scratch);
    assert(!p->json || *len <= nd->len);
    return p->scratch;
}

const char *edn_name_spelling(edn_parser *p, const edn_node *nd, char buf[24], size_t *len)
{
    if (nd->kind == EDN_STRING)
        return string_spelling(p, nd, len);
    if (nd->kind == EDN_INT && !nd->big) { /* negative: one spelling whatever the base */
        int n = snprintf(buf, 24, "-%llu", (unsigned long long)nd->u);
        *len = (size_t)n;
        return buf;
    }
    *len = nd->len;
    return p->buf + nd->pos;
}
