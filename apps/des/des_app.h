/*
 * des_app.h - the des application (des_app.c) as both of its hosts see it:
 * the app_spec that des_main.c runs as a C program and des_boxlib.c hands
 * to snetrun, and the boxes, exported by name so that apps/des/des.snet
 * finds them in libdes_boxes.so (its metadata maps box gen to des_gen,
 * round1 to des_round1, ...).
 */
#ifndef APPS_DES_APP_H
#define APPS_DES_APP_H

#include "snet_prog.h"

typedef struct des_app des_app;

extern const app_spec des_app_spec;

/* What the program does and its network (--help). */
#define DES_ABOUT \
    "DES (ECB) encryption of a stream of messages of generated data on the S-Net\n" \
    "network  gen .. (ip .. round1 .. ... .. round16 .. fp) !! <lane>\n" \
    "default: 128 messages, 64 KB in all; --paper: 500 messages, 500 KB in all (the\n" \
    "paper: 500 KB)\n"

/* The des options beyond the shared ones (--help lines). */
#define DES_OPTIONS_HELP                                                                   \
    "  --kb N           kilobytes in all the messages together\n"                          \
    "  --lanes L        parallel pipelines (default 4)\n"                                \
    "  --scale BOX=F    BOX (ip, round1 .. round16, fp) transforms the first F of each\n"  \
    "                   message's blocks, the rest pass; no longer DES: --check then\n"   \
    "                   compares with the same boxes run sequentially\n"

/* The boxes (snet.h box API; their user pointer is the des_app, whose key
 * schedule the rounds use). */
int des_gen(snet_handle *h, snet_record *in);
int des_ip(snet_handle *h, snet_record *in);
int des_round1(snet_handle *h, snet_record *in);
int des_round2(snet_handle *h, snet_record *in);
int des_round3(snet_handle *h, snet_record *in);
int des_round4(snet_handle *h, snet_record *in);
int des_round5(snet_handle *h, snet_record *in);
int des_round6(snet_handle *h, snet_record *in);
int des_round7(snet_handle *h, snet_record *in);
int des_round8(snet_handle *h, snet_record *in);
int des_round9(snet_handle *h, snet_record *in);
int des_round10(snet_handle *h, snet_record *in);
int des_round11(snet_handle *h, snet_record *in);
int des_round12(snet_handle *h, snet_record *in);
int des_round13(snet_handle *h, snet_record *in);
int des_round14(snet_handle *h, snet_record *in);
int des_round15(snet_handle *h, snet_record *in);
int des_round16(snet_handle *h, snet_record *in);
int des_fp(snet_handle *h, snet_record *in);

#endif
