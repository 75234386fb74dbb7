// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tracepoints' definitions, made once for the module (see
 * txrdma_trace.h for the events and what they carry).
 */
#define CREATE_TRACE_POINTS
#include "txrdma_trace.h"
