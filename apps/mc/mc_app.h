/*
 * mc_app.h - the mc application (mc_app.c) as both of its hosts see it:
 * the app_spec that mc_main.c runs as a C program and mc_boxlib.c hands to
 * snetrun, and the boxes, exported by name so that apps/mc/mc.snet finds
 * them in libmc_boxes.so (its metadata maps box png to mc_png, ...).
 */
#ifndef APPS_MC_APP_H
#define APPS_MC_APP_H

#include "snet_prog.h"

typedef struct mc_app mc_app;

extern const app_spec mc_app_spec;

/* What the program does and its network (--help). */
#define MC_ABOUT \
    "Monte-Carlo prices of a stream of European calls (S=100, r=5%, sigma=20%;\n" \
    "strike 90-110, maturity 0.25-2 years at 64 steps a year), each request on\n" \
    "  png .. ( ((vcall | []) .. [| {V},{Sum,<cnt>,<M>} |] .. (acc | [])) * {<CALL>} ) ! <job>\n" \
    "default: 32 requests of 2000 paths in batches of 500; --paper: 100 requests\n" \
    "of 10000 paths in batches of 1000 (10^6 paths, as in the paper)\n"

/* The mc options beyond the shared ones (--help lines). */
#define MC_OPTIONS_HELP                                                                    \
    "  --paths P        paths per request\n"                                               \
    "  --batch B        paths per vcall batch\n"                                           \
    "  --scale vcall=F  vcall prices F of each batch's paths (at least one); --check\n"    \
    "                   then compares with the kernel over the same paths\n"

/* The boxes (snet.h box API; their user pointer is the mc_app). */
int mc_png(snet_handle *h, snet_record *in);
int mc_vcall(snet_handle *h, snet_record *in);
int mc_acc(snet_handle *h, snet_record *in);

#endif
