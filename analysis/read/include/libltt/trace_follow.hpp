// TraceFollower: reads a trace while its producer (tracedaemon) is still
// appending to it, for the live views of traceanalyze --follow and
// traceview --follow.
//
// The producer appends whole blocks (docs/trace-format.md §2), so at every
// moment the file is a valid trace up to its last whole block, possibly
// followed by the start of the next block that is still being written. Each
// poll() looks at the file's size (one fstat); when it grew, the follower
// opens a new TraceReader over the file as it is now (a scan of the block
// frames, O(blocks)) and keeps it when it holds more whole blocks than the
// last one. A cut-short last block, or a file shorter than its header, is
// the producer at work: the follower waits for the rest instead of reporting
// it, and the reader's truncation warning only counts once following ended.
// Corruption (a damaged block with a whole block after it) ends following
// with error().
//
// Following ends (finished()) when
//  - every CPU that wrote blocks has written its FINAL block (the producer
//    stopped the trace),
//  - the producer closed the file (an inotify IN_CLOSE_WRITE on it: the
//    daemon exited or was killed), or
//  - the file has not grown for FollowOptions::idleTimeout (a producer that
//    hangs with the file open; also a file whose producer was gone before
//    following began and that lacks FINAL blocks).
// After the end the follower opens the file once more, so the last reader is
// exactly what TraceReader::open() gives for the finished file, truncation
// and unfinished() warnings included.
//
// The .proc file is written by the producer to a temporary file and renamed
// into place after the trace started, so it may appear late: until it does,
// snapshot() is null, and the follower reads it as soon as it exists.
//
// Consumers re-run their analysis on the new reader (TraceAnalysis walks a
// whole reader): each update costs one pass over the events seen so far, so
// updates of a long trace are spaced by the caller's interval, not by every
// block (docs/analysis.md, "Following a trace").
#pragma once

#include <chrono>
#include <cstdint>
#include <libltt/proc_file.hpp>
#include <libltt/trace_reader.hpp>
#include <libltt/unique_fd.hpp>
#include <memory>
#include <optional>
#include <string>

namespace ltt {

struct FollowOptions {
    // Stop following when the file has not grown for this long; zero waits
    // for ever (until the FINAL blocks or the producer's close).
    std::chrono::milliseconds idleTimeout{std::chrono::seconds(30)};
};

class TraceFollower {
public:
    enum class End {
        Following, // the trace may still grow
        Final,     // every CPU's FINAL block arrived
        Closed,    // the producer closed the file
        Idle,      // the file stopped growing for idleTimeout
        Error,     // unreadable or corrupt: error()
    };

    // `procPath` may be empty (no .proc). Nothing is read until poll().
    TraceFollower(std::string tracePath, std::string procPath, FollowOptions options = {});
    ~TraceFollower();
    TraceFollower(const TraceFollower&) = delete;
    TraceFollower& operator=(const TraceFollower&) = delete;

    // Looks at the files once. True when there is something new to show:
    // more whole blocks, the .proc arrived, or following just ended (the
    // final reader). Cheap when nothing changed (one fstat per file).
    bool poll();

    End end() const { return end_m; }
    bool finished() const { return end_m != End::Following; }
    // Why following ended, for messages ("every CPU wrote its final block").
    std::string endReason() const;

    // The latest reader over the whole blocks seen (null until the file
    // holds a header). Shared: a consumer may keep walking an older one
    // while the follower moves on.
    std::shared_ptr<const TraceReader> reader() const { return reader_m; }
    // The .proc snapshot, null until the file exists (or when none was
    // named, or it could not be read: procError()).
    std::shared_ptr<const ProcSnapshot> snapshot() const { return snapshot_m; }
    // A .proc that exists but cannot be read (malformed): its error.
    const std::optional<ProcParseError>& procError() const { return procError_m; }
    // The .proc's cut last line (a warning, as readProcFile() gives it).
    const std::optional<ProcParseError>& procCut() const { return procCut_m; }
    // With End::Error: what is wrong with the trace.
    const std::optional<TraceError>& error() const { return error_m; }
    // Updates poll() has reported so far.
    std::uint64_t updates() const { return updates_m; }

    const std::string& tracePath() const { return trace_m; }
    const std::string& procPath() const { return proc_m; }

private:
    using Clock = std::chrono::steady_clock;
    bool pollProc();
    bool writerClosed();
    void watch();
    void finish(End why);

    std::string trace_m, proc_m;
    FollowOptions options_m;
    End end_m = End::Following;
    std::shared_ptr<const TraceReader> reader_m;
    std::shared_ptr<const ProcSnapshot> snapshot_m;
    std::optional<ProcParseError> procError_m, procCut_m;
    std::optional<TraceError> error_m;
    std::uint64_t size_m = 0;   // file size at the last look
    std::uint64_t blocks_m = 0; // whole blocks in reader_m
    std::uint64_t updates_m = 0;
    Clock::time_point grew_m; // last growth (or the start)
    UniqueFd inotify_m;       // IN_CLOSE_WRITE on the trace, once it exists
    bool watching_m = false;
    bool closed_m = false; // the producer closed the file
};

} // namespace ltt
