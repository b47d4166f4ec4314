/*
 * lpel_test_util.h - what LPEL's test files share: runtimes made for tests
 * (unpinned workers), spawning a task that must succeed, and running a
 * function in a child process to capture the report that ends it.
 */
#ifndef LPEL_TEST_UTIL_H
#define LPEL_TEST_UTIL_H

#include <lpel.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A runtime whose deadlock report goes to report (NULL: stderr). */
lpel_runtime *make_runtime_reporting(unsigned workers, FILE *report);
lpel_runtime *make_runtime(unsigned workers);

/* Run fn in a child process with its stderr captured into buf; returns
 * the child's wait status. For the reports that end the process. */
int run_in_child(void (*fn)(void), char *buf, size_t len);

/* Create a task (the test fails if it cannot be); its id. */
int64_t spawn(lpel_runtime *rt, const char *name, int worker, lpel_task_fn fn, void *arg);

/* Stream items that are never NULL (NULL is end-of-stream). */
#define ITEM(i) ((void *)(uintptr_t)((i) + 1))
#define VALUE(p) ((long)(uintptr_t)(p) - 1)

/* A pipeline of two tasks over one stream: producer writes count items
 * and closes; consumer reads to the end, counting items out of order, and
 * notes whether the end was seen as the end. */
typedef struct pipe_args {
    lpel_stream *s;
    long count;
    long received;
    long out_of_order;
    bool saw_end;
} pipe_args;
void producer(void *arg);
void consumer(void *arg);

#endif
