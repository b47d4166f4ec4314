/*
 * progress_bar.c - a progress bar on stderr for long imports and long
 * benchmark runs.
 *
 * Only drawn on a terminal and only after the first second, so short runs,
 * pipes and test logs stay clean. A terminal matter, so it lives with the
 * programs' command-line helpers (prog_opt/), not in a library.
 */
#include "progress_bar.h"

#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void progress_bar_init(progress_bar *bar, FILE *out)
{
    progress_bar_init_labelled(bar, out, NULL);
}

void progress_bar_init_labelled(progress_bar *bar, FILE *out, const char *label)
{
    bar->out = out;
    bar->label = label;
    bar->enabled = out && isatty(fileno(out));
    bar->drawn = 0;
    bar->started = now_s();
}

void progress_bar_update(void *ctx, uint64_t done, uint64_t total)
{
    progress_bar *bar = ctx;
    if (!bar->enabled || now_s() - bar->started < 1.0)
        return;
    bar->drawn = 1;
    fputc('\r', bar->out);
    if (bar->label)
        fprintf(bar->out, "%s: ", bar->label);
    if (!total) {
        /* Without a total the importer counts events, not bytes. */
        fprintf(bar->out, "%llu events read", (unsigned long long)done);
    } else {
        int width = 40, filled = (int)((double)done / (double)total * width);
        if (filled > width)
            filled = width;
        fprintf(bar->out, "[%.*s%*s] %3d%%", filled, "########################################",
                width - filled, "", (int)(100.0 * (double)done / (double)total));
    }
    fflush(bar->out);
}

void progress_bar_end(progress_bar *bar)
{
    if (bar->drawn)
        fprintf(bar->out, "\r%80s\r", "");
    bar->drawn = 0;
}
