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
 *
 * Graphs are opened with an ID discipline of our own (viz_gv_open): cgraph's
 * default makes a named object's ID the address of its interned name, and
 * keeps subgraphs in ID order, so the order of the clusters in the output
 * (and so the layout) followed the heap's layout and changed with any
 * allocation elsewhere. Here a name's ID comes from the order it was first
 * met, which is the order the default gave when the heap handed out
 * ascending addresses, now on every heap.
 */
#include "viz_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

/* ---- IDs in creation order ------------------------------------------------------------ */

/* Named IDs are even and count up from NAMED_BASE; anonymous ones (edges)
 * are odd and count up from 1, as cgraph's own. */
#define NAMED_BASE 2
#define NAMED_MAX (UINT64_C(1) << 40)

typedef struct gv_ids {
    Agraph_t *root;
    /* By order of creation (ID NAMED_BASE + 2 * index): the graph's own
     * reference-counted strings, as cgraph's writer expects of a name (it
     * looks at their header); they go when the graph is closed. */
    char **names;
    size_t n, cap;
    kit_index_map by_name;
    IDTYPE anonymous;
} gv_ids;

typedef struct name_probe {
    const gv_ids *ids;
    const char *name;
} name_probe;

static uint64_t name_hash(const char *s) { return kit_fnv1a(KIT_FNV1A_INIT, s, strlen(s)); }

static bool same_name(const void *ctx, uint32_t i)
{
    const name_probe *p = ctx;
    return strcmp(p->ids->names[i], p->name) == 0;
}

static uint64_t stored_name_hash(const void *ctx, uint32_t i)
{
    return name_hash(((const gv_ids *)ctx)->names[i]);
}

static void *ids_open(Agraph_t *g, Agdisc_t *disc)
{
    (void)disc;
    gv_ids *ids = calloc(1, sizeof *ids);
    if (ids)
        *ids = (gv_ids){.root = g, .anonymous = 1};
    return ids;
}

static long ids_map(void *state, int objtype, char *str, IDTYPE *id, int createflag)
{
    (void)objtype;
    gv_ids *ids = state;
    if (!str) {
        *id = ids->anonymous;
        ids->anonymous += 2;
        return 1;
    }
    name_probe probe = {ids, str};
    uint32_t i = kit_index_map_find(&ids->by_name, name_hash(str), same_name, &probe);
    if (i == KIT_INDEX_NONE) {
        char *copy = createflag ? agstrdup(ids->root, str) : NULL;
        if (!copy || ids->n >= NAMED_MAX || KIT_GROW(ids->names, ids->cap, ids->n + 1) != 0 ||
            kit_index_map_insert(&ids->by_name, name_hash(str), (uint32_t)ids->n,
                                 stored_name_hash, ids) != 0) {
            if (copy)
                agstrfree(ids->root, copy);
            return 0;
        }
        i = (uint32_t)ids->n;
        ids->names[ids->n++] = copy;
    }
    *id = NAMED_BASE + 2 * (IDTYPE)i;
    return 1;
}

static long ids_alloc(void *state, int objtype, IDTYPE request)
{
    (void)state;
    (void)objtype;
    (void)request;
    return 0; /* no object is made for an ID the caller picks */
}

static void ids_free(void *state, int objtype, IDTYPE id)
{
    (void)state;
    (void)objtype;
    (void)id; /* names live until the graph is closed */
}

static char *ids_print(void *state, int objtype, IDTYPE id)
{
    (void)objtype;
    const gv_ids *ids = state;
    if (id % 2 || id < NAMED_BASE)
        return NULL;
    IDTYPE i = (id - NAMED_BASE) / 2;
    return i < ids->n ? ids->names[i] : NULL;
}

static void ids_close(void *state)
{
    gv_ids *ids = state;
    free(ids->names);
    kit_index_map_free(&ids->by_name);
    free(ids);
}

static void ids_register(void *state, int objtype, void *obj)
{
    (void)state;
    (void)objtype;
    (void)obj;
}

static Agiddisc_t creation_order_ids = {ids_open,  ids_map,   ids_alloc,   ids_free,
                                        ids_print, ids_close, ids_register};

void *viz_gv_open(const char *name)
{
    static Agdisc_t disc;
    disc = (Agdisc_t){&AgMemDisc, &creation_order_ids, &AgIoDisc};
    return agopen((char *)name, Agdirected, &disc);
}

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
