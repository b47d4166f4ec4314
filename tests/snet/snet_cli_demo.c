/*
 * snet_cli_demo.c - a tiny S-Net program for the command-line test
 * (snet_cli_test.sh): snet_prog_main around a split of a box, so the test can
 * check the whole path from text records on stdin to text on stdout, the
 * options, and the exit status of a failing run.
 *
 *     [{x, <t>} -> {x, <t=t%2>}] .. (inc !! <t>)
 */
#include <snet_prog.h>

static int inc(snet_handle *h, snet_record *in)
{
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "x", snet_record_int(in, "x") + 1);
    return snet_out(h, out);
}

int main(int argc, char **argv)
{
    snet_net *net = snet_serial(snet_filter("[{x, <t>} -> {x, <t=t%2>}]"),
                                snet_split_det(snet_box("inc", "{x} -> {x}", inc, NULL), "<t>"));
    return snet_prog_main(argc, argv, net);
}
