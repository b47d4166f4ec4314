/*
 * rt_boxlib.c - librt_boxes.so, the box library of apps/rt/rt.snet: the
 * boxes of rt_app.c and the application hooks that make snetrun run rt
 * with the C program's options, input, report and --check.
 */
#include "app_boxlib.h"
#include "rt_app.h"

APP_BOXLIB(rt_app_spec, "rt", RT_ABOUT, RT_OPTIONS_HELP)
