/*
 * mon_options.c - the monitoring command-line options (-m FLAGS, --mon-dir DIR,
 * --mon-tasks REGEX, --mon-flush MS) and the flag letters.
 *
 * Why the options are cut out of argv here: every program compiled against
 * the runtime (benchmarks, applications) should accept them without a line
 * of its own option parsing, and then parse what is left as usual.
 */
#include "mon.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <string.h>

static const struct {
    char letter;
    unsigned bit;
} flag_letters[] = {
    {'m', MON_FLAG_MAP},    {'t', MON_FLAG_TIMESTAMPS}, {'W', MON_FLAG_WORKER},
    {'T', MON_FLAG_TASK},   {'S', MON_FLAG_STREAM},     {'M', MON_FLAG_MESSAGE},
    {'L', MON_FLAG_LOAD},   {'C', MON_FLAG_CPU},        {'A', MON_FLAG_ALL},
};

mon_options mon_options_default(void)
{
    mon_options o = {.flush_ms = MON_DEFAULT_FLUSH_MS};
    return o;
}

int mon_options_set_rank(mon_options *o, int rank, int ranks)
{
    if (ranks < 1 || rank < 0 || rank >= ranks)
        return -1;
    o->rank = rank;
    o->ranks = ranks;
    return 0;
}

static unsigned letter_bit(char c)
{
    for (size_t i = 0; i < sizeof flag_letters / sizeof flag_letters[0]; i++)
        if (flag_letters[i].letter == c)
            return flag_letters[i].bit;
    return 0;
}

int mon_flags_parse(const char *letters, unsigned *flags, char *err, size_t errlen)
{
    unsigned bits = 0;
    if (!letters || !*letters) {
        snprintf(err, errlen, "-m needs flag letters (from mtWTSMLCA)");
        return -1;
    }
    for (const char *p = letters; *p; p++) {
        unsigned b = letter_bit(*p);
        if (!b) {
            unsigned char c = (unsigned char)*p;
            if (c >= 0x20 && c < 0x7f)
                snprintf(err, errlen,
                         "unknown monitoring flag '%c' in -m %s (letters: m mapping, t timestamps, "
                         "W worker, T task, S stream, M message, L load, C CPU time, A all)",
                         *p, letters);
            else
                snprintf(err, errlen, "unknown monitoring flag byte 0x%02x in -m (letters: mtWTSMLCA)",
                         c);
            return -1;
        }
        bits |= b;
    }
    *flags = bits;
    return 0;
}

void mon_flags_format(unsigned flags, char *buf, size_t len)
{
    size_t n = 0;
    if (!len)
        return;
    for (const char *l = MON_FLAG_LETTERS; *l && n + 1 < len; l++)
        if (flags & letter_bit(*l))
            buf[n++] = *l;
    buf[n] = '\0';
}

/* Check that pcre2 accepts the pattern, so a typo fails at start-up with
 * the position of the error rather than silently selecting nothing. */
static int check_regex(const char *re, char *err, size_t errlen)
{
    int code;
    PCRE2_SIZE off;
    pcre2_code *c = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
    if (c) {
        pcre2_code_free(c);
        return 0;
    }
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(code, msg, sizeof msg);
    snprintf(err, errlen, "--mon-tasks: bad pattern '%s' at offset %zu: %s", re, (size_t)off,
             (const char *)msg);
    return -1;
}

/* A long option of ours: --NAME VALUE or --NAME=VALUE. */
static bool long_option(const char *arg, const char *name, const char **inline_value)
{
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0 || (arg[n] != '\0' && arg[n] != '='))
        return false;
    *inline_value = arg[n] == '=' ? arg + n + 1 : NULL;
    return true;
}

/* --mon-flush's value: whole milliseconds, 0 to MON_FLUSH_MS_MAX. */
static int parse_flush_ms(const char *v, unsigned *ms, char *err, size_t errlen)
{
    unsigned long n = 0;
    const char *p = v;
    for (; *p >= '0' && *p <= '9' && n <= MON_FLUSH_MS_MAX; p++)
        n = n * 10 + (unsigned long)(*p - '0');
    if (p == v || *p || n > MON_FLUSH_MS_MAX) {
        snprintf(err, errlen, "--mon-flush %s: expected a number of milliseconds from 0 to %u",
                 v, MON_FLUSH_MS_MAX);
        return -1;
    }
    *ms = (unsigned)n;
    return 0;
}

/* --mon-ring's value: bytes, with an optional K, M or G (KiB, MiB, GiB),
 * from MON_RING_MIN to MON_RING_MAX. */
static int parse_ring_bytes(const char *v, size_t *bytes, char *err, size_t errlen)
{
    unsigned long long n = 0;
    const char *p = v;
    for (; *p >= '0' && *p <= '9' && n <= MON_RING_MAX; p++)
        n = n * 10 + (unsigned long long)(*p - '0');
    unsigned shift = 0;
    if (p > v && *p && !p[1])
        shift = *p == 'K' || *p == 'k' ? 10 : *p == 'M' || *p == 'm' ? 20 : *p == 'G' || *p == 'g' ? 30 : 99;
    if (p == v || (*p && shift == 99) || n > (MON_RING_MAX >> shift) ||
        (n << shift) < MON_RING_MIN) {
        snprintf(err, errlen, "--mon-ring %s: expected a size in bytes (K, M or G after the "
                              "number for KiB, MiB, GiB) from %u KiB to %llu GiB per worker",
                 v, (unsigned)(MON_RING_MIN >> 10), (unsigned long long)(MON_RING_MAX >> 30));
        return -1;
    }
    *bytes = (size_t)(n << shift);
    return 0;
}

/* Which of our options argv[i] is; its value in *value (inline or the next
 * argument, then *used = 2). Returns the option letter ('m', 'd' for
 * --mon-dir, 'o' for its old spelling -o, 't' for --mon-tasks, 'f' for
 * --mon-flush, 'r' for --mon-ring), 0 if not ours, -1 if the value is
 * missing. */
static int match_option(int argc, char **argv, int i, const char **value, int *used)
{
    const char *a = argv[i];
    int opt = 0;
    const char *inline_value = NULL;
    if (a[0] == '-' && (a[1] == 'm' || a[1] == 'o')) {
        opt = a[1];
        if (a[2])
            inline_value = a + 2;
    } else if (long_option(a, "--mon-dir", &inline_value)) {
        opt = 'd';
    } else if (long_option(a, "--mon-tasks", &inline_value)) {
        opt = 't';
    } else if (long_option(a, "--mon-flush", &inline_value)) {
        opt = 'f';
    } else if (long_option(a, "--mon-ring", &inline_value)) {
        opt = 'r';
    }
    if (!opt)
        return 0;
    if (inline_value) {
        *value = inline_value;
        *used = 1;
        return opt;
    }
    if (i + 1 >= argc)
        return -1;
    *value = argv[i + 1];
    *used = 2;
    return opt;
}

int mon_parse_args(int *argc, char **argv, mon_options *out, char *err, size_t errlen)
{
    *out = mon_options_default();
    int kept = 1;
    int i = 1;
    for (; i < *argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        const char *value = NULL;
        int used = 0;
        int opt = match_option(*argc, argv, i, &value, &used);
        if (opt == 0) {
            argv[kept++] = argv[i];
            continue;
        }
        if (opt < 0) {
            snprintf(err, errlen, "%s needs a value", argv[i]);
            return -1;
        }
        if (opt == 'm' && mon_flags_parse(value, &out->flags, err, errlen) != 0)
            return -1;
        if (opt == 'o') /* until -o means the output everywhere (tools/snetmon/cli.h) */
            fprintf(stderr, "mon: warning: -o DIR is deprecated, use --mon-dir DIR\n");
        if (opt == 'o' || opt == 'd') {
            if (!*value) {
                snprintf(err, errlen, "%s needs a directory name", opt == 'o' ? "-o" : "--mon-dir");
                return -1;
            }
            out->dir = value;
        }
        if (opt == 't') {
            if (check_regex(value, err, errlen) != 0)
                return -1;
            out->task_regex = value;
        }
        if (opt == 'f' && parse_flush_ms(value, &out->flush_ms, err, errlen) != 0)
            return -1;
        if (opt == 'r' && parse_ring_bytes(value, &out->ring_bytes, err, errlen) != 0)
            return -1;
        i += used - 1;
    }
    for (; i < *argc; i++)
        argv[kept++] = argv[i];
    argv[kept] = NULL;
    *argc = kept;
    char warning[256];
    if (mon_options_warning(out, warning, sizeof warning))
        fprintf(stderr, "mon: warning: %s\n", warning);
    return 0;
}

const char *mon_options_warning(const mon_options *o, char *buf, size_t len)
{
    const unsigned timed =
        MON_FLAG_WORKER | MON_FLAG_TASK | MON_FLAG_STREAM | MON_FLAG_MESSAGE | MON_FLAG_CPU;
    char letters[16];
    mon_flags_format(o->flags, letters, sizeof letters);
    if (!o->flags && (o->dir || o->task_regex || o->ring_bytes))
        snprintf(buf, len, "%s has no effect without -m: monitoring is off and no trace is "
                           "written (add -m FLAGS, e.g. -m A)",
                 o->dir ? "--mon-dir" : o->task_regex ? "--mon-tasks" : "--mon-ring");
    else if (o->flags == MON_FLAG_TIMESTAMPS)
        snprintf(buf, len, "-m t records nothing by itself: t adds times to the events the "
                           "other letters select (e.g. -m tW, or -m A)");
    else if ((o->flags & timed) && !(o->flags & MON_FLAG_TIMESTAMPS))
        snprintf(buf, len, "-m %s records events without times (no t): utilisation images, "
                           "latency and throughput of this trace will be empty (use -m t%s)",
                 letters, letters);
    else
        return NULL;
    return buf;
}
