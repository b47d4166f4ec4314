/*
 * mon_control_name_internal.h - where a running monitor's control channel
 * is: a UNIX stream socket in the abstract namespace named from the real
 * path of its trace directory. Shared by the monitor, which listens there
 * (mon_control.c), and the reader library's client (mon_control_client.c,
 * for `snetmon ctl` and `snetmon snap`), so the two cannot disagree.
 *
 * Why the abstract namespace: a socket file in the trace directory would
 * be limited to 107 bytes of path and could be left behind by a killed
 * run; an abstract name vanishes with the process.
 */
#ifndef MON_CONTROL_NAME_INTERNAL_H
#define MON_CONTROL_NAME_INTERNAL_H

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "kit.h"

/* The longest socket name (sun_path holds 108 bytes, the first a NUL). */
#define MON_CONTROL_NAME_MAX 100

/* The socket name of trace directory dir (which must exist):
 * "snet-lpel-mon/<FNV-1a of its real path, 16 hex digits>" into name.
 * 0, or -1 with err. */
static inline int mon_control_socket_name(const char *dir, char *name, size_t len, char *err,
                                          size_t errlen)
{
    char *real = realpath(dir, NULL);
    if (!real) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    uint64_t h = kit_fnv1a(KIT_FNV1A_INIT, real, strlen(real));
    free(real);
    snprintf(name, len, "snet-lpel-mon/%016llx", (unsigned long long)h);
    return 0;
}

/* The abstract address of name: sun_path[0] is NUL, the name follows. */
static inline socklen_t mon_control_address(const char *name, struct sockaddr_un *a)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    size_t n = strnlen(name, MON_CONTROL_NAME_MAX);
    memcpy(a->sun_path + 1, name, n);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

#endif /* MON_CONTROL_NAME_INTERNAL_H */
