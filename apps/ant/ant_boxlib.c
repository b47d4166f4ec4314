/*
 * ant_boxlib.c - libant_boxes.so, the box library of apps/ant/ant.snet:
 * the boxes of ant_app.c and the application hooks that make snetrun run
 * ant with the C program's options, input, report and --check.
 */
#include "ant_app.h"
#include "app_boxlib.h"

APP_BOXLIB(ant_app_spec, "ant", ANT_ABOUT, ANT_OPTIONS_HELP)
