/*
 * mapping.c - mapping files: which worker runs which task, chosen by net
 * path pattern (the format is docs/MAPPING.md).
 *
 *     # PATTERN                     WORKER
 *     S1:mc.png                     0
 *     S2:I3:**                      1
 *     **:mc.vcall                   0
 *
 * A pattern is a net path whose components may use '*' (any run of
 * characters inside one component) and '?' (one character); a component
 * "**" matches any number of whole components. The first line whose
 * pattern matches a task's path decides its worker; tasks no line matches
 * keep the network's own placement (@N, !@, star alternation, mapper).
 *
 * Why a checker against the network: a pattern with a typo would silently
 * place nothing. snet_mapping_check walks the network description and
 * refuses a pattern that no task of that network can ever have, naming the
 * file and line; replica indices (R<i>, I<v>) are families of names, so the
 * check asks whether the glob can match any member of the family.
 *
 * A line "workers N" says how many workers the mapping was written for
 * (advise writes it): a program run with another number warns, since the
 * workers beyond N would get only the tasks no line matches.
 *
 * The parser takes (buffer, length) and never reads past it, so it can be
 * fuzzed directly; every error names the source and line.
 */
#include "snet_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct map_rule {
    char *pattern;   /* as written */
    char **comps;    /* split at ':' */
    size_t ncomps;
    int worker;
    long line;
    bool wild;       /* any '*' or '?' */
} map_rule;

struct snet_mapping {
    char *name;       /* file name for messages */
    map_rule *rules;  /* in file order */
    size_t count, cap;
    size_t *exact;    /* indices of rules without wildcards, sorted by pattern */
    size_t nexact;
    size_t *wild;     /* indices of wildcard rules, in file order */
    size_t nwild;
    unsigned workers; /* the "workers N" line; 0 when there is none */
    long workers_line;
};

/* ---- parsing ----------------------------------------------------------------- */

static void rule_free(map_rule *r)
{
    for (size_t i = 0; i < r->ncomps; i++)
        free(r->comps[i]);
    free(r->comps);
    free(r->pattern);
}

void snet_mapping_free(snet_mapping *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->count; i++)
        rule_free(&m->rules[i]);
    free(m->rules);
    free(m->exact);
    free(m->wild);
    free(m->name);
    free(m);
}

static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Split pattern text p[0..len) at ':' into r->comps; NULL error or a reason. */
static const char *split_pattern(const char *p, size_t len, map_rule *r)
{
    size_t n = 1;
    for (size_t i = 0; i < len; i++)
        n += p[i] == ':';
    r->comps = calloc(n, sizeof *r->comps);
    if (!r->comps)
        return "out of memory";
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && p[i] != ':')
            continue;
        size_t clen = i - start;
        if (clen == 0)
            return "empty path component (two ':' in a row, or ':' at an end)";
        char *c = malloc(clen + 1);
        if (!c)
            return "out of memory";
        memcpy(c, p + start, clen);
        c[clen] = '\0';
        r->comps[r->ncomps++] = c;
        if (strstr(c, "**") && strcmp(c, "**") != 0)
            return "'**' must be a whole path component (as in S2:**:mc.acc)";
        start = i + 1;
    }
    return NULL;
}

/* Characters a pattern may hold: printable, no blanks, no '#'. */
static const char *check_chars(const char *p, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '[' || c == ']' || c == '\\' || c == '{' || c == '}')
            return "only '*', '?' and '**' are wildcards; '[', ']', '{', '}' and '\\' "
                   "are not allowed";
        if (c < 0x21 || c == 0x7f)
            return "control character in the pattern";
    }
    return NULL;
}

static int parse_worker(const char *p, size_t len, int *out)
{
    if (len == 0 || len > 9)
        return -1;
    int v = 0;
    for (size_t i = 0; i < len; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    *out = v;
    return 0;
}

static int add_rule(snet_mapping *m, const map_rule *r)
{
    if (KIT_GROW(m->rules, m->cap, m->count + 1) != 0)
        return -1;
    m->rules[m->count++] = *r;
    return 0;
}

/* The line "workers N" (the pattern word is "workers"); 0, or -1 with err
 * set. */
static int parse_workers_line(snet_mapping *m, const char *w, size_t wlen, long line, char *err,
                              size_t errlen)
{
    int n;
    if (parse_worker(w, wlen, &n) != 0 || n < 1) {
        snet_set_error(err, errlen, "%s:%ld: 'workers' needs a number of workers >= 1, got '%.*s'",
                       m->name, line, (int)(wlen > 40 ? 40 : wlen), w);
        return -1;
    }
    if (m->workers) {
        snet_set_error(err, errlen, "%s:%ld: a second 'workers' line (the first is line %ld)",
                       m->name, line, m->workers_line);
        return -1;
    }
    m->workers = (unsigned)n;
    m->workers_line = line;
    return 0;
}

/* One line (without its newline); 0, or -1 with err set. */
static int parse_line(snet_mapping *m, const char *s, size_t len, long line, char *err,
                      size_t errlen)
{
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\0') {
            snet_set_error(err, errlen, "%s:%ld: unexpected NUL byte", m->name, line);
            return -1;
        }
        if (s[i] == '#') { /* comment to the end of the line */
            len = i;
            break;
        }
    }
    size_t i = 0;
    while (i < len && is_blank(s[i]))
        i++;
    if (i == len)
        return 0;
    size_t pstart = i;
    while (i < len && !is_blank(s[i]))
        i++;
    size_t plen = i - pstart;
    while (i < len && is_blank(s[i]))
        i++;
    size_t wstart = i;
    while (i < len && !is_blank(s[i]))
        i++;
    size_t wlen = i - wstart;
    while (i < len && is_blank(s[i]))
        i++;
    if (wlen == 0 || i < len) {
        snet_set_error(err, errlen,
                       "%s:%ld: expected 'PATTERN WORKER' (a net path pattern and a worker "
                       "number), got '%.*s'", m->name, line, (int)(len - pstart > 80 ? 80 : len - pstart),
                       s + pstart);
        return -1;
    }
    if (plen == 7 && !memcmp(s + pstart, "workers", 7))
        return parse_workers_line(m, s + wstart, wlen, line, err, errlen);
    map_rule r = {0};
    r.line = line;
    if (parse_worker(s + wstart, wlen, &r.worker) != 0) {
        snet_set_error(err, errlen, "%s:%ld: worker must be a whole number >= 0, got '%.*s'",
                       m->name, line, (int)(wlen > 40 ? 40 : wlen), s + wstart);
        return -1;
    }
    const char *why = check_chars(s + pstart, plen);
    r.pattern = why ? NULL : malloc(plen + 1);
    if (!why && !r.pattern)
        why = "out of memory";
    if (!why) {
        memcpy(r.pattern, s + pstart, plen);
        r.pattern[plen] = '\0';
        why = split_pattern(s + pstart, plen, &r);
    }
    if (why) {
        snet_set_error(err, errlen, "%s:%ld: bad pattern '%.*s': %s", m->name, line,
                       (int)(plen > 80 ? 80 : plen), s + pstart, why);
        rule_free(&r);
        return -1;
    }
    r.wild = strpbrk(r.pattern, "*?") != NULL;
    for (size_t k = 0; k < m->count; k++) {
        if (!strcmp(m->rules[k].pattern, r.pattern)) {
            snet_set_error(err, errlen,
                           "%s:%ld: pattern '%s' repeats line %ld (the first matching line "
                           "wins, so this one would never apply)",
                           m->name, line, r.pattern, m->rules[k].line);
            rule_free(&r);
            return -1;
        }
    }
    if (add_rule(m, &r) != 0) {
        rule_free(&r);
        snet_set_error(err, errlen, "%s:%ld: out of memory", m->name, line);
        return -1;
    }
    return 0;
}

/* Exact patterns sorted for bsearch; wildcard rules kept in file order. */
static int index_rules(snet_mapping *m)
{
    m->exact = malloc((m->count ? m->count : 1) * sizeof *m->exact);
    m->wild = malloc((m->count ? m->count : 1) * sizeof *m->wild);
    if (!m->exact || !m->wild)
        return -1;
    for (size_t i = 0; i < m->count; i++) {
        if (m->rules[i].wild)
            m->wild[m->nwild++] = i;
        else
            m->exact[m->nexact++] = i;
    }
    return 0;
}

/* A stable merge sort of idx[0..n) by rule pattern (qsort has no context). */
static void sort_exact(const snet_mapping *m, size_t *idx, size_t *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    sort_exact(m, idx, tmp, h);
    sort_exact(m, idx + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = strcmp(m->rules[idx[j]].pattern, m->rules[idx[i]].pattern) < 0 ? idx[j++]
                                                                                  : idx[i++];
    while (i < h)
        tmp[k++] = idx[i++];
    while (j < n)
        tmp[k++] = idx[j++];
    memcpy(idx, tmp, n * sizeof *idx);
}

int snet_mapping_parse(const char *text, size_t len, const char *name, snet_mapping **out,
                       char *err, size_t errlen)
{
    *out = NULL;
    snet_mapping *m = calloc(1, sizeof *m);
    if (!m || !(m->name = strdup(name ? name : "(mapping)"))) {
        free(m);
        snet_set_error(err, errlen, "out of memory");
        return SNET_ENOMEM;
    }
    long line = 1;
    for (size_t start = 0; start < len; line++) {
        const char *nl = memchr(text + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - text) : len;
        if (parse_line(m, text + start, end - start, line, err, errlen) != 0) {
            snet_mapping_free(m);
            return SNET_EINVAL;
        }
        start = end + 1;
    }
    size_t *tmp = NULL;
    if (index_rules(m) != 0 || !(tmp = malloc((m->nexact ? m->nexact : 1) * sizeof *tmp))) {
        snet_mapping_free(m);
        snet_set_error(err, errlen, "out of memory");
        return SNET_ENOMEM;
    }
    sort_exact(m, m->exact, tmp, m->nexact);
    free(tmp);
    *out = m;
    return SNET_OK;
}

int snet_mapping_load(const char *path, snet_mapping **out, char *err, size_t errlen)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snet_set_error(err, errlen, "cannot open mapping file %s: %s", path, strerror(errno));
        return SNET_EINVAL;
    }
    char *buf;
    size_t len;
    int failed = kit_read_all(f, &buf, &len);
    int bad = ferror(f);
    fclose(f);
    if (failed && !bad) {
        snet_set_error(err, errlen, "%s: out of memory", path);
        return SNET_ENOMEM;
    }
    if (failed) {
        snet_set_error(err, errlen, "cannot read mapping file %s", path);
        return SNET_EINVAL;
    }
    int rc = snet_mapping_parse(buf, len, path, out, err, errlen);
    free(buf);
    return rc;
}

size_t snet_mapping_count(const snet_mapping *m) { return m ? m->count : 0; }

/* ---- matching ------------------------------------------------------------------ */

/* Glob match of one component: '*' any run, '?' one character. */
static bool glob_match(const char *p, const char *s)
{
    const char *star = NULL, *resume = NULL;
    while (*s) {
        if (*p == '?' || (*p && *p != '*' && *p == *s)) {
            p++;
            s++;
        } else if (*p == '*') {
            star = p++;
            resume = s;
        } else if (star) {
            p = star + 1;
            s = ++resume;
        } else {
            return false;
        }
    }
    while (*p == '*')
        p++;
    return *p == '\0';
}

/* Pattern components p[pi..np) against path components c[ci..nc). */
static bool comps_match(char *const *p, size_t pi, size_t np, char *const *c, size_t ci,
                        size_t nc)
{
    for (; pi < np; pi++, ci++) {
        if (!strcmp(p[pi], "**")) {
            for (size_t skip = ci; skip <= nc; skip++)
                if (comps_match(p, pi + 1, np, c, skip, nc))
                    return true;
            return false;
        }
        if (ci == nc || !glob_match(p[pi], c[ci]))
            return false;
    }
    return ci == nc;
}

/* Split path at ':' into a malloc'ed copy; components point into *buf. */
static char **split_path(const char *path, char **buf, size_t *n)
{
    size_t len = strlen(path), count = 1;
    for (size_t i = 0; i < len; i++)
        count += path[i] == ':';
    char **c = malloc(count * sizeof *c);
    *buf = malloc(len + 1);
    if (!c || !*buf) {
        free(c);
        free(*buf);
        *buf = NULL;
        return NULL;
    }
    memcpy(*buf, path, len + 1);
    *n = 0;
    c[(*n)++] = *buf;
    for (char *q = *buf; *q; q++)
        if (*q == ':') {
            *q = '\0';
            c[(*n)++] = q + 1;
        }
    return c;
}

static bool rule_matches(const map_rule *r, char *const *c, size_t nc)
{
    return comps_match(r->comps, 0, r->ncomps, c, 0, nc);
}

int snet_mapping_lookup(const snet_mapping *m, const char *path)
{
    if (!m || !path)
        return -1;
    size_t first = SIZE_MAX; /* the earliest matching rule */
    size_t lo = 0, hi = m->nexact;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(m->rules[m->exact[mid]].pattern, path);
        if (c == 0) {
            first = m->exact[mid];
            break;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (m->nwild && (first == SIZE_MAX || m->wild[0] < first)) {
        char *buf;
        size_t nc;
        char **c = split_path(path, &buf, &nc);
        if (!c)
            return first == SIZE_MAX ? -1 : m->rules[first].worker;
        for (size_t k = 0; k < m->nwild && m->wild[k] < first; k++) {
            if (rule_matches(&m->rules[m->wild[k]], c, nc)) {
                first = m->wild[k];
                break;
            }
        }
        free(c);
        free(buf);
    }
    return first == SIZE_MAX ? -1 : m->rules[first].worker;
}

/* ---- checking against a network ------------------------------------------------ */

/* A component of a task name: a literal, or a family of replica names
 * ("R" or "I" followed by an index; split indices may be negative). */
typedef struct name_comp {
    const char *literal; /* NULL for a family */
    char family;         /* 'R' or 'I' */
} name_comp;

/* Whether glob p matches some member of the family: a search over pairs
 * (position in p, state of the family's automaton). States: 0 before the
 * letter, 1 after it, 2 after '-', 3 after at least one digit (accepting). */
static int family_step(char family, int state, char c)
{
    if (state == 0)
        return c == family ? 1 : -1;
    if (c >= '0' && c <= '9')
        return 3;
    if (state == 1 && c == '-' && family == 'I')
        return 2;
    return -1;
}

static bool glob_meets_family(const char *p, char family)
{
    size_t n = strlen(p);
    bool *seen = calloc((n + 1) * 4, sizeof *seen);
    size_t *stack = malloc((n + 1) * 4 * sizeof *stack);
    bool found = false;
    if (!seen || !stack) {
        free(seen);
        free(stack);
        return true; /* cannot check: do not refuse the pattern */
    }
    size_t top = 0;
    stack[top++] = 0;
    seen[0] = true;
    static const char probes[] = {'R', 'I', '-', '0'}; /* one of each class */
    while (top && !found) {
        size_t st = stack[--top], i = st / 4;
        int f = (int)(st % 4);
        if (i == n) {
            found = f == 3;
            continue;
        }
        for (size_t k = 0; k < sizeof probes; k++) {
            char c = probes[k];
            int g = family_step(family, f, c);
            if (g < 0)
                continue;
            size_t next[2];
            size_t nn = 0;
            if (p[i] == '*') {
                next[nn++] = i * 4 + (size_t)g; /* '*' eats c and stays */
            } else if (p[i] == '?' || p[i] == c || (c == '0' && p[i] >= '0' && p[i] <= '9')) {
                next[nn++] = (i + 1) * 4 + (size_t)g;
            }
            for (size_t q = 0; q < nn; q++)
                if (!seen[next[q]]) {
                    seen[next[q]] = true;
                    stack[top++] = next[q];
                }
        }
        if (p[i] == '*' && !seen[(i + 1) * 4 + (size_t)f]) { /* '*' matches nothing */
            seen[(i + 1) * 4 + (size_t)f] = true;
            stack[top++] = (i + 1) * 4 + (size_t)f;
        }
    }
    free(seen);
    free(stack);
    return found;
}

static bool comp_meets(const char *p, const name_comp *c)
{
    return c->literal ? glob_match(p, c->literal) : glob_meets_family(p, c->family);
}

typedef struct pattern_ref {
    char *const *p;
    size_t np;
} pattern_ref;

static bool rest_meets(const pattern_ref *r, size_t pi, const snet_net *n);

/* The continuation after a component: another net, or the end (next NULL). */
static bool cont_meets(const pattern_ref *r, size_t pi, const snet_net *next)
{
    if (next)
        return rest_meets(r, pi, next);
    while (pi < r->np && !strcmp(r->p[pi], "**"))
        pi++;
    return pi == r->np;
}

/* Some name "c, names(next)" matches pattern components pi.. . */
static bool seq_meets(const pattern_ref *r, size_t pi, const name_comp *c, const snet_net *next)
{
    if (pi == r->np)
        return false;
    if (!strcmp(r->p[pi], "**"))
        return seq_meets(r, pi + 1, c, next) || cont_meets(r, pi, next);
    return comp_meets(r->p[pi], c) && cont_meets(r, pi + 1, next);
}

/* Some task name of net n matches pattern components pi.. . */
static bool rest_meets(const pattern_ref *r, size_t pi, const snet_net *n)
{
    char part[32];
    switch (n->kind) {
    case SNET_NODE_BOX: return seq_meets(r, pi, &(name_comp){n->name, 0}, NULL);
    case SNET_NODE_FILTER: return seq_meets(r, pi, &(name_comp){"filter", 0}, NULL);
    case SNET_NODE_SYNC: return seq_meets(r, pi, &(name_comp){"sync", 0}, NULL);
    case SNET_NODE_AT: return rest_meets(r, pi, n->children[0]);
    case SNET_NODE_SERIAL:
        for (size_t i = 0; i < n->nchildren; i++) {
            snprintf(part, sizeof part, "S%zu", i + 1);
            if (seq_meets(r, pi, &(name_comp){part, 0}, n->children[i]))
                return true;
        }
        return false;
    case SNET_NODE_PARALLEL:
        if (seq_meets(r, pi, &(name_comp){"P", 0}, NULL))
            return true;
        for (size_t i = 0; i < n->nchildren; i++) {
            snprintf(part, sizeof part, "P%zu", i);
            if (seq_meets(r, pi, &(name_comp){part, 0}, n->children[i]))
                return true;
        }
        return false;
    case SNET_NODE_STAR:
        return seq_meets(r, pi, &(name_comp){"R", 0}, NULL) ||
               seq_meets(r, pi, &(name_comp){NULL, 'R'}, NULL) ||
               seq_meets(r, pi, &(name_comp){NULL, 'R'}, n->children[0]);
    case SNET_NODE_SPLIT:
        return seq_meets(r, pi, &(name_comp){"I", 0}, NULL) ||
               seq_meets(r, pi, &(name_comp){NULL, 'I'}, n->children[0]);
    case SNET_NODE_FEEDBACK: /* entry and exit "F", the operand "F0:" */
        return seq_meets(r, pi, &(name_comp){"F", 0}, NULL) ||
               seq_meets(r, pi, &(name_comp){"F0", 0}, n->children[0]);
    }
    return false;
}

static bool pattern_meets_net(const map_rule *rule, const snet_net *net)
{
    pattern_ref r = {rule->comps, rule->ncomps};
    return seq_meets(&r, 0, &(name_comp){"snet.in", 0}, NULL) ||
           seq_meets(&r, 0, &(name_comp){"snet.out", 0}, NULL) || rest_meets(&r, 0, net);
}

/* Example task names of the net's boxes ("S2:I<v>:R<i>:S1:P0:mc.vcall"),
 * appended to buf as ", name" while there is room. */
static void box_examples(const snet_net *n, char *prefix, size_t plen, char *buf, size_t len,
                         int *budget)
{
    if (*budget <= 0)
        return;
    size_t used = strlen(prefix);
    char part[32];
    const char *suffix = NULL;
    switch (n->kind) {
    case SNET_NODE_BOX: suffix = n->name; break;
    case SNET_NODE_AT: box_examples(n->children[0], prefix, plen, buf, len, budget); return;
    case SNET_NODE_FILTER:
    case SNET_NODE_SYNC: return;
    default: break;
    }
    if (suffix) {
        size_t have = strlen(buf);
        snprintf(buf + have, len - have, "%s%s%s", have ? ", " : "", prefix, suffix);
        (*budget)--;
        return;
    }
    for (size_t i = 0; i < n->nchildren; i++) {
        switch (n->kind) {
        case SNET_NODE_SERIAL: snprintf(part, sizeof part, "S%zu:", i + 1); break;
        case SNET_NODE_PARALLEL: snprintf(part, sizeof part, "P%zu:", i); break;
        case SNET_NODE_STAR: snprintf(part, sizeof part, "R<i>:"); break;
        case SNET_NODE_FEEDBACK: snprintf(part, sizeof part, "F0:"); break;
        default: snprintf(part, sizeof part, "I<v>:"); break;
        }
        snprintf(prefix + used, plen - used, "%s", part);
        box_examples(n->children[i], prefix, plen, buf, len, budget);
        prefix[used] = '\0';
    }
}

unsigned snet_mapping_workers(const snet_mapping *m, long *line)
{
    if (line)
        *line = m ? m->workers_line : 0;
    return m ? m->workers : 0;
}

int snet_mapping_check(const snet_mapping *m, const snet_net *net, unsigned workers, char *err,
                       size_t errlen)
{
    if (!m)
        return SNET_OK;
    for (size_t i = 0; i < m->count; i++) {
        const map_rule *r = &m->rules[i];
        if (workers && (unsigned)r->worker >= workers) {
            snet_set_error(err, errlen,
                           "%s:%ld: worker %d is out of range: the run has %u worker%s (0-%u)",
                           m->name, r->line, r->worker, workers, workers == 1 ? "" : "s",
                           workers - 1);
            return SNET_EINVAL;
        }
        if (net && !pattern_meets_net(r, net)) {
            char examples[512] = "", prefix[256] = "";
            int budget = 6;
            box_examples(net, prefix, sizeof prefix, examples, sizeof examples, &budget);
            snet_set_error(err, errlen,
                           "%s:%ld: pattern '%s' matches no task of this network (its boxes are "
                           "named like %s%s; see docs/MAPPING.md)",
                           m->name, r->line, r->pattern, examples, budget <= 0 ? ", ..." : "");
            return SNET_EINVAL;
        }
    }
    return SNET_OK;
}
