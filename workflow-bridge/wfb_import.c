/*
 * wfb_import.c - what all importers share: input format detection, time
 * parsing, and opening a path with the right importer.
 *
 * `snetmon metrics FILE` must work without being told the format, so the
 * format is guessed from the first bytes (a directory is an LPEL trace).
 */
#include "wfb_internal.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char *const format_names[] = {"unknown", "jsonl", "wfcommons", "bp", "lpel"};

const char *wfb_format_name(wfb_format f)
{
    return (unsigned)f <= WFB_FORMAT_LPEL_TRACE ? format_names[f] : "unknown";
}

wfb_format wfb_format_parse(const char *name)
{
    for (int f = 1; f <= WFB_FORMAT_LPEL_TRACE; f++)
        if (!strcmp(name, format_names[f]))
            return (wfb_format)f;
    if (!strcmp(name, "netlogger"))
        return WFB_FORMAT_BP;
    return WFB_FORMAT_UNKNOWN;
}

/* A first line that is a whole JSON object means JSON Lines; a JSON text
 * spread over lines is a WfCommons instance. */
static wfb_format detect_json(const char *head, size_t len)
{
    const char *nl = memchr(head, '\n', len);
    size_t first = nl ? (size_t)(nl - head) : len;
    json_t *obj = json_loadb(head, first, 0, NULL);
    if (obj) {
        bool jsonl = json_is_object(obj) && json_object_get(obj, "type");
        bool wfc = json_is_object(obj) && json_object_get(obj, "workflow");
        json_decref(obj);
        if (wfc && !jsonl)
            return WFB_FORMAT_WFCOMMONS;
        return WFB_FORMAT_JSONL;
    }
    return WFB_FORMAT_WFCOMMONS;
}

wfb_format wfb_format_detect(const char *path)
{
    struct stat st;
    if (stat(path, &st))
        return WFB_FORMAT_UNKNOWN;
    if (S_ISDIR(st.st_mode))
        return WFB_FORMAT_LPEL_TRACE;
    FILE *in = fopen(path, "r");
    if (!in)
        return WFB_FORMAT_UNKNOWN;
    char head[8192];
    size_t len = fread(head, 1, sizeof head - 1, in);
    fclose(in);
    head[len] = '\0';
    size_t skip = 0;
    while (skip < len && isspace((unsigned char)head[skip]))
        skip++;
    if (skip == len)
        return WFB_FORMAT_UNKNOWN;
    if (head[skip] == '#')
        return WFB_FORMAT_JSONL;
    if (head[skip] == '{')
        return detect_json(head + skip, len - skip);
    if (!strncmp(head + skip, "ts=", 3) || strstr(head, " event="))
        return WFB_FORMAT_BP;
    return WFB_FORMAT_UNKNOWN;
}

static int parse_digits(const char **s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++, (*s)++) {
        if (!isdigit((unsigned char)**s))
            return -1;
        v = v * 10 + (**s - '0');
    }
    *out = v;
    return 0;
}

/* "+01:00", "-0500", "Z" or nothing -> seconds east of UTC. */
static int parse_zone(const char *s, long *offset)
{
    *offset = 0;
    if (*s == '\0' || ((*s == 'Z' || *s == 'z') && s[1] == '\0'))
        return 0;
    if (*s != '+' && *s != '-')
        return -1;
    int sign = *s++ == '-' ? -1 : 1, hh, mm = 0;
    if (parse_digits(&s, 2, &hh))
        return -1;
    if (*s == ':')
        s++;
    if (*s && parse_digits(&s, 2, &mm))
        return -1;
    if (*s)
        return -1;
    *offset = sign * (hh * 3600L + mm * 60L);
    return 0;
}

int wfb_parse_time(const char *s, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end != s && *end == '\0' && !errno && isfinite(x)) { /* not "inf" or "nan" */
        *out = x;
        return 0;
    }
    struct tm tm = {0};
    const char *p = s;
    if (parse_digits(&p, 4, &tm.tm_year) || *p++ != '-' || parse_digits(&p, 2, &tm.tm_mon) ||
        *p++ != '-' || parse_digits(&p, 2, &tm.tm_mday) || (*p != 'T' && *p != ' '))
        return -1;
    p++;
    if (parse_digits(&p, 2, &tm.tm_hour) || *p++ != ':' || parse_digits(&p, 2, &tm.tm_min) ||
        *p++ != ':' || parse_digits(&p, 2, &tm.tm_sec))
        return -1;
    double frac = 0.0, scale = 0.1;
    if (*p == '.' || *p == ',')
        for (p++; isdigit((unsigned char)*p); p++, scale /= 10)
            frac += (*p - '0') * scale;
    long zone;
    if (parse_zone(p, &zone))
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    *out = (double)timegm(&tm) - (double)zone + frac;
    return 0;
}

int wfb_import_path(wfb_graph *g, const char *path, wfb_format format,
                    const wfb_import_options *opt, wfb_error *err)
{
    if (format == WFB_FORMAT_UNKNOWN)
        format = wfb_format_detect(path);
    if (format == WFB_FORMAT_LPEL_TRACE)
        return wfb_import_lpel_trace_opt(g, path, opt, err);
    if (format == WFB_FORMAT_UNKNOWN) {
        struct stat st;
        wfb_set_error(err, path, 0, "%s",
                      stat(path, &st) ? strerror(errno)
                                      : "cannot tell the input format (use --from)");
        return -1;
    }
    FILE *in = fopen(path, "r");
    if (!in) {
        wfb_set_error(err, path, 0, "%s", strerror(errno));
        return -1;
    }
    int rc;
    if (format == WFB_FORMAT_JSONL)
        rc = wfb_import_jsonl(g, in, path, opt, err);
    else if (format == WFB_FORMAT_WFCOMMONS)
        rc = wfb_import_wfcommons(g, in, path, err);
    else
        rc = wfb_import_bp(g, in, path, opt, err);
    fclose(in);
    return rc;
}

int wfb_load_input(const char *path, wfb_format format, const char *bp_map_path, bool partial,
                   wfb_progress_fn progress, void *progress_ctx, wfb_graph **out,
                   wfb_error *err)
{
    *out = NULL;
    wfb_bp_mapping *map = NULL;
    if (bp_map_path && !(map = wfb_bp_mapping_load(bp_map_path, err)))
        return -1;
    wfb_graph *g = wfb_graph_new();
    if (!g) {
        wfb_bp_mapping_free(map);
        wfb_set_error(err, path, 0, "out of memory");
        return -1;
    }
    wfb_import_options opt = {progress, progress_ctx, map, partial};
    int rc = wfb_import_path(g, path, format, &opt, err);
    wfb_bp_mapping_free(map);
    if (rc) {
        wfb_graph_free(g);
        return -1;
    }
    *out = g;
    return 0;
}
