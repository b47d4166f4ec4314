/*
 * mon_json_check.c - checks that a file is a Chrome Trace Event Format
 * document as `snetmon export --chrome` writes it, and prints
 *     slices=<X events> flows_out=<s events> flows_in=<f events> unpaired=<ids>
 * for the command-line test to compare; unpaired counts the flow ids that do
 * not have exactly one start and one end (each message's arrow must). Uses jansson: a real JSON parser,
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
    size_t i, slices = 0, out = 0, in = 0, unpaired = 0;
    json_t *ev;
    json_t *flows = json_object(); /* id -> [starts, ends] */
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
        if (strcmp(ph, "s") && strcmp(ph, "f"))
            continue;
        char key[64];
        json_t *id = json_object_get(ev, "id");
        if (json_is_integer(id))
            snprintf(key, sizeof key, "%lld", (long long)json_integer_value(id));
        else
            snprintf(key, sizeof key, "%s", json_is_string(id) ? json_string_value(id) : "(none)");
        json_t *pair = json_object_get(flows, key);
        if (!pair) {
            pair = json_pack("[ii]", 0, 0);
            json_object_set_new(flows, key, pair);
        }
        size_t end = strcmp(ph, "s") != 0;
        json_array_set_new(pair, end, json_integer(json_integer_value(json_array_get(pair, end)) + 1));
    }
    const char *key;
    json_t *pair;
    json_object_foreach(flows, key, pair)
    {
        unpaired += json_integer_value(json_array_get(pair, 0)) != 1 ||
                    json_integer_value(json_array_get(pair, 1)) != 1;
    }
    printf("slices=%zu flows_out=%zu flows_in=%zu unpaired=%zu\n", slices, out, in, unpaired);
    json_decref(flows);
    json_decref(root);
    return 0;
}
