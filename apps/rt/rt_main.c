/*
 * rt_main.c - the rt application as a C program: the network of rt_app.c
 * built with the builder calls and run by app_main (apps/common).
 */
#include "rt_app.h"

int main(int argc, char **argv) { return app_main(&rt_app_spec, argc, argv); }
