/*
 * field_types.c - the built-in field types (int, double, string): the
 * copy/free/serialise callbacks a box language registers per field type,
 * written out for the three value kinds every program needs, so records can
 * be built from C and read from text without any registration.
 */
#include "snet_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- int: a long in the pointer bits ------------------------------------------- */

static int int_serialise(FILE *out, const void *value)
{
    return fprintf(out, "%ld", (long)(intptr_t)value) < 0 ? -1 : 0;
}

static int int_deserialise(const char *text, size_t len, void **value)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, text, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    long v = strtol(buf, &end, 0);
    if (errno || *end)
        return -1;
    *value = (void *)(intptr_t)v;
    return 0;
}

const snet_field_type snet_field_int = {"int", NULL, NULL, int_serialise, int_deserialise};

/* ---- double: the bits of a double in the pointer --------------------------------- */

static int double_serialise(FILE *out, const void *value)
{
    double d;
    memcpy(&d, &value, sizeof d);
    return fprintf(out, "%.17g", d) < 0 ? -1 : 0;
}

static int double_deserialise(const char *text, size_t len, void **value)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return -1;
    memcpy(buf, text, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    double d = strtod(buf, &end);
    /* ERANGE on underflow still gives the nearest double (a subnormal or 0,
     * which %.17g writes as such): only an overflow is an error. */
    if ((errno && (errno != ERANGE || isinf(d))) || *end)
        return -1;
    void *bits = NULL;
    memcpy(&bits, &d, sizeof d);
    *value = bits;
    return 0;
}

const snet_field_type snet_field_double = {"double", NULL, NULL, double_serialise,
                                           double_deserialise};

/* ---- string: a malloc'ed C string, printed quoted ------------------------------- */

static void *string_copy(const void *value) { return strdup(value ? value : ""); }

static void string_free(void *value) { free(value); }

static int string_serialise(FILE *out, const void *value)
{
    const unsigned char *s = value;
    if (fputc('"', out) == EOF)
        return -1;
    for (; s && *s; s++) {
        int rc;
        if (*s == '"' || *s == '\\')
            rc = fprintf(out, "\\%c", *s);
        else if (*s == '\n')
            rc = fprintf(out, "\\n");
        else if (*s == '\t')
            rc = fprintf(out, "\\t");
        else if (*s < 0x20 || *s == 0x7f)
            rc = fprintf(out, "\\x%02x", *s);
        else
            rc = fputc(*s, out) == EOF ? -1 : 1;
        if (rc < 0)
            return -1;
    }
    return fputc('"', out) == EOF ? -1 : 0;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decode one escape at text[*i] (just after the backslash) into *c. */
static int unescape(const char *text, size_t len, size_t *i, char *c)
{
    char e = text[(*i)++];
    switch (e) {
    case 'n': *c = '\n'; return 0;
    case 't': *c = '\t'; return 0;
    case '"': case '\\': *c = e; return 0;
    case 'x':
        if (*i + 2 > len || hex_digit(text[*i]) < 0 || hex_digit(text[*i + 1]) < 0)
            return -1;
        *c = (char)(hex_digit(text[*i]) * 16 + hex_digit(text[*i + 1]));
        *i += 2;
        return 0;
    default:
        return -1;
    }
}

static int string_deserialise(const char *text, size_t len, void **value)
{
    if (len < 2 || text[0] != '"' || text[len - 1] != '"')
        return -1;
    char *s = malloc(len);
    if (!s)
        return -1;
    size_t n = 0;
    for (size_t i = 1; i < len - 1;) {
        char c = text[i++];
        if (c == '\\' && (i >= len - 1 || unescape(text, len - 1, &i, &c) != 0)) {
            free(s);
            return -1;
        }
        s[n++] = c;
    }
    s[n] = '\0';
    *value = s;
    return 0;
}

const snet_field_type snet_field_string = {"string", string_copy, string_free, string_serialise,
                                           string_deserialise};
