/*
 * net_graph.c - the network as it ran (the paper's Figures 5 and 6): one
 * node per task labelled with its net path and filled with its worker's
 * colour, tasks grouped in one box per worker (which doubles as the legend),
 * one edge per stream labelled with the number of messages it carried.
 * Streams from or to outside the network start or end at "input"/"output".
 *
 * Replicas collapse: a star or split creates one instance of its operand
 * per replica (net path components R<i>, I<v>), so a run can have
 * thousands of tasks that differ only in that index. Tasks whose paths are
 * equal once those indices read "*" and that ran on the same worker become
 * one node "path xN", and their streams one edge with the summed counts:
 * the picture stays readable and Graphviz is spared graphs it cannot lay
 * out (its dot layout of 2.42 crashes on some large clustered graphs).
 */
#include "viz_internal.h"

#include <graphviz/cgraph.h>
#include <stdlib.h>
#include <string.h>

typedef struct net_task {
    uint64_t id;
    char *name;
    int worker; /* -1 unknown */
} net_task;

typedef struct net_stream {
    uint64_t id, writer, reader, messages;
    uint64_t written, read; /* counted per message by trace readers */
} net_stream;

struct viz_net {
    net_task *tasks;
    size_t tasks_len, tasks_cap;
    kit_id_map task_ids;
    net_stream *streams;
    size_t streams_len, streams_cap;
    kit_id_map stream_ids;
    char error[VIZ_ERR_LEN];
};

int viz_net_create(viz_net **out, char *err, size_t errlen)
{
    *out = calloc(1, sizeof **out);
    if (!*out) {
        viz_set_error(err, errlen, "out of memory");
        return VIZ_ENOMEM;
    }
    return VIZ_OK;
}

void viz_net_destroy(viz_net *net)
{
    if (!net)
        return;
    for (size_t i = 0; i < net->tasks_len; i++)
        free(net->tasks[i].name);
    free(net->tasks);
    free(net->streams);
    kit_id_map_free(&net->task_ids);
    kit_id_map_free(&net->stream_ids);
    free(net);
}

const char *viz_net_error(const viz_net *net) { return net ? net->error : "no network"; }

static int oom(viz_net *net)
{
    viz_set_error(net->error, sizeof net->error, "out of memory");
    return VIZ_ENOMEM;
}

/* The task with this id, added (unnamed) if new. */
static net_task *get_task(viz_net *net, uint64_t id)
{
    size_t i;
    if (kit_id_map_get(&net->task_ids, id, &i))
        return &net->tasks[i];
    if (KIT_GROW_ZEROED(net->tasks, net->tasks_cap, net->tasks_len + 1) != 0 ||
        kit_id_map_put(&net->task_ids, id, net->tasks_len) != 0)
        return NULL;
    net_task *t = &net->tasks[net->tasks_len++];
    *t = (net_task){.id = id, .worker = -1};
    return t;
}

int viz_net_add_task(viz_net *net, uint64_t id, const char *name, int worker)
{
    if (id == VIZ_NO_TASK || !name || !*name) {
        viz_set_error(net->error, sizeof net->error, "task needs an id and a name");
        return VIZ_EINVAL;
    }
    net_task *t = get_task(net, id);
    char *copy = viz_strdup(name);
    if (!t || !copy) {
        free(copy);
        return oom(net);
    }
    free(t->name);
    t->name = copy;
    if (worker >= 0)
        t->worker = worker;
    return VIZ_OK;
}

int viz_net_task_ran_on(viz_net *net, uint64_t id, int worker)
{
    net_task *t = get_task(net, id);
    if (!t)
        return oom(net);
    if (t->worker < 0)
        t->worker = worker;
    return VIZ_OK;
}

/* The stream with this id, added (both ends outside) if new. */
static net_stream *get_stream(viz_net *net, uint64_t id)
{
    size_t i;
    if (kit_id_map_get(&net->stream_ids, id, &i))
        return &net->streams[i];
    if (KIT_GROW_ZEROED(net->streams, net->streams_cap, net->streams_len + 1) != 0 ||
        kit_id_map_put(&net->stream_ids, id, net->streams_len) != 0)
        return NULL;
    net_stream *s = &net->streams[net->streams_len++];
    *s = (net_stream){.id = id, .writer = VIZ_NO_TASK, .reader = VIZ_NO_TASK};
    return s;
}

int viz_net_add_stream(viz_net *net, uint64_t id, uint64_t writer, uint64_t reader,
                       uint64_t messages)
{
    if ((writer != VIZ_NO_TASK && !get_task(net, writer)) ||
        (reader != VIZ_NO_TASK && !get_task(net, reader)))
        return oom(net);
    net_stream *s = get_stream(net, id);
    if (!s)
        return oom(net);
    if (writer != VIZ_NO_TASK)
        s->writer = writer;
    if (reader != VIZ_NO_TASK)
        s->reader = reader;
    s->messages += messages;
    return VIZ_OK;
}

int viz_net_count_traffic(viz_net *net, uint64_t id, uint64_t written, uint64_t read)
{
    net_stream *s = get_stream(net, id);
    if (!s)
        return oom(net);
    s->written += written;
    s->read += read;
    return VIZ_OK;
}

/* ---- building the cgraph graph ---- */

static void set_attr(void *obj, const char *name, const char *value)
{
    agsafeset(obj, (char *)name, (char *)value, "");
}

static Agraph_t *worker_cluster(Agraph_t *g, Agraph_t **clusters, int worker)
{
    if (worker < 0 || worker >= VIZ_MAX_WORKERS)
        return g;
    if (clusters[worker])
        return clusters[worker];
    char name[32], label[32], colour[8];
    snprintf(name, sizeof name, "cluster_w%d", worker);
    snprintf(label, sizeof label, "worker %d", worker);
    Agraph_t *sub = agsubg(g, name, 1);
    viz_rgb c = viz_palette_worker(worker);
    viz_rgb light = {0.8 + 0.2 * c.r, 0.8 + 0.2 * c.g, 0.8 + 0.2 * c.b};
    set_attr(sub, "label", label);
    viz_rgb_hex(light, colour);
    set_attr(sub, "style", "filled,rounded");
    set_attr(sub, "fillcolor", colour);
    viz_rgb_hex(c, colour);
    set_attr(sub, "color", colour);
    clusters[worker] = sub;
    return sub;
}

/* One node of the drawn graph: tasks of one worker with one collapsed path. */
typedef struct net_group {
    char *path; /* net path with replica indices as "*" */
    int worker;
    size_t tasks;
    uint64_t first_task; /* names the node: "t<id>", as for a lone task */
    Agnode_t *node;
} net_group;

/* One edge of the drawn graph: streams between two groups. */
typedef struct net_link {
    size_t from, to; /* group indices; SIZE_MAX = outside */
    size_t streams;
    uint64_t messages;
    uint64_t first_stream; /* names the edge: "s<id>", as for a lone stream */
} net_link;

/* The net path with every replica index (component R<digits> or
 * I<digits>) written as "*". The caller frees it. */
static char *collapsed_path(const char *name)
{
    size_t len = strlen(name);
    char *out = malloc(len + 1), *o = out;
    if (!out)
        return NULL;
    const char *c = name;
    while (*c) {
        const char *end = strchr(c, ':');
        size_t n = end ? (size_t)(end - c) : strlen(c);
        bool replica = n >= 2 && (c[0] == 'R' || c[0] == 'I') &&
                       strspn(c + 1, "0123456789") == n - 1;
        if (replica) {
            *o++ = c[0];
            *o++ = '*';
        } else {
            memcpy(o, c, n);
            o += n;
        }
        c += n;
        if (*c == ':')
            *o++ = *c++;
    }
    *o = '\0';
    return out;
}

typedef struct net_groups {
    net_group *items;
    size_t len, cap;
    kit_id_map by_key; /* hash of (path, worker) -> index */
    size_t *of_task;   /* task index -> group index */
} net_groups;

static void groups_free(net_groups *gs)
{
    for (size_t i = 0; i < gs->len; i++)
        free(gs->items[i].path);
    free(gs->items);
    free(gs->of_task);
    kit_id_map_free(&gs->by_key);
}

/* The group of task t (created if new); SIZE_MAX when out of memory. */
static size_t group_of(net_groups *gs, const net_task *t, uint64_t salt)
{
    char fallback[40];
    snprintf(fallback, sizeof fallback, "task %llu", (unsigned long long)t->id);
    char *path = collapsed_path(t->name ? t->name : fallback);
    if (!path)
        return SIZE_MAX;
    uint64_t key = kit_fnv1a(KIT_FNV1A_INIT ^ (unsigned)t->worker, path, strlen(path)) + salt;
    size_t i;
    if (kit_id_map_get(&gs->by_key, key, &i)) {
        if (!strcmp(gs->items[i].path, path) && gs->items[i].worker == t->worker) {
            free(path);
            gs->items[i].tasks++;
            return i;
        }
        /* A hash collision: keep the task in a group of its own. */
        free(path);
        return group_of(gs, t, salt + 0x9E3779B97F4A7C15ull);
    }
    if (KIT_GROW_ZEROED(gs->items, gs->cap, gs->len + 1) != 0 ||
        kit_id_map_put(&gs->by_key, key, gs->len) != 0) {
        free(path);
        return SIZE_MAX;
    }
    gs->items[gs->len] = (net_group){.path = path, .worker = t->worker, .tasks = 1,
                                     .first_task = t->id};
    return gs->len++;
}

static Agnode_t *group_node(Agraph_t *g, Agraph_t **clusters, const net_group *grp)
{
    char name[32], colour[8];
    snprintf(name, sizeof name, "t%llu", (unsigned long long)grp->first_task);
    Agnode_t *n = agnode(worker_cluster(g, clusters, grp->worker), name, 1);
    size_t len = strlen(grp->path) + 32;
    char *label = malloc(len);
    if (label) {
        if (grp->tasks > 1)
            snprintf(label, len, "%s \u00d7%zu", grp->path, grp->tasks);
        else
            snprintf(label, len, "%s", grp->path);
        set_attr(n, "label", label);
        free(label);
    }
    viz_rgb_hex(grp->worker >= 0 ? viz_palette_worker(grp->worker) : (viz_rgb){1, 1, 1}, colour);
    set_attr(n, "fillcolor", colour);
    return n;
}

static Agnode_t *outside_node(Agraph_t *g, bool input)
{
    Agnode_t *n = agnode(g, input ? "outside_input" : "outside_output", 1);
    set_attr(n, "label", input ? "input" : "output");
    set_attr(n, "shape", "plaintext");
    set_attr(n, "style", "");
    return n;
}

static void declare_defaults(Agraph_t *g, size_t tasks, size_t streams)
{
    char label[160];
    snprintf(label, sizeof label,
             "Network as run: %zu tasks, %zu streams (edge labels: messages; boxes: workers; "
             "replicas R*/I* merged, xN)",
             tasks, streams);
    agattr(g, AGRAPH, "label", label);
    agattr(g, AGRAPH, "labelloc", "t");
    /* Global ranking: with the default per-cluster ranking a chain that
     * alternates between workers (des's rounds) collapses into one flat rank,
     * unreadable, and labelled flat edges are where dot 2.42 crashes. */
    agattr(g, AGRAPH, "newrank", "true");
    agattr(g, AGRAPH, "fontname", "DejaVu Sans");
    agattr(g, AGRAPH, "style", "");
    agattr(g, AGRAPH, "fillcolor", "");
    agattr(g, AGRAPH, "color", "");
    agattr(g, AGNODE, "shape", "box");
    agattr(g, AGNODE, "style", "filled,rounded");
    agattr(g, AGNODE, "fillcolor", "white");
    agattr(g, AGNODE, "fontname", "DejaVu Sans");
    agattr(g, AGNODE, "label", "\\N");
    agattr(g, AGEDGE, "label", "");
    agattr(g, AGEDGE, "fontname", "DejaVu Sans");
    agattr(g, AGEDGE, "fontsize", "10");
}

#define OUTSIDE SIZE_MAX

/* Group the tasks; returns VIZ_OK or VIZ_ENOMEM. */
static int group_tasks(viz_net *net, net_groups *gs)
{
    gs->of_task = calloc(net->tasks_len + 1, sizeof *gs->of_task);
    if (!gs->of_task)
        return oom(net);
    for (size_t i = 0; i < net->tasks_len; i++)
        if ((gs->of_task[i] = group_of(gs, &net->tasks[i], 0)) == SIZE_MAX)
            return oom(net);
    return VIZ_OK;
}

/* The group at one end of a stream: OUTSIDE for no task, SIZE_MAX - 1 for
 * a task the trace never named (the stream is then not drawn). */
static size_t stream_end_group(viz_net *net, const net_groups *gs, uint64_t task)
{
    size_t i;
    if (task == VIZ_NO_TASK)
        return OUTSIDE;
    return kit_id_map_get(&net->task_ids, task, &i) ? gs->of_task[i] : SIZE_MAX - 1;
}

/* Merge the streams into links between groups. */
static int link_streams(viz_net *net, const net_groups *gs, net_link **links, size_t *len)
{
    size_t cap = 0;
    kit_id_map by_ends = {0};
    int rc = VIZ_OK;
    for (size_t i = 0; i < net->streams_len && rc == VIZ_OK; i++) {
        const net_stream *s = &net->streams[i];
        if (s->writer == VIZ_NO_TASK && s->reader == VIZ_NO_TASK)
            continue; /* no end inside the network: nothing to connect */
        size_t from = stream_end_group(net, gs, s->writer);
        size_t to = stream_end_group(net, gs, s->reader);
        if (from == SIZE_MAX - 1 || to == SIZE_MAX - 1)
            continue;
        uint64_t counted = s->written > s->read ? s->written : s->read;
        uint64_t key = ((uint64_t)(from == OUTSIDE ? 0xffffffffu : from) << 32) |
                       (uint64_t)(to == OUTSIDE ? 0xffffffffu : to);
        size_t k;
        if (!kit_id_map_get(&by_ends, key, &k)) {
            if (KIT_GROW_ZEROED(*links, cap, *len + 1) != 0 ||
                kit_id_map_put(&by_ends, key, *len) != 0) {
                rc = oom(net);
                break;
            }
            k = (*len)++;
            (*links)[k] = (net_link){.from = from, .to = to, .first_stream = s->id};
        }
        (*links)[k].streams++;
        (*links)[k].messages += s->messages + counted;
    }
    kit_id_map_free(&by_ends);
    return rc;
}

static void draw_links(Agraph_t *g, const net_groups *gs, const net_link *links, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        const net_link *l = &links[i];
        Agnode_t *from = l->from == OUTSIDE ? outside_node(g, true) : gs->items[l->from].node;
        Agnode_t *to = l->to == OUTSIDE ? outside_node(g, false) : gs->items[l->to].node;
        char name[32], label[64];
        snprintf(name, sizeof name, "s%llu", (unsigned long long)l->first_stream);
        if (l->streams > 1)
            snprintf(label, sizeof label, "%llu (%zu streams)", (unsigned long long)l->messages,
                     l->streams);
        else
            snprintf(label, sizeof label, "%llu", (unsigned long long)l->messages);
        Agedge_t *e = agedge(g, from, to, name, 1);
        set_attr(e, "label", label);
    }
}

static int build_graph(viz_net *net, Agraph_t *g)
{
    net_groups gs = {0};
    net_link *links = NULL;
    size_t links_len = 0;
    Agraph_t **clusters = calloc(VIZ_MAX_WORKERS, sizeof *clusters);
    int rc = clusters ? group_tasks(net, &gs) : oom(net);
    if (rc == VIZ_OK)
        rc = link_streams(net, &gs, &links, &links_len);
    if (rc == VIZ_OK) {
        declare_defaults(g, net->tasks_len, net->streams_len);
        for (size_t i = 0; i < gs.len; i++)
            gs.items[i].node = group_node(g, clusters, &gs.items[i]);
        draw_links(g, &gs, links, links_len);
    }
    free(links);
    groups_free(&gs);
    free(clusters);
    return rc;
}

int viz_net_render(viz_net *net, const char *path)
{
    Agraph_t *g = viz_gv_open("network");
    if (!g)
        return oom(net);
    int rc = build_graph(net, g);
    if (rc == VIZ_OK)
        rc = viz_gv_write(g, path, net->error, sizeof net->error);
    agclose(g);
    return rc;
}
