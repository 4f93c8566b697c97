// tracedaemon --flight-recorder: the module traces in overwrite mode (each
// CPU's two buffers always hold its latest events) and the daemon writes a
// whole, ordinary trace of what the buffers hold whenever a snapshot is
// asked for:
//
//   open, configure, SET_OVERWRITE 1, SET_TRIGGER_SIGNALS, START
//   loop: poll() a signalfd (SIGUSR1: snapshot; SIGINT, SIGTERM, SIGHUP:
//         stop), the device (POLLPRI: a traced task died of a trigger
//         signal), an eventfd (requestSnapshot()) and the duration timer
//   snapshot N: SNAPSHOT; TRACEFILE-N (header flag LTT_TRACE_F_SNAPSHOT,
//         then every block read() returns until EAGAIN: each CPU's blocks
//         oldest first, the last one FINAL), its kallsyms copy and
//         PROCFILE-N (the /proc snapshot, taken after the blocks), all 0600
//   STOP; nothing more is written (the buffers since the last snapshot are
//   dropped: send SIGUSR1 first to keep them).
#pragma once
#include "trace_session.hpp"

#include <string>
#include <string_view>

namespace ltt::daemon {

// The name of snapshot `n` of `path`: "out.trace" -> "out-3.trace", "a.b/x"
// -> "a.b/x-3" (the number goes before the last extension of the file name).
std::string snapshotPath(const std::string& path, unsigned n);

// Asks the running flight recorder for a snapshot; `why` is named in its
// message. Any thread may call it; without a flight recorder running it
// does nothing.
void requestSnapshot(std::string_view why);

// Runs tracedaemon --flight-recorder until SIGINT/SIGTERM/SIGHUP or the
// duration. Never throws: errors are reported and give exit code 1.
SessionSummary runFlightRecorder(const Options& options, std::ostream& messages,
                                 const SessionEnv& env);

} // namespace ltt::daemon
