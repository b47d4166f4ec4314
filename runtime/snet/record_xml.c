/*
 * record_xml.c - S-Net records in the original runtime's XML format
 * (snet_xml.h, docs/SNET-XML.md), read with libxml2's streaming reader.
 *
 * The original runtime writes a stream of small documents, each with its
 * own <?xml ...?> declaration, which is not one well-formed document. The
 * reader therefore blanks the declarations out (keeping line numbers),
 * wraps everything in one root element, and reads record by record,
 * expanding each <record> element into a small tree. The first
 * declaration's encoding, if any, is the input's encoding.
 */
#include "snet_xml.h"
#include "snet_internal.h"

#include <c4snet_runtime.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>
#include <libxml/xmlreader.h>

#define ROOT_OPEN "<snet-records>"
#define ROOT_CLOSE "</snet-records>"

struct snet_xml_reader {
    char *text; /* the input, declarations blanked, inside ROOT_OPEN ... ROOT_CLOSE */
    xmlTextReaderPtr xml;
    char *name;
    const snet_field_type *const *types;
    size_t ntypes;
    unsigned long records;
    bool c4snet; /* fields of C types stay C4SNet data (snet_xml_reader_keep_c4snet) */
    bool done, failed;
    char error[512];
};

/* ---- errors ------------------------------------------------------------------- */

static void reader_fail(snet_xml_reader *r, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void reader_fail(snet_xml_reader *r, int line, const char *fmt, ...)
{
    if (r->failed)
        return;
    r->failed = true;
    int n = line > 0 ? snprintf(r->error, sizeof r->error, "%s:%d: ", r->name, line)
                     : snprintf(r->error, sizeof r->error, "%s: ", r->name);
    if (n < 0 || (size_t)n >= sizeof r->error)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error + n, sizeof r->error - (size_t)n, fmt, ap);
    va_end(ap);
}

static void xml_error(void *arg, xmlErrorPtr e)
{
    snet_xml_reader *r = arg;
    if (!e || e->level < XML_ERR_ERROR)
        return;
    char msg[256];
    snprintf(msg, sizeof msg, "%s", e->message ? e->message : "malformed XML");
    size_t len = strlen(msg);
    while (len && (msg[len - 1] == '\n' || msg[len - 1] == ' '))
        msg[--len] = '\0';
    reader_fail(r, e->line, "not well-formed XML: %s", msg);
}

/* ---- opening ---------------------------------------------------------------------- */

/* The encoding named by the declaration at decl (NULL if none), copied to buf. */
static const char *declared_encoding(const char *decl, const char *end, char *buf, size_t len)
{
    const char *e = decl;
    while ((e = memchr(e, 'e', (size_t)(end - e))) != NULL && end - e > 9) {
        if (!strncmp(e, "encoding", 8)) {
            const char *q = e + 8;
            while (q < end && (*q == ' ' || *q == '=' || *q == '\t'))
                q++;
            if (q < end && (*q == '"' || *q == '\'')) {
                const char *close = memchr(q + 1, *q, (size_t)(end - q - 1));
                size_t n = close ? (size_t)(close - q - 1) : 0;
                if (close && n > 0 && n < len) {
                    memcpy(buf, q + 1, n);
                    buf[n] = '\0';
                    return buf;
                }
            }
        }
        e++;
    }
    return NULL;
}

/* Blank every <?xml ...?> declaration (and a byte order mark) in text[0..len). */
static const char *blank_declarations(char *text, size_t len, char *enc, size_t enclen)
{
    const char *encoding = NULL;
    if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
        memset(text, ' ', 3);
    for (size_t i = 0; i + 5 < len; i++) {
        if (memcmp(text + i, "<?xml", 5) != 0 ||
            !(isspace((unsigned char)text[i + 5]) || text[i + 5] == '?'))
            continue;
        const char *close = NULL;
        for (size_t j = i + 5; j + 1 < len; j++)
            if (text[j] == '?' && text[j + 1] == '>') {
                close = text + j + 2;
                break;
            }
        if (!close)
            break; /* left in place: the parser reports it */
        if (!encoding)
            encoding = declared_encoding(text + i, close, enc, enclen);
        for (char *c = text + i; c < close; c++)
            if (*c != '\n')
                *c = ' ';
        i = (size_t)(close - text) - 1;
    }
    return encoding;
}

int snet_xml_reader_open_memory(snet_xml_reader **out, const char *data, size_t len,
                                const char *name, const snet_field_type *const *types,
                                size_t ntypes)
{
    *out = NULL;
    size_t open = strlen(ROOT_OPEN), close = strlen(ROOT_CLOSE);
    if (len > (size_t)INT_MAX - open - close - 1)
        return SNET_EINVAL;
    snet_xml_reader *r = calloc(1, sizeof *r);
    if (!r)
        return SNET_ENOMEM;
    r->name = strdup(name ? name : "-");
    r->text = malloc(open + len + close + 1);
    if (!r->name || !r->text) {
        snet_xml_reader_close(r);
        return SNET_ENOMEM;
    }
    memcpy(r->text, ROOT_OPEN, open);
    if (len)
        memcpy(r->text + open, data, len);
    memcpy(r->text + open + len, ROOT_CLOSE, close + 1);
    char enc[64];
    const char *encoding = blank_declarations(r->text + open, len, enc, sizeof enc);
    r->types = types;
    r->ntypes = ntypes;
    r->xml = xmlReaderForMemory(r->text, (int)(open + len + close), r->name, encoding,
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
                                    XML_PARSE_HUGE);
    if (!r->xml) {
        snet_xml_reader_close(r);
        return SNET_ENOMEM;
    }
    xmlTextReaderSetStructuredErrorHandler(r->xml, xml_error, r);
    *out = r;
    return SNET_OK;
}

int snet_xml_reader_open(snet_xml_reader **out, FILE *in, const char *name,
                         const snet_field_type *const *types, size_t ntypes, char *err,
                         size_t errlen)
{
    size_t len;
    char *data;
    *out = NULL;
    if (kit_read_all(in, &data, &len) != 0) {
        if (!ferror(in)) {
            snet_set_error(err, errlen, "%s: out of memory reading records", name);
            return SNET_ENOMEM;
        }
        snet_set_error(err, errlen, "%s: cannot read: %s", name, strerror(errno));
        return SNET_ESYSTEM;
    }
    int rc = snet_xml_reader_open_memory(out, data, len, name, types, ntypes);
    free(data);
    if (rc != SNET_OK)
        snet_set_error(err, errlen, "%s: %s", name,
                       rc == SNET_EINVAL ? "the input is too large" : "out of memory");
    return rc;
}

void snet_xml_reader_close(snet_xml_reader *r)
{
    if (!r)
        return;
    if (r->xml)
        xmlFreeTextReader(r->xml);
    free(r->text);
    free(r->name);
    free(r);
}

const char *snet_xml_reader_error(const snet_xml_reader *r) { return r->failed ? r->error : ""; }
void snet_xml_reader_keep_c4snet(snet_xml_reader *r, bool keep) { r->c4snet = keep; }
unsigned long snet_xml_records_read(const snet_xml_reader *r) { return r->records; }

/* ---- one record ----------------------------------------------------------------------- */

static const char *local_name(const xmlNode *n)
{
    const char *name = (const char *)n->name;
    const char *colon = strrchr(name, ':');
    return colon ? colon + 1 : name;
}

static char *attr(const xmlNode *n, const char *name)
{
    return (char *)xmlGetProp(n, (const xmlChar *)name);
}

/* The element's text without surrounding blanks, in buf (malloc'ed). */
static char *trimmed_content(const xmlNode *n)
{
    char *text = (char *)xmlNodeGetContent(n);
    if (!text)
        return NULL;
    char *s = text;
    while (isspace((unsigned char)*s))
        s++;
    size_t len = strlen(s);
    while (len && isspace((unsigned char)s[len - 1]))
        len--;
    char *copy = strndup(s, len);
    xmlFree(text);
    return copy;
}

static const snet_field_type *find_type(const snet_xml_reader *r, const char *name)
{
    if (!strcmp(name, "string"))
        return &snet_field_string;
    for (size_t i = 0; i < r->ntypes; i++)
        if (!strcmp(r->types[i]->name, name))
            return r->types[i];
    return NULL;
}

/* A native field for a single C4SNet value of a whole-number or real type
 * (a char is its code, 0..255, as it always was here); false for arrays
 * and pointers, which stay C4SNet data. */
static bool native_scalar(c4snet_data_t *d, const snet_field_type **type, void **value)
{
    if (C4SNetArraySize(d) != 1)
        return false;
    const void *p = C4SNetGetData(d);
    long v;
    double x;
    switch (C4SNetGetType(d)) {
    case CTYPE_uchar:
    case CTYPE_char: v = *(const unsigned char *)p; break;
    case CTYPE_ushort: v = *(const unsigned short *)p; break;
    case CTYPE_short: v = *(const short *)p; break;
    case CTYPE_uint: v = *(const unsigned *)p; break;
    case CTYPE_int: v = *(const int *)p; break;
    case CTYPE_ulong: v = (long)*(const unsigned long *)p; break;
    case CTYPE_long: v = *(const long *)p; break;
    case CTYPE_float: x = *(const float *)p; goto real;
    case CTYPE_double: x = *(const double *)p; goto real;
    case CTYPE_ldouble: x = (double)*(const long double *)p; goto real;
    default: return false;
    }
    *type = &snet_field_int;
    *value = (void *)(intptr_t)v;
    return true;
real:
    *type = &snet_field_double;
    *value = NULL;
    memcpy(value, &x, sizeof x);
    return true;
}

/* "(TYPE)VALUE" of a C type: C4SNet data, or (native fields) an int or
 * double field. */
static int ctype_value(snet_xml_reader *r, int line, const char *label, const char *text,
                       const snet_field_type **type, void **value)
{
    c4snet_data_t *d;
    char why[256];
    if (c4snet_text_read(text, strlen(text), &d, why, sizeof why) != 0) {
        reader_fail(r, line, "field '%s': %s", label, why);
        return -1;
    }
    if (!r->c4snet && native_scalar(d, type, value)) {
        C4SNetFree(d);
        return 0;
    }
    *type = &c4snet_field;
    *value = d;
    return 0;
}

static int field_value(snet_xml_reader *r, int line, const char *label, const char *text,
                       const snet_field_type **type, void **value)
{
    const char *close = text[0] == '(' ? strchr(text, ')') : NULL;
    if (!close) {
        reader_fail(r, line, "field '%s': expected (TYPE)VALUE, e.g. (int)42, got '%.40s'",
                    label, text);
        return -1;
    }
    const char *bracket = memchr(text, '[', (size_t)(close - text));
    if (c4snet_type_from_name(text + 1, (size_t)((bracket ? bracket : close) - text - 1)) >= 0)
        return ctype_value(r, line, label, text, type, value);
    char tname[64];
    size_t tl = (size_t)(close - text - 1);
    if (tl == 0 || tl >= sizeof tname) {
        reader_fail(r, line, "field '%s': bad type in '%.40s'", label, text);
        return -1;
    }
    memcpy(tname, text + 1, tl);
    tname[tl] = '\0';
    const char *v = close + 1;
    if (!(*type = find_type(r, tname))) {
        reader_fail(r, line, "field '%s': unknown field type '%s'", label, tname);
        return -1;
    }
    if (!(*type)->deserialise || (*type)->deserialise(v, strlen(v), value) != 0) {
        reader_fail(r, line, "field '%s': bad (%s) value '%.40s'", label, tname, v);
        return -1;
    }
    return 0;
}

static int tag_value(snet_xml_reader *r, int line, const char *label, const char *text, long *v)
{
    if (!*text) {
        *v = 0; /* <tag label="t"/> */
        return 0;
    }
    char *end;
    errno = 0;
    *v = strtol(text, &end, 10);
    if (errno || *end) {
        reader_fail(r, line, "tag '%s': expected a whole number, got '%.40s'", label, text);
        return -1;
    }
    return 0;
}

/* The labels of one record while it is read: names belong to libxml2. */
typedef struct pending {
    snet_entry *entries;
    xmlChar **names;
    size_t n, cap;
} pending;

static void pending_free(pending *p, bool values_too)
{
    for (size_t i = 0; i < p->n; i++) {
        if (values_too && p->entries[i].kind == SNET_FIELD)
            snet_field_free(p->entries[i].type, p->entries[i].u.value);
        xmlFree(p->names[i]);
    }
    free(p->entries);
    free(p->names);
}

static int pending_add(pending *p, const snet_entry *e, xmlChar *name)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 8;
        snet_entry *entries = realloc(p->entries, cap * sizeof *entries);
        if (entries)
            p->entries = entries;
        xmlChar **names = entries ? realloc(p->names, cap * sizeof *names) : NULL;
        if (!names)
            return -1;
        p->names = names;
        p->cap = cap;
    }
    p->entries[p->n] = *e;
    p->entries[p->n].name = (const char *)name;
    p->names[p->n++] = name;
    return 0;
}

static bool pending_has(const pending *p, snet_label_kind k, const char *name)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->entries[i].kind == k && !strcmp(p->entries[i].name, name))
            return true;
    return false;
}

/* One <field>, <tag> or <btag> element. */
static int read_label(snet_xml_reader *r, pending *p, const xmlNode *n)
{
    int line = (int)xmlGetLineNo(n);
    const char *kind = local_name(n);
    snet_label_kind k = !strcmp(kind, "field") ? SNET_FIELD : !strcmp(kind, "tag") ? SNET_TAG
                        : !strcmp(kind, "btag") ? SNET_BTAG : (snet_label_kind)-1;
    if ((int)k < 0) {
        reader_fail(r, line, "unexpected <%s> in a record (expected field, tag or btag)", kind);
        return -1;
    }
    xmlChar *label = xmlGetProp(n, (const xmlChar *)"label");
    const char *name = (const char *)label;
    char *text = trimmed_content(n);
    snet_entry e = {.name = NULL, .kind = k, .type = NULL, .u.tag = 0};
    int rc = -1;
    if (!name || !*name || snet_name_length(name) != strlen(name)) {
        reader_fail(r, line, "<%s> needs a label=\"NAME\" attribute with a name", kind);
    } else if (!text) {
        reader_fail(r, line, "out of memory");
    } else if (pending_has(p, k, name)) {
        reader_fail(r, line, "%s '%s' appears twice in one record", kind, name);
    } else if (k == SNET_FIELD) {
        rc = field_value(r, line, name, text, &e.type, &e.u.value);
    } else {
        rc = tag_value(r, line, name, text, &e.u.tag);
    }
    free(text);
    if (rc == 0 && pending_add(p, &e, label) != 0) {
        if (k == SNET_FIELD)
            snet_field_free(e.type, e.u.value);
        reader_fail(r, line, "out of memory");
        rc = -1;
    }
    if (rc != 0)
        xmlFree(label);
    return rc;
}

/* The expanded <record> element n: 1 with a data record, 0 for terminate. */
static int read_record(snet_xml_reader *r, const xmlNode *n, snet_record **out)
{
    int line = (int)xmlGetLineNo(n);
    char *type = attr(n, "type"), *mode = attr(n, "mode");
    int rc = -1;
    if (!type) {
        reader_fail(r, line, "<record> without a type=\"...\" attribute");
    } else if (!strcmp(type, "terminate")) {
        rc = 0;
    } else if (strcmp(type, "data") != 0) {
        reader_fail(r, line, "records of type '%s' cannot be input (only data and terminate)",
                    type);
    } else if (mode && strcmp(mode, "textual") != 0) {
        reader_fail(r, line, "record mode '%s' is not supported (only textual)", mode);
    } else {
        pending p = {0};
        rc = 1;
        for (const xmlNode *c = n->children; c && rc == 1; c = c->next) {
            if (c->type == XML_ELEMENT_NODE) {
                if (read_label(r, &p, c) != 0)
                    rc = -1;
            } else if (c->type == XML_TEXT_NODE && !xmlIsBlankNode((xmlNode *)c)) {
                reader_fail(r, (int)xmlGetLineNo(c), "text in a record outside field, tag and btag");
                rc = -1;
            }
        }
        snet_record *rec = rc == 1 ? snet_record_new() : NULL;
        if (rc == 1 && (!rec || snet_record_append_owned(rec, p.entries, p.n) != SNET_OK)) {
            reader_fail(r, line, "out of memory");
            snet_record_free(rec);
            rc = -1;
        }
        pending_free(&p, rc != 1);
        if (rc == 1)
            *out = rec;
    }
    xmlFree(type);
    xmlFree(mode);
    return rc;
}

int snet_xml_read(snet_xml_reader *r, snet_record **rec)
{
    *rec = NULL;
    if (r->failed)
        return -1;
    if (r->done)
        return 0;
    for (;;) {
        int rc = xmlTextReaderRead(r->xml);
        if (rc != 1) {
            if (rc < 0 || r->failed) {
                reader_fail(r, 0, "not well-formed XML");
                return -1;
            }
            r->done = true;
            return 0;
        }
        if (xmlTextReaderNodeType(r->xml) != XML_READER_TYPE_ELEMENT)
            continue;
        int depth = xmlTextReaderDepth(r->xml);
        const char *name = (const char *)xmlTextReaderConstLocalName(r->xml);
        if (depth == 0 || !strcmp(name, "data"))
            continue; /* our root, and the <data> wrapper of older outputs */
        if (strcmp(name, "record") != 0) {
            reader_fail(r, xmlTextReaderGetParserLineNumber(r->xml),
                        "unexpected <%s>, expected <record>", name);
            return -1;
        }
        xmlNodePtr node = xmlTextReaderExpand(r->xml);
        if (!node) {
            reader_fail(r, xmlTextReaderGetParserLineNumber(r->xml), "not well-formed XML");
            return -1;
        }
        rc = read_record(r, node, rec);
        if (rc < 0)
            return -1;
        if (rc == 0) {
            r->done = true; /* terminate: what follows is not read */
            return 0;
        }
        r->records++;
        if (xmlTextReaderNext(r->xml) < 0 && !r->failed)
            reader_fail(r, 0, "not well-formed XML");
        return 1;
    }
}

/* ---- writing ---------------------------------------------------------------------------- */

/* s[0..len) as XML character data. gt: '>' too; C4SNet's own text
 * escapes only '&' and '<' (enough: its values never hold "]]>"), and the
 * original's output is reproduced byte for byte. */
static int write_escaped(FILE *out, const char *s, size_t len, bool gt)
{
    for (size_t i = 0; i < len; i++) {
        int rc;
        switch (s[i]) {
        case '&': rc = fputs("&amp;", out); break;
        case '<': rc = fputs("&lt;", out); break;
        case '>': rc = gt ? fputs("&gt;", out) : fputc('>', out); break;
        default: rc = fputc(s[i], out); break;
        }
        if (rc == EOF)
            return -1;
    }
    return 0;
}

static int write_field(FILE *out, const snet_entry *e)
{
    if (fprintf(out, "<field label=\"%s\" interface=\"C4SNet\">", e->name) < 0)
        return -1;
    if (e->type == &snet_field_int) {
        long v = (long)(intptr_t)e->u.value;
        if (fprintf(out, "(%s)%ld", v >= INT_MIN && v <= INT_MAX ? "int" : "long", v) < 0)
            return -1;
    } else if (e->type == &snet_field_double) {
        double d;
        memcpy(&d, &e->u.value, sizeof d);
        if (fprintf(out, "(double)%.17g", d) < 0)
            return -1;
    } else {
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        if (!m)
            return -1;
        bool c4 = e->type == &c4snet_field; /* its text names its C type */
        int rc = c4                   ? c4snet_text_write(m, e->u.value)
                 : e->type->serialise ? e->type->serialise(m, e->u.value)
                                      : fputs("?", m);
        if (fclose(m) != 0 || rc < 0 || (!c4 && fprintf(out, "(%s)", e->type->name) < 0) ||
            write_escaped(out, text, len, !c4) != 0) {
            free(text);
            return -1;
        }
        free(text);
    }
    return fputs("</field>\n", out) == EOF ? -1 : 0;
}

int snet_xml_write(FILE *out, const snet_record *rec)
{
    if (fputs("<?xml version=\"1.0\" ?>\n"
              "<record xmlns=\"snet-home.org\" type=\"data\" mode=\"textual\" >\n", out) == EOF)
        return SNET_ESYSTEM;
    for (int pass = 0; pass < 3; pass++) /* fields, tags, binding tags */
        for (size_t i = 0; i < rec->count; i++) {
            const snet_entry *e = &rec->entries[i];
            if ((int)e->kind != pass)
                continue;
            int rc = e->kind == SNET_FIELD ? write_field(out, e)
                     : fprintf(out, "<%s label=\"%s\">%ld</%s>\n", e->kind == SNET_TAG ? "tag" : "btag",
                               e->name, e->u.tag, e->kind == SNET_TAG ? "tag" : "btag") < 0 ? -1 : 0;
            if (rc != 0)
                return SNET_ESYSTEM;
        }
    return fputs("</record>\n", out) == EOF ? SNET_ESYSTEM : SNET_OK;
}

int snet_xml_write_end(FILE *out)
{
    return fputs("<?xml version=\"1.0\" ?>\n<record type=\"terminate\" />\n", out) == EOF
               ? SNET_ESYSTEM
               : SNET_OK;
}
