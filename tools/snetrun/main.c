/*
 * snetrun - run an S-Net network from its .snet file, without generating
 * any code: parse and type-check it (snet_lang.h), build it through the
 * builder API with boxes from shared libraries (C4SNet boxes written for
 * the original runtime, docs/C4SNET.md, or native ones), and run it on
 * LPEL with records in the original runtime's XML format (or our text
 * format). The monitoring options are those of every program on the
 * runtime (mon.h).
 *
 *     snetrun NET.snet [options] [INPUT] [application options]
 *
 * Exit status: 0 success, 1 a bad .snet file, bad input or a failed run,
 * 2 a usage error (or what the box library's application decides).
 */
#include "boxlibs.h"

#include <c4snet_runtime.h>
#include <mon.h>
#include <prog_opt.h>
#include <snet.h>
#include <snet_lang.h>
#include <snet_prog.h>
#include <snet_xml.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct options {
    const char *snet_file, *input, *output, *net, *map;
    const char **boxes, **dirs, **with;
    size_t nboxes, ndirs, nwith;
    char **box_lists; /* copies of the --boxes values, cut at their commas */
    size_t nbox_lists;
    char **app_argv; /* options for the box library's application, app_argv[0] = program */
    int app_argc;
    unsigned workers;
    bool parse_only, text, help;
} options;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: snetrun NET.snet [options] [INPUT] [application options]\n"
            "Runs the S-Net network of a .snet file on the LPEL runtime: checks its record\n"
            "types, takes the boxes from shared libraries, reads records from INPUT (default:\n"
            "standard input) in the original S-Net runtime's XML format and writes the\n"
            "records that leave the network to standard output.\n"
            "\n"
            "  --parse-only     check the file, print the network with its record types, exit\n"
            "  --net NAME       the net to run (default: the one named like the file, else\n"
            "                   the last one with a network)\n"
            "  --boxes LIB.so[,LIB.so...]  box libraries (repeatable; they replace the\n"
            "                   libraries the metadata names); box B is its C function B,\n"
            "                   a C4SNet box unless the metadata says <interface value=\"native\"/>\n"
            "  -L DIR           where to look for libraries the metadata names (repeatable;\n"
            "                   also $SNET_BOX_PATH, the .snet file's directory, the build\n"
            "                   tree and the system's library path)\n"
            "  --with FILE      a .snet file with external nets (repeatable): a net that\n"
            "                   NET.snet uses but does not define, or only declares, is the\n"
            "                   top-level net of that name in FILE; else a box library\n"
            "                   function of that name, called with its declared signature\n"
            "  -i FILE          input records (the same as INPUT; - is standard input)\n"
            "  -O FILE          output records to FILE (written only if the run succeeds)\n"
            "  --text           records as text (docs/RECORDS.md) instead of XML\n"
            "  -w N             workers (default: one per core)\n"
            "  --map FILE       place tasks on workers by net-path patterns (docs/MAPPING.md)\n"
            MON_OPTIONS_HELP
            "  --help, --version  (NET.snet --help: also its application's options)\n"
            "\n"
            "Options snetrun does not know go to the box library's application (e.g.\n"
            "--check for apps/mc/mc.snet); give INPUT before them. Without INPUT, an\n"
            "application may make the input records itself.\n"
            "docs/SNET-LANGUAGE.md describes the language, docs/SNET-XML.md the records,\n"
            "docs/C4SNET.md the C4SNet boxes of programs written for the original runtime.\n");
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "snetrun: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see snetrun --help)\n");
    return 2;
}

static int push_arg(const char ***list, size_t *n, const char *arg)
{
    const char **grown = realloc(*list, (*n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    *list = grown;
    (*list)[(*n)++] = arg;
    return 0;
}

/* --boxes A.so,B.so: each library of the list (a copy of v is kept). */
static int push_box_list(options *o, const char *v)
{
    char **grown = realloc(o->box_lists, (o->nbox_lists + 1) * sizeof *grown);
    if (!grown)
        return -1;
    o->box_lists = grown;
    char *copy = strdup(v);
    if (!copy)
        return -1;
    o->box_lists[o->nbox_lists++] = copy;
    for (char *save = NULL, *lib = strtok_r(copy, ",", &save); lib;
         lib = strtok_r(NULL, ",", &save))
        if (push_arg(&o->boxes, &o->nboxes, lib) != 0)
            return -1;
    return 0;
}

enum { OPT_PARSE_ONLY = PROG_OPT_OWN, OPT_TEXT, OPT_NET, OPT_BOXES, OPT_MAP, OPT_WITH };

/* One of snetrun's own options: 0, or the exit status 2. */
static int take_option(options *o, int c, const char *v)
{
    switch (c) {
    case OPT_PARSE_ONLY:
        o->parse_only = true;
        return 0;
    case OPT_TEXT:
        o->text = true;
        return 0;
    case OPT_NET:
        o->net = v;
        return 0;
    case OPT_MAP:
        o->map = v;
        return 0;
    case OPT_BOXES:
    case OPT_WITH:
    case 'L':
        if (c == 'L'         ? push_arg(&o->dirs, &o->ndirs, v)
            : c == OPT_WITH ? push_arg(&o->with, &o->nwith, v)
                            : push_box_list(o, v))
            return usage_error("%s", "out of memory");
        return 0;
    case 'i':
        o->input = v;
        return 0;
    case 'O':
        o->output = v;
        return 0;
    default: { /* 'w' */
        char *end;
        errno = 0;
        long n = strtol(v, &end, 10);
        if (errno || end == v || *end || n < 1 || n > 4096)
            return usage_error("-w expects a worker count from 1 to 4096, got '%s'", v);
        o->workers = (unsigned)n;
        return 0;
    }
    }
}

/* 0 ok, 1 help/version printed, 2 usage error. Options snetrun does not
 * know go to the box library's application, and so does every argument
 * that is not an option once one of those has been seen (their values). */
static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {PROG_OPT_STANDARD,
                                              {"parse-only", no_argument, NULL, OPT_PARSE_ONLY},
                                              {"text", no_argument, NULL, OPT_TEXT},
                                              {"net", required_argument, NULL, OPT_NET},
                                              {"boxes", required_argument, NULL, OPT_BOXES},
                                              {"map", required_argument, NULL, OPT_MAP},
                                              {"with", required_argument, NULL, OPT_WITH},
                                              {"workers", required_argument, NULL, 'w'},
                                              {NULL, 0, NULL, 0}};
    o->app_argv = calloc((size_t)argc + 1, sizeof *o->app_argv);
    if (!o->app_argv)
        return usage_error("%s", "out of memory");
    o->app_argv[o->app_argc++] = argv[0];
    prog_opt p;
    prog_opt_begin(&p, "snetrun", argc, argv);
    int at = argc, last_app = 0;
    for (int c; (c = prog_opt_next_in_order(&p, "hL:i:O:w:", longopts, &at)) != -1;) {
        if (c == 'h') {
            o->help = true; /* after the .snet file is known (its application's options) */
        } else if (c == PROG_OPT_VERSION) {
            prog_opt_version(&p);
            return 1;
        } else if (c == PROG_OPT_UNKNOWN) {
            if (at != last_app) /* once per word (-xy: two unknown letters) */
                o->app_argv[o->app_argc++] = argv[last_app = at];
        } else if (c == PROG_OPT_ERROR) {
            return 2;
        } else if (c != 1) {
            int rc = take_option(o, c, optarg);
            if (rc)
                return rc;
        } else if (o->app_argc > 1) {
            o->app_argv[o->app_argc++] = optarg;
        } else if (!o->snet_file) {
            o->snet_file = optarg;
        } else if (!o->input) {
            o->input = optarg;
        } else {
            return usage_error("unexpected argument '%s'", optarg);
        }
    }
    if (o->help && !o->snet_file) {
        usage(stdout);
        return 1;
    }
    if (!o->snet_file)
        return usage_error("%s", "which .snet file? Give NET.snet");
    return 0;
}

/* ---- input and output ------------------------------------------------------------ */

typedef struct io_state {
    snet_xml_reader *xml;
    FILE *out;
    bool write_failed;
} io_state;

static snet_record *next_xml_record(void *arg)
{
    io_state *io = arg;
    snet_record *rec;
    return snet_xml_read(io->xml, &rec) == 1 ? rec : NULL;
}

static void write_xml_record(void *arg, snet_record *rec)
{
    io_state *io = arg;
    if (!io->write_failed && snet_xml_write(io->out, rec) != SNET_OK)
        io->write_failed = true;
    snet_record_free(rec);
}

/* ---- the run ------------------------------------------------------------------------ */

typedef struct session {
    options o;
    snet_lang_program *prog;
    snet_lang_program **with; /* --with programs, linked to prog */
    size_t nwith;
    boxlibs *libs;
    const snet_boxlib_app *app;
    void *app_state;
    snet_net *net;
    snet_mapping *mapping; /* --map FILE */
    FILE *in, *out;
    char *out_tmp;
    io_state io;
} session;

static char *directory_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
}

/* The --with programs, each loaded and checked like NET.snet and linked
 * to it: 0, or 1 after their diagnostics. */
static int load_with(session *s)
{
    s->with = calloc(s->o.nwith ? s->o.nwith : 1, sizeof *s->with);
    if (!s->with) {
        fprintf(stderr, "snetrun: out of memory\n");
        return 1;
    }
    for (; s->nwith < s->o.nwith; s->nwith++) {
        snet_lang_program **q = &s->with[s->nwith];
        if (snet_lang_load_file(s->o.with[s->nwith], NULL, stderr, q) != SNET_LANG_OK)
            return 1;
        if (snet_lang_link(s->prog, *q) != SNET_LANG_OK) {
            fprintf(stderr, "snetrun: out of memory\n");
            return 1;
        }
    }
    return 0;
}

/* The box libraries; 0, or 1 after saying why (when `say`). */
static int load_libraries(session *s, bool say)
{
    char err[1024];
    char *dir = directory_of(s->o.snet_file);
    s->libs = dir ? boxlibs_new(s->o.dirs, s->o.ndirs, dir) : NULL;
    free(dir);
    if (!s->libs) {
        if (say)
            fprintf(stderr, "snetrun: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < s->o.nboxes; i++)
        if (boxlibs_load_path(s->libs, s->o.boxes[i], err, sizeof err) != 0) {
            if (say)
                fprintf(stderr, "snetrun: %s\n", err);
            return 1;
        }
    if (s->o.nboxes == 0)
        for (size_t i = 0; i < snet_lang_library_count(s->prog); i++)
            if (boxlibs_load_name(s->libs, snet_lang_library(s->prog, i), err, sizeof err) != 0) {
                if (say)
                    fprintf(stderr, "snetrun: %s: %s\n", s->o.snet_file, err);
                return 1;
            }
    s->app = boxlibs_app(s->libs);
    return 0;
}

/* NET.snet --help: snetrun's options, then those of the application whose
 * box library the file names, if it can be loaded. Exit status 0. */
static int help_with_app(session *s)
{
    usage(stdout);
    snet_lang_options lo = {s->o.net, 0};
    if (snet_lang_load_file(s->o.snet_file, &lo, NULL, &s->prog) != SNET_LANG_OK)
        return 0;
    /* a library that cannot be found is no error here */
    if (load_libraries(s, false) == 0 && s->app && s->app->options_help)
        printf("\nOptions of %s's application %s (from its box library):\n%s",
               s->o.snet_file, s->app->name ? s->app->name : "", s->app->options_help);
    return 0;
}

/* 0 ok; else the exit status. */
static int start_app(session *s)
{
    if (!s->app || !s->app->start) {
        if (s->o.app_argc > 1) {
            fprintf(stderr, "snetrun: unknown option '%s' (no box library takes options; see "
                    "snetrun --help)\n", s->o.app_argv[1]);
            return 2;
        }
        return 0;
    }
    int rc = s->app->start(s->o.app_argc, s->o.app_argv, &s->app_state);
    if (rc != 0)
        return rc > 0 ? -1 : 2; /* -1: help shown, exit 0 */
    boxlibs_set_app_state(s->libs, s->app_state);
    return 0;
}

/* --map FILE, checked against the network as the C programs do (the same
 * helper, snet_prog.h): 0, or 2 (a usage error, printed). */
static int load_mapping(session *s)
{
    if (!s->o.map)
        return 0;
    return snet_prog_load_mapping("snetrun", s->o.map, s->net, s->o.workers, &s->mapping) == 0
               ? 0
               : 2;
}

static int open_files(session *s)
{
    const char *in = s->o.input;
    if (!in && !(s->app && s->app->input))
        in = "-";
    if (in) {
        s->in = strcmp(in, "-") ? fopen(in, "rb") : stdin;
        if (!s->in) {
            fprintf(stderr, "snetrun: cannot open %s: %s\n", in, strerror(errno));
            return 1;
        }
    }
    s->out = stdout;
    if (s->o.output) {
        size_t len = strlen(s->o.output) + 16;
        s->out_tmp = malloc(len);
        if (s->out_tmp)
            snprintf(s->out_tmp, len, "%s.tmp%ld", s->o.output, (long)getpid());
        s->out = s->out_tmp ? fopen(s->out_tmp, "w") : NULL;
        if (!s->out) {
            fprintf(stderr, "snetrun: cannot write %s: %s\n", s->o.output, strerror(errno));
            return 1;
        }
    }
    if (s->in && !s->o.text) {
        char err[512];
        const snet_field_type *const *types = s->app ? s->app->types : NULL;
        if (snet_xml_reader_open(&s->io.xml, s->in, in, types, s->app ? s->app->ntypes : 0, err,
                                 sizeof err) != SNET_OK) {
            fprintf(stderr, "snetrun: %s\n", err);
            return 1;
        }
        /* Without native boxes the program is C4SNet's (or has no boxes):
         * its fields are C4SNet data, written back as the original did. */
        snet_xml_reader_keep_c4snet(s->io.xml, boxlibs_native_count(s->libs) == 0);
    }
    s->io.out = s->out;
    return 0;
}

static int setup_run(session *s, snet_run *run)
{
    snet_run_register_field_type(run, &c4snet_field); /* text input: x:c4snet="(int)1" */
    snet_run_register_codec(run, &c4snet_codec);      /* C4SNet fields across ranks */
    if (s->app)
        for (size_t i = 0; i < s->app->ntypes; i++)
            snet_run_register_field_type(run, s->app->types[i]);
    if (s->io.xml)
        snet_run_set_input_fn(run, next_xml_record, &s->io);
    else if (s->in)
        snet_run_set_input_file(run, s->in);
    else
        snet_run_set_input_fn(run, s->app->input, s->app_state);
    if (s->app && s->app->output)
        snet_run_set_output_fn(run, s->app->output, s->app_state);
    else if (s->o.text)
        snet_run_set_output_file(run, s->out);
    else
        snet_run_set_output_fn(run, write_xml_record, &s->io);
    return 0;
}

static int run_network(session *s, const lpel_hooks *hooks)
{
    snet_config cfg = snet_config_default();
    cfg.lpel.num_workers = s->o.workers;
    cfg.lpel.hooks = hooks;
    cfg.mapping = s->mapping;
    snet_run *run;
    char err[1024];
    if (snet_run_create(&run, s->net, &cfg, err, sizeof err) != SNET_OK) {
        fprintf(stderr, "snetrun: %s\n", err);
        return 1;
    }
    setup_run(s, run);
    int rc = snet_run_execute(run);
    int status = rc == SNET_OK ? 0 : 1;
    if (rc != SNET_OK)
        fprintf(stderr, "snetrun: the run failed (%s): %s\n", snet_strerror(rc),
                snet_run_error(run));
    if (s->io.xml && snet_xml_reader_error(s->io.xml)[0]) {
        fprintf(stderr, "snetrun: %s (the %lu records before it were processed)\n",
                snet_xml_reader_error(s->io.xml), snet_xml_records_read(s->io.xml));
        status = 1;
    }
    snet_run_destroy(run);
    return status;
}

/* Finish the output file: terminate record, flush, rename into place. */
static int finish_output(session *s, int status)
{
    bool xml_out = !s->o.text && !(s->app && s->app->output);
    if (status == 0 && xml_out && snet_xml_write_end(s->out) != SNET_OK)
        s->io.write_failed = true;
    if (fflush(s->out) != 0 || ferror(s->out) || s->io.write_failed) {
        fprintf(stderr, "snetrun: cannot write the output records%s%s\n",
                s->o.output ? " to " : "", s->o.output ? s->o.output : "");
        status = status ? status : 1;
    }
    if (s->out_tmp) {
        if (fclose(s->out) != 0 && status == 0)
            status = 1;
        s->out = NULL;
        if (status == 0 && rename(s->out_tmp, s->o.output) != 0) {
            fprintf(stderr, "snetrun: cannot write %s: %s\n", s->o.output, strerror(errno));
            status = 1;
        }
        if (status != 0)
            unlink(s->out_tmp);
    }
    return status;
}

static void session_free(session *s)
{
    snet_xml_reader_close(s->io.xml);
    if (s->in && s->in != stdin)
        fclose(s->in);
    if (s->out && s->out != stdout)
        fclose(s->out);
    free(s->out_tmp);
    snet_mapping_free(s->mapping);
    snet_net_free(s->net);
    snet_lang_free(s->prog);
    for (size_t i = 0; i < s->nwith; i++)
        snet_lang_free(s->with[i]);
    free(s->with);
    boxlibs_free(s->libs);
    free(s->o.boxes);
    for (size_t i = 0; i < s->o.nbox_lists; i++)
        free(s->o.box_lists[i]);
    free(s->o.box_lists);
    free(s->o.dirs);
    free(s->o.with);
    free(s->o.app_argv);
}

static int run_session(session *s, int argc, char **argv)
{
    mon_options mo;
    char err[1024];
    if (mon_parse_args(&argc, argv, &mo, err, sizeof err) != 0) {
        fprintf(stderr, "snetrun: %s\n", err);
        return 2;
    }
    int rc = parse_options(argc, argv, &s->o);
    if (rc != 0)
        return rc == 1 ? 0 : rc;
    snet_lang_options lo = {s->o.net, 0};
    if (s->o.help)
        return help_with_app(s);
    rc = snet_lang_load_file(s->o.snet_file, &lo, stderr, &s->prog);
    if (rc != SNET_LANG_OK || load_with(s) != 0)
        return 1;
    if (s->o.parse_only)
        return snet_lang_print_tree(s->prog, stdout) == 0 && fflush(stdout) == 0 ? 0 : 1;
    if ((rc = load_libraries(s, true)) != 0 || (rc = start_app(s)) != 0)
        return rc < 0 ? 0 : rc;
    s->net = snet_lang_build(s->prog, boxlibs_resolve, s->libs, err, sizeof err);
    if (!s->net) {
        fprintf(stderr, "snetrun: %s\n", err);
        rc = 1;
    } else if ((rc = load_mapping(s)) == 0 && (rc = open_files(s)) == 0) {
        mon *m = NULL;
        lpel_hooks hooks;
        if (mon_open(&m, &mo, argc, argv, &hooks, err, sizeof err) != 0) {
            fprintf(stderr, "snetrun: %s\n", err);
            rc = 1;
        } else {
            rc = run_network(s, mon_lpel_hooks(m));
            if (mon_close(m) != 0 && rc == 0)
                rc = 1;
        }
        rc = finish_output(s, rc);
    }
    if (s->app && s->app->finish)
        rc = s->app->finish(s->app_state, rc);
    return rc;
}

int main(int argc, char **argv)
{
    session s = {0};
    int status = run_session(&s, argc, argv);
    session_free(&s);
    return status;
}
