// Converters of an ltt trace into other tools' formats (CTF 1.8 laid out as
// an LTTng kernel trace, Perfetto's protobuf trace). Both read the trace
// with libltt's reader, stream it (memory does not grow with the number of
// events) and account for every event: written, dropped by a documented
// rule, or lost by the tracer (carried into the output format's own field).
#pragma once
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace ltt::convert {

// Unreadable or corrupt input, or output that cannot be written; what()
// names the file (and for a corrupt trace the byte offset).
struct Error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Options {
    bool progress = false;   // a progress line on `log` for long conversions
    std::FILE* log = stderr; // warnings and progress
};

struct Result {
    std::uint64_t eventsRead = 0;    // events read from the trace
    std::uint64_t eventsWritten = 0; // events written in the output format
    std::uint64_t eventsDropped = 0; // read but left out by a documented rule
    std::uint64_t lost = 0;          // events the tracer lost, carried into the output
    bool truncated = false;          // the trace ends in a partial block (warned on `log`)
    // Events written that the trace does not hold as events: the .proc
    // snapshot as the format's state-dump events (CTF: lttng_statedump_*).
    std::uint64_t eventsAdded = 0;
    // eventsDropped by ltt event id (the index; empty when not counted).
    std::vector<std::uint64_t> droppedByEvent;
};

// CTF 1.8: writes the directory outDir (metadata and one stream per CPU).
Result toCtf(const std::string& trace, const std::string& proc, const std::string& outDir,
             const Options& options);
// Perfetto: writes the protobuf trace file outFile.
Result toPerfetto(const std::string& trace, const std::string& proc, const std::string& outFile,
                  const Options& options);

} // namespace ltt::convert
