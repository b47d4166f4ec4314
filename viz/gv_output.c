/*
 * gv_output.c - writes a cgraph graph through Graphviz: laid out with dot
 * and rendered for .svg/.png, or written as plain DOT (no layout, so it is
 * fast, deterministic and easy to check) for .dot. Shared by the network
 * graph and the critical-path graph.
 *
 * Why every layout runs in a child process: Graphviz 2.42's dot layout has
 * memory bugs we cannot fix from outside. A labelled flat edge on the top
 * rank makes dot_position reallocate the rank array that gvFreeLayout then
 * frees a second time (a des network drawn with the old cluster ranking hit
 * it: "double free", exit 134), and two graphs laid out in one process can
 * read freed font state. We avoid the paths we know (net_graph.c asks for
 * newrank, which leaves far fewer flat edges), and contain the ones we do
 * not: the child lays out and renders into a temporary file, the parent
 * renames it into place only when the child exited cleanly, and a crash
 * becomes one error line naming the signal. The child ends with _exit, so
 * nothing of Graphviz's state is ever freed, and the caller's process never
 * holds a Graphviz context at all.
 *
 * Every format is written to "<path>.tmp.<pid>" and renamed on success, so a
 * failed render leaves no partial file behind.
 */
#include "viz_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

/* The id discipline of viz_gv_open: ids count up 1, 3, 5, ... as objects
 * are made, named or not, so that subgraphs (written in the order of their
 * ids) come out in the order they were made. Graphviz's default makes a
 * name's id the address of its copy, which put the network graph's clusters
 * in an order that changed from one run to the next. A name is kept as
 * Graphviz's own shared copy (agstrdup), found again through a table from
 * that copy's address and the object type to the id (mon_key_table), and
 * printed from a table of the names by id. */
typedef struct seq_ids {
    Agraph_t *g;
    IDTYPE next;          /* ids handed out: 2 * next + 1 is the next one */
    mon_key_table by_name; /* IDTYPE by name copy's address << 2 | type */
    char **names;         /* [next]: the name of id 2k + 1, NULL anonymous */
    size_t cap;
} seq_ids;

static void *seq_open(Agraph_t *g, Agdisc_t *disc)
{
    (void)disc;
    seq_ids *s = calloc(1, sizeof *s);
    if (s) {
        s->g = g;
        mon_key_table_init(&s->by_name, sizeof(IDTYPE));
    }
    return s;
}

static uint64_t name_key(const char *copy, int objtype)
{
    return (uint64_t)(uintptr_t)copy << 2 | (uint64_t)(objtype & 3);
}

/* A new id, for the name copy (NULL: anonymous); 0 when out of memory. */
static long new_id(seq_ids *s, char *copy, IDTYPE *id)
{
    if (s->next == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        char **n = realloc(s->names, cap * sizeof *n);
        if (!n)
            return 0;
        s->names = n;
        s->cap = cap;
    }
    s->names[s->next] = copy;
    *id = 2 * s->next++ + 1;
    return 1;
}

static long seq_map(void *state, int objtype, char *str, IDTYPE *id, int createflag)
{
    seq_ids *s = state;
    if (!str)
        return createflag ? new_id(s, NULL, id) : 0;
    char *copy = createflag ? agstrdup(s->g, str) : agstrbind(s->g, str);
    if (!copy)
        return 0;
    IDTYPE *known = mon_key_table_find(&s->by_name, name_key(copy, objtype));
    if (known) {
        if (createflag)
            agstrfree(s->g, copy); /* the table holds its reference already */
        *id = *known;
        return 1;
    }
    IDTYPE *slot = createflag ? mon_key_table_get(&s->by_name, name_key(copy, objtype)) : NULL;
    if (!slot || !new_id(s, copy, id))
        return 0;
    *slot = *id;
    return 1;
}

static long seq_alloc(void *state, int objtype, IDTYPE request)
{
    (void)state, (void)objtype, (void)request;
    return 0; /* no object is asked for by id */
}

/* Ids are never reused; the names live until the graph closes. */
static void seq_free(void *state, int objtype, IDTYPE id) { (void)state, (void)objtype, (void)id; }

static char *seq_print(void *state, int objtype, IDTYPE id)
{
    (void)objtype;
    const seq_ids *s = state;
    return id % 2 && id / 2 < s->next ? s->names[id / 2] : NULL;
}

/* The name copies go with the graph's string table, closed after this. */
static void seq_close(void *state)
{
    seq_ids *s = state;
    mon_key_table_free(&s->by_name, NULL);
    free(s->names);
    free(s);
}

static void seq_register(void *state, int objtype, void *obj) { (void)state, (void)objtype, (void)obj; }

static Agiddisc_t seq_ids_disc = {seq_open,  seq_map,    seq_alloc,   seq_free,
                                  seq_print, seq_close, seq_register};
static Agdisc_t seq_disc = {&AgMemDisc, &seq_ids_disc, &AgIoDisc};

void *viz_gv_open(const char *name) { return agopen((char *)name, Agdirected, &seq_disc); }

static int write_dot(Agraph_t *g, const char *tmp, char *err, size_t errlen)
{
    FILE *out = fopen(tmp, "w");
    if (!out) {
        viz_set_error(err, errlen, "%s: cannot open for writing: %s", tmp, strerror(errno));
        return VIZ_EIO;
    }
    int rc = agwrite(g, out) == 0 ? VIZ_OK : VIZ_EIO;
    if (fclose(out) != 0)
        rc = VIZ_EIO;
    if (rc != VIZ_OK)
        viz_set_error(err, errlen, "%s: write failed", tmp);
    return rc;
}

/* In the child: lay out and render; the first byte written to report_fd is
 * the status, followed by the error text on failure. */
static void child_render(Agraph_t *g, const char *tmp, const char *format, int report_fd)
{
    char err[VIZ_ERR_LEN] = "";
    char status = 0;
    GVC_t *gvc = gvContext();
    if (!gvc) {
        snprintf(err, sizeof err, "graphviz: cannot create a context");
        status = 1;
    } else if (gvLayout(gvc, g, "dot") != 0) {
        snprintf(err, sizeof err, "graphviz: dot layout failed");
        status = 1;
    } else if (gvRenderFilename(gvc, g, format, tmp) != 0) {
        snprintf(err, sizeof err, "graphviz could not render %s", format);
        status = 1;
    }
    /* Written before anything is freed: a crash in Graphviz's cleanup can no
     * longer lose a good image. The layout is never freed (see the top). */
    ssize_t unused = write(report_fd, &status, 1);
    if (status)
        unused = write(report_fd, err, strlen(err));
    (void)unused;
    _exit(status);
}

static int render_contained(Agraph_t *g, const char *tmp, const char *format, char *err,
                            size_t errlen)
{
    int fds[2];
    if (pipe(fds) != 0) {
        viz_set_error(err, errlen, "graphviz: cannot create a pipe: %s", strerror(errno));
        return VIZ_ERENDER;
    }
    fflush(NULL); /* the child must not write our buffered output twice */
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        viz_set_error(err, errlen, "graphviz: cannot fork the layout process: %s",
                      strerror(errno));
        return VIZ_ERENDER;
    }
    if (pid == 0) {
        close(fds[0]);
        child_render(g, tmp, format, fds[1]);
    }
    close(fds[1]);
    char report[VIZ_ERR_LEN + 1];
    size_t got = 0;
    for (;;) {
        ssize_t n = read(fds[0], report + got, sizeof report - 1 - got);
        if (n > 0 && (got += (size_t)n) < sizeof report - 1)
            continue;
        if (n < 0 && errno == EINTR)
            continue;
        break;
    }
    report[got] = '\0';
    close(fds[0]);
    int wstatus;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
    bool rendered = got >= 1 && report[0] == 0;
    if (rendered)
        return VIZ_OK; /* a crash in Graphviz's cleanup after a good render */
    if (got > 1) {
        viz_set_error(err, errlen, "%s: %s", tmp, report + 1);
    } else if (WIFSIGNALED(wstatus)) {
        viz_set_error(err, errlen,
                      "%s: graphviz crashed (signal %d, %s) laying out the graph; "
                      "a .dot output needs no layout",
                      tmp, WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
    } else {
        viz_set_error(err, errlen, "%s: the graphviz layout process failed (exit %d)", tmp,
                      WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
    }
    return VIZ_ERENDER;
}

int viz_gv_write(void *graph, const char *path, char *err, size_t errlen)
{
    viz_format fmt = viz_format_from_path(path);
    if (fmt != VIZ_FMT_DOT && fmt != VIZ_FMT_SVG && fmt != VIZ_FMT_PNG) {
        viz_set_error(err, errlen, "%s: graphs are written as .svg, .png or .dot",
                      path ? path : "");
        return VIZ_EINVAL;
    }
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= sizeof tmp) {
        viz_set_error(err, errlen, "%s: path too long", path);
        return VIZ_EINVAL;
    }
    int rc = fmt == VIZ_FMT_DOT
                 ? write_dot(graph, tmp, err, errlen)
                 : render_contained(graph, tmp, fmt == VIZ_FMT_SVG ? "svg" : "png", err, errlen);
    if (rc == VIZ_OK && rename(tmp, path) != 0) {
        viz_set_error(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        rc = VIZ_EIO;
    }
    if (rc != VIZ_OK)
        unlink(tmp);
    return rc;
}
