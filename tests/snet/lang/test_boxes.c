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

/* The boxes of determ-like routing (routed.snet): A, B and C marked by the
 * box they went through, D passed on after a delay that lets records
 * overtake each other. */

/* show_a ((A) -> (A)): A + 1 */
int show_a(snet_handle *h, snet_record *in)
{
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "A", snet_record_int(in, "A") + 1);
    return snet_out(h, out);
}

/* show_b ((B) -> (B)): B + 1000 */
int show_b(snet_handle *h, snet_record *in)
{
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "B", snet_record_int(in, "B") + 1000);
    return snet_out(h, out);
}

/* show_c ((C) -> (C)): C + 2000 */
int show_c(snet_handle *h, snet_record *in)
{
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "C", snet_record_int(in, "C") + 2000);
    return snet_out(h, out);
}

/* delay ((D) -> (D)): D, after yielding the worker D % 7 * 50 times */
int delay(snet_handle *h, snet_record *in)
{
    long d = snet_record_int(in, "D");
    for (long i = 0; i < d % 7 * 50; i++)
        lpel_task_yield();
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "D", d);
    return snet_out(h, out);
}

/* seed (-> (x)): an initialiser: x = 100 and x = 200, once */
int seed(snet_handle *h, snet_record *in)
{
    if (snet_record_label_count(in) != 0) /* the trigger is an empty record */
        return 1;
    for (long x = 100; x <= 200; x += 100) {
        snet_record *out = snet_record_new();
        snet_record_set_int(out, "x", x);
        if (snet_out(h, out) != SNET_OK)
            return -1;
    }
    return 0;
}

/* accumulate ((state, inval) -> (outval) | (state)): the sum state + inval
 * as the output and as the new state */
int accumulate(snet_handle *h, snet_record *in)
{
    long sum = snet_record_int(in, "state") + snet_record_int(in, "inval");
    snet_record *out = snet_record_new(), *state = snet_record_new();
    snet_record_set_int(out, "outval", sum);
    snet_record_set_int(state, "state", sum);
    return snet_out(h, out) == SNET_OK && snet_out(h, state) == SNET_OK ? 0 : -1;
}
