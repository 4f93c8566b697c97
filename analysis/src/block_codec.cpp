// The block codec: see block_codec.hpp. The messages are the reader's
// (TraceError texts, which the golden tests compare byte for byte).
#include <algorithm>
#include <libltt/block_codec.hpp>

namespace ltt {

std::string FrameFault::message() const {
    switch (kind) {
    case None:
        break;
    case NotBlockStart:
        return "expected BLOCK_START record, found event id " + std::to_string(value);
    case BadStartHeader:
        return "malformed BLOCK_START record header";
    case BadMagic:
        return "bad block magic";
    case BadLength:
        return "bad block length " + std::to_string(value);
    case PastEnd:
        return "block length " + std::to_string(value) + " runs past the end of the file (" +
               std::to_string(limit) + " bytes left)";
    case BadCpu:
        return "block CPU " + std::to_string(value) + " >= CPU count " + std::to_string(limit);
    case BadSequence:
        return "block sequence " + std::to_string(value) + " of CPU " + std::to_string(limit) +
               " does not follow " + std::to_string(last);
    case NoBlockEnd:
        return "block does not end with a BLOCK_END record";
    case BadEventCount:
        return "bad block event count " + std::to_string(value);
    case Short:
        return std::to_string(value) + " bytes left, too few for a block";
    }
    return "";
}

std::string RecordFault::message() const {
    switch (kind) {
    case None:
        break;
    case BadSize:
        return "bad record size " + std::to_string(value);
    case PastEnd:
        return "record of " + std::to_string(value) + " bytes runs past its block's BLOCK_END";
    case Structure:
        return "block structure record inside a block";
    case CountMismatch:
        return "block holds " + std::to_string(value) + " records but BLOCK_END says " +
               std::to_string(limit);
    }
    return "";
}

FrameFault checkBlockStart(const ltt_record_header& rh, const ltt_block_start& bs,
                           std::uint64_t left, const FrameRules& rules) {
    constexpr std::uint32_t d = sizeof(ltt_record_header);
    if (rh.event != LTT_EV_BLOCK_START)
        return {FrameFault::NotBlockStart, 4, rh.event};
    if (rh.size != kBlockStartRecord || rh.delta != 0)
        return {FrameFault::BadStartHeader, rh.delta != 0 ? 0u : 6u};
    if (bs.magic != LTT_BLOCK_MAGIC)
        return {FrameFault::BadMagic, d + offsetof(ltt_block_start, magic)};
    if (bs.length < kMinBlock || bs.length % LTT_RECORD_ALIGN != 0 || bs.length > rules.maxLength)
        return {FrameFault::BadLength, d + offsetof(ltt_block_start, length), bs.length};
    if (bs.length > left)
        return {FrameFault::PastEnd, d + offsetof(ltt_block_start, length), bs.length, left};
    if (bs.cpu >= rules.ncpus)
        return {FrameFault::BadCpu, d + offsetof(ltt_block_start, cpu), bs.cpu, rules.ncpus};
    if (!rules.lastSequence.empty() &&
        static_cast<std::int64_t>(bs.sequence) <= rules.lastSequence[bs.cpu])
        return {FrameFault::BadSequence, d + offsetof(ltt_block_start, sequence), bs.sequence,
                bs.cpu, rules.lastSequence[bs.cpu]};
    return {};
}

FrameFault checkBlockEnd(const ltt_block_start& bs, const ltt_record_header& eh,
                         const ltt_block_end& be, BlockInfo& out) {
    const std::uint32_t endOff = bs.length - kBlockEndRecord;
    if (eh.event != LTT_EV_BLOCK_END || eh.size != kBlockEndRecord)
        return {FrameFault::NoBlockEnd, endOff + 4};
    if (be.events < 2)
        return {FrameFault::BadEventCount,
                static_cast<std::uint32_t>(endOff + sizeof eh + offsetof(ltt_block_end, events)),
                be.events};
    out.length = bs.length;
    out.sequence = bs.sequence;
    out.cpu = bs.cpu;
    out.flags = bs.flags;
    out.pid = bs.pid;
    out.startTsc = bs.start_tsc;
    out.endTsc = std::max(be.end_tsc, bs.start_tsc);
    out.lost = bs.lost;
    out.records = be.events;
    return {};
}

FrameFault parseFrame(std::span<const std::byte> bytes, const FrameRules& rules, BlockInfo& out) {
    if (bytes.size() < kMinBlock)
        return {FrameFault::Short, 0, bytes.size()};
    ltt_record_header rh, eh;
    ltt_block_start bs;
    ltt_block_end be;
    std::memcpy(&rh, bytes.data(), sizeof rh);
    std::memcpy(&bs, bytes.data() + sizeof rh, sizeof bs);
    if (FrameFault f = checkBlockStart(rh, bs, bytes.size(), rules); f.kind != FrameFault::None)
        return f;
    const std::byte* end = bytes.data() + bs.length - kBlockEndRecord;
    std::memcpy(&eh, end, sizeof eh);
    std::memcpy(&be, end + sizeof eh, sizeof be);
    return checkBlockEnd(bs, eh, be, out);
}

std::size_t wholeBlockBytes(std::span<const std::byte> bytes) {
    std::size_t whole = 0;
    while (whole + kBlockLengthAt + sizeof(std::uint32_t) <= bytes.size()) {
        std::uint32_t length;
        std::memcpy(&length, bytes.data() + whole + kBlockLengthAt, sizeof length);
        if (length < kBlockStartRecord || length > bytes.size() - whole)
            break;
        whole += length;
    }
    return whole;
}

// ---------------------------------------------------------------- BlockBuilder

void BlockBuilder::put(std::uint32_t delta, std::uint8_t id, std::uint8_t subtype,
                       const void* details, std::size_t n) {
    const std::size_t size =
        (sizeof(ltt_record_header) + n + LTT_RECORD_ALIGN - 1) & ~std::size_t{LTT_RECORD_ALIGN - 1};
    const ltt_record_header h{delta, id, subtype, static_cast<std::uint16_t>(size)};
    const std::size_t at = bytes_m.size();
    bytes_m.resize(at + size);
    std::memcpy(bytes_m.data() + at, &h, sizeof h);
    if (n)
        std::memcpy(bytes_m.data() + at + sizeof h, details, n);
    ++records_m;
}

void BlockBuilder::start(std::uint16_t cpu, std::uint32_t sequence, std::uint64_t startTsc,
                         std::int32_t pid, std::uint64_t lost, std::uint64_t lostFirstTsc) {
    clear();
    base_m = startTsc;
    ltt_block_start bs{};
    bs.magic = LTT_BLOCK_MAGIC;
    bs.start_tsc = startTsc;
    bs.lost = lost;
    bs.sequence = sequence;
    bs.cpu = cpu;
    bs.pid = pid;
    put(0, LTT_EV_BLOCK_START, 0, &bs, sizeof bs);
    if (lost) {
        const ltt_ev_lost l{lost, lostFirstTsc};
        put(0, LTT_EV_LOST, 0, &l, sizeof l);
    }
}

void BlockBuilder::record(std::uint64_t tsc, std::uint8_t id, std::uint8_t subtype,
                          const void* details, std::size_t n) {
    put(static_cast<std::uint32_t>(tsc - base_m), id, subtype, details, n);
}

void BlockBuilder::heartbeat(std::uint64_t tsc) {
    const ltt_ev_heartbeat hb{tsc};
    record(tsc, LTT_EV_HEARTBEAT, 0, hb);
    base_m = tsc;
}

std::span<const std::byte> BlockBuilder::finish(std::uint64_t endTsc, std::uint16_t flags) {
    const ltt_block_end be{endTsc, records_m + 1, 0};
    record(endTsc, LTT_EV_BLOCK_END, 0, be);
    const auto length = static_cast<std::uint32_t>(bytes_m.size());
    std::memcpy(bytes_m.data() + kBlockLengthAt, &length, sizeof length);
    std::memcpy(bytes_m.data() + sizeof(ltt_record_header) + offsetof(ltt_block_start, flags),
                &flags, sizeof flags);
    return bytes_m;
}

} // namespace ltt
