/*
 * ant_main.c - the ant application as a C program: the network of
 * ant_app.c built with the builder calls and run by app_main (apps/common).
 */
#include "ant_app.h"

int main(int argc, char **argv) { return app_main(&ant_app_spec, argc, argv); }
