/*
 * oracle_trace.h - the hand-built trace whose metrics are computed on
 * paper in oracle_trace.c.
 */
#ifndef ORACLE_TRACE_H
#define ORACLE_TRACE_H

/* Writes the oracle trace into dir (created). Returns 0 or -1. */
int oracle_trace_write(const char *dir);

#endif
