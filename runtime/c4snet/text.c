/*
 * text.c - the textual form of C4SNet data, exactly as the original
 * runtime wrote it into its XML records ("(int)5", "(char[2])h,i",
 * "(double)5.00000000000000000000000000000000e+00"), so that an original
 * program's output here is the same text, and its input files read
 * unchanged; and the field type c4snet_field, whose text in our own record
 * format (docs/RECORDS.md) is that form quoted as a string.
 *
 * Reading is a little more forgiving than the original's fscanf: numbers
 * may be hexadecimal (0x1f) and may not overflow their type (the
 * original's %d silently wrapped), and a few more spellings of the C type
 * names are accepted. Writing is the original's printf formats, byte for
 * byte; characters are written raw, the XML writer escapes them.
 */
#include "c4snet_internal.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- type names ------------------------------------------------------------------ */

static const char *const type_names[C4SNET_NTYPES] = {
    "unsigned char", "char",   "unsigned short", "short",       "unsigned int", "int",
    "unsigned long", "long",   "float",          "double",      "long double",  "pointer"};

/* Other spellings of the same C types (never written). */
static const struct {
    const char *name;
    c4snet_type_t type;
} aliases[] = {{"signed char", CTYPE_char},     {"unsigned", CTYPE_uint},
               {"long int", CTYPE_long},         {"long long", CTYPE_long},
               {"unsigned long long", CTYPE_ulong}, {"unsigned long int", CTYPE_ulong},
               {"short int", CTYPE_short},       {"unsigned short int", CTYPE_ushort}};

static bool same_word(const char *a, size_t len, const char *b)
{
    return strlen(b) == len && memcmp(a, b, len) == 0;
}

int c4snet_type_from_name(const char *name, size_t len)
{
    for (int t = 0; t < C4SNET_NTYPES; t++)
        if (same_word(name, len, type_names[t]))
            return t;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (same_word(name, len, aliases[i].name))
            return (int)aliases[i].type;
    return -1;
}

const char *c4snet_type_name(c4snet_type_t type)
{
    return (unsigned)type < (unsigned)C4SNET_NTYPES ? type_names[type] : "?";
}

/* ---- writing ------------------------------------------------------------------------ */

static int write_elem(FILE *out, c4snet_type_t type, const void *p)
{
    switch (type) {
    case CTYPE_uchar:
    case CTYPE_char: return fputc(*(const char *)p, out) == EOF ? -1 : 1;
    case CTYPE_ushort: return fprintf(out, "%hu", *(const unsigned short *)p);
    case CTYPE_short: return fprintf(out, "%hd", *(const short *)p);
    case CTYPE_uint: return fprintf(out, "%u", *(const unsigned *)p);
    case CTYPE_int: return fprintf(out, "%d", *(const int *)p);
    case CTYPE_ulong: return fprintf(out, "%lu", *(const unsigned long *)p);
    case CTYPE_long: return fprintf(out, "%ld", *(const long *)p);
    case CTYPE_float: return fprintf(out, "%.32f", (double)*(const float *)p);
    case CTYPE_double: return fprintf(out, "%.32e", *(const double *)p);
    case CTYPE_ldouble: return fprintf(out, "%.32Le", *(const long double *)p);
    case CTYPE_pointer: return fprintf(out, "%p", *(void *const *)p);
    }
    return -1;
}

int c4snet_text_write(FILE *out, const c4snet_data_t *d)
{
    c4snet_type_t type = (c4snet_type_t)d->type;
    if (fprintf(out, "(%s", type_names[type]) < 0 ||
        (d->array && fprintf(out, "[%zu]", d->size) < 0) || fputc(')', out) == EOF)
        return -1;
    size_t elem = c4snet_elem_size(type);
    for (size_t i = 0; i < d->size; i++)
        if ((i > 0 && fputc(',', out) == EOF) || write_elem(out, type, d->elems + i * elem) < 0)
            return -1;
    return 0;
}

/* ---- reading ------------------------------------------------------------------------ */

static int text_error(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int text_error(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* A whole number: decimal, or hexadecimal after 0x. */
static bool read_whole(const char *s, bool is_signed, long long min, unsigned long long max,
                       void *out, size_t size)
{
    while (isspace((unsigned char)*s))
        s++;
    const char *digits = s + (*s == '-' || *s == '+');
    int base = digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X') ? 16 : 10;
    char *end;
    errno = 0;
    unsigned long long u = 0;
    long long v = 0;
    if (is_signed)
        v = strtoll(s, &end, base);
    else if (*s == '-')
        return false;
    else
        u = strtoull(s, &end, base);
    while (isspace((unsigned char)*end))
        end++;
    if (errno || end == s || *end)
        return false;
    if (is_signed ? (v < min || v > (long long)max) : u > max)
        return false;
    if (is_signed)
        u = (unsigned long long)v;
    /* The value as the C type of that size (every one is unsigned here:
     * the bits of a signed value in range are the same). */
    unsigned char c = (unsigned char)u;
    unsigned short h = (unsigned short)u;
    unsigned int w = (unsigned int)u;
    unsigned long l = (unsigned long)u;
    memcpy(out, size == 1 ? (void *)&c : size == 2 ? (void *)&h : size == 4 ? (void *)&w : (void *)&l,
           size);
    return true;
}

static bool read_real(const char *s, c4snet_type_t type, void *out)
{
    char *end;
    errno = 0;
    long double v = type == CTYPE_float    ? (long double)strtof(s, &end)
                    : type == CTYPE_double ? (long double)strtod(s, &end)
                                           : strtold(s, &end);
    /* ERANGE on underflow still gives the nearest value: only an overflow
     * to infinity is an error (an "inf" written as such reads back). */
    bool overflow = errno == ERANGE && isinf(v);
    while (isspace((unsigned char)*end))
        end++;
    if (overflow || end == s || *end)
        return false;
    if (type == CTYPE_float)
        *(float *)out = (float)v;
    else if (type == CTYPE_double)
        *(double *)out = (double)v;
    else
        *(long double *)out = v;
    return true;
}

static bool read_pointer(const char *s, void *out)
{
    while (isspace((unsigned char)*s))
        s++;
    if (!strncmp(s, "(nil)", 5) && !s[5]) { /* glibc's %p of NULL */
        *(void **)out = NULL;
        return true;
    }
    unsigned long v; /* %p writes 0x and hexadecimal digits */
    if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') ||
        !read_whole(s, false, 0, UINTPTR_MAX, &v, sizeof v))
        return false;
    void *p = (void *)(uintptr_t)v;
    memcpy(out, &p, sizeof p);
    return true;
}

/* One number element, s NUL-terminated. */
static bool read_number(const char *s, c4snet_type_t type, void *out)
{
    switch (type) {
    case CTYPE_ushort: return read_whole(s, false, 0, USHRT_MAX, out, sizeof(unsigned short));
    case CTYPE_short: return read_whole(s, true, SHRT_MIN, SHRT_MAX, out, sizeof(short));
    case CTYPE_uint: return read_whole(s, false, 0, UINT_MAX, out, sizeof(unsigned));
    case CTYPE_int: return read_whole(s, true, INT_MIN, INT_MAX, out, sizeof(int));
    case CTYPE_ulong: return read_whole(s, false, 0, ULONG_MAX, out, sizeof(unsigned long));
    case CTYPE_long: return read_whole(s, true, LONG_MIN, LONG_MAX, out, sizeof(long));
    case CTYPE_float:
    case CTYPE_double:
    case CTYPE_ldouble: return read_real(s, type, out);
    case CTYPE_pointer: return read_pointer(s, out);
    default: return false;
    }
}

/* "(TYPE)" or "(TYPE[N])" at the start of text: the type, the element
 * count (1 for a single value), and where the values start. */
static int read_head(const char *text, size_t len, c4snet_type_t *type, size_t *size,
                     bool *array, size_t *values, char *err, size_t errlen)
{
    const char *close = len && text[0] == '(' ? memchr(text, ')', len) : NULL;
    if (!close)
        return text_error(err, errlen, "expected (TYPE)VALUE, e.g. (int)42, got '%.*s'",
                          (int)(len > 40 ? 40 : len), text);
    const char *name = text + 1, *end = close;
    const char *bracket = memchr(name, '[', (size_t)(close - name));
    *array = bracket != NULL;
    *size = 1;
    if (bracket) {
        char *stop;
        errno = 0;
        unsigned long long n = isdigit((unsigned char)bracket[1]) ? strtoull(bracket + 1, &stop, 10) : 0;
        if (!isdigit((unsigned char)bracket[1]) || errno || stop + 2 != close + 1 || *stop != ']' ||
            n > SIZE_MAX)
            return text_error(err, errlen, "expected (TYPE[N]) with a count N, got '%.*s'",
                              (int)(close - text + 1), text);
        *size = (size_t)n;
        end = bracket;
    }
    while (name < end && *name == ' ')
        name++;
    while (end > name && end[-1] == ' ')
        end--;
    int t = c4snet_type_from_name(name, (size_t)(end - name));
    if (t < 0)
        return text_error(err, errlen, "unknown C4SNet type '%.*s' (expected int, char, double, ...)",
                          (int)(end - name), name);
    *type = (c4snet_type_t)t;
    *values = (size_t)(close + 1 - text);
    return 0;
}

/* The elements of d from s[0..len) (a NUL-terminated copy we may cut). */
static int read_values(char *s, size_t len, c4snet_data_t *d, char *err, size_t errlen)
{
    c4snet_type_t type = (c4snet_type_t)d->type;
    const char *tname = type_names[type];
    size_t elem = c4snet_elem_size(type), at = 0;
    bool chars = type == CTYPE_char || type == CTYPE_uchar;
    for (size_t i = 0; i < d->size; i++) {
        if (i > 0 && (at >= len || s[at++] != ','))
            return text_error(err, errlen, "(%s[%zu]) needs %zu values separated by ',', found %zu",
                              tname, d->size, d->size, i);
        if (chars) { /* one byte, whatever it is (',' too) */
            if (at >= len)
                return text_error(err, errlen, "(%s) needs a character, found none", tname);
            d->elems[i * elem] = (unsigned char)s[at++];
            continue;
        }
        size_t stop = at;
        while (stop < len && s[stop] != ',')
            stop++;
        char saved = s[stop];
        s[stop] = '\0';
        bool ok = read_number(s + at, type, d->elems + i * elem);
        s[stop] = saved;
        if (!ok)
            return text_error(err, errlen, "bad (%s) value '%.*s'", tname,
                              (int)(stop - at > 40 ? 40 : stop - at), s + at);
        at = stop;
    }
    if (at < len)
        return text_error(err, errlen, "unexpected '%.*s' after the %s value%s", (int)(len - at > 20 ? 20 : len - at),
                          s + at, tname, d->size == 1 ? "" : "s");
    return 0;
}

int c4snet_text_read(const char *text, size_t len, c4snet_data_t **out, char *err, size_t errlen)
{
    c4snet_type_t type = CTYPE_int;
    size_t size = 0, at = 0;
    bool array = false;
    *out = NULL;
    if (read_head(text, len, &type, &size, &array, &at, err, errlen) != 0)
        return -1;
    /* No more elements than bytes left: a huge N is an error, not an allocation. */
    if (size > len - at + 1)
        return text_error(err, errlen, "(%s[%zu]) but only %zu bytes of values", type_names[type],
                          size, len - at);
    char *copy = malloc(len - at + 1);
    if (!copy)
        return text_error(err, errlen, "out of memory");
    memcpy(copy, text + at, len - at);
    copy[len - at] = '\0';
    c4snet_data_t *d = c4snet_data_new(type, size, array);
    int rc = read_values(copy, len - at, d, err, errlen);
    free(copy);
    if (rc != 0) {
        C4SNetFree(d);
        return -1;
    }
    *out = d;
    return 0;
}

/* ---- the field type ----------------------------------------------------------------- */

static void *field_copy(const void *value) { return C4SNetShallowCopy((c4snet_data_t *)value); }

static void field_free(void *value) { C4SNetFree(value); }

/* In docs/RECORDS.md's format the value is the original's text as a
 * quoted string (its commas and brackets would end the value otherwise). */
static int field_serialise(FILE *out, const void *value)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m)
        return -1;
    int rc = c4snet_text_write(m, value);
    if (fclose(m) != 0 || rc != 0) {
        free(text);
        return -1;
    }
    rc = snet_field_string.serialise(out, text);
    free(text);
    return rc;
}

static int field_deserialise(const char *text, size_t len, void **value)
{
    void *s;
    if (snet_field_string.deserialise(text, len, &s) != 0)
        return -1;
    c4snet_data_t *d;
    int rc = c4snet_text_read(s, strlen(s), &d, NULL, 0);
    free(s);
    if (rc == 0)
        *value = d;
    return rc;
}

const snet_field_type c4snet_field = {"c4snet", field_copy, field_free, field_serialise,
                                      field_deserialise};
