/*
 * mon_files_internal.h - the files of a trace directory as both sides see
 * them: which names the writer makes (so that it clears them before a new
 * run and the reader refuses any other), and opening one only when it is a
 * regular file.
 *
 * Why in one header of inline functions: the writer (libmon) and the reader
 * (libmon_reader) are separate libraries that share only the format's
 * headers; a rule they both apply must not be written twice.
 *
 * Why the reader opens with O_NONBLOCK and checks with fstat: open(2) of a
 * FIFO blocks until somebody writes to it, so a FIFO named worker-1 (or
 * run.json, or metadata) would hang every command forever; a directory or a
 * device named like a log is no log either. fstat on the descriptor (not
 * stat on the name) checks the file that was actually opened.
 */
#ifndef MON_FILES_INTERNAL_H
#define MON_FILES_INTERNAL_H

#include "mon_format_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a file of a CTF directory is, by its name. */
typedef enum mon_ctf_name {
    MON_CTF_METADATA,     /* "metadata" */
    MON_CTF_METADATA_TMP, /* "metadata.tmp": the writer's rewrite, cut short by a kill */
    MON_CTF_LOG,          /* "worker-N" */
    MON_CTF_OTHER         /* anything else: no trace of ours holds it */
} mon_ctf_name;

/* The kind of the file named name; *worker gets N for a log. */
static inline mon_ctf_name mon_ctf_name_kind(const char *name, long *worker)
{
    *worker = mon_worker_file_number(name);
    if (*worker >= 0)
        return MON_CTF_LOG;
    if (!strcmp(name, MON_METADATA_FILE))
        return MON_CTF_METADATA;
    if (!strcmp(name, MON_METADATA_TMP_FILE))
        return MON_CTF_METADATA_TMP;
    return MON_CTF_OTHER;
}

/* "a directory", "a FIFO", ...: what a file of mode m is, for messages. */
static inline const char *mon_file_type_name(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISSOCK(m))
        return "a socket";
    if (S_ISCHR(m) || S_ISBLK(m))
        return "a device";
    return "a special file";
}

/* Open path for reading if it is a regular file, without blocking on a
 * FIFO, and fstat it into *st. The descriptor, or -1 with "PATH: ..." in
 * err (errno ENOENT when there is no such file). */
static inline int mon_open_regular(const char *path, struct stat *st, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(e));
        errno = e;
        return -1;
    }
    if (fstat(fd, st) != 0) {
        int e = errno;
        snprintf(err, errlen, "%s: cannot stat: %s", path, strerror(e));
        close(fd);
        errno = e;
        return -1;
    }
    if (!S_ISREG(st->st_mode)) {
        snprintf(err, errlen, "%s: %s, not a regular file: a trace holds only regular files",
                 path, mon_file_type_name(st->st_mode));
        close(fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
}

#endif /* MON_FILES_INTERNAL_H */
