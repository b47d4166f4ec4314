/*
 * des_boxlib.c - libdes_boxes.so, the box library of apps/des/des.snet:
 * the boxes of des_app.c and the application hooks that make snetrun run
 * des with the C program's options, input, report and --check.
 */
#include "app_boxlib.h"
#include "des_app.h"

APP_BOXLIB(des_app_spec, "des", DES_ABOUT, DES_OPTIONS_HELP)
