/*
 * collatz_boxes.c - the boxes of collatz.snet, written against the
 * original runtime's C4SNet interface only.
 */
#include <C4SNet.h>
#include <memfun.h>

#include <stdio.h>
#include <string.h>

void *start(void *hnd, c4snet_data_t *n)
{
    C4SNetOut(hnd, 1, n, 0); /* the input field goes on as it is */
    return hnd;
}

void *step(void *hnd, c4snet_data_t *n, int steps)
{
    int v = *(int *)C4SNetGetData(n);
    C4SNetFree(n);
    if (v <= 1) {
        C4SNetOut(hnd, 2, steps, 1);
    } else {
        v = v % 2 ? 3 * v + 1 : v / 2;
        C4SNetOut(hnd, 1, C4SNetCreate(CTYPE_int, 1, &v), steps + 1);
    }
    return hnd;
}

/* line: "NAME:STEPS" as a char array; ratio: steps / 4 */
void *report(void *hnd, int steps, c4snet_data_t *name)
{
    char *s = C4SNetGetString(name);
    size_t len = strlen(s) + 16;
    char *text = SNetMemAlloc(len);
    int n = snprintf(text, len, "%s:%d", s, steps);
    double ratio = steps / 4.0;
    C4SNetOut(hnd, 1, C4SNetCreate(CTYPE_char, (size_t)n, text),
              C4SNetCreate(CTYPE_double, 1, &ratio));
    SNetMemFree(text);
    SNetMemFree(s);
    C4SNetFree(name);
    return hnd;
}

/* Box 'broken' of broken.snet: an output variant the box does not have. */
void *broken(void *hnd, c4snet_data_t *x)
{
    C4SNetOut(hnd, 2, x);
    C4SNetFree(x);
    return hnd;
}
