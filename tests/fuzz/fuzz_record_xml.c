/*
 * fuzz_record_xml.c - fuzz target: records in the original S-Net runtime's
 * XML format (runtime/snet/record_xml.c, what `snetrun` reads), read to the
 * end or to the first error.
 *
 * Properties checked on every record read: snet_xml_write writes it, and
 * the written document reads back as one record that writes the same text
 * (one network's output can feed another); an error comes with a message.
 */
#include "fuzz.h"

#include "snet_xml.h"

static char *write_record(const snet_record *r, size_t *len)
{
    char *text = NULL;
    FILE *out = open_memstream(&text, len);
    if (!out)
        return NULL;
    int rc = snet_xml_write(out, r);
    if (rc == SNET_OK)
        rc = snet_xml_write_end(out);
    fclose(out);
    if (rc != SNET_OK) {
        free(text);
        return NULL;
    }
    return text;
}

static void check_round_trip(const snet_record *r)
{
    size_t len;
    char *once = write_record(r, &len);
    if (!once)
        return;
    snet_xml_reader *again;
    FUZZ_CHECK(snet_xml_reader_open_memory(&again, once, len, "written", NULL, 0) == SNET_OK);
    snet_record *back = NULL;
    int rc = snet_xml_read(again, &back);
    if (rc != 1)
        fprintf(stderr, "cannot read back:\n%s\n%s\n", once,
                rc < 0 ? snet_xml_reader_error(again) : "(no record)");
    FUZZ_CHECK(rc == 1);
    size_t len2;
    char *twice = write_record(back, &len2);
    if (twice && strcmp(once, twice) != 0)
        fprintf(stderr, "written:\n%s\nreads back as:\n%s\n", once, twice);
    FUZZ_CHECK(!twice || strcmp(once, twice) == 0);
    free(twice);
    snet_record_free(back);
    snet_xml_reader_close(again);
    free(once);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    snet_xml_reader *r;
    if (snet_xml_reader_open_memory(&r, (const char *)data, size, "fuzz.xml", NULL, 0) != SNET_OK)
        return 0;
    for (int n = 0; n < 1000; n++) {
        snet_record *rec = NULL;
        int rc = snet_xml_read(r, &rec);
        if (rc < 0) {
            const char *msg = snet_xml_reader_error(r);
            FUZZ_CHECK(msg && *msg);
        }
        if (rc != 1)
            break;
        check_round_trip(rec);
        snet_record_free(rec);
    }
    snet_xml_reader_close(r);
    return 0;
}
