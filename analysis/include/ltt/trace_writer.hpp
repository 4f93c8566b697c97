// TraceWriter: the one writer of .trace files. tracedaemon writes what the
// module produces with it, and ltt-synth writes synthetic traces with it, so
// both produce files the same way (docs/trace-format.md §2).
//
// Crash consistency: the header is written first, then only whole blocks, each
// append() in as few write(2) calls as the kernel allows. A producer killed
// between two appends leaves a valid file; killed inside one, the file is
// valid up to its last whole block (readers warn about the tail).
#pragma once

#include <ltt/abi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace ltt {

// Fills a file header from what the module reports at START, with this
// machine's uname() and the producer string ("tracedaemon 0.1.0").
ltt_file_header makeFileHeader(const ltt_trace_info& info, std::string_view producer);

class TraceWriter {
public:
    // Creates or truncates `path` (mode 0644) and writes `header`.
    // Throws std::system_error naming the path on failure.
    TraceWriter(const std::string& path, const ltt_file_header& header);
    ~TraceWriter();  // closes; never throws (errors are lost: call close())
    TraceWriter(const TraceWriter&) = delete;
    TraceWriter& operator=(const TraceWriter&) = delete;

    // Appends whole blocks (one or more, back to back). Retries short writes
    // and EINTR; throws std::system_error on any other failure.
    void append(std::span<const std::byte> blocks);
    // fdatasync(2).
    void sync();
    // Flushes and closes; throws std::system_error on failure. Idempotent.
    void close();

    std::uint64_t bytesWritten() const { return bytes_m; }
    const std::string& path() const { return path_m; }

private:
    std::string path_m;
    int fd_m = -1;
    std::uint64_t bytes_m = 0;
};

}  // namespace ltt
