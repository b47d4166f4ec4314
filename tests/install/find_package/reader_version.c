/*
 * reader_version.c - uses one function of each installed library, so that
 * linking proves the imported targets LPEL::mon_reader, LPEL::snet and
 * LPEL::mon name real, complete libraries.
 */
#include <mon.h>
#include <mon_reader.h>
#include <snet.h>

#include <stdio.h>
#include <string.h>

int main(void)
{
    char flags[16];
    mon_flags_format(MON_FLAG_ALL, flags, sizeof flags);
    snet_record *r = snet_record_new();
    int ok = r != NULL && strcmp(mon_event_kind_name(MON_EV_TASK_MAP), "task_map") == 0 &&
             strcmp(flags, MON_FLAG_LETTERS) == 0;
    snet_record_free(r);
    printf("snetmon-reader %s\n", ok ? "ok" : "wrong");
    return ok ? 0 : 1;
}
