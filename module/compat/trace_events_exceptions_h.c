// SPDX-License-Identifier: GPL-2.0
/*
 * LTT_HAVE_TRACE_EVENTS_EXCEPTIONS_H: the page-fault tracepoints are
 * declared in <trace/events/exceptions.h> (7.x), no longer in the x86
 * header.
 */
#include <trace/events/exceptions.h>
