// One tracing session, start to finish (paper §3.4):
//
//   open the device, check its ABI version      (fails clearly, nothing written)
//   [fork COMMAND, held before exec]
//   configure the module; open the .trace and create the .proc's temporary
//   file (private files, libltt/private_file.hpp); enable SIGIO
//   START; read the trace info; write the .trace header
//   start the /proc snapshot in its own thread (SnapshotThread), so the
//   loop below drains from START on; once the .proc is in place, [let
//   COMMAND exec]
//   loop: sleep in poll() on a signalfd (SIGIO, SIGINT, SIGTERM, SIGHUP,
//         SIGCHLD), two timerfds (the duration, a periodic tick) and the
//         snapshot's eventfd; drain every ready block into the double buffer
//   STOP; drain until the module reports the end; wait for the snapshot;
//   commit; fdatasync the trace; close
//   report bytes, per-CPU lost events and the buffer size that would have
//   held them, and the daemon's own CPU time per MiB
//
// No work is done in signal handlers: there are none. The signals stay
// blocked and are read from the signalfd by the loop.
#pragma once

#include "options.hpp"
#include "proc_snapshot.hpp"
#include "trace_device.hpp"

#include <functional>
#include <libltt/trace_writer.hpp>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

namespace ltt::daemon {

struct SessionEnv {
    std::function<std::unique_ptr<TraceDevice>(const std::string&)> openDevice = openTraceDevice;
    std::string procRoot = "/proc";
    // Reads the system's state for the .proc file (tests make it slow or
    // fail); `onlyUid` for a restricted session (takeProcSnapshot()).
    std::function<ProcSnapshot(const std::string& procRoot, std::optional<long long> onlyUid)>
        takeSnapshot = [](const std::string& root, std::optional<long long> onlyUid) {
            return takeProcSnapshot(root, onlyUid);
        };
    // Puts the trace on disk before success is reported (tests make it fail).
    std::function<void(TraceWriter&)> syncTrace = [](TraceWriter& w) { w.sync(); };
    // How long to wait for the module's end of trace after STOP.
    std::chrono::milliseconds endTimeout{5000};
};

enum class StopReason { Duration, Signal, CommandExited, EndOfTrace, Error };

struct SessionSummary {
    int exitCode = 1;
    StopReason reason = StopReason::Error;
    std::uint64_t bytesWritten = 0; // header included
    std::uint64_t blocks = 0;
    std::uint64_t lostEvents = 0;
    std::uint64_t suggestedBuffer = 0;
    double tracedSeconds = 0;
    double cpuSeconds = 0;
    std::uint64_t commits = 0;
    std::uint64_t stalls = 0;
    std::uint64_t testEmitted = 0; // --test-emit: events the module was asked for
};

// Runs a session for `options` (action Trace). Messages go to `messages`,
// each line prefixed "tracedaemon: ". Never throws: errors are reported and
// give exit code 1.
SessionSummary runTraceSession(const Options& options, std::ostream& messages,
                               const SessionEnv& env = {});

} // namespace ltt::daemon
