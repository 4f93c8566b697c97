// TraceReader: the one reader of .trace files (docs/trace-format.md §2).
//
// The file is mmap-ed; opening validates the header and every block's frame
// (BLOCK_START, length, BLOCK_END) and builds a per-CPU block list, which is
// O(blocks). Records inside a block are validated as a cursor walks them, so
// a full analysis is a single pass over the mapping.
//
// A TraceCursor merges the per-CPU streams into one time-ordered sequence
// (k-way merge by TSC; ties by CPU, then file position) and never allocates
// per event: an Event is a view into the mapping. Random access (by event
// index or by time) uses a checkpoint index built lazily on first use: every
// kCheckpointInterval events the merge state of all CPUs is saved, so a seek
// costs a binary search plus at most that many steps, and the index grows
// with events / kCheckpointInterval, not with events.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
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

// Read-only mapping of a whole file; unmapped on destruction.
//
// Another program may truncate the file while it is mapped; a load from a
// page past the new end would then raise SIGBUS. A process-wide SIGBUS
// handler (installed with the first mapping) knows every live mapping: a
// fault inside one replaces the mapping from the faulting page to its end
// with zero-filled anonymous memory, marks the file as shrunk and lets the
// load go on. The walk then finds zeros where records should be (corrupt
// input, which it already handles) and the cursor reports that the file
// shrank. Nothing on the hot path pays for this, and no longjmp crosses
// the consumers' C++ frames. A fault outside every mapping gets the
// previous disposition.
class MappedFile {
public:
    static std::unique_ptr<MappedFile> open(const std::string& path, std::string* why);
    // Borrows `bytes` (which must outlive the object) instead of mapping a
    // file: for tests and fuzzing.
    static std::unique_ptr<MappedFile> borrow(std::span<const std::byte> bytes);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    std::span<const std::byte> bytes() const { return {data_m, size_m}; }
    // Hints the kernel that the mapping will be read front to back.
    void adviseSequential() const;
    void release(std::uint64_t below) const;
    // Copies bytes [offset, offset + n) (which must lie in the file) without
    // touching the mapping: a read() of the file, so that a pass over a few
    // bytes here and there (the block frames, when a trace is opened) does
    // not map the file's pages only to map them again in the walk.
    void copy(std::uint64_t offset, void* out, std::size_t n) const;
    // The first byte at or after `from` that may hold data: holes of a
    // sparse file read as zeros and can be skipped when searching for
    // something that is not zero. The file size when none is left.
    std::uint64_t nextData(std::uint64_t from) const;
    // The end of the data extent that holds `from` (the next hole).
    std::uint64_t dataEnd(std::uint64_t from) const;
    // True once a load from the mapping faulted because the file had
    // shrunk below it (its pages past the fault now read as zeros).
    bool shrunk() const;
    // The file's size now (the mapped size for borrowed memory).
    std::uint64_t currentSize() const;

private:
    MappedFile() = default;
    const std::byte* data_m = nullptr;
    std::size_t size_m = 0;
    bool mapped_m = false; // false: borrowed memory, never unmapped or advised
    int fd_m = -1;         // the mapped file, for copy()
    int guard_m = -1;      // slot in the SIGBUS handler's table; -1: none
};

// One block's frame, from its BLOCK_START and BLOCK_END records.
struct BlockInfo {
    std::uint64_t offset = 0; // of the BLOCK_START record in the file
    std::uint32_t length = 0;
    std::uint32_t sequence = 0;
    std::uint16_t cpu = 0;
    std::uint16_t flags = 0;
    std::int32_t pid = 0;
    std::uint64_t startTsc = 0;
    std::uint64_t endTsc = 0;
    std::uint64_t lost = 0;
    std::uint32_t records = 0; // BLOCK_END.events as written by the producer
};

// One record, as a view into the mapping. Valid while the reader lives.
struct Event {
    const std::byte* record = nullptr; // the record header
    std::uint64_t offset = 0;          // file offset of the record
    std::uint64_t tsc = 0;
    std::int32_t pid = 0; // task current on `cpu` (the incoming one for SCHEDCHANGE)
    std::uint16_t cpu = 0;
    std::uint16_t size = 0; // whole record, header included
    std::uint8_t id = 0;    // enum ltt_event_id (may be unknown: >= LTT_EV_MAX)
    std::uint8_t subtype = 0;

    std::span<const std::byte> details() const {
        return {record + sizeof(ltt_record_header), std::size_t(size) - sizeof(ltt_record_header)};
    }
    // Copies the details into `out` (zero-filling what the record lacks:
    // masked details, older producers) and returns the bytes copied.
    template <class T> std::size_t copyDetails(T& out) const {
        const std::size_t have = std::size_t(size) - sizeof(ltt_record_header);
        if (have >= sizeof out) [[likely]] {
            std::memcpy(&out, record + sizeof(ltt_record_header), sizeof out);
            return sizeof out;
        }
        std::memset(&out, 0, sizeof out);
        std::memcpy(&out, record + sizeof(ltt_record_header), have);
        return have;
    }
    // True when the record carries the whole detail structure T.
    template <class T> bool detailsAs(T& out) const { return copyDetails(out) == sizeof out; }
};

class TraceReader;

inline constexpr std::uint64_t kNoTsc = ~0ull; // an exhausted stream's next time

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

// Position in the merged event sequence. Cheap to copy (O(CPUs)).
class TraceCursor {
public:
    // On an event (event() is valid) or past the end / stopped by an error.
    bool valid() const { return valid_m; }
    const Event& event() const { return event_m; }
    // Merged index of event(): 0 for the first event of the trace.
    std::uint64_t index() const { return index_m; }
    // Moves to the following event; false at the end or on corruption.
    // Inline: it is the loop body of every walk (defined below).
    bool next();
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
    // the same order as that loop, faster (defined below): for up to
    // kScanCpus CPUs the merge keys live in a fixed-size local array and f
    // can be inlined into the loop.
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
    static constexpr std::uint32_t kInOrder = 1u << 31;

private:
    friend class TraceReader;

    // TSC -> nanoseconds without a division per event: a fixed-point multiply
    // (multiplier rounded up, so it never undershoots) and one exact check with
    // the reduced fraction a/b = 1e6/khz that corrects the rare overshoot. The
    // result is exactly floor(ticks * 1e6 / khz) for any trace shorter than
    // centuries.
    struct TscConverter {
        std::uint64_t anchor = 0;
        std::uint64_t mult = 1;
        unsigned shift = 0;
        std::uint64_t a = 1, b = 1;

        void init(std::uint64_t anchorTsc, std::uint64_t khz);
        std::uint64_t ns(std::uint64_t tsc) const {
            if (tsc <= anchor)
                return 0;
            const std::uint64_t d = tsc - anchor;
            auto q =
                static_cast<std::uint64_t>((static_cast<unsigned __int128>(d) * mult) >> shift);
            if (static_cast<unsigned __int128>(q) * b > static_cast<unsigned __int128>(d) * a)
                [[unlikely]]
                --q;
            return q;
        }
    };
    // One CPU's position. The current block's frame is cached here so the
    // hot path never goes back to the block table.
    struct alignas(64) Stream {
        std::uint64_t nextTsc = 0;     // time of the next record; UINT64_MAX: exhausted
        std::uint64_t base = 0;        // delta base (block start or last heartbeat)
        std::uint64_t blockOffset = 0; // file offset of the current block
        ltt_record_header next{};      // header of the next record (peeked)
        std::uint32_t blockPos = 0;    // index into the CPU's block list
        std::uint32_t offset = 0;      // of the next record, from the block start
        std::uint32_t endRecord = 0;   // offset of the block's BLOCK_END record
        std::uint32_t records = 0;     // records consumed in the current block
        std::uint32_t expected = 0;    // records BLOCK_END announces
        std::int32_t pid = 0;
    };
    explicit TraceCursor(const TraceReader* reader);
    bool peek(std::uint16_t cpu);
    bool stop();
    // How walk() and walkByCpu() end, n events fed and index_m up to date:
    // stopped on damage, handing over to next() (the cursor stands on the
    // last event fed), or past the end.
    template <class F, class T>
    void endWalk(bool handOver, std::uint64_t n, F& f, std::uint64_t tickMask, T& tick) {
        if (stopped_m) {
            stop();
        } else if (handOver) {
            valid_m = true;
            while (next()) {
                f(event_m);
                if ((++n & tickMask) == 0) [[unlikely]]
                    tick();
            }
        } else {
            // event_m is stale, but the cursor is no longer on an event.
            valid_m = false;
            ++index_m;
            checkShrunk();
        }
    }
    void advanceSlow(std::uint16_t cpu);
    void buildTree();
    // Whether CPU a's next record comes before CPU b's (time, then CPU).
    bool before(int a, int b) const {
        const int n = static_cast<int>(keys_m.size());
        const std::uint64_t ta = a < n ? keys_m[a] : kNoTsc;
        const std::uint64_t tb = b < n ? keys_m[b] : kNoTsc;
        return ta < tb || (ta == tb && a < b);
    }
    // For a few CPUs: the first of the smallest next times, by a scan the
    // compiler turns into conditional moves. Which CPU comes next is data
    // (CPUs interleave every event or two), so any branch on it would
    // mispredict about half the time.
    int scanFirst() const {
        const std::uint64_t* k = keys_m.data();
        const int n = static_cast<int>(keys_m.size());
        std::uint64_t best = k[0];
        int cpu = 0;
        for (int i = 1; i < n; ++i) {
            const bool earlier = k[i] < best;
            best = earlier ? k[i] : best;
            cpu = earlier ? i : cpu;
        }
        return cpu;
    }
    void replay(int cpu) {
        int w = cpu;
        for (std::size_t node = (static_cast<std::size_t>(w) + tree_m.size()) >> 1; node;
             node >>= 1) {
            const int other = tree_m[node];
            if (before(other, w)) {
                tree_m[node] = w;
                w = other;
            }
        }
        tree_m[0] = w;
    }
    // The first of the smallest of n keys (n a power of two), as a
    // branch-free tournament: log2(n) levels of conditional moves, so the
    // choice is a short dependency chain. Ties go to the lower CPU.
    template <int N> static int firstMin(const std::uint64_t* k, std::uint64_t& min) {
        if constexpr (N == 1) {
            min = k[0];
            return 0;
        } else {
            std::uint64_t a, b;
            const int ia = firstMin<N / 2>(k, a);
            const int ib = firstMin<N / 2>(k + N / 2, b) + N / 2;
            // Masks, not ?: -- the compiler turns a select it could
            // branch on into a branch, which mispredicts here.
            const std::uint64_t second = 0 - static_cast<std::uint64_t>(b < a);
            min = a ^ ((a ^ b) & second);
            return ia ^ ((ia ^ ib) & static_cast<int>(second));
        }
    }
    // The smallest of n keys (n a power of two) as a balanced tree of
    // minimums: log2(n) dependent steps where a running minimum takes n - 1
    // (the merge's next choice waits on this).
    template <int N> static std::uint64_t minOf(const std::uint64_t* k) {
        if constexpr (N == 1) {
            return k[0];
        } else {
            std::uint64_t a = minOf<N / 2>(k);
            const std::uint64_t b = minOf<N / 2>(k + N / 2);
#if defined(__x86_64__)
            // A conditional move written out: GCC turns a tree of
            // std::min back into a running minimum (the same n - 1 steps).
            asm("cmpq %1, %0\n\tcmovaq %1, %0" : "+r"(a) : "r"(b) : "cc");
            return a;
#else
            return a < b ? a : b;
#endif
        }
    }
    template <int N, class F, class T> void walk(F& f, std::uint64_t tickMask, T& tick);
    template <int N, class F, class R, class B, class D, class T>
    void walkByCpu(F& f, R& fRun, B& isBarrier, D& deps, std::uint64_t tickMask, T& tick);
    bool enterBlock(Stream& s, std::uint16_t cpu);
    // Takes stream s's head record, of time tsc, as an Event and moves the
    // stream past it: a heartbeat sets the delta base, a schedchange the
    // stream's current pid. Every walk goes through here.
    Event take(Stream& s, std::uint16_t cpu, std::uint64_t tsc) const {
        const ltt_record_header h = s.next;
        const std::uint64_t off = s.blockOffset + s.offset;
        if (h.event == LTT_EV_HEARTBEAT) [[unlikely]]
            s.base = tsc;
        else if (h.event == LTT_EV_SCHEDCHANGE && h.size >= sizeof h + sizeof(ltt_ev_schedchange))
            std::memcpy(&s.pid, data_m + off + sizeof h + offsetof(ltt_ev_schedchange, in),
                        sizeof s.pid);
        s.offset += h.size;
        ++s.records;
        return Event{data_m + off, off, tsc, s.pid, cpu, h.size, h.event, h.subtype};
    }
    bool fail(std::uint64_t offset, std::string message);
    // At the end of a walk: when the file shrank while it was read (pages
    // read as zeros since), that becomes the cursor's error.
    void checkShrunk();

    const TraceReader* reader_m;
    const std::byte* data_m;       // the mapping
    std::vector<Stream> streams_m; // indexed by CPU
    // Merge state: a loser tree over the CPUs (tree_m[0] is the CPU whose
    // record comes next, tree_m[n] the loser of internal node n; leaves are
    // CPUs padded to a power of two). Advancing a CPU replays one path:
    // log2(CPUs) comparisons per event.
    std::vector<int> tree_m;
    // Next record time per CPU (mirrors Stream::nextTsc, packed for the
    // merge); with at most kScanCpus CPUs a scan replaces the tree.
    static constexpr std::size_t kScanCpus = 16;
    std::vector<std::uint64_t> keys_m;
    bool scan_m = true;
    bool stopped_m = false; // an error ends the walk
    Event event_m;
    std::uint64_t index_m = 0;
    bool valid_m = false;
    std::optional<TraceError> error_m;
    std::optional<TraceError> pendingError_m; // found while peeking past event_m
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
    TraceReader(const TraceReader&) = delete;
    TraceReader& operator=(const TraceReader&) = delete;

    const std::string& path() const { return path_m; }
    const ltt_file_header& header() const { return header_m; }
    std::uint32_t ncpus() const { return header_m.ncpus; }
    const std::vector<BlockInfo>& blocks() const { return blocks_m; }
    // Blocks of one CPU in sequence order (indices into blocks()).
    const std::vector<std::uint32_t>& cpuBlocks(std::uint16_t cpu) const {
        return cpuBlocks_m[cpu];
    }
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
    std::uint64_t lostEvents() const { return lost_m; }
    std::uint64_t lostEvents(std::uint16_t cpu) const { return lostPerCpu_m[cpu]; }
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

    std::span<const std::byte> bytes() const { return file_m->bytes(); }
    void adviseSequential() const { file_m->adviseSequential(); }
    // Drops the mapping's pages below `offset` from this process (they are
    // read again from the page cache if touched later), so a front-to-back
    // walk keeps a bounded resident set however long the trace.
    void releaseBefore(std::uint64_t offset) const { file_m->release(offset); }

private:
    friend class TraceCursor;
    TraceReader() = default;
    bool scan(TraceError* error);
    TraceCursor startCursor() const; // before event 0
    void restore(TraceCursor& c, std::uint64_t checkpoint) const;

    std::string path_m;
    std::unique_ptr<MappedFile> file_m;
    ltt_file_header header_m{};
    std::vector<BlockInfo> blocks_m;
    std::vector<std::vector<std::uint32_t>> cpuBlocks_m;
    std::vector<std::uint64_t> lostPerCpu_m;
    std::optional<TraceError> truncation_m;
    bool tailWithoutBlock_m = false;
    std::optional<TraceError> unfinished_m;
    std::uint64_t dataEnd_m = 0;
    std::uint64_t claimedEvents_m = 0;
    std::uint64_t lost_m = 0;
    std::uint64_t firstTsc_m = 0, lastTsc_m = 0;
    TscConverter tsc_m;

    // Checkpoint index (lazy): per checkpoint the cursor's streams.
    mutable std::once_flag indexOnce_m;
    mutable std::vector<TraceCursor::Stream> checkpoints_m; // ncpus per checkpoint
    mutable std::vector<std::uint64_t> checkpointTsc_m;
    mutable std::uint64_t indexedEvents_m = 0;
    mutable std::optional<TraceError> indexError_m;
};

// k-way merge: the smallest next time wins, ties go to the lower CPU; the
// loser tree finds it in log2(CPUs) comparisons.
inline bool TraceCursor::next() {
    if (stopped_m) [[unlikely]]
        return stop();
    const int cpu = scan_m ? scanFirst() : tree_m[0];
    if (keys_m[cpu] == kNoTsc) [[unlikely]] {
        valid_m = false; // every CPU is exhausted
        ++index_m;
        checkShrunk();
        return false;
    }
    Stream& s = streams_m[cpu];
    event_m = take(s, static_cast<std::uint16_t>(cpu), s.nextTsc);
    ++index_m;
    valid_m = true;
    // Common case: the next record is an ordinary one of the same block
    // (frame checks as in peek(), which handles everything else).
    if (s.offset < s.endRecord) [[likely]] {
        std::memcpy(&s.next, data_m + s.blockOffset + s.offset, sizeof s.next);
        const std::uint16_t size = s.next.size;
        const std::uint8_t ev = s.next.event;
        if (size >= sizeof(ltt_record_header) && (size & (LTT_RECORD_ALIGN - 1)) == 0 &&
            std::uint64_t{s.offset} + size <= s.endRecord && ev != LTT_EV_HEARTBEAT &&
            ev != LTT_EV_BLOCK_START && ev != LTT_EV_BLOCK_END) [[likely]] {
            s.nextTsc = s.base + s.next.delta;
            keys_m[cpu] = s.nextTsc;
            if (!scan_m)
                replay(cpu);
            return true;
        }
    }
    advanceSlow(static_cast<std::uint16_t>(cpu));
    keys_m[cpu] = s.nextTsc;
    if (!scan_m)
        replay(cpu);
    return true;
}

// The loop of next() for a fixed number of merge keys N (the CPUs padded
// with exhausted streams), calling f on each event.
//
// The merge is the walk's critical path: which stream comes next depends on
// the key the previous step computed. Two things keep that path short.
// The keys are packed, (tsc - t0) << S | cpu with S = log2(N), so the first
// smallest is a plain minimum (ties fall to the lower CPU, as in next()) and
// names its CPU in its low bits. And each stream's record after its head is
// decoded one step ahead, so advancing a stream is one load of a ready key;
// the decoding itself (the record's header, its checks, its time) is off
// the critical path. A time that does not pack (before t0, or 2^(64-S)
// ticks after it: only damaged or absurd traces) hands the rest of the walk
// to next().
template <int N, class F, class T>
[[gnu::noinline]] void TraceCursor::walk(F& fn, std::uint64_t tickMask, T& tick) {
    static_assert(N >= 2);
    constexpr unsigned S = std::bit_width(static_cast<unsigned>(N - 1));
    constexpr std::uint64_t kEnd = ~0ull; // an exhausted stream's key
    constexpr std::uint64_t kMaxRel = (~0ull >> S) - 1;
    F f = fn; // a local copy the compiler can keep in registers
    Stream* const streams = streams_m.data();
    const std::byte* const data = data_m;
    const std::size_t ncpus = std::min<std::size_t>(streams_m.size(), N); // always the size
    const std::uint64_t t0 = reader_m->firstTsc();
    // With t0 this low, kNoTsc never packs: one comparison tells an
    // exhausted stream and a time that does not pack.
    bool packs = t0 < kEnd - kMaxRel;
    auto pack = [&](std::uint64_t tsc, std::size_t cpu) {
        const std::uint64_t rel = tsc - t0;
        if (rel > kMaxRel) [[unlikely]] {
            packs = packs && tsc == kNoTsc;
            return kEnd;
        }
        return rel << S | cpu;
    };
    // Per stream, the record after the head: its key and header when it is
    // an ordinary record of the same block (as next()'s fast path checks);
    // header size 0 when not (then advancing goes through peek()).
    struct Ahead {
        std::uint64_t key;
        ltt_record_header h;
    };
    Ahead ahead[N];
    auto lookAhead = [&](std::size_t cpu, std::uint64_t base) {
        const Stream& s = streams[cpu];
        Ahead& a = ahead[cpu];
        a.h.size = 0;
        const std::uint64_t o = std::uint64_t{s.offset} + s.next.size;
        if (o >= s.endRecord) [[unlikely]]
            return;
        ltt_record_header h;
        std::memcpy(&h, data + s.blockOffset + o, sizeof h);
        if (h.size >= sizeof h && (h.size & (LTT_RECORD_ALIGN - 1)) == 0 &&
            o + h.size <= s.endRecord && h.event != LTT_EV_HEARTBEAT &&
            h.event != LTT_EV_BLOCK_START && h.event != LTT_EV_BLOCK_END) [[likely]] {
            const std::uint64_t rel = base + h.delta - t0;
            if (rel <= kMaxRel) [[likely]] {
                a.key = rel << S | cpu;
                a.h = h;
            }
        }
    };
    std::uint64_t key[N];
    for (std::size_t i = 0; i < N; ++i) {
        ahead[i].h.size = 0;
        key[i] = i < ncpus ? pack(streams[i].nextTsc, i) : kEnd;
        if (key[i] != kEnd && !stopped_m) {
            const Stream& s = streams[i];
            // A heartbeat head moves the base when it is taken.
            lookAhead(i, s.next.event == LTT_EV_HEARTBEAT ? s.nextTsc : s.base);
        }
    }
    const std::uint64_t first = index_m;
    std::uint64_t n = 1; // events fed
    bool leave = stopped_m || !packs;
    f(event_m);
    while (!leave) {
        if ((n & tickMask) == 0) [[unlikely]] {
            // lowestOffset() reads nextTsc only to tell exhausted streams.
            tick();
        }
        const std::uint64_t m = minOf<N>(key);
        if (m == kEnd) [[unlikely]]
            break; // every CPU is exhausted
        const int cpu = static_cast<int>(m & (N - 1));
        const std::uint64_t tsc = (m >> S) + t0;
        Stream& s = streams[cpu];
        const Event e = take(s, static_cast<std::uint16_t>(cpu), tsc);
        const Ahead& a = ahead[cpu];
        if (a.h.size != 0) [[likely]] {
            // The next record was decoded: it is the new head (an ordinary
            // record: the base stays). s.nextTsc is left stale until the
            // walk ends.
            key[cpu] = a.key;
            s.next = a.h;
            lookAhead(static_cast<std::size_t>(cpu), s.base);
        } else {
            // A heartbeat, the block's end, the next block, or damage.
            advanceSlow(static_cast<std::uint16_t>(cpu));
            const std::uint64_t next = stopped_m ? kNoTsc : s.nextTsc;
            key[cpu] = pack(next, static_cast<std::size_t>(cpu));
            if (key[cpu] != kEnd)
                lookAhead(static_cast<std::size_t>(cpu),
                          s.next.event == LTT_EV_HEARTBEAT ? next : s.base);
            leave = stopped_m || !packs;
        }
        f(e);
        ++n;
    }
    // Bring the streams up to date. A key of kEnd: the stream is exhausted,
    // or (packs false) nextTsc holds the time that did not pack.
    for (std::size_t i = 0; i < ncpus; ++i) {
        Stream& s = streams[i];
        if (key[i] != kEnd)
            s.nextTsc = (key[i] >> S) + t0;
        else if (packs)
            s.nextTsc = kNoTsc;
        keys_m[i] = s.nextTsc;
    }
    index_m = first + (n - 1);
    if (leave && (n & tickMask) == 0)
        tick();
    endWalk(!packs, n, f, tickMask, tick);
}

// forEachByCpu's walk for a fixed number of merge keys N. Each CPU's stream
// is cut into segments: a record that is a barrier, or whose successor is not
// an ordinary record of its block (the successor is a heartbeat, the block's
// end, damage, or a time that does not pack), ends a segment. Barriers are
// taken in merged order by a merge over the streams' next barrier only, and
// a stream's events up to its barrier are fed as one run just before it.
// The events a barrier's deps call for are fed first ("catching up" those
// CPUs to the barrier's key); a stream is never fed past the barrier being
// taken, so nothing that follows a barrier in merged order is fed before it.
//
// The merge order is the one forEach's merge gives. That merge takes the
// smallest head key, but streams need not be sorted (a CPU's clock may step
// back); it takes the same events in the same order as a merge on each
// stream's running maximum of keys (the head an earlier, larger key held
// back is taken as soon as that key was), and with running maxima each
// stream is sorted, so "the events of CPU c before barrier b" is a prefix of
// c: those whose running maximum is below b's. At the end of a segment that
// ends on damage or on a time that does not pack, every CPU is caught up and
// the walk stops, or hands over to next(), as walk() does. While deps asks
// for kInOrder, every record ends a segment: the walk is then the merge
// itself, one event at a time.
template <int N, class F, class R, class B, class D, class T>
[[gnu::noinline]] void TraceCursor::walkByCpu(F& fn, R& fRunFn, B& isBarrierFn, D& depsFn,
                                              std::uint64_t tickMask, T& tick) {
    static_assert(N >= 2 && N <= 32);
    constexpr unsigned S = std::bit_width(static_cast<unsigned>(N - 1));
    constexpr std::uint64_t kEnd = ~0ull;
    constexpr std::uint64_t kMaxRel = (~0ull >> S) - 1;
    Stream* const streams = streams_m.data();
    const std::byte* const data = data_m;
    const std::size_t ncpus = std::min<std::size_t>(streams_m.size(), N); // always the size
    const std::uint64_t t0 = reader_m->firstTsc();
    bool packs = t0 < kEnd - kMaxRel;
    for (std::size_t i = 0; i < ncpus && packs; ++i)
        packs = streams[i].nextTsc == kNoTsc || streams[i].nextTsc - t0 <= kMaxRel;
    if (stopped_m || !packs)
        return walk<N>(fn, tickMask, tick); // a walk that ends, or leaves, at once
    F f = fn;                               // local copies the compiler can keep in registers
    R fRun = fRunFn;
    B isBarrier = isBarrierFn;
    D deps = depsFn;

    bool inOrder = false;    // every record is a barrier (deps asked for kInOrder)
    std::uint64_t bar[N];    // key of the stream's next barrier; kEnd: exhausted
    std::uint64_t fed[N];    // running maximum of the keys fed from the stream
    std::uint32_t barOff[N]; // offset of the barrier in its block
    bool barSlow[N];         // its successor is not an ordinary record
    for (std::size_t i = 0; i < N; ++i) {
        bar[i] = kEnd;
        fed[i] = 0;
        barOff[i] = 0;
        barSlow[i] = false;
    }
    // Finds the end of the segment that begins at the stream's head (whose
    // time packs).
    auto scan = [&](std::size_t c) __attribute__((always_inline)) {
        const Stream& s = streams[c];
        if (s.nextTsc == kNoTsc) {
            bar[c] = kEnd;
            return;
        }
        const std::byte* const blk = data + s.blockOffset;
        const std::uint32_t endRecord = s.endRecord;
        std::uint32_t o = s.offset;
        ltt_record_header h = s.next;
        const std::uint64_t base = h.event == LTT_EV_HEARTBEAT ? s.nextTsc : s.base;
        std::uint64_t m = std::max(fed[c], (s.nextTsc - t0) << S | c);
        // The search is the first to read a stream's records, one load
        // waiting on the size the one before gave: ask for the cache lines
        // a few segments on (about what a segment spans), so that the
        // loads of later searches find them there.
        for (std::uint32_t line = 0; line < 4; ++line)
            __builtin_prefetch(blk + o + 4096 + 64 * line);
        for (;;) {
            const std::uint64_t o2 = std::uint64_t{o} + h.size;
            ltt_record_header h2;
            std::uint64_t rel = kEnd;
            bool ordinary = false;
            if (o2 < endRecord) [[likely]] {
                std::memcpy(&h2, blk + o2, sizeof h2);
                rel = base + h2.delta - t0;
                ordinary = h2.size >= sizeof h2 && (h2.size & (LTT_RECORD_ALIGN - 1)) == 0 &&
                           o2 + h2.size <= endRecord && h2.event != LTT_EV_HEARTBEAT &&
                           h2.event != LTT_EV_BLOCK_START && h2.event != LTT_EV_BLOCK_END &&
                           rel <= kMaxRel;
            }
            if (!ordinary || inOrder || isBarrier(h)) [[unlikely]] {
                bar[c] = m;
                barOff[c] = o;
                barSlow[c] = !ordinary;
                return;
            }
            o = static_cast<std::uint32_t>(o2); // below endRecord
            h = h2;
            m = std::max(m, rel << S | c);
        }
    };
    const std::uint64_t first = index_m;
    std::uint64_t n = 1; // events fed
    // Feeds stream c's events from its head up to offset `until` (its
    // barrier's), stopping early, when catching up, at the first whose key
    // (running maximum) is not below `limit`.
    auto run = [&]<bool CatchUp>(std::size_t c, std::uint32_t until, std::uint64_t limit) {
        Stream& s = streams[c];
        std::uint32_t o = s.offset;
        if (o >= until)
            return;
        const std::uint64_t blockOffset = s.blockOffset;
        const std::byte* const blk = data + blockOffset;
        ltt_record_header h = s.next;
        std::uint64_t tsc = s.nextTsc, base = s.base, m = fed[c];
        std::int32_t pid = s.pid;
        std::uint32_t records = s.records;
        auto g = fRun(static_cast<std::uint16_t>(c));
        // Only the head can be a heartbeat (a segment ends before one). Its
        // time is the base of what follows, so setting it before the head
        // is fed changes nothing even if a catch-up stops at the head.
        if (h.event == LTT_EV_HEARTBEAT) [[unlikely]]
            base = tsc;
        do {
            if constexpr (CatchUp) {
                const std::uint64_t k = std::max(m, (tsc - t0) << S | c);
                if (k >= limit)
                    break;
                m = k;
            }
            if (h.event == LTT_EV_SCHEDCHANGE && h.size >= sizeof h + sizeof(ltt_ev_schedchange))
                std::memcpy(&pid, blk + o + sizeof h + offsetof(ltt_ev_schedchange, in),
                            sizeof pid);
            const Event e{blk + o, blockOffset + o, tsc,      pid, static_cast<std::uint16_t>(c),
                          h.size,  h.event,         h.subtype};
            o += h.size;
            ++records;
            std::memcpy(&h, blk + o, sizeof h); // at most the barrier: in the block
            tsc = base + h.delta;
            g(e);
        } while (o < until);
        const std::uint64_t before = n;
        n += records - s.records;
        s.offset = o;
        s.next = h;
        s.nextTsc = tsc;
        s.base = base;
        s.pid = pid;
        s.records = records;
        if constexpr (CatchUp)
            fed[c] = m;
        // (One tick() for a run, however many multiples of 2^k it passed.)
        if (((before ^ n) & ~tickMask) != 0) [[unlikely]]
            tick();
    };

    f(event_m);
    for (std::size_t i = 0; i < ncpus; ++i)
        scan(i);
    const std::uint32_t all = static_cast<std::uint32_t>((1ull << ncpus) - 1);
    bool handOver = false;
    for (;;) {
        const std::uint64_t key = minOf<N>(bar);
        if (key == kEnd) [[unlikely]]
            break; // every CPU is exhausted
        const std::size_t g = key & (N - 1);
        run.template operator()<false>(g, barOff[g], 0);
        Stream& s = streams[g];
        const ltt_record_header h = s.next;
        const Event e = take(s, static_cast<std::uint16_t>(g), s.nextTsc);
        fed[g] = key;
        std::uint32_t need = 0;
        if (!barSlow[g]) [[likely]] {
            std::memcpy(&s.next, data + s.blockOffset + s.offset, sizeof s.next);
            s.nextTsc = s.base + s.next.delta;
        } else {
            // As in walk(): the successor is read before the event is fed.
            advanceSlow(static_cast<std::uint16_t>(g));
            handOver = !stopped_m && s.nextTsc != kNoTsc && s.nextTsc - t0 > kMaxRel;
            if (stopped_m || handOver)
                need = all; // the walk ends here: everything before e first
        }
        bool rescan = false;
        if (need == 0 && (inOrder || isBarrier(h))) {
            need = deps(e);
            rescan = (need & kInOrder) && !inOrder;
            inOrder = need & kInOrder;
            if (rescan)
                need = all; // from here on, every event in its place
        }
        need &= all & ~(1u << g);
        while (need) {
            const std::size_t d = static_cast<std::size_t>(std::countr_zero(need));
            need &= need - 1;
            if (bar[d] != kEnd)
                run.template operator()<true>(d, barOff[d], key);
        }
        f(e);
        if ((++n & tickMask) == 0) [[unlikely]]
            tick();
        if (stopped_m || handOver) [[unlikely]]
            break;
        scan(g);
        if (rescan) [[unlikely]] {
            // The other streams' pending segments end at their next
            // barriers: cut them at every record now.
            for (std::size_t i = 0; i < ncpus; ++i)
                if (i != g)
                    scan(i);
        }
    }
    for (std::size_t i = 0; i < ncpus; ++i)
        keys_m[i] = streams[i].nextTsc;
    index_m = first + (n - 1);
    endWalk(handOver, n, f, tickMask, tick);
}

template <class F, class R, class B, class D, class T>
void TraceCursor::forEachByCpu(F&& f, R&& fRun, B&& isBarrier, D&& deps, std::uint64_t tickMask,
                               T&& tick) {
    if (!valid_m)
        return;
    if (scan_m) {
        const std::size_t n = streams_m.size();
        if (n <= 2)
            return walkByCpu<2>(f, fRun, isBarrier, deps, tickMask, tick);
        if (n <= 4)
            return walkByCpu<4>(f, fRun, isBarrier, deps, tickMask, tick);
        if (n <= 8)
            return walkByCpu<8>(f, fRun, isBarrier, deps, tickMask, tick);
        if (n <= 16)
            return walkByCpu<16>(f, fRun, isBarrier, deps, tickMask, tick);
    }
    forEach(f, tickMask, tick);
}

template <class F, class T> void TraceCursor::forEach(F&& f, std::uint64_t tickMask, T&& tick) {
    if (!valid_m)
        return;
    if (scan_m) {
        const std::size_t n = streams_m.size();
        if (n <= 2)
            return walk<2>(f, tickMask, tick);
        if (n <= 4)
            return walk<4>(f, tickMask, tick);
        if (n <= 8)
            return walk<8>(f, tickMask, tick);
        if (n <= 16)
            return walk<16>(f, tickMask, tick);
    }
    std::uint64_t n = 0;
    do {
        f(event_m);
        if ((++n & tickMask) == 0) [[unlikely]]
            tick();
    } while (next());
}

} // namespace ltt
