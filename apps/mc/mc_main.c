/*
 * mc_main.c - the mc application as a C program: the network of mc_app.c
 * built with the builder calls and run by app_main (apps/common).
 */
#include "mc_app.h"

int main(int argc, char **argv) { return app_main(&mc_app_spec, argc, argv); }
