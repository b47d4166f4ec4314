/*
 * gv_output.c - writes a cgraph graph through Graphviz: laid out with dot
 * and rendered for .svg/.png, or written as plain DOT (no layout, so it is
 * fast, deterministic and easy to check) for .dot. Shared by the network
 * graph and the critical-path graph.
 *
 * Why the Graphviz context lives as long as the viz object that renders:
 * Graphviz's pango text-layout plugin remembers the last font name in a
 * static pointer into the context's font table, so freeing a context and
 * laying out in a new one reads freed memory (harmless in practice, but
 * AddressSanitizer rightly stops on it). One context per object keeps
 * repeated renders of one graph clean.
 */
#include "viz_internal.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

static int write_dot(Agraph_t *g, const char *path, char *err, size_t errlen)
{
    FILE *out = fopen(path, "w");
    if (!out) {
        viz_set_error(err, errlen, "%s: cannot open for writing", path);
        return VIZ_EIO;
    }
    int rc = agwrite(g, out) == 0 ? VIZ_OK : VIZ_EIO;
    if (fclose(out) != 0)
        rc = VIZ_EIO;
    if (rc != VIZ_OK)
        viz_set_error(err, errlen, "%s: write failed", path);
    return rc;
}

static int render_with_layout(Agraph_t *g, const char *path, const char *format, void **context,
                              char *err, size_t errlen)
{
    if (!*context)
        *context = gvContext();
    GVC_t *gvc = *context;
    if (!gvc) {
        viz_set_error(err, errlen, "graphviz: cannot create a context");
        return VIZ_ERENDER;
    }
    int rc = VIZ_OK;
    if (gvLayout(gvc, g, "dot") != 0) {
        viz_set_error(err, errlen, "graphviz: dot layout failed");
        rc = VIZ_ERENDER;
    } else {
        if (gvRenderFilename(gvc, g, format, path) != 0) {
            viz_set_error(err, errlen, "%s: graphviz could not render %s", path, format);
            rc = VIZ_ERENDER;
        }
        gvFreeLayout(gvc, g);
    }
    return rc;
}

void viz_gv_free_context(void *context)
{
    if (context)
        gvFreeContext(context);
}

int viz_gv_write(void *graph, const char *path, void **context, char *err, size_t errlen)
{
    switch (viz_format_from_path(path)) {
    case VIZ_FMT_DOT:
        return write_dot(graph, path, err, errlen);
    case VIZ_FMT_SVG:
        return render_with_layout(graph, path, "svg", context, err, errlen);
    case VIZ_FMT_PNG:
        return render_with_layout(graph, path, "png", context, err, errlen);
    default:
        viz_set_error(err, errlen, "%s: graphs are written as .svg, .png or .dot",
                      path ? path : "");
        return VIZ_EINVAL;
    }
}
