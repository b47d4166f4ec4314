/*
 * arity_boxes.c - a C4SNet box library written as for the original
 * runtime (it includes C4SNet.h, memfun.h and bool.h and nothing of this
 * runtime), built by CMake like any user's box library: boxes a0 ... a12
 * of arity.snet take 0 to 12 labels, fields and tags alternating (f1,
 * <t2>, f3, ...). Box aN checks that each of its labels holds N and emits
 * them all holding N + 1, or 0 if one did not; the labels it does not
 * take pass it by flow inheritance. A record whose label k holds k
 * therefore leaves a12 with every label at 13.
 */
#include <C4SNet.h>
#include <bool.h>
#include <memfun.h>

/* Each field's value is n (the field is freed); tags too. */
static bool all_are(int n, c4snet_data_t **f, int nf, const int *t, int nt)
{
    bool ok = true;
    for (int i = 0; i < nf; i++) {
        ok = ok && C4SNetGetType(f[i]) == CTYPE_int && *(int *)C4SNetGetData(f[i]) == n;
        C4SNetFree(f[i]);
    }
    for (int i = 0; i < nt; i++)
        ok = ok && t[i] == n;
    return ok;
}

/* A new int field. */
static c4snet_data_t *num(int v) { return C4SNetCreate(CTYPE_int, 1, &v); }

void *a0(void *hnd)
{
    C4SNetOut(hnd, 1, 0);
    return hnd;
}

void *a1(void *hnd, c4snet_data_t *f1)
{
    c4snet_data_t *f[] = {f1};
    int *t = NULL;
    int v = all_are(1, f, 1, t, 0) ? 2 : 0;
    C4SNetOut(hnd, 1, num(v));
    return hnd;
}

void *a2(void *hnd, c4snet_data_t *f1, int t2)
{
    c4snet_data_t *f[] = {f1};
    int t[] = {t2};
    int v = all_are(2, f, 1, t, 1) ? 3 : 0;
    C4SNetOut(hnd, 1, num(v), v);
    return hnd;
}

void *a3(void *hnd, c4snet_data_t *f1, int t2, c4snet_data_t *f3)
{
    c4snet_data_t *f[] = {f1, f3};
    int t[] = {t2};
    int v = all_are(3, f, 2, t, 1) ? 4 : 0;
    C4SNetOut(hnd, 1, num(v), v, num(v));
    return hnd;
}

void *a4(void *hnd, c4snet_data_t *f1, int t2, c4snet_data_t *f3, int t4)
{
    c4snet_data_t *f[] = {f1, f3};
    int t[] = {t2, t4};
    int v = all_are(4, f, 2, t, 2) ? 5 : 0;
    C4SNetOut(hnd, 1, num(v), v, num(v), v);
    return hnd;
}

void *a5(void *hnd, c4snet_data_t *f1, int t2, c4snet_data_t *f3, int t4, c4snet_data_t *f5)
{
    c4snet_data_t *f[] = {f1, f3, f5};
    int t[] = {t2, t4};
    int v = all_are(5, f, 3, t, 2) ? 6 : 0;
    C4SNetOut(hnd, 1, num(v), v, num(v), v, num(v));
    return hnd;
}

void *a6(void *hnd, c4snet_data_t *f1, int t2, c4snet_data_t *f3, int t4, c4snet_data_t *f5,
         int t6)
{
    c4snet_data_t *f[] = {f1, f3, f5};
    int t[] = {t2, t4, t6};
    int v = all_are(6, f, 3, t, 3) ? 7 : 0;
    C4SNetOut(hnd, 1, num(v), v, num(v), v, num(v), v);
    return hnd;
}

void *a7(void *hnd, c4snet_data_t *f1, int t2, c4snet_data_t *f3, int t4, c4snet_data_t *f5,
         int t6, c4snet_data_t *f7)
{
    c4snet_data_t *f[] = {f1, f3, f5, f7};
    int t[] = {t2, t4, t6};
    int v = all_are(7, f, 4, t, 3) ? 8 : 0;
    C4SNetOut(hnd, 1, num(v), v, num(v), v, num(v), v, num(v));
    return hnd;
}

void *a8(void *hnd, c4snet_data_t *f1, int t2, c4snet_data_t *f3, int t4, c4snet_data_t *f5,
         int t6, c4snet_data_t *f7, int t8)
{
    c4snet_data_t *f[] = {f1, f3, f5, f7};
    int t[] = {t2, t4, t6, t8};
    int v = all_are(8, f, 4, t, 4) ? 9 : 0;
    C4SNetOut(hnd, 1, num(v), v, num(v), v, num(v), v, num(v), v);
    return hnd;
}

void *a9(void *hnd, c4snet_data_t *f1, int t2, c4snet_data_t *f3, int t4, c4snet_data_t *f5,
         int t6, c4snet_data_t *f7, int t8, c4snet_data_t *f9)
{
    c4snet_data_t *f[] = {f1, f3, f5, f7, f9};
    int t[] = {t2, t4, t6, t8};
    int v = all_are(9, f, 5, t, 4) ? 10 : 0;
    C4SNetOut(hnd, 1, num(v), v, num(v), v, num(v), v, num(v), v, num(v));
    return hnd;
}

void *a10(void *hnd, c4snet_data_t *f1, int t2, c4snet_data_t *f3, int t4, c4snet_data_t *f5,
          int t6, c4snet_data_t *f7, int t8, c4snet_data_t *f9, int t10)
{
    c4snet_data_t *f[] = {f1, f3, f5, f7, f9};
    int t[] = {t2, t4, t6, t8, t10};
    int v = all_are(10, f, 5, t, 5) ? 11 : 0;
    C4SNetOut(hnd, 1, num(v), v, num(v), v, num(v), v, num(v), v, num(v), v);
    return hnd;
}

void *a11(void *hnd, c4snet_data_t *f1, int t2, c4snet_data_t *f3, int t4, c4snet_data_t *f5,
          int t6, c4snet_data_t *f7, int t8, c4snet_data_t *f9, int t10, c4snet_data_t *f11)
{
    c4snet_data_t *f[] = {f1, f3, f5, f7, f9, f11};
    int t[] = {t2, t4, t6, t8, t10};
    int v = all_are(11, f, 6, t, 5) ? 12 : 0;
    C4SNetOut(hnd, 1, num(v), v, num(v), v, num(v), v, num(v), v, num(v), v, num(v));
    return hnd;
}

void *a12(void *hnd, c4snet_data_t *f1, int t2, c4snet_data_t *f3, int t4, c4snet_data_t *f5,
          int t6, c4snet_data_t *f7, int t8, c4snet_data_t *f9, int t10, c4snet_data_t *f11,
          int t12)
{
    c4snet_data_t *f[] = {f1, f3, f5, f7, f9, f11};
    int t[] = {t2, t4, t6, t8, t10, t12};
    int v = all_are(12, f, 6, t, 6) ? 13 : 0;
    C4SNetOut(hnd, 1, num(v), v, num(v), v, num(v), v, num(v), v, num(v), v, num(v), v);
    return hnd;
}
