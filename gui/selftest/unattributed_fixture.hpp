// A trace with events it does not attribute to any task, for the self test
// (the process tab's unattributed row) and traceview's model tests
// (tests/unit/gui-model), which compile this file too.
#pragma once

#include <string>

namespace traceview {

// An -e SYSCALL trace of a module before CONTEXT records (no
// LTT_TRACE_F_CONTEXT, no SCHEDCHANGE in its mask), 2 CPUs. CPU 0's block
// names pid 100 and makes 3 getpid calls after its start, which nothing
// attributes (no_context: its records after the block's start, TRACE_START,
// the 6 calls' and BLOCK_END, 8); CPU 1's block names no task (pid -1) and
// makes a write (no_task: 3 records). Throws on a write error.
void writeUnattributedTrace(const std::string& path);

} // namespace traceview
