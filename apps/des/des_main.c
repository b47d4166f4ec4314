/*
 * des_main.c - the des application as a C program: the network of
 * des_app.c built with the builder calls and run by app_main (apps/common).
 */
#include "des_app.h"

int main(int argc, char **argv) { return app_main(&des_app_spec, argc, argv); }
