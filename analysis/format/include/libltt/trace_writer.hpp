// TraceWriter: the one writer of .trace files. tracedaemon writes what the
// module produces with it, and ltt-synth writes synthetic traces with it, so
// both produce files the same way (docs/trace-format.md §2).
//
// Crash consistency: the header is written first, then only whole blocks, each
// append() in as few write(2) calls as the kernel allows. A producer killed
// between two appends leaves a valid file; killed inside one, the file is
// valid up to its last whole block (readers warn about the tail). An append
// that fails part-way (a full disk, a file size limit) is cut back to the
// last of its blocks that reached the file whole, so the file keeps only
// whole blocks then too, and every block that fitted.
//
// The file is private (ltt/private_file.hpp): created 0600, never through a
// symbolic link, never another user's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <libltt/unique_fd.hpp>
#include <ltt/abi.h>
#include <span>
#include <string>
#include <string_view>

namespace ltt {

// Fills a file header from what the module reports at START, with this
// machine's uname() and the producer string ("tracedaemon 0.1.0"), for
// records of format `version` (what the module writes: LTT_FILE_VERSION).
ltt_file_header makeFileHeader(const ltt_trace_info& info, std::string_view producer,
                               unsigned version = LTT_FILE_VERSION);

class TraceWriter {
public:
    // Opens `path` with openPrivateFile(), truncates it and writes `header`.
    // Throws std::system_error naming the path on failure, or
    // std::runtime_error for a path that openPrivateFile() refuses.
    TraceWriter(const std::string& path, const ltt_file_header& header);
    // The same on a descriptor the caller opened (tracedaemon opens its file
    // before starting the module; tests use pipes). `path` names it in
    // messages. A regular file is truncated first.
    TraceWriter(UniqueFd fd, std::string path, const ltt_file_header& header);
    ~TraceWriter(); // closes; never throws (errors are lost: call close())
    TraceWriter(const TraceWriter&) = delete;
    TraceWriter& operator=(const TraceWriter&) = delete;

    // Appends whole blocks (one or more, back to back). Retries short writes
    // and EINTR; throws std::system_error on any other failure ("cannot
    // write PATH: No space left on device"), after cutting a regular file
    // back to the end of the last of these blocks that reached it whole, so
    // no partial block stays and no whole one is lost.
    void append(std::span<const std::byte> blocks);
    // fdatasync(2); throws std::system_error ("cannot sync PATH") on failure.
    // Not an error on what cannot be synced (a pipe).
    void sync();
    // Flushes and closes; throws std::system_error on failure. Idempotent.
    void close();

    std::uint64_t bytesWritten() const { return bytes_m; }
    const std::string& path() const { return path_m; }

private:
    // write(2) until all of `bytes` is written; on failure cut the file back
    // to its size before, plus `keep(written)` bytes, and throw.
    template <typename Keep> void writeAll(std::span<const std::byte> bytes, Keep keep);

    std::string path_m;
    UniqueFd fd_m;
    bool regular_m = false;
    std::uint64_t bytes_m = 0;
};

} // namespace ltt
