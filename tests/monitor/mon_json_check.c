/*
 * mon_json_check.c - checks that a file is a Chrome Trace Event Format
 * document as `snetmon export --chrome` writes it, and prints
 *     slices=<X events> flows_out=<s events> flows_in=<f events>
 * for the command-line test to compare. Uses jansson: a real JSON parser,
 * not our writer's assumptions. `mon_json_check --any FILE` only checks
 * that FILE is one JSON document (snetmon metrics --json and the like).
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    bool any = argc == 3 && !strcmp(argv[1], "--any");
    if (argc != 2 && !any) {
        fprintf(stderr, "usage: mon_json_check [--any] FILE\n");
        return 2;
    }
    const char *path = argv[argc - 1];
    json_error_t e;
    json_t *root = json_load_file(path, 0, &e);
    if (!root) {
        fprintf(stderr, "%s:%d:%d: %s\n", path, e.line, e.column, e.text);
        return 1;
    }
    if (any) {
        json_decref(root);
        return 0;
    }
    json_t *events = json_object_get(root, "traceEvents");
    if (!json_is_array(events)) {
        fprintf(stderr, "%s: no traceEvents array\n", argv[1]);
        json_decref(root);
        return 1;
    }
    size_t i, slices = 0, out = 0, in = 0;
    json_t *ev;
    json_array_foreach(events, i, ev)
    {
        const char *ph = json_string_value(json_object_get(ev, "ph"));
        if (!ph || !json_is_integer(json_object_get(ev, "pid"))) {
            fprintf(stderr, "%s: event %zu has no ph or pid\n", argv[1], i);
            json_decref(root);
            return 1;
        }
        slices += !strcmp(ph, "X");
        out += !strcmp(ph, "s");
        in += !strcmp(ph, "f");
    }
    printf("slices=%zu flows_out=%zu flows_in=%zu\n", slices, out, in);
    json_decref(root);
    return 0;
}
