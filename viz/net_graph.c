/*
 * net_graph.c - the network as it ran (the paper's Figures 5 and 6): one
 * node per task labelled with its net path and filled with its worker's
 * colour, tasks grouped in one box per worker (which doubles as the legend),
 * one edge per stream labelled with the number of messages it carried.
 * Streams from or to outside the network start or end at "input"/"output".
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
    viz_id_map task_ids;
    net_stream *streams;
    size_t streams_len, streams_cap;
    viz_id_map stream_ids;
    void *gv_context; /* GVC_t*, see gv_output.c */
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
    viz_gv_free_context(net->gv_context);
    viz_id_map_free(&net->task_ids);
    viz_id_map_free(&net->stream_ids);
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
    if (viz_id_map_get(&net->task_ids, id, &i))
        return &net->tasks[i];
    if (!viz_grow((void **)&net->tasks, &net->tasks_cap, net->tasks_len + 1, sizeof *net->tasks) ||
        !viz_id_map_put(&net->task_ids, id, net->tasks_len))
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
    if (viz_id_map_get(&net->stream_ids, id, &i))
        return &net->streams[i];
    if (!viz_grow((void **)&net->streams, &net->streams_cap, net->streams_len + 1,
                  sizeof *net->streams) ||
        !viz_id_map_put(&net->stream_ids, id, net->streams_len))
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

static Agnode_t *task_node(Agraph_t *g, Agraph_t **clusters, const net_task *t)
{
    char name[32], colour[8];
    snprintf(name, sizeof name, "t%llu", (unsigned long long)t->id);
    Agnode_t *n = agnode(worker_cluster(g, clusters, t->worker), name, 1);
    char fallback[40];
    snprintf(fallback, sizeof fallback, "task %llu", (unsigned long long)t->id);
    set_attr(n, "label", t->name ? t->name : fallback);
    viz_rgb_hex(t->worker >= 0 ? viz_palette_worker(t->worker) : (viz_rgb){1, 1, 1}, colour);
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
             "Network as run: %zu tasks, %zu streams (edge labels: messages; boxes: workers)",
             tasks, streams);
    agattr(g, AGRAPH, "label", label);
    agattr(g, AGRAPH, "labelloc", "t");
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

static int build_graph(viz_net *net, Agraph_t *g)
{
    Agraph_t **clusters = calloc(VIZ_MAX_WORKERS, sizeof *clusters);
    Agnode_t **nodes = calloc(net->tasks_len + 1, sizeof *nodes);
    if (!clusters || !nodes) {
        free(clusters);
        free(nodes);
        return oom(net);
    }
    declare_defaults(g, net->tasks_len, net->streams_len);
    for (size_t i = 0; i < net->tasks_len; i++)
        nodes[i] = task_node(g, clusters, &net->tasks[i]);
    for (size_t i = 0; i < net->streams_len; i++) {
        const net_stream *s = &net->streams[i];
        size_t w = 0, r = 0;
        if (s->writer == VIZ_NO_TASK && s->reader == VIZ_NO_TASK)
            continue; /* no end inside the network: nothing to connect */
        Agnode_t *from = s->writer == VIZ_NO_TASK ? outside_node(g, true)
                         : viz_id_map_get(&net->task_ids, s->writer, &w) ? nodes[w] : NULL;
        Agnode_t *to = s->reader == VIZ_NO_TASK ? outside_node(g, false)
                       : viz_id_map_get(&net->task_ids, s->reader, &r) ? nodes[r] : NULL;
        if (!from || !to)
            continue;
        char name[32], label[32];
        snprintf(name, sizeof name, "s%llu", (unsigned long long)s->id);
        uint64_t counted = s->written > s->read ? s->written : s->read;
        snprintf(label, sizeof label, "%llu", (unsigned long long)(s->messages + counted));
        Agedge_t *e = agedge(g, from, to, name, 1);
        set_attr(e, "label", label);
    }
    free(clusters);
    free(nodes);
    return VIZ_OK;
}

int viz_net_render(viz_net *net, const char *path)
{
    Agraph_t *g = agopen("network", Agdirected, NULL);
    if (!g)
        return oom(net);
    int rc = build_graph(net, g);
    if (rc == VIZ_OK)
        rc = viz_gv_write(g, path, &net->gv_context, net->error, sizeof net->error);
    agclose(g);
    return rc;
}
