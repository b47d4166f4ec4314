/*
 * lpel_test_util.c - the helpers of LPEL's tests (lpel_test_util.h).
 */
#include "lpel_test_util.h"

#include <check.h>
#include <unistd.h>
#include <sys/wait.h>

/* A runtime whose deadlock report goes to report (NULL: stderr). */
lpel_runtime *make_runtime_reporting(unsigned workers, FILE *report)
{
    lpel_config cfg = lpel_config_default();
    cfg.num_workers = workers;
    cfg.pin_workers = false; /* tests share the machine with other tests */
    cfg.report = report;
    lpel_runtime *rt = NULL;
    char err[256];
    int rc = lpel_runtime_create(&rt, &cfg, err, sizeof err);
    ck_assert_msg(rc == LPEL_OK, "runtime_create: %s", err);
    return rt;
}

lpel_runtime *make_runtime(unsigned workers)
{
    return make_runtime_reporting(workers, NULL);
}

/* Run fn in a child process with its stderr captured into buf; returns
 * the child's wait status. For the reports that end the process. */
int run_in_child(void (*fn)(void), char *buf, size_t len)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        fn();
        _exit(0); /* not reached when fn ends the process as expected */
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t k;
    while (got < len - 1 && (k = read(fds[0], buf + got, len - 1 - got)) > 0)
        got += (size_t)k;
    buf[got] = '\0';
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    return status;
}

int64_t spawn(lpel_runtime *rt, const char *name, int worker, lpel_task_fn fn, void *arg)
{
    lpel_task_attr attr = {.name = name, .stack_size = 0, .worker = worker};
    int64_t id = lpel_task_create(rt, &attr, fn, arg);
    ck_assert_int_gt(id, 0);
    return id;
}

void producer(void *arg)
{
    pipe_args *a = arg;
    for (long i = 0; i < a->count; i++)
        lpel_stream_write(a->s, ITEM(i));
    lpel_stream_close(a->s, LPEL_STREAM_WRITE);
}

void consumer(void *arg)
{
    pipe_args *a = arg;
    void *item;
    while ((item = lpel_stream_read(a->s)) != NULL) {
        if (VALUE(item) != a->received)
            a->out_of_order++;
        a->received++;
    }
    a->saw_end = lpel_stream_at_end(a->s) && lpel_stream_read(a->s) == NULL;
    lpel_stream_close(a->s, LPEL_STREAM_READ);
}
