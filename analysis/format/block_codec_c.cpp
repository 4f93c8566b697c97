// The C interface of the block codec (libltt/block_codec.h): the codec's
// frame and record checks, then the rules only a producer is held to
// (version 2: among them, each record's code is the one encodeRecord()
// picks).
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <libltt/block_codec.h>
#include <libltt/block_codec.hpp>

namespace {

using ltt::BlockInfo;
using ltt::BlockRecord;

// Records the first violation, "offset N: what".
[[gnu::format(printf, 3, 4)]] int fail(ltt_blocks_result* res, std::size_t off, const char* fmt,
                                       ...) {
    if (res->error[0])
        return -1;
    const int n = std::snprintf(res->error, sizeof res->error, "offset %zu: ", off);
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(res->error + n, sizeof res->error - static_cast<std::size_t>(n), fmt, ap);
    va_end(ap);
    return -1;
}

int failText(ltt_blocks_result* res, std::size_t off, const std::string& what) {
    return fail(res, off, "%s", what.c_str());
}

} // namespace

extern "C" std::size_t ltt_blocks_whole(const std::uint8_t* buf, std::size_t len,
                                        unsigned int version) {
    if (version != LTT_FORMAT_V1 && version != LTT_FORMAT_V2)
        return 0;
    return ltt::wholeBlockBytes(std::as_bytes(std::span(buf, len)));
}

extern "C" int ltt_blocks_check(const std::uint8_t* buf, std::size_t len, unsigned int version,
                                unsigned int ncpus, std::uint64_t anchor, unsigned int flags,
                                ltt_record_fn fn, void* arg, ltt_blocks_result* res) {
    std::uint32_t nextSeq[LTT_MAX_CPUS] = {};
    std::uint64_t lastTsc[LTT_MAX_CPUS] = {};
    const auto bytes = std::as_bytes(std::span(buf, len));
    std::memset(res, 0, sizeof *res);
    if (version != LTT_FORMAT_V1 && version != LTT_FORMAT_V2)
        return fail(res, 0, "unsupported format version %u", version);
    const bool v2 = version == LTT_FORMAT_V2;
    ltt::FrameRules rules;
    rules.version = version;
    rules.ncpus = ncpus < LTT_MAX_CPUS ? ncpus : LTT_MAX_CPUS;
    for (std::size_t off = 0; off < len;) {
        BlockInfo b;
        const auto block = bytes.subspan(off);
        if (const ltt::FrameFault f = ltt::parseFrame(block, rules, b);
            f.kind != ltt::FrameFault::None)
            return failText(res, off + f.at, f.message());
        ltt_block_start bs;
        std::memcpy(&bs, buf + off + sizeof(ltt_record_header), sizeof bs);
        const unsigned cpu = b.cpu;
        if (bs.reserved || (bs.flags & ~LTT_BLOCK_F_FINAL))
            return fail(res, off, "reserved bits set");
        if (res->final_blocks[cpu])
            return fail(res, off, "cpu %u: block after FINAL", cpu);
        if (b.sequence != nextSeq[cpu])
            return fail(res, off, "cpu %u: sequence %u, want %u", cpu, b.sequence, nextSeq[cpu]);
        ++nextSeq[cpu];
        ++res->nblocks[cpu];
        if (b.flags & LTT_BLOCK_F_FINAL)
            ++res->final_blocks[cpu];
        if (b.startTsc < anchor || b.startTsc < lastTsc[cpu])
            return fail(res, off, "cpu %u: start_tsc goes back", cpu);
        ++res->blocks;
        res->lost[cpu] += b.lost;
        res->lost_total += b.lost;

        // The producer's rules, record by record (the codec checked the
        // record's frame first).
        std::uint64_t base = b.startTsc, prev = b.startTsc, endTsc = 0, lastIp = 0;
        std::uint32_t endReserved = 0;
        int bad = 0;
        auto onRecord = [&](const BlockRecord& r) {
            if (bad)
                return;
            const std::size_t at = off + r.offset;
            const ltt_record_header& h = r.header; // as a version 1 record
            const auto details = r.details();
            ++res->records;
            if (v2) {
                res->bytes_by_code[r.code] += r.stored;
                // The code the producer's rules pick for this event.
                const ltt::EncodedRecord want = ltt::encodeRecord(
                    h.event, h.subtype, details.data(), details.size(), h.delta, lastIp);
                if (want.code != r.code) {
                    bad = r.code == LTT_CODE_EXT
                              ? fail(res, at, "EXT used where code %u fits", want.code)
                              : fail(res, at, "code %u used where the producer's choice is code %u",
                                     r.code, want.code);
                    return;
                }
                if (h.event == LTT_EV_SYSCALL_ENTRY && details.size() >= sizeof lastIp)
                    std::memcpy(&lastIp, details.data(), sizeof lastIp);
            }
            if (h.event == LTT_EV_HEARTBEAT) {
                ltt_ev_heartbeat hb{};
                if (h.size == sizeof h + sizeof hb)
                    std::memcpy(&hb, details.data(), sizeof hb);
                // Version 1: the delta counts from the previous base;
                // version 2: a heartbeat's delta is 0.
                const std::uint32_t delta = v2 ? 0 : static_cast<std::uint32_t>(hb.tsc - base);
                // The HEARTBEAT code's second word is zero.
                std::uint32_t pad = 0;
                if (r.code == LTT_CODE_HEARTBEAT)
                    std::memcpy(&pad, r.record + 4, sizeof pad);
                if (h.size != sizeof h + sizeof hb || delta != h.delta || pad != 0) {
                    bad = fail(res, at, "bad heartbeat");
                    return;
                }
                base = hb.tsc;
                ++res->heartbeats[cpu];
            }
            if (r.tsc < prev) {
                bad = fail(res, at, "time goes back");
                return;
            }
            prev = r.tsc;
            if (r.offset == ltt::kBlockStartRecord && b.lost) {
                ltt_ev_lost l{};
                if (h.size == sizeof h + sizeof l)
                    std::memcpy(&l, details.data(), sizeof l);
                if (h.event != LTT_EV_LOST || h.size != sizeof h + sizeof l || l.count != b.lost) {
                    bad = fail(res, at, "LOST record missing");
                    return;
                }
                if (!l.first_tsc || l.first_tsc > b.startTsc) {
                    bad = fail(res, at, "LOST first_tsc %" PRIu64, std::uint64_t{l.first_tsc});
                    return;
                }
                ++res->lost_records;
            } else if (r.offset != 0 && h.event == LTT_EV_LOST) {
                bad = fail(res, at, "misplaced LOST");
                return;
            }
            if (h.event == LTT_EV_TRACE_START) {
                if (b.sequence != 0 || r.offset != ltt::kBlockStartRecord ||
                    res->trace_start_seen) {
                    bad = fail(res, at, "misplaced TRACE_START");
                    return;
                }
                res->trace_start_seen = 1;
            }
            if (h.event == LTT_EV_BLOCK_END) {
                ltt_block_end be;
                std::memcpy(&be, details.data(), sizeof be);
                endTsc = be.end_tsc;
                endReserved = be.reserved;
            }
            const bool structure = h.event == LTT_EV_BLOCK_START || h.event == LTT_EV_BLOCK_END ||
                                   h.event == LTT_EV_HEARTBEAT || h.event == LTT_EV_LOST;
            if (!fn || (structure && !(flags & LTT_CHECK_ALL_RECORDS)))
                return;
            ltt_checked_record rec;
            rec.cpu = cpu;
            rec.tsc = r.tsc;
            rec.pid = r.pid;
            // The codec names the incoming task of a SCHEDCHANGE; it was
            // written while the outgoing one was current.
            if (h.event == LTT_EV_SCHEDCHANGE && h.size >= sizeof h + sizeof(ltt_ev_schedchange))
                std::memcpy(&rec.pid, details.data() + offsetof(ltt_ev_schedchange, out),
                            sizeof rec.pid);
            rec.event = h.event;
            rec.subtype = h.subtype;
            rec.size = h.size;
            rec.stored = r.stored;
            rec.code = r.code;
            rec.details = details.data();
            rec.block_length = b.length;
            fn(&rec, arg);
        };
        const ltt::RecordFault f = ltt::walkBlock(block, b, onRecord);
        if (bad)
            return -1;
        if (f.kind != ltt::RecordFault::None)
            return failText(res, off + f.at, f.message());
        if (endTsc < prev)
            return fail(res, off, "end_tsc before last record");
        if (endReserved)
            return fail(res, off, "BLOCK_END reserved set");
        lastTsc[cpu] = endTsc;
        off += b.length;
    }
    return 0;
}
