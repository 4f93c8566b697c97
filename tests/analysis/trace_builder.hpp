// TraceBuilder: assembles .trace bytes in memory for unit tests, one block at
// a time, with every field under the test's control (so tests can also
// write exactly the corruption they check for).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ltt/abi.h>
#include <vector>

namespace ltt::test {

class TraceBuilder {
public:
    // khz 1000000: one tick is one nanosecond, which keeps expected times
    // readable.
    explicit TraceBuilder(std::uint32_t ncpus = 2, std::uint64_t khz = 1000000,
                          std::uint64_t anchor = 1000) {
        std::memset(&header_m, 0, sizeof header_m);
        std::memcpy(header_m.magic, LTT_FILE_MAGIC, 8);
        header_m.endian = LTT_ENDIAN_MARK;
        header_m.version = LTT_FILE_VERSION;
        header_m.header_size = sizeof header_m;
        header_m.abi_version = LTT_ABI_VERSION;
        header_m.ncpus = ncpus;
        header_m.tsc_khz = khz;
        header_m.anchor_tsc = anchor;
        header_m.anchor_realtime_ns = 1000000000ull * 1000000000ull;
        header_m.config.event_mask = LTT_EV_MASK_ALL | LTT_EV_MASK_STRUCTURE;
        header_m.config.details_mask = LTT_EV_MASK_ALL | LTT_EV_MASK_STRUCTURE;
        std::strcpy(header_m.producer, "unit test");
    }
    ltt_file_header& header() { return header_m; }

    TraceBuilder& block(std::uint16_t cpu, std::uint64_t tsc, std::int32_t pid,
                        std::uint64_t lost = 0, std::uint32_t sequence = ~0u) {
        cur_m.clear();
        records_m = 0;
        base_m = tsc;
        ltt_block_start bs{};
        bs.magic = LTT_BLOCK_MAGIC;
        bs.start_tsc = tsc;
        bs.lost = lost;
        bs.sequence = sequence == ~0u ? seq_m[cpu]++ : sequence;
        bs.cpu = cpu;
        bs.pid = pid;
        raw(0, LTT_EV_BLOCK_START, 0, &bs, sizeof bs);
        if (lost) {
            ltt_ev_lost l{lost, tsc};
            raw(0, LTT_EV_LOST, 0, &l, sizeof l);
        }
        return *this;
    }
    template <class T>
    TraceBuilder& ev(std::uint64_t tsc, std::uint8_t id, std::uint8_t sub, const T& d) {
        return evBytes(tsc, id, sub, &d, sizeof d);
    }
    TraceBuilder& ev(std::uint64_t tsc, std::uint8_t id, std::uint8_t sub = 0) {
        return evBytes(tsc, id, sub, nullptr, 0);
    }
    TraceBuilder& evBytes(std::uint64_t tsc, std::uint8_t id, std::uint8_t sub, const void* d,
                          std::size_t n) {
        raw(static_cast<std::uint32_t>(tsc - base_m), id, sub, d, n);
        return *this;
    }
    TraceBuilder& heartbeat(std::uint64_t tsc) {
        ltt_ev_heartbeat hb{tsc};
        raw(static_cast<std::uint32_t>(tsc - base_m), LTT_EV_HEARTBEAT, 0, &hb, sizeof hb);
        base_m = tsc;
        return *this;
    }
    // Closes the block and appends it to the file.
    TraceBuilder& end(std::uint64_t tsc) {
        ltt_block_end be{tsc, records_m + 1, 0};
        raw(static_cast<std::uint32_t>(tsc - base_m), LTT_EV_BLOCK_END, 0, &be, sizeof be);
        const std::uint32_t len = static_cast<std::uint32_t>(cur_m.size());
        std::memcpy(cur_m.data() + 8 + offsetof(ltt_block_start, length), &len, 4);
        blockOffsets.push_back(body_m.size() + sizeof header_m);
        body_m.insert(body_m.end(), cur_m.begin(), cur_m.end());
        return *this;
    }
    std::vector<std::byte> bytes() const {
        std::vector<std::byte> out(sizeof header_m + body_m.size());
        std::memcpy(out.data(), &header_m, sizeof header_m);
        if (!body_m.empty())
            std::memcpy(out.data() + sizeof header_m, body_m.data(), body_m.size());
        return out;
    }
    std::vector<std::size_t> blockOffsets; // file offsets of the blocks

private:
    void raw(std::uint32_t delta, std::uint8_t id, std::uint8_t sub, const void* d, std::size_t n) {
        const std::size_t size = (8 + n + 7) & ~std::size_t(7);
        ltt_record_header h{delta, id, sub, static_cast<std::uint16_t>(size)};
        const std::size_t at = cur_m.size();
        cur_m.resize(at + size);
        std::memcpy(cur_m.data() + at, &h, 8);
        if (n)
            std::memcpy(cur_m.data() + at + 8, d, n);
        ++records_m;
    }
    ltt_file_header header_m;
    std::vector<std::byte> body_m, cur_m;
    std::uint32_t records_m = 0;
    std::uint64_t base_m = 0;
    std::uint32_t seq_m[LTT_MAX_CPUS] = {};
};

template <class T> void poke(std::vector<std::byte>& b, std::size_t off, T v) {
    std::memcpy(b.data() + off, &v, sizeof v);
}

} // namespace ltt::test
