// TraceReader: the one reader of .trace files (docs/trace-format.md §2).
//
// The file is mmap-ed; opening validates the header and every block's frame
// (libltt/block_codec.hpp) and builds a block list per CPU and per user
// stream (an application thread's events), which is O(blocks). Records inside a block are validated
// as a cursor walks them, so a full analysis is a single pass over the mapping.
//
// A TraceCursor merges the per-CPU streams into one time-ordered sequence
// (k-way merge by TSC; ties by CPU, then file position) and never allocates
// per event: an Event is a view into the mapping. Random access (by event
// index or by time) uses a checkpoint index built lazily on first use: every
// kCheckpointInterval events the merge state of all CPUs is saved, so a seek
// costs a binary search plus at most that many steps, and the index grows
// with events / kCheckpointInterval, not with events.
//
// The merge itself (stream state, tournament, the walk templates) is in
// libltt/internal/: not part of the interface.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <libltt/block_codec.hpp>
#include <ltt/abi.h>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ltt {

// A problem in a trace file, located by byte offset.
struct TraceError {
    std::string file;
    std::uint64_t offset = 0;
    std::string message;
    // "FILE: offset N (0xN): MESSAGE"
    std::string str() const;
};

// The `cpu` of an Event that comes from a user stream (an application's
// events, docs/trace-format.md §2.4): no CPU, and never below ncpus(), so
// that a consumer that keeps state per CPU must test isUser() (or the CPU
// against its table's size) before it indexes with it.
inline constexpr std::uint16_t kUserCpu = 0xffff;

// An Event's pid where the trace does not say which task is current on its
// CPU (docs/analysis.md, "Attribution"): never a task's.
inline constexpr std::int32_t kUnknownPid = -1;

// One record, as the version 1 record of the same event would show it
// (block_codec.hpp's decodeRecord()): a view into the mapping, except that
// a version 2 compact record's details are expanded into the Event itself.
// Valid while the reader lives.
struct Event {
    const std::byte* record = nullptr; // the record in the mapping (its header)
    std::uint64_t offset = 0;          // file offset of the record
    std::uint64_t tsc = 0;
    // Task current on `cpu` (the incoming one for SCHEDCHANGE, the one a
    // CONTEXT record names), kUnknownPid where the trace does not say
    // (TraceReader::contextRecorded()); in a user stream, the thread that
    // logged the event.
    std::int32_t pid = 0;
    std::uint16_t cpu = 0;  // kUserCpu for a user stream's records
    std::uint16_t size = 0; // 8 + the details' bytes (a version 1 record's size)
    std::uint8_t id = 0;    // enum ltt_event_id (may be unknown: >= LTT_EV_MAX)
    std::uint8_t subtype = 0;
    std::uint8_t code = 0;    // version 2: the record's enum ltt_code; version 1: 0
    std::uint16_t stream = 0; // a user stream's number (BLOCK_START.cpu); 0 for CPU records

    // Whether the record comes from a user stream (LTT_BLOCK_F_USER blocks).
    bool isUser() const { return cpu == kUserCpu; }
    // A compact record's details (!detailsInBlock(code)), expanded; not
    // initialized otherwise.
    alignas(8) std::byte expanded[kMaxExpanded];

    const std::byte* detailData() const {
        return detailsInBlock(code) ? record + sizeof(ltt_record_header) : expanded;
    }
    std::span<const std::byte> details() const {
        return {detailData(), std::size_t(size) - sizeof(ltt_record_header)};
    }
    // Copies the details into `out` (zero-filling what the record lacks:
    // masked details, older producers) and returns the bytes copied.
    template <class T> std::size_t copyDetails(T& out) const { return copyDetailsAs<0>(out); }
    // True when the record carries the whole detail structure T.
    template <class T> bool detailsAs(T& out) const { return copyDetails(out) == sizeof out; }

protected:
    // copyDetails() for a record of format V (0: either).
    template <unsigned V, class T> [[gnu::always_inline]] std::size_t copyDetailsAs(T& out) const {
        const std::size_t have = std::size_t(size) - sizeof(ltt_record_header);
        const std::byte* from =
            V == LTT_FORMAT_V1 ? record + sizeof(ltt_record_header) : detailData();
        if (have >= sizeof out) [[likely]] {
            std::memcpy(&out, from, sizeof out);
            return sizeof out;
        }
        std::memset(&out, 0, sizeof out);
        std::memcpy(&out, from, have);
        return have;
    }
};

// An Event as the walks (TraceCursor::forEach, forEachByCpu) hand it to a
// consumer that takes `const auto&`: the same record, known to be of format
// V, so that copyDetails() is compiled for that format alone (version 1:
// the details are always in the record, with no test of the code).
template <unsigned V> struct EventOf : Event {
    template <class T> [[gnu::always_inline]] std::size_t copyDetails(T& out) const {
        return copyDetailsAs<V>(out);
    }
    template <class T> [[gnu::always_inline]] bool detailsAs(T& out) const {
        return copyDetails(out) == sizeof out;
    }
};

// TSC -> nanoseconds without a division per event. With r = 1e6/khz =
// a/b (reduced), ns = d*I + mulhi(d, F) where I = floor(r) and F is the
// fraction of r in 64-bit fixed point, rounded up so the result never
// undershoots. The overshoot is below d/2^64, which cannot reach the next
// integer while d < 2^64/b (about 19 minutes of a 3 GHz TSC with b up to
// 5e6); past that an exact check with a/b corrects it. The result is
// exactly floor(d * 1e6 / khz).
struct TscConverter {
    std::uint64_t anchor = 0;
    std::uint64_t whole = 1; // I
    std::uint64_t frac = 0;  // F
    std::uint64_t a = 1, b = 1;
    std::uint64_t exactBelow = ~0ull; // no check needed for d below this

    void init(std::uint64_t anchorTsc, std::uint64_t khz);
    std::uint64_t ns(std::uint64_t tsc) const {
        if (tsc <= anchor)
            return 0;
        const std::uint64_t d = tsc - anchor;
        std::uint64_t q = d * whole + static_cast<std::uint64_t>(
                                          (static_cast<unsigned __int128>(d) * frac) >> 64);
        if (d >= exactBelow) [[unlikely]] {
            if (static_cast<unsigned __int128>(q) * b > static_cast<unsigned __int128>(d) * a)
                --q;
        }
        return q;
    }
};

class MappedFile; // the trace's mapping (detail/mapped_file.hpp)

} // namespace ltt

#include <libltt/internal/trace_cursor.hpp>

namespace ltt {

// Position in the merged event sequence. Cheap to copy (O(CPUs + user streams)).
class TraceCursor : private detail::CursorCore {
public:
    // On an event (event() is valid) or past the end / stopped by an error.
    bool valid() const { return valid_m; }
    const Event& event() const { return event_m; }
    // Merged index of event(): 0 for the first event of the trace.
    std::uint64_t index() const { return index_m; }
    // Moves to the following event; false at the end or on corruption.
    bool next() { return nextEvent(); }
    // Moves to the preceding event (via the checkpoint index); false before
    // the first event.
    bool prev();
    // File offset below which this cursor will read nothing more while it
    // walks forward (the oldest block any CPU is still in).
    std::uint64_t lowestOffset() const;
    // Set when the walk stopped on corrupt data: the file, offset and cause.
    const std::optional<TraceError>& error() const { return error_m; }
    // Calls f(event()) for the current event and every one after it, and
    // leaves the cursor where a loop over next() would: past the end, or
    // stopped with error() set. After every 2^k events (tickMask = 2^k - 1)
    // it calls tick(), when lowestOffset() is up to date. The same events in
    // the same order as that loop, faster: f is inlined into the merge
    // (detail/trace_walk.hpp).
    template <class F, class T> void forEach(F&& f, std::uint64_t tickMask, T&& tick);
    // forEach for a consumer whose state is mostly per CPU (the analysis):
    // the same events, each CPU's in that CPU's order, but only the events
    // isBarrier(header) selects keep their place in the merged order. Every
    // event f sees before a barrier b precedes b in the merged order, and
    // before f(b) it has seen every event preceding b of b's own CPU and of
    // the CPUs in the mask deps(b) (bit c: CPU c) returns; deps(b) is called
    // once that much of b's own CPU has been fed. Other CPUs' events that
    // precede b may come after it: between barriers, each CPU's events come
    // as one run, which is much cheaper than interleaving them event by
    // event. The consumer must then give the same results as with forEach
    // whenever its non-barrier events of different CPUs commute, and
    // commute with every barrier whose deps leave their CPU out. Walks stop
    // on damage where forEach stops (same events fed, same error).
    // A deps result with kInOrder set also asks for every event from the
    // barrier on to come in merged order, each one then passed to deps too,
    // until a deps call answers without it: for stretches where the
    // consumer's events of different CPUs do not commute.
    // The events fed in runs go to fRun(cpu)(event) instead of f(event):
    // fRun(cpu) gives the consumer of one run of that CPU's events. None of
    // them is a barrier, so it may skip what only barriers need.
    // tick() comes after the run that passes a multiple of 2^k events.
    template <class F, class R, class B, class D, class T>
    void forEachByCpu(F&& f, R&& fRun, B&& isBarrier, D&& deps, std::uint64_t tickMask, T&& tick);
    static constexpr std::uint32_t kInOrder = CursorCore::kInOrder;

private:
    friend class TraceReader;
    explicit TraceCursor(const TraceReader* reader) : CursorCore(reader) {}
};

class TraceReader {
public:
    static constexpr std::uint64_t kCheckpointInterval = 1024;

    // Opens and validates `path`. On failure returns nullptr and the error.
    static std::unique_ptr<TraceReader> open(const std::string& path, TraceError* error);
    // Reads a trace held in memory (`bytes` must outlive the reader); `name`
    // stands for the file name in messages.
    static std::unique_ptr<TraceReader> openMemory(std::span<const std::byte> bytes,
                                                   const std::string& name, TraceError* error);
    ~TraceReader();
    TraceReader(const TraceReader&) = delete;
    TraceReader& operator=(const TraceReader&) = delete;

    const std::string& path() const { return path_m; }
    const ltt_file_header& header() const { return header_m; }
    std::uint32_t ncpus() const { return header_m.ncpus; }
    const std::vector<BlockInfo>& blocks() const { return blocks_m; }
    // Blocks of one CPU in sequence order (indices into blocks()).
    const std::vector<std::uint32_t>& cpuBlocks(std::uint16_t cpu) const {
        return streamBlocks_m[cpu];
    }
    // One user stream: the blocks one application thread's events came in
    // (LTT_BLOCK_F_USER; include/ltt/module_events.h, USER).
    struct UserStream {
        std::uint16_t number = 0;          // BLOCK_START.cpu of its blocks
        std::int32_t tid = 0;              // BLOCK_START.pid: the thread
        std::uint64_t lost = 0;            // events the thread could not log (its ring full)
        bool final = false;                // its last block has LTT_BLOCK_F_FINAL
        std::vector<std::uint32_t> blocks; // indices into blocks(), in sequence order
        // Its blocks have LTT_BLOCK_F_USER_MONOTONIC: the application read
        // CLOCK_MONOTONIC and the daemon placed the times on the trace's
        // fallback clock (docs/trace-format.md §2.4); else it read the TSC.
        bool monotonic = false;
    };
    // The user streams, by number. Their records are merged with the CPUs'
    // (after them on equal times) and come as Events with isUser() true.
    const std::vector<UserStream>& userStreams() const { return userStreams_m; }
    // How many of them are stamped with CLOCK_MONOTONIC (UserStream::monotonic).
    std::size_t monotonicUserStreams() const {
        std::size_t n = 0;
        for (const UserStream& u : userStreams_m)
            n += u.monotonic;
        return n;
    }
    // The user stream of `number`, or nullptr.
    const UserStream* userStream(std::uint16_t number) const;
    // Set when the file ends in something other than whole blocks: inside
    // a block, or in bytes after the last whole block from which no later
    // whole block can be found (docs/trace-format.md §2.3, "Damage"). The
    // trace is readable up to `offset` (the end of the last whole block).
    const std::optional<TraceError>& truncation() const { return truncation_m; }
    // With truncation(): true when the bytes from its offset to the end
    // hold no whole block (zeros or garbage a power cut left after the last
    // whole block), false when the file ends inside a block.
    bool tailWithoutBlock() const { return tailWithoutBlock_m; }
    // Set when some CPU's last block is not flagged LTT_BLOCK_F_FINAL: the
    // producer did not stop the trace (killed, crashed), so the trace may
    // end earlier on those CPUs than the user asked. Names the CPUs.
    const std::optional<TraceError>& unfinished() const { return unfinished_m; }
    // Bytes of whole blocks (where reading stops).
    std::uint64_t dataEnd() const { return dataEnd_m; }
    // Records the producer claims (sum of BLOCK_END.events): exact for a
    // valid file, cheap (no pass over the events).
    std::uint64_t claimedEvents() const { return claimedEvents_m; }
    // Events lost by the tracer (CPU blocks), in all and per CPU.
    std::uint64_t lostEvents() const { return lost_m; }
    std::uint64_t lostEvents(std::uint16_t cpu) const { return lostPerCpu_m[cpu]; }
    // Application events lost (user blocks): counted apart from the kernel's.
    std::uint64_t userLostEvents() const { return userLost_m; }
    // First and last record times of the whole trace.
    std::uint64_t firstTsc() const { return firstTsc_m; }
    std::uint64_t lastTsc() const { return lastTsc_m; }

    // TSC -> ns since the trace's anchor: floor((tsc - anchor) * 1e6 / khz).
    std::uint64_t nsFromAnchor(std::uint64_t tsc) const { return tsc_m.ns(tsc); }
    const TscConverter& tscConverter() const { return tsc_m; }
    // Absolute time, ns since the epoch.
    std::uint64_t realtimeNs(std::uint64_t tsc) const {
        return header_m.anchor_realtime_ns + nsFromAnchor(tsc);
    }
    bool eventEnabled(unsigned id) const { return (header_m.config.event_mask >> id) & 1; }
    bool detailsEnabled(unsigned id) const { return (header_m.config.details_mask >> id) & 1; }
    // Whether the trace says which task is current on a CPU after its
    // blocks' starts: it has CONTEXT records (LTT_TRACE_F_CONTEXT), or its
    // header's mask records scheduling changes. Where it does not, Events
    // carry kUnknownPid from each block's start until a SCHEDCHANGE, and
    // so does a block whose header names no task (a negative pid).
    bool contextRecorded() const {
        return (header_m.flags & LTT_TRACE_F_CONTEXT) || eventEnabled(LTT_EV_SCHEDCHANGE);
    }

    // Cursor on the first event (sequential walks need no index).
    TraceCursor begin() const;
    // Builds the checkpoint index if needed (a full pass that also validates
    // every record). Returns the first corruption found, if any; the index
    // then covers the events before it.
    const std::optional<TraceError>& buildIndex() const;
    // Exact number of events (builds the index).
    std::uint64_t eventCount() const;
    // Cursor on event `index` (invalid when index >= eventCount()).
    TraceCursor atIndex(std::uint64_t index) const;
    // Cursor on the first event at or after `ns` since the anchor.
    TraceCursor atTime(std::uint64_t ns) const;

    std::span<const std::byte> bytes() const;
    void adviseSequential() const;
    // Drops the mapping's pages below `offset` from this process (they are
    // read again from the page cache if touched later), so a front-to-back
    // walk keeps a bounded resident set however long the trace.
    void releaseBefore(std::uint64_t offset) const;

private:
    friend class TraceCursor;
    friend struct detail::CursorCore;
    TraceReader() = default;
    bool scan(TraceError* error);
    TraceCursor startCursor() const; // before event 0
    void restore(TraceCursor& c, std::uint64_t checkpoint) const;
    // Cursor stream `i` (ncpus() on: user streams) as an Event's cpu/stream.
    void markUser(Event& e, std::size_t i) const;
    std::size_t streamCount() const { return streamBlocks_m.size(); }

    std::string path_m;
    std::unique_ptr<MappedFile> file_m;
    ltt_file_header header_m{};
    std::vector<BlockInfo> blocks_m;
    // Per cursor stream (the CPUs, then the user streams) its blocks.
    std::vector<std::vector<std::uint32_t>> streamBlocks_m;
    std::vector<UserStream> userStreams_m;
    std::vector<std::uint64_t> lostPerCpu_m;
    std::uint64_t userLost_m = 0;
    std::optional<TraceError> truncation_m;
    bool tailWithoutBlock_m = false;
    std::optional<TraceError> unfinished_m;
    std::uint64_t dataEnd_m = 0;
    std::uint64_t claimedEvents_m = 0;
    std::uint64_t lost_m = 0;
    std::uint64_t firstTsc_m = 0, lastTsc_m = 0;
    TscConverter tsc_m;

    // Checkpoint index (lazy): per checkpoint the cursor's CPU streams. A
    // trace may hold many user streams, most of them not begun or done at
    // any one checkpoint: a checkpoint keeps only those in between
    // (userActive_m from userActiveAt_m[k]); the others are in their
    // initial state or exhausted, which the merged index of the stream's
    // first and last event tells.
    mutable std::once_flag indexOnce_m;
    mutable std::vector<detail::CursorCore::Stream> checkpoints_m; // ncpus per checkpoint
    mutable std::vector<detail::CursorCore::Stream> userInitial_m;
    mutable std::vector<std::uint64_t> userFirst_m, userLast_m; // merged indices
    mutable std::vector<std::uint32_t> userActiveIndex_m;       // user stream of each
    mutable std::vector<detail::CursorCore::Stream> userActive_m;
    mutable std::vector<std::size_t> userActiveAt_m; // checkpoints + 1 entries
    mutable std::vector<std::uint64_t> checkpointTsc_m;
    mutable std::uint64_t indexedEvents_m = 0;
    mutable std::optional<TraceError> indexError_m;
};

} // namespace ltt

#include <libltt/internal/trace_walk.hpp>
