/*
 * fuzz_kit.c - the container kit (kit.h) driven by the input as a program:
 * each byte pair is an operation (put an id, look one up, clear, push onto
 * a growing array) checked against a plain array that holds the same
 * entries, so any difference between the map and the model is a finding,
 * as are the sanitizers' reports.
 */
#include "fuzz.h"

#include <kit.h>

typedef struct model {
    uint64_t *ids;
    size_t *values;
    size_t n, cap_ids, cap_values;
} model;

static size_t *model_find(const model *m, uint64_t id)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->ids[i] == id)
            return &m->values[i];
    return NULL;
}

static void model_put(model *m, uint64_t id, size_t value)
{
    size_t *v = model_find(m, id);
    if (v) {
        *v = value;
        return;
    }
    FUZZ_CHECK(KIT_GROW(m->ids, m->cap_ids, m->n + 1) == 0);
    FUZZ_CHECK(KIT_GROW(m->values, m->cap_values, m->n + 1) == 0);
    m->ids[m->n] = id;
    m->values[m->n++] = value;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kit_id_map map = {0};
    model m = {0};
    uint8_t *pushed = NULL;
    size_t npushed = 0, cap_pushed = 0;
    for (size_t i = 0; i + 1 < size; i += 2) {
        /* Few distinct ids, so puts collide and replace. */
        uint64_t id = (uint64_t)(data[i + 1] & 0x3f) << (data[i] & 0x38);
        size_t value = i;
        switch (data[i] & 3) {
        case 0:
        case 1:
            FUZZ_CHECK(kit_id_map_put(&map, id, value) == 0);
            model_put(&m, id, value);
            break;
        case 2: {
            size_t got = 0, *want = model_find(&m, id);
            FUZZ_CHECK(kit_id_map_get(&map, id, &got) == (want != NULL));
            FUZZ_CHECK(!want || got == *want);
            break;
        }
        default:
            if (data[i + 1] == 0xff) {
                kit_id_map_free(&map);
                m.n = 0;
            } else {
                FUZZ_CHECK(KIT_PUSH(pushed, npushed, cap_pushed, data[i + 1]) == 0);
                FUZZ_CHECK(pushed[npushed - 1] == data[i + 1] && cap_pushed >= npushed);
            }
        }
        FUZZ_CHECK(map.count == m.n);
    }
    for (size_t i = 0; i < m.n; i++) {
        size_t got = 0;
        FUZZ_CHECK(kit_id_map_get(&map, m.ids[i], &got) && got == m.values[i]);
        FUZZ_CHECK(map.entries[i].id == m.ids[i]); /* insertion order */
    }
    kit_id_map_free(&map);
    free(m.ids);
    free(m.values);
    free(pushed);
    return 0;
}
