// The walks of ltt::TraceCursor: next()'s merge step and the loops behind
// forEach and forEachByCpu, templates so that the consumer inlines into the
// loop. Not part of libltt's interface; included at the end of
// libltt/trace_reader.hpp.
#pragma once

namespace ltt {
namespace detail {

// k-way merge: the smallest next time wins, ties go to the lower CPU; the
// loser tree finds it in log2(CPUs) comparisons.
template <unsigned V> inline bool CursorCore::nextEventAs() {
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
    event_m = take<V>(s, static_cast<std::uint16_t>(cpu), s.nextTsc);
    if (static_cast<std::size_t>(cpu) >= userFrom_m) [[unlikely]]
        reader_m->markUser(event_m, static_cast<std::size_t>(cpu));
    ++index_m;
    valid_m = true;
    // Common case: the next record is an ordinary one of the same block
    // (the codec's ordinaryRecord(); peek() handles everything else).
    if (s.offset < s.endRecord) [[likely]] {
        s.next = recordHead<V>(data_m + s.blockOffset + s.offset);
        if (ordinaryRecord<V>(s.next, s.offset, s.endRecord)) [[likely]] {
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

// The loop of nextEvent() for a fixed number of merge keys N (the CPUs padded
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
template <int N, unsigned V, class F, class T>
[[gnu::noinline]] void CursorCore::walk(F& fn, std::uint64_t tickMask, T& tick) {
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
        const ltt_record_header h = recordHead<V>(data + s.blockOffset + o);
        if (ordinaryRecord<V>(h, o, s.endRecord)) [[likely]] {
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
            // A heartbeat head moves the base when it is taken (version 2:
            // every head does).
            lookAhead(i,
                      V != LTT_FORMAT_V1 || s.next.event == LTT_EV_HEARTBEAT ? s.nextTsc : s.base);
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
        const auto e = take<V>(s, static_cast<std::uint16_t>(cpu), tsc);
        const Ahead& a = ahead[cpu];
        if (a.h.size != 0) [[likely]] {
            // The next record was decoded: it is the new head (an ordinary
            // record: version 1's base stays; version 2's is the head's
            // time). s.nextTsc is left stale until the walk ends.
            key[cpu] = a.key;
            s.next = a.h;
            lookAhead(static_cast<std::size_t>(cpu),
                      V != LTT_FORMAT_V1 ? (a.key >> S) + t0 : s.base);
        } else {
            // A heartbeat, the block's end, the next block, or damage.
            advanceSlow(static_cast<std::uint16_t>(cpu));
            const std::uint64_t next = stopped_m ? kNoTsc : s.nextTsc;
            key[cpu] = pack(next, static_cast<std::size_t>(cpu));
            if (key[cpu] != kEnd)
                lookAhead(static_cast<std::size_t>(cpu),
                          V != LTT_FORMAT_V1 || s.next.event == LTT_EV_HEARTBEAT ? next : s.base);
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
template <int N, unsigned V, class F, class R, class B, class D, class T>
[[gnu::noinline]] void CursorCore::walkByCpu(F& fn, R& fRunFn, B& isBarrierFn, D& depsFn,
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
        return walk<N, V>(fn, tickMask, tick); // a walk that ends, or leaves, at once
    F f = fn;                                  // local copies the compiler can keep in registers
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
        // Version 2: the time of the record before the one being read.
        std::uint64_t base = V != LTT_FORMAT_V1 || h.event == LTT_EV_HEARTBEAT ? s.nextTsc : s.base;
        std::uint64_t m = std::max(fed[c], (s.nextTsc - t0) << S | c);
        // The search is the first to read a stream's records, one load
        // waiting on the size the one before gave: ask for the cache lines
        // a few segments on (about what a segment spans), so that the
        // loads of later searches find them there.
        for (std::uint32_t line = 0; line < 4; ++line)
            __builtin_prefetch(blk + o + 4096 + std::size_t{64} * line);
        for (;;) {
            const std::uint64_t o2 = std::uint64_t{o} + h.size;
            ltt_record_header h2;
            std::uint64_t rel = kEnd;
            bool ordinary = false;
            if (o2 < endRecord) [[likely]] {
                h2 = recordHead<V>(blk + o2);
                rel = base + h2.delta - t0;
                // (The time first: GCC's code for the loop is shorter so.)
                ordinary = rel <= kMaxRel && ordinaryRecord<V>(h2, o2, endRecord);
            }
            if (!ordinary || inOrder || isBarrier(h)) [[unlikely]] {
                bar[c] = m;
                barOff[c] = o;
                barSlow[c] = !ordinary;
                return;
            }
            o = static_cast<std::uint32_t>(o2); // below endRecord
            h = h2;
            if constexpr (V != LTT_FORMAT_V1)
                base += h2.delta;
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
        std::uint64_t lastIp = s.lastIp;
        std::uint32_t records = s.records;
        auto g = fRun(static_cast<std::uint16_t>(c));
        // Only the head can be a heartbeat (a segment ends before one). Its
        // time is the base of what follows, so setting it before the head
        // is fed changes nothing even if a catch-up stops at the head.
        if (V == LTT_FORMAT_V1 && h.event == LTT_EV_HEARTBEAT) [[unlikely]]
            base = tsc;
        // Whether a catch-up stops at the record of time t: at the first
        // whose key (running maximum) is not below `limit`.
        auto stopsCatchUp = [&](std::uint64_t t) __attribute__((always_inline)) {
            if constexpr (CatchUp) {
                const std::uint64_t k = std::max(m, (t - t0) << S | c);
                if (k >= limit)
                    return true;
                m = k;
            }
            return false;
        };
        if constexpr (V != LTT_FORMAT_V1) {
            // Version 2: each record's header word is read once, and a
            // record whose size its low bits give (all but EXT and
            // TRAP_ENTRY, which take the head) is decoded from the word
            // alone (decodeCompact()); the next record's delta comes from
            // its word too. (A run holds no number that is no code, and a
            // heartbeat only as its head, whose time the stream has.)
            std::uint32_t w;
            std::memcpy(&w, blk + o, sizeof w);
            do {
                if (stopsCatchUp(tsc))
                    break;
                const std::byte* const p = blk + o;
                EventOf<V> e;
                e.record = p;
                e.offset = blockOffset + o;
                e.tsc = tsc;
                e.cpu = static_cast<std::uint16_t>(c);
                DecodedRecord d;
                if (LTT_CODE_SIZE_APART(w)) [[unlikely]]
                    d = decodeRecord<V>(p, recordHead<V>(p), lastIp, pid, e.expanded);
                else
                    d = decodeCompact(p, w, static_cast<std::uint16_t>(4 * ((w & 3) + 1)), lastIp,
                                      pid, e.expanded);
                e.size = d.size;
                e.id = d.event;
                e.subtype = d.subtype;
                e.code = d.code;
                e.pid = pid;
                o += d.stored;
                ++records;
                std::memcpy(&w, blk + o, sizeof w); // at most the barrier: in the block
                base = tsc;
                tsc += w >> kCodes[w & LTT_CODE_MASK].shift; // the delta, as recordHead()
                g(e);
            } while (o < until);
            h = recordHead<V>(blk + o);
        } else {
            do {
                if (stopsCatchUp(tsc))
                    break;
                const auto e = makeEvent<V>(blk + o, blockOffset + o, tsc, h, pid, lastIp,
                                            static_cast<std::uint16_t>(c));
                o += h.size;
                ++records;
                h = recordHead<V>(blk + o); // at most the barrier: in the block
                tsc = base + h.delta;
                g(e);
            } while (o < until);
        }
        const std::uint64_t before = n;
        n += records - s.records;
        s.offset = o;
        s.next = h;
        s.nextTsc = tsc;
        s.base = base;
        s.pid = pid;
        s.lastIp = lastIp;
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
        const auto e = take<V>(s, static_cast<std::uint16_t>(g), s.nextTsc);
        fed[g] = key;
        std::uint32_t need = 0;
        if (!barSlow[g]) [[likely]] {
            s.next = recordHead<V>(data + s.blockOffset + s.offset);
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

} // namespace detail

template <class F, class R, class B, class D, class T>
void TraceCursor::forEachByCpu(F&& f, R&& fRun, B&& isBarrier, D&& deps, std::uint64_t tickMask,
                               T&& tick) {
    if (!valid_m)
        return;
    if (scan_m && !user_m) {
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
    // With user streams every event goes through next(), which marks
    // theirs (the walks below know CPU streams only).
    if (scan_m && !user_m) {
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
