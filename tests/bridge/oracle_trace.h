/*
 * oracle_trace.h - the hand-built trace whose metrics are computed on
 * paper in oracle_trace.c.
 */
#ifndef ORACLE_TRACE_H
#define ORACLE_TRACE_H

/* Writes the oracle trace into dir (created). Returns 0 or -1. */
int oracle_trace_write(const char *dir);
/* Writes the trace whose as-executed path goes through back-pressure and
 * creation (variant 0) or back-pressure and data (variant 1) edges,
 * worked out on paper in oracle_trace.c. Returns 0 or -1. */
int oracle_paths_write(const char *dir, int variant);

#endif
