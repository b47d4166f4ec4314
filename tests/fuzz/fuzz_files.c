/*
 * fuzz_files.c - see fuzz_files.h.
 */
#include "fuzz_files.h"

#include "fuzz.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

static char temp_dir[256];
static char file_path[512];

static void remove_temp_dir(void)
{
    DIR *d = opendir(temp_dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (de->d_name[0] != '.')
            fuzz_remove_file(de->d_name);
    closedir(d);
    rmdir(temp_dir);
}

const char *fuzz_temp_dir(void)
{
    if (!temp_dir[0]) {
        const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
        snprintf(temp_dir, sizeof temp_dir, "%s/snet-fuzz-XXXXXX", base ? base : "/tmp");
        FUZZ_CHECK(mkdtemp(temp_dir) != NULL);
        atexit(remove_temp_dir);
    }
    return temp_dir;
}

const char *fuzz_write_file(const char *name, const void *data, size_t size)
{
    snprintf(file_path, sizeof file_path, "%s/%s", fuzz_temp_dir(), name);
    int fd = open(file_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    FUZZ_CHECK(fd >= 0);
    FUZZ_CHECK(write(fd, data, size) == (ssize_t)size);
    close(fd);
    return file_path;
}

void fuzz_remove_file(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", fuzz_temp_dir(), name);
    unlink(path);
}
