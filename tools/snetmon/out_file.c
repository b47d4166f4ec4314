/*
 * out_file.c - temporary name, then rename on success (see out_file.h).
 */
#include "out_file.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <ftw.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "DIR/.BASE.tmp-XXXXXX" + BASE's extension; *suffix_len its length. */
static char *temp_name(const char *path, int *suffix_len)
{
    char *copy = strdup(path), *copy2 = strdup(path);
    char *name = NULL;
    if (copy && copy2) {
        const char *dir = dirname(copy), *base = basename(copy2);
        const char *ext = strrchr(base, '.');
        if (!ext || ext == base)
            ext = "";
        size_t n = strlen(dir) + strlen(base) + strlen(ext) + 16;
        name = malloc(n);
        if (name)
            snprintf(name, n, "%s/.%s.tmp-XXXXXX%s", dir, base, ext);
        *suffix_len = (int)strlen(ext);
    }
    free(copy);
    free(copy2);
    return name;
}

/* Creates the temporary file; its descriptor, or -1 with a message. */
static int create_temp(out_file *o, const char *cmd, const char *path)
{
    o->cmd = cmd;
    o->path = path;
    o->f = NULL;
    int suffix = 0;
    o->tmp = temp_name(path, &suffix);
    if (!o->tmp) {
        fprintf(stderr, "snetmon %s: out of memory\n", cmd);
        return -1;
    }
    int fd = mkstemps(o->tmp, suffix);
    if (fd < 0) {
        fprintf(stderr, "snetmon %s: %s: cannot create: %s\n", cmd, path, strerror(errno));
        free(o->tmp);
        o->tmp = NULL;
    }
    return fd;
}

/* Standard output ("-"), or a path that is not a regular file (a
 * terminal, a pipe, /dev/stdout): written directly, nothing to rename. */
static bool direct(const char *path)
{
    struct stat st;
    return !strcmp(path, "-") || (stat(path, &st) == 0 && !S_ISREG(st.st_mode));
}

FILE *out_file_open(out_file *o, const char *cmd, const char *path)
{
    if (direct(path)) {
        FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
        *o = (out_file){cmd, path, NULL, f};
        if (!f)
            fprintf(stderr, "snetmon %s: %s: %s\n", cmd, path, strerror(errno));
        return f;
    }
    int fd = create_temp(o, cmd, path);
    if (fd < 0)
        return NULL;
    o->f = fdopen(fd, "w");
    if (!o->f) {
        fprintf(stderr, "snetmon %s: %s: %s\n", cmd, path, strerror(errno));
        close(fd);
        unlink(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
    }
    return o->f;
}

const char *out_file_reserve(out_file *o, const char *cmd, const char *path)
{
    if (direct(path) && strcmp(path, "-")) {
        *o = (out_file){cmd, path, NULL, NULL};
        return path;
    }
    int fd = create_temp(o, cmd, path);
    if (fd < 0)
        return NULL;
    close(fd);
    return o->tmp;
}

/* Whether a write error on standard output has been reported. */
static bool stdout_reported;

static void cannot_write(const char *cmd, const char *name, int err)
{
    fprintf(stderr, "snetmon %s: %s: cannot write: %s\n", cmd, name,
            err ? strerror(err) : "a write failed");
}

int out_stream_check(const char *cmd, FILE *f, const char *path)
{
    errno = 0;
    bool failed = fflush(f) != 0;
    int err = errno;
    if (!failed && !ferror(f))
        return 0;
    if (f != stdout)
        cannot_write(cmd, path, err);
    else if (!stdout_reported)
        cannot_write(cmd, "standard output", err);
    stdout_reported |= f == stdout;
    return -1;
}

int out_stdout_close(const char *cmd)
{
    int rc = out_stream_check(cmd, stdout, "-");
    errno = 0;
    if (fclose(stdout) != 0 && rc == 0) {
        cannot_write(cmd, "standard output", errno);
        rc = -1;
    }
    return rc;
}

void out_file_say(const out_file *o, const char *msg)
{
    fprintf(stderr, "snetmon %s: ", o->cmd);
    size_t tlen = o->tmp ? strlen(o->tmp) : 0;
    for (const char *at; tlen && (at = strstr(msg, o->tmp)) != NULL; msg = at + tlen)
        fprintf(stderr, "%.*s%s", (int)(at - msg), msg, o->path);
    fprintf(stderr, "%s\n", msg);
}

int out_file_finish(out_file *o, bool ok)
{
    int rc = 0;
    if (o->f && out_stream_check(o->cmd, o->f, o->path) != 0) {
        ok = false;
        rc = -1;
    }
    if (o->f && o->f != stdout) {
        errno = 0;
        if (fclose(o->f) != 0 && rc == 0) {
            cannot_write(o->cmd, o->path, errno);
            ok = false;
            rc = -1;
        }
    }
    o->f = NULL;
    if (!o->tmp)
        return rc;
    if (ok) {
        struct stat st;
        /* mkstemps made it 0600; give it what a plain fopen would. */
        mode_t mask = umask(0);
        umask(mask);
        chmod(o->tmp, 0666 & ~mask);
        if (rename(o->tmp, o->path) != 0 || stat(o->path, &st) != 0) {
            fprintf(stderr, "snetmon %s: %s: cannot rename into place: %s\n", o->cmd, o->path,
                    strerror(errno));
            rc = -1;
            ok = false;
        }
    }
    if (!ok)
        unlink(o->tmp);
    free(o->tmp);
    o->tmp = NULL;
    return rc;
}

static bool is_own(const out_dir *o, const char *name)
{
    for (const char *const *p = o->own; p && *p; p++)
        if (fnmatch(*p, name, FNM_PERIOD) == 0)
            return true;
    return false;
}

static bool is_dot(const char *name) { return !strcmp(name, ".") || !strcmp(name, ".."); }

/* path is new, empty, or holds an earlier output (an entry of o->own). */
static bool usable_dir(const out_dir *o)
{
    struct stat st;
    if (stat(o->path, &st) != 0)
        return true;
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "snetmon %s: %s: exists and is not a directory\n", o->cmd, o->path);
        return false;
    }
    DIR *d = opendir(o->path);
    if (!d) {
        fprintf(stderr, "snetmon %s: %s: cannot read: %s\n", o->cmd, o->path, strerror(errno));
        return false;
    }
    bool empty = true, earlier = false;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && !earlier) {
        if (is_dot(de->d_name))
            continue;
        empty = false;
        earlier = is_own(o, de->d_name);
    }
    closedir(d);
    if (!empty && !earlier)
        fprintf(stderr,
                "snetmon %s: %s: exists, is not empty and holds no earlier output of snetmon %s;"
                " give a new or empty directory, or one it wrote before\n",
                o->cmd, o->path, o->cmd);
    return empty || earlier;
}

int out_dir_open(out_dir *o, const char *cmd, const char *path, const char *const *own)
{
    o->cmd = cmd;
    o->path = path;
    o->own = own;
    o->tmp = NULL;
    if (!usable_dir(o))
        return -1;
    int suffix = 0;
    o->tmp = temp_name(path, &suffix);
    if (o->tmp)
        o->tmp[strlen(o->tmp) - (size_t)suffix] = '\0'; /* directories keep no extension */
    if (!o->tmp || !mkdtemp(o->tmp)) {
        fprintf(stderr, "snetmon %s: %s: cannot create: %s\n", cmd, path,
                o->tmp ? strerror(errno) : "out of memory");
        free(o->tmp);
        o->tmp = NULL;
        return -1;
    }
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* Removes path and, if it is a directory, everything below it. */
static void remove_tree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Puts from in the place of to. A directory at to (an earlier output's,
 * e.g. an OTF2 archive's traces/) is first moved aside to aside, so that
 * the new one replaces it whole, and removed afterwards. */
static int replace_entry(const char *from, const char *to, const char *aside)
{
    if (rename(from, to) == 0)
        return 0;
    struct stat st;
    if ((errno != EEXIST && errno != ENOTEMPTY && errno != EISDIR) || lstat(to, &st) != 0 ||
        !S_ISDIR(st.st_mode))
        return -1;
    if (rename(to, aside) != 0)
        return -1;
    if (rename(from, to) != 0) {
        int saved = errno;
        rename(aside, to);
        errno = saved;
        return -1;
    }
    remove_tree(aside);
    return 0;
}

/* An entry of the earlier output in path that the new one (in o->tmp)
 * does not have: removed, so that the two never mix. */
static void remove_stale(const out_dir *o)
{
    DIR *d = opendir(o->path);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (is_dot(de->d_name) || !is_own(o, de->d_name))
            continue;
        size_t n = strlen(o->tmp) + strlen(o->path) + strlen(de->d_name) + 2;
        char *mine = malloc(n), *theirs = malloc(n);
        struct stat st;
        if (mine && theirs) {
            snprintf(mine, n, "%s/%s", o->tmp, de->d_name);
            snprintf(theirs, n, "%s/%s", o->path, de->d_name);
            if (lstat(mine, &st) != 0)
                remove_tree(theirs);
        }
        free(mine);
        free(theirs);
    }
    closedir(d);
}

/* Moves (ok) or removes every file of the temporary directory. */
static int move_files(out_dir *o, bool ok)
{
    DIR *d = opendir(o->tmp);
    if (!d)
        return -1;
    int rc = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (!strncmp(de->d_name, ".old-", 5))
            continue; /* an entry being replaced (replace_entry) */
        size_t n = strlen(o->tmp) + strlen(o->path) + strlen(de->d_name) + 8;
        char *from = malloc(n), *to = malloc(n), *aside = malloc(n);
        if (from && to && aside) {
            snprintf(from, n, "%s/%s", o->tmp, de->d_name);
            snprintf(to, n, "%s/%s", o->path, de->d_name);
            snprintf(aside, n, "%s/.old-%s", o->tmp, de->d_name);
            if (ok && replace_entry(from, to, aside) != 0) {
                fprintf(stderr, "snetmon %s: %s: cannot move into place: %s\n", o->cmd, to,
                        strerror(errno));
                ok = false;
                rc = -1;
            }
            if (!ok)
                remove_tree(from);
        } else {
            rc = -1;
        }
        free(from);
        free(to);
        free(aside);
    }
    closedir(d);
    return rc;
}

int out_dir_finish(out_dir *o, bool ok)
{
    if (!o->tmp)
        return -1;
    int rc = 0;
    if (ok) { /* mkdtemp made it 0700: a new directory gets the umask's mode */
        mode_t mask = umask(0);
        umask(mask);
        chmod(o->tmp, 0777 & ~mask);
    }
    if (ok && rename(o->tmp, o->path) == 0) {
        /* A new directory: renamed as a whole. */
        free(o->tmp);
        o->tmp = NULL;
        return 0;
    }
    if (ok && errno != EEXIST && errno != ENOTEMPTY) {
        fprintf(stderr, "snetmon %s: %s: cannot create: %s\n", o->cmd, o->path, strerror(errno));
        ok = false;
        rc = -1;
    }
    /* An existing directory: the earlier output's entries the new one
     * lacks go, then its entries are replaced one by one. */
    if (ok)
        remove_stale(o);
    if (move_files(o, ok) != 0)
        rc = -1;
    rmdir(o->tmp);
    free(o->tmp);
    o->tmp = NULL;
    return rc;
}
