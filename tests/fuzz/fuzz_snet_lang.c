/*
 * fuzz_snet_lang.c - fuzz target: S-Net network files (.snet), parsed and
 * checked by snet_lang_load as `snetrun --parse-only` does (no boxes).
 *
 * Properties checked: a file that is refused says why (at least one
 * diagnostic line naming the file); a file that is accepted names its main
 * net and prints as a tree.
 */
#include "fuzz.h"

#include "snet_lang.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *diag_text = NULL;
    size_t diag_len = 0;
    FILE *diag = open_memstream(&diag_text, &diag_len);
    if (!diag)
        return 0;
    snet_lang_program *p = NULL;
    int rc = snet_lang_load((const char *)data, size, "fuzz.snet", NULL, diag, &p);
    fclose(diag);
    if (rc == SNET_LANG_ERROR)
        FUZZ_CHECK(diag_text && strstr(diag_text, "fuzz.snet"));
    if (rc == SNET_LANG_OK) {
        FUZZ_CHECK(p != NULL);
        FUZZ_CHECK(snet_lang_main_net(p) != NULL);
        FILE *sink = fopen("/dev/null", "w");
        if (sink) {
            FUZZ_CHECK(snet_lang_print_tree(p, sink) == 0);
            fclose(sink);
        }
    }
    snet_lang_free(p);
    free(diag_text);
    return 0;
}
