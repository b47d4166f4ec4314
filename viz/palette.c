/*
 * palette.c - the visualiser's colours. Task kinds get distinct, reasonably
 * saturated colours that stay the same for a kind from one image to the next
 * (hash -> preferred slot), none of them grey or white because grey means
 * waiting and white means unaccounted time in the utilisation image.
 */
#include "viz_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Hand-picked: distinct hues and lightness steps, readable with black or
 * white text, far from grey. */
static const unsigned char base_palette[][3] = {
    {0x3b, 0x6e, 0xc4}, {0xe0, 0x7b, 0x39}, {0x4c, 0xa8, 0x5a}, {0xd6, 0x45, 0x4f},
    {0x8e, 0x6b, 0xc2}, {0x3f, 0xb8, 0xb8}, {0xe8, 0xc1, 0x3a}, {0xb5, 0x6b, 0x4a},
    {0xe3, 0x7f, 0xb5}, {0x7f, 0x9c, 0x2e}, {0x1f, 0x4e, 0x79}, {0xf2, 0xa5, 0x8c},
    {0x6c, 0xd4, 0x8f}, {0x9a, 0x2f, 0x6e}, {0x5b, 0xa4, 0xe0}, {0xc9, 0x9a, 0x2e},
};
#define BASE_COUNT (sizeof base_palette / sizeof base_palette[0])

static viz_rgb from_bytes(const unsigned char c[3])
{
    return (viz_rgb){c[0] / 255.0, c[1] / 255.0, c[2] / 255.0};
}

/* Beyond the base palette: hues spread by the golden angle. */
static viz_rgb generated_colour(size_t i)
{
    double h = fmod(0.11 + (double)i * 0.618033988749895, 1.0) * 6.0;
    double s = 0.55, v = 0.85;
    double f = h - floor(h), p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    switch ((int)h % 6) {
    case 0: return (viz_rgb){v, t, p};
    case 1: return (viz_rgb){q, v, p};
    case 2: return (viz_rgb){p, v, t};
    case 3: return (viz_rgb){p, q, v};
    case 4: return (viz_rgb){t, p, v};
    default: return (viz_rgb){v, p, q};
    }
}

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

typedef struct named_index {
    const char *name;
    size_t index;
} named_index;

static int compare_names(const void *a, const void *b)
{
    return strcmp(((const named_index *)a)->name, ((const named_index *)b)->name);
}

void viz_palette_assign(const char *const *names, size_t n, viz_rgb *out)
{
    named_index *order = malloc(n * sizeof *order);
    bool taken[BASE_COUNT] = {false};
    size_t extra = 0;
    if (!order) { /* degrade to positional colours rather than fail */
        for (size_t i = 0; i < n; i++)
            out[i] = i < BASE_COUNT ? from_bytes(base_palette[i]) : generated_colour(i);
        return;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = (named_index){names[i], i};
    qsort(order, n, sizeof *order, compare_names);
    for (size_t k = 0; k < n; k++) {
        size_t slot = name_hash(order[k].name) % BASE_COUNT, tries = 0;
        while (taken[slot] && tries < BASE_COUNT) {
            slot = (slot + 1) % BASE_COUNT;
            tries++;
        }
        if (tries < BASE_COUNT) {
            taken[slot] = true;
            out[order[k].index] = from_bytes(base_palette[slot]);
        } else {
            out[order[k].index] = generated_colour(extra++);
        }
    }
    free(order);
}

viz_rgb viz_palette_worker(int worker)
{
    /* Workers use the palette in order, lightened so node labels stay
     * readable in the network graph. */
    size_t i = (size_t)(worker < 0 ? 0 : worker);
    viz_rgb c = i < BASE_COUNT ? from_bytes(base_palette[i]) : generated_colour(i);
    return (viz_rgb){0.45 + 0.55 * c.r, 0.45 + 0.55 * c.g, 0.45 + 0.55 * c.b};
}

viz_rgb viz_colour_waiting(void) { return (viz_rgb){0xa8 / 255.0, 0xa8 / 255.0, 0xa8 / 255.0}; }
viz_rgb viz_colour_filtered(void) { return (viz_rgb){0xe3 / 255.0, 0xd9 / 255.0, 0xbf / 255.0}; }
viz_rgb viz_colour_other(void) { return (viz_rgb){0x55 / 255.0, 0x4a / 255.0, 0x7a / 255.0}; }

viz_rgb viz_text_colour_on(viz_rgb bg)
{
    double luminance = 0.299 * bg.r + 0.587 * bg.g + 0.114 * bg.b;
    return luminance > 0.55 ? (viz_rgb){0, 0, 0} : (viz_rgb){1, 1, 1};
}

void viz_rgb_hex(viz_rgb c, char buf[8])
{
    snprintf(buf, 8, "#%02x%02x%02x", (int)lround(c.r * 255), (int)lround(c.g * 255),
             (int)lround(c.b * 255));
}
