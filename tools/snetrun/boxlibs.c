/*
 * boxlibs.c - loading box libraries and finding boxes in them (boxlibs.h).
 *
 * A box is the C function of its name. dlsym on a library handle also
 * searches the libraries it depends on, so a box missing from the box
 * library could silently resolve to a C library function of the same name
 * (merge, index, abs...); every symbol found is therefore checked with
 * dladdr to live in the box library itself.
 */
#include "boxlibs.h"

#include <c4snet_runtime.h>

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#ifndef SNETRUN_BOX_DIR
#define SNETRUN_BOX_DIR ""
#endif
#ifndef SNETRUN_BUILD_DIR
#define SNETRUN_BUILD_DIR ""
#endif
/* The installed box directory relative to the installed snetrun's own
 * (cmake/Install.cmake: PREFIX/lib/snet-boxes from PREFIX/bin). */
#ifndef SNETRUN_INSTALLED_BOX_DIR
#define SNETRUN_INSTALLED_BOX_DIR "../lib/snet-boxes"
#endif

typedef struct boxlib {
    char *name; /* as given: a path or a metadata name */
    char *path; /* the file loaded */
    void *handle;
    const snet_boxlib_app *app;
} boxlib;

struct boxlibs {
    boxlib *libs;
    size_t n;
    char **dirs; /* search directories, in order */
    size_t ndirs;
    void *app_state;
    bool given; /* libraries given with --boxes: they replace those the metadata names */
    c4snet_box **c4snet; /* the C4SNet boxes made, freed with the libraries */
    size_t nc4snet, nnative;
};

static int add_dir(boxlibs *b, const char *dir, size_t len)
{
    if (len == 0)
        return 0;
    char **grown = realloc(b->dirs, (b->ndirs + 1) * sizeof *grown);
    if (!grown)
        return -1;
    b->dirs = grown;
    if (!(b->dirs[b->ndirs] = strndup(dir, len)))
        return -1;
    b->ndirs++;
    return 0;
}

/* The directory this executable is in, into dir; false when unknown. */
static bool exe_dir(char dir[PATH_MAX])
{
    ssize_t n = readlink("/proc/self/exe", dir, PATH_MAX - 1);
    if (n <= 0)
        return false;
    dir[n] = '\0';
    char *slash = strrchr(dir, '/');
    if (!slash)
        return false;
    *slash = '\0';
    return true;
}

/*
 * Where the box libraries of this snetrun are: run from its build tree,
 * the build tree's box directory; installed (PREFIX/bin/snetrun), the
 * directory PREFIX/lib/snet-boxes beside it. An installed copy never looks
 * into the tree it was built in, which may hold other versions.
 */
static int add_own_box_dir(boxlibs *b)
{
    char exe[PATH_MAX], built[PATH_MAX];
    if (!exe_dir(exe))
        return 0;
    if (SNETRUN_BUILD_DIR[0] && realpath(SNETRUN_BUILD_DIR, built) && !strcmp(built, exe))
        return add_dir(b, SNETRUN_BOX_DIR, strlen(SNETRUN_BOX_DIR));
    char dir[PATH_MAX + sizeof SNETRUN_INSTALLED_BOX_DIR + 1];
    int len = snprintf(dir, sizeof dir, "%s/" SNETRUN_INSTALLED_BOX_DIR, exe);
    return len > 0 && (size_t)len < sizeof dir ? add_dir(b, dir, (size_t)len) : 0;
}

boxlibs *boxlibs_new(const char *const *dirs, size_t ndirs, const char *snet_dir)
{
    boxlibs *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    int rc = 0;
    for (size_t i = 0; i < ndirs; i++)
        rc |= add_dir(b, dirs[i], strlen(dirs[i]));
    const char *env = getenv("SNET_BOX_PATH");
    while (env && *env) {
        size_t len = strcspn(env, ":");
        rc |= add_dir(b, env, len);
        env += len + (env[len] == ':');
    }
    rc |= add_dir(b, snet_dir, strlen(snet_dir));
    rc |= add_own_box_dir(b);
    if (rc != 0) {
        boxlibs_free(b);
        return NULL;
    }
    return b;
}

void boxlibs_free(boxlibs *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->n; i++) {
        if (b->libs[i].handle)
            dlclose(b->libs[i].handle);
        free(b->libs[i].name);
        free(b->libs[i].path);
    }
    free(b->libs);
    for (size_t i = 0; i < b->nc4snet; i++)
        c4snet_box_free(b->c4snet[i]);
    free(b->c4snet);
    for (size_t i = 0; i < b->ndirs; i++)
        free(b->dirs[i]);
    free(b->dirs);
    free(b);
}

static int remember(boxlibs *b, const char *name, const char *path, void *handle, char *err,
                    size_t errlen)
{
    boxlib *grown = realloc(b->libs, (b->n + 1) * sizeof *grown);
    boxlib lib = {strdup(name), strdup(path), handle,
                  dlsym(handle, SNET_BOXLIB_APP_SYMBOL)};
    if (!grown || !lib.name || !lib.path) {
        if (grown)
            b->libs = grown;
        free(lib.name);
        free(lib.path);
        dlclose(handle);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    b->libs = grown;
    b->libs[b->n++] = lib;
    return 0;
}

int boxlibs_load_path(boxlibs *b, const char *path, char *err, size_t errlen)
{
    b->given = true;
    for (size_t i = 0; i < b->n; i++)
        if (!strcmp(b->libs[i].name, path))
            return 0;
    /* "lib.so" alone would make dlopen search the system path: say ./ */
    char local[PATH_MAX];
    const char *file = path;
    if (!strchr(path, '/') && snprintf(local, sizeof local, "./%s", path) < (int)sizeof local)
        file = local;
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, errlen, "cannot load box library %s: %s", path, dlerror());
        return -1;
    }
    return remember(b, path, file, h, err, errlen);
}

static void *try_open(const char *file)
{
    return access(file, F_OK) == 0 ? dlopen(file, RTLD_NOW | RTLD_LOCAL) : NULL;
}

int boxlibs_load_name(boxlibs *b, const char *name, char *err, size_t errlen)
{
    for (size_t i = 0; i < b->n; i++)
        if (!strcmp(b->libs[i].name, name))
            return 0;
    if (strchr(name, '/')) {
        bool given = b->given;
        int rc = boxlibs_load_path(b, name, err, errlen);
        b->given = given;
        return rc;
    }
    char file[PATH_MAX];
    for (size_t i = 0; i < b->ndirs; i++) {
        for (int form = 0; form < 2; form++) {
            int len = snprintf(file, sizeof file, form ? "%s/%s.so" : "%s/lib%s.so", b->dirs[i], name);
            if (len <= 0 || (size_t)len >= sizeof file)
                continue;
            void *h = try_open(file);
            if (h)
                return remember(b, name, file, h, err, errlen);
            if (access(file, F_OK) == 0) {
                snprintf(err, errlen, "cannot load box library %s: %s", file, dlerror());
                return -1;
            }
        }
    }
    snprintf(file, sizeof file, "lib%s.so", name); /* the system's library path */
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (h)
        return remember(b, name, file, h, err, errlen);
    int used = snprintf(err, errlen, "box library '%s' not found (looked for lib%s.so in", name,
                        name);
    for (size_t i = 0; i < b->ndirs && used > 0 && (size_t)used < errlen; i++)
        used += snprintf(err + used, errlen - (size_t)used, " %s", b->dirs[i]);
    if (used > 0 && (size_t)used < errlen)
        snprintf(err + used, errlen - (size_t)used,
                 " and the system's library path); give it with --boxes FILE or -L DIR");
    return -1;
}

const snet_boxlib_app *boxlibs_app(const boxlibs *b)
{
    for (size_t i = 0; i < b->n; i++)
        if (b->libs[i].app)
            return b->libs[i].app;
    return NULL;
}

void boxlibs_set_app_state(boxlibs *b, void *state) { b->app_state = state; }

/* symbol in lib itself (not in one of its dependencies), or NULL. */
static void *own_symbol(const boxlib *lib, const char *symbol)
{
    void *sym = dlsym(lib->handle, symbol);
    if (!sym)
        return NULL;
    Dl_info info;
    struct link_map *map = NULL;
    if (!dladdr(sym, &info) || dlinfo(lib->handle, RTLD_DI_LINKMAP, &map) != 0 || !map ||
        !info.dli_fname || strcmp(info.dli_fname, map->l_name) != 0)
        return NULL;
    return sym;
}

/* No library has the box's function: say which were searched. */
static void report_missing(const boxlibs *b, const char *library, const char *symbol, char *err,
                           size_t errlen)
{
    if (b->n == 0) {
        snprintf(err, errlen, "no box library is loaded (give one with --boxes FILE, or name "
                 "it in the metadata: <boxdefault><library value=\"NAME\"/></boxdefault>)");
        return;
    }
    int used = snprintf(err, errlen, "no function '%s' in", symbol);
    size_t listed = 0;
    for (size_t i = 0; i < b->n && used > 0 && (size_t)used < errlen; i++)
        if (!library || !strcmp(b->libs[i].name, library))
            used += snprintf(err + used, errlen - (size_t)used, "%s %s", listed++ ? "," : "",
                             b->libs[i].path);
}

/* The box as the runtime calls it: a native box is the function itself, a
 * C4SNet box a libffi call of it by its signature (c4snet_runtime.h). */
static int bind_box(boxlibs *b, const boxlib *lib, const snet_lang_box_query *box, void *sym,
                    snet_box_fn *fn, void **user, char *err, size_t errlen)
{
    /* dlsym gives a function's address as an object pointer. */
    _Static_assert(sizeof(void *) == sizeof(snet_box_fn), "function pointers fit");
    if (!strcasecmp(box->interface, "native")) {
        memcpy(fn, &sym, sizeof sym);
        *user = lib->app ? b->app_state : NULL;
        b->nnative++;
        return 0;
    }
    c4snet_box **grown = realloc(b->c4snet, (b->nc4snet + 1) * sizeof *grown);
    if (!grown) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    b->c4snet = grown;
    void (*c_fn)(void);
    memcpy(&c_fn, &sym, sizeof sym);
    if (c4snet_box_new(&b->c4snet[b->nc4snet], box->name, c_fn, box->signature, err, errlen) !=
        SNET_OK)
        return -1;
    *fn = c4snet_box_call;
    *user = b->c4snet[b->nc4snet++];
    return 0;
}

int boxlibs_resolve(void *ctx, const snet_lang_box_query *box, snet_box_fn *fn, void **user,
                    char *err, size_t errlen)
{
    boxlibs *b = ctx;
    const char *library = b->given ? NULL : box->library;
    if (library && boxlibs_load_name(b, library, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < b->n; i++) {
        const boxlib *lib = &b->libs[i];
        if (library && strcmp(lib->name, library) != 0)
            continue;
        void *sym = own_symbol(lib, box->symbol);
        if (sym)
            return bind_box(b, lib, box, sym, fn, user, err, errlen);
    }
    report_missing(b, library, box->symbol, err, errlen);
    return -1;
}

size_t boxlibs_native_count(const boxlibs *b) { return b->nnative; }
