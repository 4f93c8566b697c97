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
    case BadUserSequence:
        return "block sequence " + std::to_string(value) + " of user stream " +
               std::to_string(limit) + " does not follow " + std::to_string(last);
    case UserInV1:
        return "user block in a version 1 trace";
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
    case BadCode:
        return "bad record code " + std::to_string(value);
    case TimeBack:
        return "heartbeat time " + std::to_string(value) + " is before the previous record's " +
               std::to_string(limit);
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
    // The first word: version 1, a delta of 0; version 2, the EXT code
    // with a delta of 0.
    const std::uint32_t first = rules.version == LTT_FORMAT_V1 ? 0 : LTT_CODE_EXT;
    if (rh.size != kBlockStartRecord || rh.delta != first)
        return {FrameFault::BadStartHeader, rh.delta != first ? 0u : 6u};
    if (bs.magic != LTT_BLOCK_MAGIC)
        return {FrameFault::BadMagic, d + offsetof(ltt_block_start, magic)};
    if (bs.length < kMinBlock || bs.length % recordAlign(rules.version) != 0 ||
        bs.length > rules.maxLength)
        return {FrameFault::BadLength, d + offsetof(ltt_block_start, length), bs.length};
    if (bs.length > left)
        return {FrameFault::PastEnd, d + offsetof(ltt_block_start, length), bs.length, left};
    if ((bs.flags & LTT_BLOCK_F_USER) && rules.userStreams) {
        // A user stream's block: its own numbering, its own sequences.
        if (rules.version == LTT_FORMAT_V1)
            return {FrameFault::UserInV1, d + offsetof(ltt_block_start, flags), bs.flags};
        const std::int64_t last = bs.cpu < rules.lastUserSequence.size()
                                      ? rules.lastUserSequence[bs.cpu]
                                      : std::int64_t{-1};
        if (!rules.lastSequence.empty() && static_cast<std::int64_t>(bs.sequence) <= last)
            return {FrameFault::BadUserSequence, d + offsetof(ltt_block_start, sequence),
                    bs.sequence, bs.cpu, last};
        return {};
    }
    if (bs.cpu >= rules.ncpus)
        return {FrameFault::BadCpu, d + offsetof(ltt_block_start, cpu), bs.cpu, rules.ncpus};
    if (!rules.lastSequence.empty() &&
        static_cast<std::int64_t>(bs.sequence) <= rules.lastSequence[bs.cpu])
        return {FrameFault::BadSequence, d + offsetof(ltt_block_start, sequence), bs.sequence,
                bs.cpu, rules.lastSequence[bs.cpu]};
    return {};
}

FrameFault checkBlockEnd(const ltt_block_start& bs, const ltt_record_header& eh,
                         const ltt_block_end& be, unsigned version, BlockInfo& out) {
    const std::uint32_t endOff = bs.length - kBlockEndRecord;
    if (eh.event != LTT_EV_BLOCK_END || eh.size != kBlockEndRecord ||
        (version != LTT_FORMAT_V1 && (eh.delta & LTT_CODE_MASK) != LTT_CODE_EXT))
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
    out.version = static_cast<std::uint8_t>(version);
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
    return checkBlockEnd(bs, eh, be, rules.version, out);
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

// ---------------------------------------------------------------- encodeRecord

namespace {

template <class T> bool whole(const void* details, std::size_t n, T& out) {
    if (n != sizeof out || details == nullptr)
        return false;
    std::memcpy(&out, details, sizeof out);
    return true;
}

template <class T> void store(EncodedRecord& r, std::size_t at, const T& v) {
    std::memcpy(r.bytes + at, &v, sizeof v);
}

bool fitsS32(std::int64_t v) {
    return v >= INT32_MIN && v <= INT32_MAX;
}

} // namespace

EncodedRecord encodeRecord(std::uint8_t id, std::uint8_t subtype, const void* details,
                           std::size_t n, std::uint32_t delta, std::uint64_t lastIp) {
    EncodedRecord r;
    const bool shortDelta = delta <= LTT_SHORT_DELTA_MAX;
    if (id == LTT_EV_HEARTBEAT)
        delta = 0; // a heartbeat carries its time whole
    std::uint32_t arg = 0;
    auto pick = [&](std::uint8_t code) {
        r.code = code;
        r.size = static_cast<std::uint16_t>(storedSize(code));
        store(r, 0,
              LTT_CODE_SHORT(code) ? std::uint32_t{LTT_SHORT_WORD(code, arg, delta)}
                                   : std::uint32_t{LTT_LONG_WORD(code, delta)});
        return true;
    };
    switch (id) {
    case LTT_EV_HEARTBEAT: {
        ltt_ev_heartbeat d;
        if (subtype == 0 && whole(details, n, d) && pick(LTT_CODE_HEARTBEAT))
            store(r, 8, d.tsc); // after a zero word
        break;
    }
    case LTT_EV_SYSCALL_ENTRY: {
        ltt_ev_syscall_entry d;
        if (subtype != 0 || !whole(details, n, d) || d.reserved != 0)
            break;
        const auto near = static_cast<std::int64_t>(d.ip - lastIp);
        if (d.ip == lastIp && d.nr <= LTT_SHORT_ARG_MAX && shortDelta) {
            arg = d.nr;
            pick(LTT_CODE_SYS_ENTRY_SHORT);
        } else if (d.ip == lastIp) {
            pick(LTT_CODE_SYS_ENTRY_SAME);
            store(r, 4, d.nr);
        } else if (fitsS32(near)) {
            pick(LTT_CODE_SYS_ENTRY_NEAR);
            store(r, 4, d.nr);
            store(r, 8, static_cast<std::int32_t>(near));
        } else {
            pick(LTT_CODE_SYS_ENTRY);
            store(r, 4, d.nr);
            store(r, 8, d.ip);
        }
        break;
    }
    case LTT_EV_SYSCALL_EXIT: {
        ltt_ev_syscall_exit d;
        if (subtype != 0 || !whole(details, n, d))
            break;
        if (d.ret >= -256 && d.ret <= 255 && shortDelta) {
            arg = static_cast<std::uint32_t>(d.ret);
            pick(LTT_CODE_SYS_EXIT_SHORT);
        } else if (fitsS32(d.ret)) {
            pick(LTT_CODE_SYS_EXIT_MID);
            store(r, 4, static_cast<std::int32_t>(d.ret));
        } else {
            pick(LTT_CODE_SYS_EXIT);
            store(r, 4, d.ret);
        }
        break;
    }
    case LTT_EV_TRAP_ENTRY: {
        ltt_ev_trap_entry d;
        if (subtype == 0 && whole(details, n, d) && d.trap < 256 &&
            d.error_code < (1u << LTT_TRAP_ERROR_BITS) && pick(LTT_CODE_TRAP_ENTRY)) {
            store(r, 4, d.trap | d.error_code << 8);
            store(r, 8, d.ip);
            store(r, 16, d.address);
        }
        break;
    }
    case LTT_EV_IRQ_ENTRY: {
        ltt_ev_irq_entry d;
        if (subtype == 0 && whole(details, n, d) && d.irq < (1u << LTT_IRQ_NUMBER_BITS) &&
            d.flags < 256 && pick(LTT_CODE_IRQ_ENTRY))
            store(r, 4, d.irq | d.flags << 24);
        break;
    }
    case LTT_EV_TRAP_EXIT:
    case LTT_EV_IRQ_EXIT:
    case LTT_EV_KERNEL_TIMER:
        if (subtype == 0 && n == 0)
            pick(id == LTT_EV_TRAP_EXIT  ? LTT_CODE_TRAP_EXIT
                 : id == LTT_EV_IRQ_EXIT ? LTT_CODE_IRQ_EXIT
                                         : LTT_CODE_KERNEL_TIMER);
        break;
    case LTT_EV_SCHEDCHANGE: {
        ltt_ev_schedchange d;
        constexpr std::int32_t pidLimit = 1 << LTT_SCHED_PID_BITS;
        if (subtype == 0 && whole(details, n, d) && d.reserved == 0 && d.in >= 0 &&
            d.in < pidLimit && d.out >= 0 && d.out < pidLimit &&
            d.out_state < (1u << LTT_SCHED_STATE_BITS) && pick(LTT_CODE_SCHED))
            store(r, 4,
                  std::uint64_t(std::uint32_t(d.in)) | std::uint64_t(std::uint32_t(d.out)) << 22 |
                      std::uint64_t(d.out_state) << 44);
        break;
    }
    case LTT_EV_SOFT_IRQ: {
        ltt_ev_soft_irq d;
        if ((subtype == LTT_SOFTIRQ_ENTRY || subtype == LTT_SOFTIRQ_EXIT) && whole(details, n, d) &&
            d.id <= LTT_SHORT_ARG_MAX && shortDelta) {
            arg = static_cast<std::uint32_t>(d.id);
            pick(subtype == LTT_SOFTIRQ_ENTRY ? LTT_CODE_SOFTIRQ_ENTRY : LTT_CODE_SOFTIRQ_EXIT);
        }
        break;
    }
    case LTT_EV_PROCESS: {
        ltt_ev_process d;
        if (subtype == LTT_PROCESS_WAKEUP && whole(details, n, d) && d.reserved == 0 &&
            d.pid >= 0 && d.arg <= UINT32_MAX && pick(LTT_CODE_WAKEUP)) {
            store(r, 4, d.pid);
            store(r, 8, static_cast<std::uint32_t>(d.arg));
        }
        break;
    }
    case LTT_EV_FILE_SYSTEM: {
        if (n != LTT_EV_FS_FIXED || details == nullptr)
            break;
        std::int32_t fd;
        std::uint32_t aux;
        std::int64_t value;
        std::memcpy(&fd, details, sizeof fd);
        std::memcpy(&aux, static_cast<const char*>(details) + 4, sizeof aux);
        std::memcpy(&value, static_cast<const char*>(details) + 8, sizeof value);
        if (aux != 0)
            break;
        if ((subtype == LTT_FS_READ || subtype == LTT_FS_WRITE) && fitsS32(value) &&
            pick(subtype == LTT_FS_READ ? LTT_CODE_FS_READ : LTT_CODE_FS_WRITE)) {
            store(r, 4, fd);
            store(r, 8, static_cast<std::int32_t>(value));
        } else if (subtype == LTT_FS_CLOSE && value == 0 && pick(LTT_CODE_FS_CLOSE)) {
            store(r, 4, fd);
        }
        break;
    }
    case LTT_EV_MEMORY: {
        ltt_ev_memory d;
        if ((subtype == LTT_MEM_PAGE_ALLOC || subtype == LTT_MEM_PAGE_FREE) &&
            whole(details, n, d) && (d.address & LTT_PAGE_ORDER_MASK) == 0 &&
            d.arg <= LTT_PAGE_ORDER_MASK &&
            pick(subtype == LTT_MEM_PAGE_ALLOC ? LTT_CODE_PAGE_ALLOC : LTT_CODE_PAGE_FREE))
            store(r, 4, d.address | d.arg);
        break;
    }
    default:
        break;
    }
    return r;
}

// ---------------------------------------------------------------- BlockBuilder

void BlockBuilder::put(std::uint32_t delta, std::uint8_t id, std::uint8_t subtype,
                       const void* details, std::size_t n) {
    const std::size_t align = recordAlign(version_m);
    const std::size_t size = (sizeof(ltt_record_header) + n + align - 1) & ~(align - 1);
    const std::uint32_t first =
        version_m == LTT_FORMAT_V1 ? delta : std::uint32_t{LTT_LONG_WORD(LTT_CODE_EXT, delta)};
    const ltt_record_header h{first, id, subtype, static_cast<std::uint16_t>(size)};
    const std::size_t at = bytes_m.size();
    bytes_m.resize(at + size);
    std::memcpy(bytes_m.data() + at, &h, sizeof h);
    if (n)
        std::memcpy(bytes_m.data() + at + sizeof h, details, n);
    if (version_m != LTT_FORMAT_V1 && id == LTT_EV_SYSCALL_ENTRY && n >= sizeof lastIp_m)
        std::memcpy(&lastIp_m, details, sizeof lastIp_m);
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

// The delta of a record of time `tsc`. Version 2: from the previous record,
// after a heartbeat when it does not fit 27 bits (a time before the previous
// record's is cut, as version 1 cuts any delta: a damaged block).
std::uint32_t BlockBuilder::deltaTo(std::uint64_t tsc) {
    if (version_m != LTT_FORMAT_V1 && tsc >= base_m && tsc - base_m > LTT_LONG_DELTA_MAX)
        heartbeat(tsc);
    const auto delta = static_cast<std::uint32_t>(tsc - base_m);
    if (version_m != LTT_FORMAT_V1)
        base_m = tsc;
    return version_m == LTT_FORMAT_V1 ? delta : delta & LTT_LONG_DELTA_MAX;
}

void BlockBuilder::record(std::uint64_t tsc, std::uint8_t id, std::uint8_t subtype,
                          const void* details, std::size_t n) {
    if (version_m == LTT_FORMAT_V1)
        return put(deltaTo(tsc), id, subtype, details, n);
    const std::uint64_t lastIp = lastIp_m;
    const std::uint32_t delta = deltaTo(tsc);
    const EncodedRecord r = encodeRecord(id, subtype, details, n, delta, lastIp);
    if (r.code == LTT_CODE_EXT)
        return put(delta, id, subtype, details, n);
    bytes_m.insert(bytes_m.end(), r.bytes, r.bytes + r.size);
    if (id == LTT_EV_SYSCALL_ENTRY) // whole details: the ip is the new last_ip
        std::memcpy(&lastIp_m, details, sizeof lastIp_m);
    ++records_m;
}

void BlockBuilder::extRecord(std::uint64_t tsc, std::uint8_t id, std::uint8_t subtype,
                             const void* details, std::size_t n) {
    put(deltaTo(tsc), id, subtype, details, n);
}

void BlockBuilder::heartbeat(std::uint64_t tsc) {
    const ltt_ev_heartbeat hb{tsc};
    if (version_m == LTT_FORMAT_V1) {
        record(tsc, LTT_EV_HEARTBEAT, 0, hb);
        base_m = tsc;
        return;
    }
    const EncodedRecord r = encodeRecord(LTT_EV_HEARTBEAT, 0, &hb, sizeof hb, 0, lastIp_m);
    bytes_m.insert(bytes_m.end(), r.bytes, r.bytes + r.size);
    ++records_m;
    base_m = tsc;
}

std::span<const std::byte> BlockBuilder::finish(std::uint64_t endTsc, std::uint16_t flags,
                                                std::optional<std::uint64_t> recordTsc) {
    const std::uint32_t delta = deltaTo(recordTsc.value_or(endTsc));
    const ltt_block_end be{endTsc, records_m + 1, 0};
    put(delta, LTT_EV_BLOCK_END, 0, &be, sizeof be);
    const auto length = static_cast<std::uint32_t>(bytes_m.size());
    std::memcpy(bytes_m.data() + kBlockLengthAt, &length, sizeof length);
    std::memcpy(bytes_m.data() + sizeof(ltt_record_header) + offsetof(ltt_block_start, flags),
                &flags, sizeof flags);
    return bytes_m;
}

} // namespace ltt
