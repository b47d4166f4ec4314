/*
 * fuzz_files.h - for targets whose reader takes a path, not a buffer (a
 * trace directory, a mapping file): a private temporary directory
 * snet-fuzz-<pid>, created on first use (on tmpfs when there is one) and
 * removed with its files when the process exits, or by the next fuzz
 * process when this one crashed.
 */
#ifndef FUZZ_FILES_H
#define FUZZ_FILES_H

#include <stddef.h>

/* The directory's path. */
const char *fuzz_temp_dir(void);
/* Writes data as DIR/name (replacing it) and returns its path (static
 * buffer, valid until the next call). */
const char *fuzz_write_file(const char *name, const void *data, size_t size);
/* Removes DIR/name if it exists. */
void fuzz_remove_file(const char *name);
/* DIR/name (static buffer, valid until the next call), for what is not a
 * file: a FIFO, a directory, a link. */
const char *fuzz_path(const char *name);
/* Empties DIR: its files, links, FIFOs and directories. */
void fuzz_clear_dir(void);

#endif /* FUZZ_FILES_H */
