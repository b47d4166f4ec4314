/*
 * fuzz_files.c - see fuzz_files.h.
 */
#include "fuzz_files.h"

#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIR_PREFIX "snet-fuzz-"

static char temp_dir[256];
static char file_path[512];

/* dir/name into out; false if it does not fit. */
static bool join(char *out, size_t len, const char *dir, const char *name)
{
    int n = snprintf(out, len, "%s/%s", dir, name);
    return n >= 0 && (size_t)n < len;
}

/* rm -r: files, links, FIFOs and directories (the trace directory fuzzer
 * makes all of them). */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        char path[512];
        struct stat st;
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
            !join(path, sizeof path, dir, de->d_name) || lstat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            remove_dir(path);
        else
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

static void remove_temp_dir(void) { remove_dir(temp_dir); }

/* A crash (the point of fuzzing) skips atexit: remove the directories of
 * processes that are gone, named DIR_PREFIX<pid>. */
static void remove_stale_dirs(const char *base)
{
    DIR *d = opendir(base);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        char *end;
        if (strncmp(de->d_name, DIR_PREFIX, strlen(DIR_PREFIX)) != 0)
            continue;
        long pid = strtol(de->d_name + strlen(DIR_PREFIX), &end, 10);
        if (*end || pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char path[512];
        if (join(path, sizeof path, base, de->d_name))
            remove_dir(path);
    }
    closedir(d);
}

const char *fuzz_temp_dir(void)
{
    if (!temp_dir[0]) {
        const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
        base = base ? base : "/tmp";
        remove_stale_dirs(base);
        int n = snprintf(temp_dir, sizeof temp_dir, "%s/" DIR_PREFIX "%ld", base, (long)getpid());
        FUZZ_CHECK(n > 0 && (size_t)n < sizeof temp_dir);
        remove_dir(temp_dir); /* a pid used before */
        FUZZ_CHECK(mkdir(temp_dir, 0700) == 0);
        atexit(remove_temp_dir);
    }
    return temp_dir;
}

const char *fuzz_write_file(const char *name, const void *data, size_t size)
{
    FUZZ_CHECK(join(file_path, sizeof file_path, fuzz_temp_dir(), name));
    int fd = open(file_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    FUZZ_CHECK(fd >= 0);
    FUZZ_CHECK(write(fd, data, size) == (ssize_t)size);
    close(fd);
    return file_path;
}

const char *fuzz_path(const char *name)
{
    FUZZ_CHECK(join(file_path, sizeof file_path, fuzz_temp_dir(), name));
    return file_path;
}

void fuzz_clear_dir(void)
{
    remove_dir(fuzz_temp_dir());
    FUZZ_CHECK(mkdir(temp_dir, 0700) == 0);
}

void fuzz_remove_file(const char *name)
{
    char path[512];
    if (join(path, sizeof path, fuzz_temp_dir(), name))
        unlink(path);
}
