/*
 * advise_fixture.h - hand-made traces for the mapping advice tests, written
 * event by event through the monitor's own writer (no runtime needed), each
 * with a mapping whose quality is known on paper (see advise_fixture.c).
 */
#ifndef ADVISE_FIXTURE_H
#define ADVISE_FIXTURE_H

/* The traces:
 *   "bad"     four equal work tasks all on worker 0, worker 1 idle: the
 *             advice must spread them two and two
 *   "good"    the same tasks two and two: already good
 *   "heavy"   one task carries most of the work: no mapping of whole tasks
 *             can do better, already good
 *   "turns"   two chains whose steps alternate between the workers in
 *             lockstep: equal loads, but the workers take turns; the advice
 *             puts each chain on a worker of its own
 *   "tworuns" "bad" recorded twice in one trace: refused (one run only)
 * Writes the trace into dir (created). Returns 0, or -1 (also for an
 * unknown name). */
int advise_fixture_write(const char *name, const char *dir);

#endif
