/*
 * rt_app.h - the rt application (rt_app.c) as both of its hosts see it:
 * the app_spec that rt_main.c runs as a C program and rt_boxlib.c hands to
 * snetrun, and the boxes, exported by name so that apps/rt/rt.snet finds
 * them in librt_boxes.so (its metadata maps box balance to rt_balance, ...).
 */
#ifndef APPS_RT_APP_H
#define APPS_RT_APP_H

#include "snet_prog.h"

typedef struct rt_app rt_app;

extern const app_spec rt_app_spec;

/* What the program does and its network (--help). */
#define RT_ABOUT \
    "Ray tracing of a stream of scenes by N solver instances with dynamic load\n" \
    "balancing on the S-Net network  balance .. (solver !@ <node>)\n" \
    "default: 32 scenes of 160x120; --paper: 100 scenes of 320x240 (the paper: 100\n" \
    "scenes over 4 solvers)\n"

/* The rt options beyond the shared ones (--help lines). */
#define RT_OPTIONS_HELP                                                                    \
    "  --solvers N      solver instances (default 4, at most 64)\n"                        \
    "  --size WxH       image size\n"                                                      \
    "  --images DIR     write each image as DIR/sceneNNN.ppm\n"                            \
    "  --scale solver=F the solver renders F of each image's rows, spread evenly (the\n"  \
    "                   rest black); --check renders the same rows\n"

/* The boxes (snet.h box API; their user pointer is the rt_app, whose
 * outstanding-work counters they share). */
int rt_balance(snet_handle *h, snet_record *in);
int rt_solver(snet_handle *h, snet_record *in);

#endif
