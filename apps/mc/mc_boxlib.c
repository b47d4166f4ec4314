/*
 * mc_boxlib.c - libmc_boxes.so, the box library of apps/mc/mc.snet: the
 * boxes of mc_app.c and the application hooks that make snetrun run mc
 * with the C program's options, input, report and --check.
 */
#include "app_boxlib.h"
#include "mc_app.h"

APP_BOXLIB(mc_app_spec, "mc", MC_ABOUT, MC_OPTIONS_HELP)
