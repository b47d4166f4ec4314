/*
 * advice_internal.h - what the advice library's files share. The advice
 * reads the bridge's graphs closely, and with them the bridge's internals
 * (wfb_internal.h: the graph's fields, its error messages and array
 * growth); it is the one module outside the bridge that does. Its replay
 * of a run on another placement is the whatif library's (whatif.h).
 */
#ifndef ADVICE_INTERNAL_H
#define ADVICE_INTERNAL_H

#include "advice.h"
#include "wfb_internal.h"
#include "whatif.h"

#endif
