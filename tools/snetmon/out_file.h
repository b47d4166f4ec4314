/*
 * out_file.h - every file a snetmon subcommand writes appears whole, or
 * not at all: it is written under a temporary name next to its final one
 * and renamed into place only when the command has succeeded. A failed or
 * refused command leaves nothing behind that could pass for a result.
 *
 * And every output is checked to have reached its destination, standard
 * output included (a full disk, /dev/full, a closed descriptor): a command
 * whose output was lost says so in one line and exits 1, never 0 with
 * nothing written (out_stream_check, out_stdout_close).
 */
#ifndef SNETMON_OUT_FILE_H
#define SNETMON_OUT_FILE_H

#include <stdbool.h>
#include <stdio.h>

typedef struct out_file {
    const char *cmd;   /* the subcommand, for messages */
    const char *path;  /* the final name; "-" is standard output */
    char *tmp;         /* the temporary name (NULL for standard output) */
    FILE *f;
} out_file;

/* Create the temporary file for path (same directory, same extension, so
 * that writers choosing a format by extension see the right one) and open
 * it for writing; "-" gives standard output. NULL with a one-line message
 * on failure. */
FILE *out_file_open(out_file *o, const char *cmd, const char *path);

/* For writers that open the file themselves (the visualiser): create the
 * temporary file and return its name, without opening a stream. */
const char *out_file_reserve(out_file *o, const char *cmd, const char *path);

/* One line "snetmon CMD: MSG" on stderr, where MSG is a writer's message
 * about the temporary file (the visualiser's): the temporary name in it
 * is given as the file's own, the name the user asked for. */
void out_file_say(const out_file *o, const char *msg);

/* Close and rename into place. ok false (the command failed) removes the
 * temporary file instead. Returns 0, or -1 with a one-line message when
 * writing or renaming failed (the temporary file is removed). */
int out_file_finish(out_file *o, bool ok);

/* Flush f and check that everything written to it got out. Returns 0, or
 * -1 after one line "snetmon CMD: NAME: cannot write: REASON" (NAME: path,
 * or "standard output" for stdout; said once per process for stdout). */
int out_stream_check(const char *cmd, FILE *f, const char *path);

/* At the end of every command (main.c): standard output flushed and
 * closed; -1 after the line above when that failed and nobody said so. */
int out_stdout_close(const char *cmd);

/* A directory of files written the same way (convert): files are made in a
 * temporary directory next to path and moved into path on success.
 *
 * The one rule for output directories: path is new, empty, or holds an
 * earlier output of the same command (an entry matching one of `own`, the
 * fnmatch patterns of the names the command writes), which the new output
 * replaces whole: entries of the same name are replaced (directories as a
 * whole), and the earlier output's entries the new one lacks (a worker's
 * log of a run with more workers) are removed. Entries matching none of
 * `own` are left alone; a directory holding only such entries is refused,
 * so that an output never mixes with something else. */
typedef struct out_dir {
    const char *cmd;
    const char *path;
    const char *const *own; /* NULL-terminated */
    char *tmp;
} out_dir;

/* Check path as above and create the temporary directory; its name is
 * o->tmp. 0, or -1 with a message. */
int out_dir_open(out_dir *o, const char *cmd, const char *path, const char *const *own);

/* ok: move the output into path (created when missing) as above; else
 * remove it. Returns 0 or -1 with a message. */
int out_dir_finish(out_dir *o, bool ok);

#endif
