/*
 * mailbox.c - a worker's inbox: lock-free, many producers, one consumer.
 *
 * Producers push onto a singly linked stack with compare-and-swap; the
 * owning worker takes the whole stack at once and reverses it into arrival
 * order. Taking everything at once avoids the ABA problem of popping single
 * nodes, and the consumer never waits for a producer.
 */
#include "lpel_internal.h"

bool lpel_mailbox_push(lpel_mailbox *mb, lpel_task *t)
{
    AO_t old;
    do {
        old = AO_load(&mb->head);
        t->mail_next = (lpel_task *)old;
        /* Full barrier: the push must be visible before the pusher looks
         * at whether the owner sleeps (see lpel_worker_post). */
    } while (!AO_compare_and_swap_full(&mb->head, old, (AO_t)t));
    return old == 0;
}

lpel_task *lpel_mailbox_take_all(lpel_mailbox *mb)
{
    AO_t old;
    do {
        old = AO_load_acquire(&mb->head);
        if (old == 0)
            return NULL;
    } while (!AO_compare_and_swap_full(&mb->head, old, 0));

    lpel_task *newest_first = (lpel_task *)old, *oldest_first = NULL;
    while (newest_first) {
        lpel_task *next = newest_first->mail_next;
        newest_first->mail_next = oldest_first;
        oldest_first = newest_first;
        newest_first = next;
    }
    return oldest_first;
}
