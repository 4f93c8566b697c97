// Command line of tracedaemon: LTT's short options (-ts30, -tu500000, -b, -e,
// -D, -c, -P, -G, -g, -u, -sd/-sl/-su) and a long option for each. Parsing is
// pure (no I/O) so every accepted and refused argument is unit-tested; the
// mapping to the module's configuration is in device_config.hpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <libltt/event_names.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ltt::daemon {

inline constexpr const char* kDefaultDevice = "/dev/tracer";

struct Options {
    enum class Action { Trace, Help, Version };
    Action action = Action::Trace;

    std::string device = kDefaultDevice;
    std::string traceFile;
    std::string procFile;
    std::vector<std::string> command; // after "--": trace this command

    std::optional<std::chrono::microseconds> duration;
    std::optional<std::uint32_t> bufferSize;   // module buffer, bytes
    std::optional<std::uint64_t> daemonBuffer; // each half of ours, bytes

    // Events to record and events whose details to record (bits over
    // enum ltt_event_id); unset means "all selectable events".
    std::optional<std::uint64_t> events;
    std::optional<std::uint64_t> details;
    // Kernel-state variables recorded after each event (LTT_VAR_BIT()s of
    // include/ltt/module_events.h); unset: none.
    std::optional<std::uint32_t> vars;

    bool recordCpuid = false;
    // -S: STACK records (where tasks block) with the scheduling changes.
    bool stacks = false;
    std::optional<std::int32_t> pid;
    std::optional<std::int32_t> pgrp;
    std::optional<std::uint32_t> uid;
    std::optional<std::uint32_t> gid;
    bool trackCommand = false; // filter on the command's process group

    std::optional<std::uint32_t> syscallDepth;
    std::optional<std::uint64_t> syscallLower;
    std::optional<std::uint64_t> syscallUpper;

    // Commit a partly filled daemon buffer at least this often, so a killed
    // daemon loses little; 0 = only full buffers (and at the end).
    std::chrono::milliseconds flushInterval{1000};
    bool quiet = false;

    // --flight-recorder: trace in the module's overwrite mode and write a
    // trace per snapshot (flight_recorder.hpp) instead of one whole trace.
    bool flightRecorder = false;
    // --trigger-signal: bit n-1 for signal n; a task dying of one of them
    // makes a snapshot.
    std::uint64_t triggerSignals = 0;
    // --trigger-event: names of application events (libltt-user) whose
    // logging makes a snapshot.
    std::vector<std::string> triggerEvents;
    // --max-snapshots: the snapshot sets kept (the oldest removed when a
    // new one is written; 0: no limit), and --snapshot-budget: the bytes
    // they may take together (the oldest removed first; the newest is
    // always kept).
    unsigned maxSnapshots = 16;
    std::uint64_t snapshotBudget = std::uint64_t{1} << 30;
    // --snapshot-gid: processes of this group may ask for snapshots (uid 0
    // and the daemon's own uid always may).
    std::optional<std::uint32_t> snapshotGid;
    // Changes while tracing (control_fifo.hpp): a FIFO read for command
    // lines, and a file of such lines applied again on each SIGHUP.
    std::string controlFifo;
    std::string controlFile;

    // Benchmark and test load: events per second (all CPUs together) the
    // daemon asks the module's test mode to emit while tracing (0 = none).
    std::uint64_t testEmitRate = 0;

    // The socket libltt-user's processes register at; empty: the default
    // (UserServer::defaultSocketPath()), "none": no user events.
    std::string userSocket;
};

struct ParseResult {
    std::optional<Options> options; // set on success
    std::string error;              // otherwise: one line, no program prefix
};

// argv without the program name.
ParseResult parseCommandLine(std::span<const std::string_view> args);
ParseResult parseCommandLine(int argc, char** argv);

// Pieces, exposed for tests and for the wrappers' error messages.
// "30" "30s" "1.5s" "500ms" "250us" "2min" "1h", LTT's "s30" "u500000", and
// "m250" (milliseconds). Zero or negative durations are refused.
std::optional<std::chrono::microseconds> parseDuration(std::string_view text);
// "65536", "64K", "64KiB", "1M", "2MB", "1G": powers of 1024.
std::optional<std::uint64_t> parseSize(std::string_view text);

// "SEGV,SIGABRT,6": signal names (with or without SIG, any case) or
// numbers 1-64, as a mask with bit n-1 for signal n. On failure `bad` is
// the item that is not a signal.
std::optional<std::uint64_t> parseSignalList(std::string_view text, std::string& bad);
// Event names (-e, -D): libltt's one vocabulary (libltt/event_names.hpp),
// shared with traceanalyze -o/-t and traceview's filter.
using ltt::eventNameHelp;
using ltt::parseEventList;

std::string usageText();
std::string versionText();

} // namespace ltt::daemon
