/*
 * fuzz_record_text.c - fuzz target: the S-Net record text format
 * (docs/RECORDS.md), read the way a network's input file is read (records
 * one after another, blanks and '#' comments between them).
 *
 * Property checked on every record read: what snet_record_format writes,
 * snet_record_parse reads back, and formatting that again gives the same
 * text (a network's output can be fed to another network).
 */
#include "fuzz.h"

#include "snet.h"

/* format(r) as a malloc'ed string, or NULL. */
static char *format_record(const snet_record *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        return NULL;
    int rc = snet_record_format(r, out);
    fclose(out);
    if (rc != SNET_OK) {
        free(text);
        return NULL;
    }
    return text;
}

static void check_round_trip(const snet_record *r)
{
    char *once = format_record(r);
    if (!once)
        return;
    snet_record *again;
    const char *end;
    char err[256];
    int rc = snet_record_parse(once, &end, &again, NULL, 0, err, sizeof err);
    if (rc != SNET_OK)
        fprintf(stderr, "cannot read back '%s': %s\n", once, err);
    FUZZ_CHECK(rc == SNET_OK);
    FUZZ_CHECK(*end == '\0');
    char *twice = format_record(again);
    if (twice && strcmp(once, twice) != 0)
        fprintf(stderr, "'%s' reads back as '%s'\n", once, twice);
    FUZZ_CHECK(!twice || strcmp(once, twice) == 0);
    free(twice);
    snet_record_free(again);
    free(once);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_input_string(data, size);
    if (!text)
        return 0;
    const char *p = text;
    for (;;) {
        p += strspn(p, " \t\r\n");
        if (*p == '#') {
            p += strcspn(p, "\n");
            continue;
        }
        if (!*p)
            break;
        snet_record *r;
        const char *end;
        char err[256];
        if (snet_record_parse(p, &end, &r, NULL, 0, err, sizeof err) != SNET_OK)
            break;
        FUZZ_CHECK(end > p);
        check_round_trip(r);
        snet_record_free(r);
        p = end;
    }
    free(text);
    return 0;
}
