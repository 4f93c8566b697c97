// The merge machinery under ltt::TraceCursor (libltt/trace_reader.hpp): each
// CPU's position in its blocks, how the CPU whose record comes next is
// picked (a scan for a few CPUs, a loser tree for many), and the walks behind
// TraceCursor::forEach and forEachByCpu (internal/trace_walk.hpp). Not part of
// libltt's interface; trace_reader.hpp includes it once Event and
// TraceError are defined.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <libltt/block_codec.hpp>
#include <ltt/abi.h>
#include <optional>
#include <vector>

namespace ltt {

class TraceReader;

inline constexpr std::uint64_t kNoTsc = ~0ull; // an exhausted stream's next time

namespace detail {

// A TraceCursor's state and walks. TraceCursor inherits it privately (its
// users see only the cursor's interface); TraceReader creates, saves and
// restores it.
struct CursorCore {
    // A deps() answer of TraceCursor::forEachByCpu: every event in merged order.
    static constexpr std::uint32_t kInOrder = 1u << 31;

    // One CPU's (or user stream's) position. The current block's frame is
    // cached here so the hot path never goes back to the block table.
    struct alignas(64) Stream {
        std::uint64_t nextTsc = 0;     // time of the next record; UINT64_MAX: exhausted
        std::uint64_t base = 0;        // delta base: version 1, the block's start or last
                                       // heartbeat; version 2, the last record taken
        std::uint64_t blockOffset = 0; // file offset of the current block
        ltt_record_header next{};      // header of the next record (peeked)
        std::uint32_t blockPos = 0;    // index into the CPU's block list
        std::uint32_t offset = 0;      // of the next record, from the block start
        std::uint32_t endRecord = 0;   // offset of the block's BLOCK_END record
        std::uint32_t records = 0;     // records consumed in the current block
        std::uint32_t expected = 0;    // records BLOCK_END announces
        std::int32_t pid = 0;
        // Version 2: the block's last syscall ip, up to `offset`. A user
        // stream (no system calls) keeps the time of its block's last record
        // before BLOCK_END here, which the next block may not precede.
        std::uint64_t lastIp = 0;
    };
    explicit CursorCore(const TraceReader* reader);
    // TraceCursor::next(): inline, it is the loop body of every walk.
    bool nextEvent() { return v2_m ? nextEventAs<LTT_FORMAT_V2>() : nextEventAs<LTT_FORMAT_V1>(); }
    template <unsigned V> bool nextEventAs();
    bool peek(std::uint16_t cpu) {
        return v2_m ? peekAs<LTT_FORMAT_V2>(cpu) : peekAs<LTT_FORMAT_V1>(cpu);
    }
    template <unsigned V> bool peekAs(std::uint16_t cpu);
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
            while (nextEvent()) {
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
    template <int N, unsigned V, class F, class T> void walk(F& f, std::uint64_t tickMask, T& tick);
    template <int N, unsigned V, class F, class R, class B, class D, class T>
    void walkByCpu(F& f, R& fRun, B& isBarrier, D& deps, std::uint64_t tickMask, T& tick);
    template <int N, class F, class T> void walk(F& f, std::uint64_t tickMask, T& tick) {
        if (v2_m)
            return walk<N, LTT_FORMAT_V2>(f, tickMask, tick);
        walk<N, LTT_FORMAT_V1>(f, tickMask, tick);
    }
    template <int N, class F, class R, class B, class D, class T>
    void walkByCpu(F& f, R& fRun, B& isBarrier, D& deps, std::uint64_t tickMask, T& tick) {
        if (v2_m)
            return walkByCpu<N, LTT_FORMAT_V2>(f, fRun, isBarrier, deps, tickMask, tick);
        walkByCpu<N, LTT_FORMAT_V1>(f, fRun, isBarrier, deps, tickMask, tick);
    }
    bool enterBlock(Stream& s, std::uint16_t cpu);
    // The Event of the record at `p` (file offset `off`, head `h`, time
    // `tsc`) of CPU `cpu`, decoded; `pid` and `lastIp` are its stream's, and
    // move past it (a schedchange sets the pid, a syscall entry the ip).
    template <unsigned V>
    [[gnu::always_inline]] static EventOf<V>
    makeEvent(const std::byte* p, std::uint64_t off, std::uint64_t tsc, const ltt_record_header& h,
              std::int32_t& pid, std::uint64_t& lastIp, std::uint16_t cpu) {
        EventOf<V> e;
        e.record = p;
        e.offset = off;
        e.tsc = tsc;
        e.cpu = cpu;
        if constexpr (V == LTT_FORMAT_V1) {
            pid = pidAfter(pid, h.event, h.size, p + sizeof h);
            e.size = h.size;
            e.id = h.event;
            e.subtype = h.subtype;
            e.code = 0;
        } else {
            const DecodedRecord d = decodeRecord<V>(p, h, lastIp, pid, e.expanded);
            e.size = d.size;
            e.id = d.event;
            e.subtype = d.subtype;
            e.code = d.code;
        }
        e.pid = pid;
        return e;
    }
    // Takes stream s's head record, of time tsc, as an Event and moves the
    // stream past it: version 1, a heartbeat sets the delta base; version
    // 2, every record does. Every walk goes through here.
    template <unsigned V> EventOf<V> take(Stream& s, std::uint16_t cpu, std::uint64_t tsc) const {
        const ltt_record_header h = s.next;
        const std::uint64_t off = s.blockOffset + s.offset;
        if constexpr (V != LTT_FORMAT_V1) {
            s.base = tsc;
        } else {
            if (h.event == LTT_EV_HEARTBEAT) [[unlikely]]
                s.base = tsc;
        }
        s.offset += h.size;
        ++s.records;
        return makeEvent<V>(data_m + off, off, tsc, h, s.pid, s.lastIp, cpu);
    }
    bool fail(std::uint64_t offset, std::string message);
    // At the end of a walk: when the file shrank while it was read (pages
    // read as zeros since), that becomes the cursor's error.
    void checkShrunk();

    const TraceReader* reader_m;
    const std::byte* data_m;       // the mapping
    std::vector<Stream> streams_m; // the CPUs, then the user streams
    // Index of the first user stream in streams_m (the CPU count), and
    // whether there is any: the walks that feed events without next()
    // (walk, walkByCpu) are for CPU streams only.
    std::size_t userFrom_m = 0;
    bool user_m = false;
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
    bool v2_m = false;      // the trace's records are version 2
    Event event_m;
    std::uint64_t index_m = 0;
    bool valid_m = false;
    std::optional<TraceError> error_m;
    std::optional<TraceError> pendingError_m; // found while peeking past event_m
};

} // namespace detail
} // namespace ltt
