/*
 * mon_control_client.c - talking to a running program's monitor through its
 * control channel (mon_reader.h, mon_control_request): what `snetmon ctl`
 * and `snetmon snap` do, in the reader library so that the commands hold
 * only their options and messages, and so that the analysis side still
 * needs nothing of the runtime. The protocol: docs/LOGFORMAT.md section 10.
 */
#include "mon_reader.h"

#include "mon_control_name_internal.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* How long the monitor may take to answer: a snapshot writes every
 * worker's ring, which takes its time for large rings on a slow disk. */
#define MON_CONTROL_ANSWER_MS 60000

static int send_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t k = write(fd, s, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        s += k;
        n -= (size_t)k;
    }
    return 0;
}

/* The answer line, without its newline, into reply. */
static int read_answer(int fd, char *reply, size_t len)
{
    size_t n = 0;
    while (n + 1 < len) {
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, MON_CONTROL_ANSWER_MS);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        ssize_t k = read(fd, reply + n, len - 1 - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        n += (size_t)k;
        if (memchr(reply, '\n', n))
            break;
    }
    reply[n] = '\0';
    reply[strcspn(reply, "\n")] = '\0';
    return n ? 0 : -1;
}

int mon_control_request(const char *dir, const char *request, char *reply, size_t len, char *err,
                        size_t errlen)
{
    char name[MON_CONTROL_NAME_MAX + 1];
    if (mon_control_socket_name(dir, name, sizeof name, err, errlen) != 0)
        return -1;
    struct sockaddr_un a;
    socklen_t alen = mon_control_address(name, &a);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, alen) != 0) {
        snprintf(err, errlen,
                 "%s: no running program writes this trace (%s): start it with -m FLAGS "
                 "--mon-dir %s and ask while it runs",
                 dir, strerror(errno), dir);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    int rc = send_all(fd, request, strlen(request)) == 0 && send_all(fd, "\n", 1) == 0 &&
                     read_answer(fd, reply, len) == 0
                 ? 0
                 : -1;
    if (rc)
        snprintf(err, errlen, "%s: the monitor did not answer '%s' (%s)", dir, request,
                 errno ? strerror(errno) : "connection closed");
    close(fd);
    return rc;
}
