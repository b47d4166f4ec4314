/*
 * metadata.c - the XML <metadata> blocks of a .snet program, read with
 * libxml2. What means something to this runtime is kept:
 *
 *   <boxdefault> or <default>    defaults for the boxes of this scope:
 *       <interface value="C4SNet"/>   the box language interface
 *       <library value="NAME"/>       the shared library with the boxes
 *   <box name="B">               the same for box B, plus
 *       <symbol value="C_NAME"/>      the C function (default: B)
 *   <interface name="X" default="true"/>   (older files) the default interface
 *
 * A block is a <metadata> element holding these, or one of them alone.
 * Element names may carry a namespace prefix (<snet:box>). Values come from
 * a value= or name= attribute, or the element's text. Anything else
 * (observers, compiler flags, editor data, SAC modules) is ignored with one
 * note per element name and block. A block that is not well-formed XML is
 * an error at its line.
 */
#include "lang_internal.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <string.h>

typedef struct meta_ctx {
    snet_lang_program *p;
    scope *s;
    snet_src at;          /* where the block starts */
    const char *noted[16]; /* element names already noted */
    size_t nnoted;
} meta_ctx;

/* The element name without a namespace prefix. */
static const char *local_name(const xmlNode *n)
{
    const char *name = (const char *)n->name;
    const char *colon = strrchr(name, ':');
    return colon ? colon + 1 : name;
}

static snet_src node_at(const meta_ctx *c, const xmlNode *n)
{
    int line = (int)xmlGetLineNo(n);
    if (line <= 0)
        return c->at;
    return (snet_src){c->at.line + line - 1, line == 1 ? c->at.column : 1};
}

static void ignored(meta_ctx *c, const xmlNode *n)
{
    const char *name = local_name(n);
    for (size_t i = 0; i < c->nnoted; i++)
        if (!strcmp(c->noted[i], name))
            return;
    if (c->nnoted < sizeof c->noted / sizeof c->noted[0])
        c->noted[c->nnoted++] = name;
    lang_note(c->p, node_at(c, n), "metadata <%s> means nothing to this runtime; ignored", name);
}

/* value= or name= attribute, else the trimmed text; a copy in the arena. */
static const char *value_of(meta_ctx *c, const xmlNode *n, bool name_too)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)"value");
    if (!v && name_too)
        v = xmlGetProp(n, (const xmlChar *)"name");
    if (!v)
        v = xmlNodeGetContent(n);
    if (!v)
        return NULL;
    const char *s = (const char *)v;
    size_t len = strlen(s);
    while (len && strchr(" \t\r\n", s[len - 1]))
        len--;
    while (len && strchr(" \t\r\n", *s))
        s++, len--;
    char *copy = len ? snet_arena_strndup(c->p->arena, s, len) : NULL;
    if (len && !copy)
        c->p->nomem = true;
    xmlFree(v);
    return copy;
}

static void add_library(snet_lang_program *p, const char *name)
{
    for (size_t i = 0; i < p->nlibraries; i++)
        if (!strcmp(p->libraries[i], name))
            return;
    lang_push(p, (void **)&p->libraries, &p->nlibraries, sizeof name, &name);
}

/* The settings inside <boxdefault>, <default> or <box>. */
static void read_settings(meta_ctx *c, const xmlNode *parent, box_meta *m)
{
    for (const xmlNode *n = parent->children; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        const char *name = local_name(n);
        if (!strcmp(name, "interface")) {
            m->interface = value_of(c, n, false);
        } else if (!strcmp(name, "library")) {
            m->library = value_of(c, n, true);
            if (m->library)
                add_library(c->p, m->library);
        } else if (!strcmp(name, "symbol") && m->name) {
            m->symbol = value_of(c, n, true);
        } else {
            ignored(c, n);
        }
    }
}

/* One element of a block: <box>, <boxdefault>, ... */
static void read_element(meta_ctx *c, const xmlNode *n)
{
    {
        const char *name = local_name(n);
        box_meta m = {NULL, NULL, NULL, NULL};
        if (!strcmp(name, "boxdefault") || !strcmp(name, "default")) {
            read_settings(c, n, &m);
        } else if (!strcmp(name, "box")) {
            m.name = value_of(c, n, true);
            xmlChar *attr = xmlGetProp(n, (const xmlChar *)"name");
            if (!attr) {
                lang_error(c->p, node_at(c, n), "metadata <box> needs a name=\"...\" attribute");
                return;
            }
            xmlFree(attr);
            read_settings(c, n, &m);
        } else if (!strcmp(name, "interface")) {
            xmlChar *def = xmlGetProp(n, (const xmlChar *)"default");
            bool is_default = def && !strcmp((const char *)def, "true");
            xmlFree(def);
            if (!is_default) {
                ignored(c, n);
                return;
            }
            m.interface = value_of(c, n, true);
        } else {
            ignored(c, n);
            return;
        }
        lang_push(c->p, (void **)&c->s->meta, &c->s->nmeta, sizeof m, &m);
    }
}

typedef struct xml_error {
    char message[256];
    int line;
} xml_error;

static void keep_first_error(void *ctx, xmlErrorPtr e)
{
    xml_error *err = ctx;
    if (err->message[0] || !e || e->level < XML_ERR_FATAL)
        return;
    snprintf(err->message, sizeof err->message, "%s", e->message ? e->message : "bad XML");
    size_t len = strlen(err->message);
    while (len && err->message[len - 1] == '\n')
        err->message[--len] = '\0';
    err->line = e->line;
}

void lang_metadata(snet_lang_program *p, scope *s, const snet_ast_def *block)
{
    meta_ctx c = {p, s, block->at, {0}, 0};
    xml_error err = {{0}, 0};
    xmlSetStructuredErrorFunc(&err, keep_first_error);
    xmlDocPtr doc = xmlReadMemory(block->text, (int)strlen(block->text), "metadata", NULL,
                                  XML_PARSE_NONET | XML_PARSE_NOWARNING | XML_PARSE_NOERROR);
    xmlSetStructuredErrorFunc(NULL, NULL);
    if (!doc) {
        snet_src at = block->at;
        if (err.line > 1)
            at = (snet_src){block->at.line + err.line - 1, 1};
        lang_error(p, at, "metadata is not well-formed XML: %s",
                   err.message[0] ? err.message : "cannot parse it");
        return;
    }
    /* <metadata> holds elements; a block may also be one element alone. */
    const xmlNode *root = xmlDocGetRootElement(doc);
    if (root && !strcmp(local_name(root), "metadata")) {
        for (const xmlNode *n = root->children; n; n = n->next)
            if (n->type == XML_ELEMENT_NODE)
                read_element(&c, n);
    } else if (root) {
        read_element(&c, root);
    }
    xmlFreeDoc(doc);
}
