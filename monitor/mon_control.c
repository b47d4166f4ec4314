/*
 * mon_control.c - the monitor's service thread and control channel (see
 * mon_control_internal.h for why they exist and how workers apply a change).
 *
 * The thread sleeps in poll(2) on a wake-up pipe and the listening socket;
 * its timeout is the next flush. A request is one line, answered with one
 * line; a client gets a second to send it, so a stuck client cannot stop
 * the flushing for longer. Snapshot requests from signal handlers come
 * through the pipe (write(2) is async-signal-safe; the why is an atomic
 * pointer to a string constant).
 */
#include "mon_control_internal.h"

#include "mon_control_name_internal.h"

#include "kit.h"
#include "mon.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* A request line is at most this long (a --mon-tasks pattern included). */
#define CONTROL_LINE_MAX 1024
/* How long a client may take to send its request. */
#define CONTROL_CLIENT_MS 1000

struct mon_control {
    mon_control_handlers h;
    int listen_fd;         /* -1: no channel (a warning said why) */
    int wake[2];           /* the service thread's wake-up pipe */
    pthread_t thread;
    bool thread_started;
    atomic_bool stop;
    _Atomic(const char *) snapshot_why; /* a snapshot asked for, NULL if none */
    char dir[4096];
    /* The choice, under lock; gen moves (release) after it changed. */
    pthread_mutex_t lock;
    _Atomic unsigned gen;
    unsigned flags;
    char *pattern;          /* NULL: all tasks */
    pcre2_code *regex;
    pcre2_code **old;       /* regexes of earlier generations: a worker may use one */
    size_t n_old, cap_old;
    bool signal_installed;
    struct sigaction previous_usr1;
};

/* The control that SIGUSR1 asks for a snapshot (one flight recorder per
 * process: signal dispositions are the process's). */
static _Atomic(mon_control *) signal_target;

static int listen_on(const char *dir)
{
    char name[MON_CONTROL_NAME_MAX + 1], err[512];
    if (mon_control_socket_name(dir, name, sizeof name, err, sizeof err) != 0) {
        fprintf(stderr, "mon: warning: no control channel: %s\n", err);
        return -1;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    struct sockaddr_un a;
    socklen_t alen = mon_control_address(name, &a);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, alen) != 0 || listen(fd, 4) != 0) {
        fprintf(stderr, "mon: warning: %s: no control channel (%s%s); snetmon ctl and snap "
                        "cannot reach this run\n",
                dir, strerror(errno),
                errno == EADDRINUSE ? ": another running program writes this directory" : "");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* ---- the choice ---- */

const _Atomic unsigned *mon_control_generation(const mon_control *c) { return &c->gen; }

void mon_control_get(mon_control *c, unsigned *gen, unsigned *flags, const pcre2_code **regex,
                     char *pattern, size_t len)
{
    pthread_mutex_lock(&c->lock);
    *gen = atomic_load_explicit(&c->gen, memory_order_relaxed);
    *flags = c->flags;
    *regex = c->regex;
    snprintf(pattern, len, "%s", c->pattern ? c->pattern : "");
    pthread_mutex_unlock(&c->lock);
}

static pcre2_code *compile_tasks(const char *pattern, char *err, size_t errlen)
{
    int code;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
    if (!re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof msg);
        snprintf(err, errlen, "bad --mon-tasks pattern '%s' at offset %zu: %s", pattern,
                 (size_t)off, (const char *)msg);
    }
    return re;
}

/* Replace the pattern and its regex (lock held); the old regex is kept
 * until close, since a worker may still be matching with it. */
static int swap_tasks(mon_control *c, const char *tasks, char *err, size_t errlen)
{
    pcre2_code *re = NULL;
    char *copy = NULL;
    if (tasks && (!(re = compile_tasks(tasks, err, errlen)) || !(copy = strdup(tasks)))) {
        if (re && !copy)
            snprintf(err, errlen, "out of memory");
        pcre2_code_free(re);
        return -1;
    }
    if (c->regex && KIT_PUSH(c->old, c->n_old, c->cap_old, c->regex) != 0) {
        snprintf(err, errlen, "out of memory");
        pcre2_code_free(re);
        free(copy);
        return -1;
    }
    free(c->pattern);
    c->pattern = copy;
    c->regex = re;
    return 0;
}

int mon_control_set(mon_control *c, bool keep_flags, unsigned flags, bool keep_tasks,
                    const char *tasks, char *err, size_t errlen)
{
    pthread_mutex_lock(&c->lock);
    int rc = keep_tasks ? 0 : swap_tasks(c, tasks, err, errlen);
    if (rc == 0) {
        if (!keep_flags)
            c->flags = flags;
        atomic_fetch_add_explicit(&c->gen, 1, memory_order_release);
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

/* ---- requests ---- */

/* "classes LETTERS", "classes +LETTERS", "classes -LETTERS": the classes
 * recorded from now on (t cannot change: a log's times are all with it or
 * all without it). */
static void request_classes(mon_control *c, const char *arg, char *out, size_t len)
{
    char err[256];
    unsigned now, given;
    pthread_mutex_lock(&c->lock);
    now = c->flags;
    pthread_mutex_unlock(&c->lock);
    char sign = *arg == '+' || *arg == '-' ? *arg++ : 0;
    if (!*arg || mon_flags_parse(arg, &given, err, sizeof err) != 0) {
        snprintf(out, len, "error classes: %s", *arg ? err : "expected flag letters (mtWTSMLC, A)");
        return;
    }
    unsigned want = sign == '+' ? now | given : sign == '-' ? now & ~given : given;
    if ((want ^ now) & MON_FLAG_TIMESTAMPS) {
        snprintf(out, len, "error classes: 't' cannot change while the program runs (every time "
                           "of a log is a clock reading, or none is)");
        return;
    }
    if (mon_control_set(c, false, want, true, NULL, err, sizeof err) != 0) {
        snprintf(out, len, "error %s", err);
        return;
    }
    char letters[16];
    mon_flags_format(want, letters, sizeof letters);
    snprintf(out, len, "ok classes=%s", *letters ? letters : "-");
}

static void request_tasks(mon_control *c, const char *arg, char *out, size_t len)
{
    char err[512];
    if (mon_control_set(c, true, 0, false, *arg ? arg : NULL, err, sizeof err) != 0)
        snprintf(out, len, "error tasks: %s", err);
    else
        snprintf(out, len, "ok tasks=%s", *arg ? arg : "(all)");
}

static void request_status(mon_control *c, char *out, size_t len)
{
    char letters[16];
    pthread_mutex_lock(&c->lock);
    mon_flags_format(c->flags, letters, sizeof letters);
    snprintf(out, len, "ok classes=%s tasks=%s generation=%u ring=%s", *letters ? letters : "-",
             c->pattern ? c->pattern : "(all)", atomic_load(&c->gen),
             c->h.snapshot ? "yes" : "no");
    pthread_mutex_unlock(&c->lock);
}

static void request_snapshot(mon_control *c, const char *why, char *out, size_t len)
{
    char path[4200], err[512];
    if (!c->h.snapshot)
        snprintf(out, len, "error this run keeps no flight recorder (run it with --mon-ring SIZE)");
    else if (c->h.snapshot(c->h.arg, why, path, sizeof path, err, sizeof err) != 0)
        snprintf(out, len, "error %s", err);
    else
        snprintf(out, len, "ok %s", path);
}

static void handle_request(mon_control *c, char *line, char *out, size_t len)
{
    line[strcspn(line, "\r\n")] = '\0';
    char *arg = strchr(line, ' ');
    if (arg)
        *arg++ = '\0';
    else
        arg = line + strlen(line);
    if (!strcmp(line, "snap"))
        request_snapshot(c, "request", out, len);
    else if (!strcmp(line, "classes"))
        request_classes(c, arg, out, len);
    else if (!strcmp(line, "tasks"))
        request_tasks(c, arg, out, len);
    else if (!strcmp(line, "status"))
        request_status(c, out, len);
    else
        snprintf(out, len, "error unknown request '%.64s' (expected snap, classes, tasks or status)",
                 line);
}

/* Read one line from fd within CONTROL_CLIENT_MS; its length, or -1. */
static long read_line(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (n + 1 < cap) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, CONTROL_CLIENT_MS) <= 0)
            return -1;
        ssize_t k = read(fd, buf + n, cap - 1 - n);
        if (k < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (k <= 0)
            break;
        n += (size_t)k;
        if (memchr(buf, '\n', n))
            break;
        struct timespec t1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if ((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 > CONTROL_CLIENT_MS)
            return -1;
    }
    buf[n] = '\0';
    return (long)n;
}

/* Only the program's own user and root may steer it. */
static bool client_allowed(int fd)
{
    struct ucred cred;
    socklen_t n = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &n) != 0)
        return false;
    return cred.uid == 0 || cred.uid == getuid();
}

static void serve_client(mon_control *c)
{
    int fd = accept4(c->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return;
    char line[CONTROL_LINE_MAX + 2], out[4400];
    if (!client_allowed(fd))
        snprintf(out, sizeof out, "error not this program's user");
    else if (read_line(fd, line, sizeof line) <= 0)
        snprintf(out, sizeof out, "error no request line within %d ms", CONTROL_CLIENT_MS);
    else
        handle_request(c, line, out, sizeof out);
    size_t n = strlen(out);
    out[n++] = '\n';
    for (size_t off = 0; off < n;) {
        ssize_t k = write(fd, out + off, n - off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        off += (size_t)k;
    }
    close(fd);
}

/* ---- the thread ---- */

static uint64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

static void drain(int fd)
{
    char b[64];
    while (read(fd, b, sizeof b) > 0)
        ;
}

static void take_snapshot_request(mon_control *c)
{
    const char *why = atomic_exchange(&c->snapshot_why, NULL);
    if (!why || !c->h.snapshot)
        return;
    char path[4200], err[512];
    if (c->h.snapshot(c->h.arg, why, path, sizeof path, err, sizeof err) != 0)
        fprintf(stderr, "mon: warning: snapshot (%s) failed: %s\n", why, err);
    else
        fprintf(stderr, "mon: snapshot (%s): %s\n", why, path);
}

static void *service_main(void *arg)
{
    mon_control *c = arg;
    uint64_t next = c->h.flush_ms ? now_ms() + c->h.flush_ms : 0;
    while (!atomic_load(&c->stop)) {
        int timeout = -1;
        if (c->h.flush_ms) {
            uint64_t now = now_ms();
            timeout = next > now ? (int)(next - now) : 0;
        }
        struct pollfd p[2] = {{c->wake[0], POLLIN, 0}, {c->listen_fd, POLLIN, 0}};
        int n = poll(p, c->listen_fd >= 0 ? 2 : 1, timeout);
        if (n > 0 && (p[0].revents & POLLIN)) {
            drain(c->wake[0]);
            take_snapshot_request(c); /* even when stopping: a deadlock's window */
        }
        if (atomic_load(&c->stop))
            break;
        if (n > 0 && c->listen_fd >= 0 && (p[1].revents & POLLIN))
            serve_client(c);
        if (c->h.flush_ms && now_ms() >= next) {
            c->h.tick(c->h.arg);
            next = now_ms() + c->h.flush_ms;
        }
    }
    return NULL;
}

void mon_control_request_snapshot(mon_control *c, const char *why)
{
    if (!c)
        return;
    int saved = errno;
    atomic_store(&c->snapshot_why, why);
    char b = 's';
    if (write(c->wake[1], &b, 1) < 0) {
        /* The pipe is full: a wake-up is pending anyway. */
    }
    errno = saved;
}

static void on_usr1(int sig)
{
    (void)sig;
    mon_control_request_snapshot(atomic_load(&signal_target), "signal");
}

/* SIGUSR1 asks a flight recorder for a snapshot. */
static void install_signal(mon_control *c)
{
    mon_control *none = NULL;
    if (!atomic_compare_exchange_strong(&signal_target, &none, c))
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    c->signal_installed = sigaction(SIGUSR1, &sa, &c->previous_usr1) == 0;
}

static void start_thread(mon_control *c)
{
    /* Signals are for the program's own threads, not this one. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&c->thread, NULL, service_main, c);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        fprintf(stderr, "mon: warning: no service thread (%s): the trace is written only as "
                        "packets fill and at the end, and snetmon ctl cannot reach this run\n",
                strerror(rc));
    else
        c->thread_started = true;
}

int mon_control_open(mon_control **out, const char *dir, unsigned flags, const char *tasks,
                     pcre2_code *regex, const mon_control_handlers *h, char *err, size_t errlen)
{
    *out = NULL;
    mon_control *c = calloc(1, sizeof *c);
    if (!c || (tasks && !(c->pattern = strdup(tasks)))) {
        free(c);
        snprintf(err, errlen, "mon: out of memory");
        return -1;
    }
    c->h = *h;
    c->flags = flags;
    c->regex = regex;
    snprintf(c->dir, sizeof c->dir, "%s", dir);
    pthread_mutex_init(&c->lock, NULL);
    if (pipe2(c->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        snprintf(err, errlen, "mon: pipe: %s", strerror(errno));
        pthread_mutex_destroy(&c->lock);
        free(c->pattern);
        free(c);
        return -1;
    }
    c->listen_fd = listen_on(dir);
    if (h->snapshot)
        install_signal(c);
    start_thread(c);
    *out = c;
    return 0;
}

void mon_control_close(mon_control *c)
{
    if (!c)
        return;
    if (c->signal_installed) {
        sigaction(SIGUSR1, &c->previous_usr1, NULL);
        atomic_store(&signal_target, NULL);
    }
    if (c->thread_started) {
        atomic_store(&c->stop, true);
        char b = 'q';
        if (write(c->wake[1], &b, 1) < 0) {
            /* full: the thread is being woken anyway */
        }
        pthread_join(c->thread, NULL);
    }
    if (c->listen_fd >= 0)
        close(c->listen_fd);
    close(c->wake[0]);
    close(c->wake[1]);
    for (size_t i = 0; i < c->n_old; i++)
        pcre2_code_free(c->old[i]);
    free(c->old);
    pcre2_code_free(c->regex);
    free(c->pattern);
    pthread_mutex_destroy(&c->lock);
    free(c);
}
