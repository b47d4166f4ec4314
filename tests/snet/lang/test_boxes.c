/*
 * test_boxes.c - the boxes of the language tests' networks
 * (the .snet files in tests/snet/lang/nets), built as the box library
 * libsnet-langtest.so that snetrun loads. Each box is the C function of its
 * name with the box API of snet.h; the comment gives its S-Net type.
 */
#include <lpel.h>
#include <sched.h>
#include <snet.h>

/* inc ((x) -> (x)): x + 1 */
int inc(snet_handle *h, snet_record *in)
{
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "x", snet_record_int(in, "x") + 1);
    return snet_out(h, out);
}

/* dbl ((x) -> (x)): 2x */
int dbl(snet_handle *h, snet_record *in)
{
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "x", snet_record_int(in, "x") * 2);
    return snet_out(h, out);
}

/* slow ((x) -> (x)): x, after yielding the worker x % 7 * 50 times, so that
 * records overtake each other unless a combinator keeps their order */
int slow(snet_handle *h, snet_record *in)
{
    long x = snet_record_int(in, "x");
    for (long i = 0; i < x % 7 * 50; i++)
        lpel_task_yield();
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "x", x);
    return snet_out(h, out);
}

/* count ((<n>) -> (<n>) | (<done>)): n - 1 while n > 0, then <done>=1 */
int count(snet_handle *h, snet_record *in)
{
    long n = snet_record_tag(in, "n");
    snet_record *out = snet_record_new();
    if (n > 0)
        snet_record_set_tag(out, "n", n - 1);
    else
        snet_record_set_tag(out, "done", 1);
    return snet_out(h, out);
}

/* fan ((n) -> (x, <i>)): n records x = i, <i> = i for i in 0..n-1 */
int fan(snet_handle *h, snet_record *in)
{
    for (long i = 0; i < snet_record_int(in, "n"); i++) {
        snet_record *out = snet_record_new();
        snet_record_set_int(out, "x", i);
        snet_record_set_tag(out, "i", i);
        if (snet_out(h, out) != SNET_OK)
            return -1;
    }
    return 0;
}

/* where ((x) -> (x, w)): x and the worker this box's task runs on */
int where(snet_handle *h, snet_record *in)
{
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "x", snet_record_int(in, "x"));
    snet_record_set_int(out, "w", (long)lpel_task_worker(lpel_task_self()));
    return snet_out(h, out);
}

/* foo ((A, <cnt>) -> (A, <cnt>) | (B)): while A > 0, A - 1 and cnt + 1
 * (to go round a feedback loop again); then B = cnt */
int foo(snet_handle *h, snet_record *in)
{
    long a = snet_record_int(in, "A"), cnt = snet_record_tag(in, "cnt");
    snet_record *out = snet_record_new();
    if (a > 0) {
        snet_record_set_int(out, "A", a - 1);
        snet_record_set_tag(out, "cnt", cnt + 1);
    } else {
        snet_record_set_int(out, "B", cnt);
    }
    return snet_out(h, out);
}

/* add ((a, b) -> (s)): a + b */
int add(snet_handle *h, snet_record *in)
{
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "s", snet_record_int(in, "a") + snet_record_int(in, "b"));
    return snet_out(h, out);
}

/* scale ((d, s) -> (d, s)): d * 2 and s with "!" appended (other field types) */
int scale(snet_handle *h, snet_record *in)
{
    const char *s = snet_record_string(in, "s");
    char buf[256];
    snprintf(buf, sizeof buf, "%s!", s ? s : "");
    snet_record *out = snet_record_new();
    snet_record_set_double(out, "d", snet_record_double(in, "d") * 2);
    snet_record_set_string(out, "s", buf);
    return snet_out(h, out);
}

/* broken ((x) -> (x)): fails for x < 0 */
int broken(snet_handle *h, snet_record *in)
{
    long x = snet_record_int(in, "x");
    if (x < 0)
        return 1;
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "x", x);
    return snet_out(h, out);
}
