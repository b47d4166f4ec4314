/*
 * ant_app.h - the ant application (ant_app.c) as both of its hosts see it:
 * the app_spec that ant_main.c runs as a C program and ant_boxlib.c hands
 * to snetrun, and the boxes, exported by name so that apps/ant/ant.snet
 * finds them in libant_boxes.so (its metadata maps box spawn to ant_spawn,
 * ...).
 */
#ifndef APPS_ANT_APP_H
#define APPS_ANT_APP_H

#include "snet_prog.h"

typedef struct ant_app ant_app;

extern const app_spec ant_app_spec;

/* What the program does and its network (--help). */
#define ANT_ABOUT \
    "Ant-colony optimisation of a stream of single-machine weighted tardiness\n" \
    "scheduling instances, each on the S-Net network\n" \
    "  ((spawn .. ((ant ! <ant>) | []) .. ([| {col,<pending>},{sol} |] ..\n" \
    "   (merge | [])) * {<next>}|{<done>}) * {<done>}) ! <inst>\n" \
    "default: 8 instances of about 40 jobs, 4 ants, 5 iterations; --paper: 2\n" \
    "instances of about 1000 jobs, 45 ants, 10 iterations (the paper: 1000 jobs, 45\n" \
    "ants, 1000 iterations, which would take hours on 2 cores and about 320000\n" \
    "tasks per instance)\n"

/* The ant options beyond the shared ones (--help lines). */
#define ANT_OPTIONS_HELP                                                                   \
    "  --jobs J         jobs per instance (about; 0.75 to 1.25 times J)\n"                 \
    "  --ants A         ants per iteration\n"                                              \
    "  --rounds I       rounds of the colony (iterations of the ants' search)\n"          \
    "  --scale ant=F    an ant weighs only the first F of the jobs left at each step\n"    \
    "                   (less work, other schedules); --check runs the same search\n"

/* The boxes (snet.h box API; their user pointer is the ant_app, whose
 * instances and parameters they read). */
int ant_spawn(snet_handle *h, snet_record *in);
int ant_ant(snet_handle *h, snet_record *in);
int ant_merge(snet_handle *h, snet_record *in);

#endif
