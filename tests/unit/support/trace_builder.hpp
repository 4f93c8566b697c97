// TraceBuilder: assembles .trace bytes in memory for unit tests, one block at
// a time with libltt's BlockBuilder, with every field under the test's
// control (so tests can also write exactly the corruption they check for).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <libltt/block_codec.hpp>
#include <libltt/trace_reader.hpp>
#include <ltt/abi.h>
#include <memory>
#include <span>
#include <vector>

namespace ltt::test {

// The format version traces are built in unless a test names one:
// LTT_TEST_FORMAT=1 or 2 in the environment (suite 10 runs the unit tests
// once with each), else the version producers write.
inline unsigned defaultFormat() {
    const char* v = std::getenv("LTT_TEST_FORMAT");
    return v && v[0] == '1' && v[1] == 0 ? LTT_FORMAT_V1 : LTT_FILE_VERSION;
}

class TraceBuilder {
public:
    // khz 1000000: one tick is one nanosecond, which keeps expected times
    // readable.
    explicit TraceBuilder(std::uint32_t ncpus = 2, std::uint64_t khz = 1000000,
                          std::uint64_t anchor = 1000, unsigned version = defaultFormat())
        : block_m(version) {
        std::memset(&header_m, 0, sizeof header_m);
        std::memcpy(header_m.magic, LTT_FILE_MAGIC, 8);
        header_m.endian = LTT_ENDIAN_MARK;
        header_m.version = static_cast<std::uint16_t>(version);
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
        block_m.start(cpu, sequence == ~0u ? seq_m[cpu]++ : sequence, tsc, pid, lost, tsc);
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
        block_m.record(tsc, id, sub, d, n);
        return *this;
    }
    // As ev(), but an EXT record whatever fits (version 2).
    TraceBuilder& extBytes(std::uint64_t tsc, std::uint8_t id, std::uint8_t sub, const void* d,
                           std::size_t n) {
        block_m.extRecord(tsc, id, sub, d, n);
        return *this;
    }
    unsigned version() const { return block_m.version(); }
    TraceBuilder& heartbeat(std::uint64_t tsc) {
        block_m.heartbeat(tsc);
        return *this;
    }
    // A block of user stream `stream` (LTT_BLOCK_F_USER, set by endUser()):
    // its sequence numbers are the test's to give.
    TraceBuilder& userBlock(std::uint16_t stream, std::uint32_t sequence, std::uint64_t tsc,
                            std::int32_t tid, std::uint64_t lost = 0) {
        block_m.start(stream, sequence, tsc, tid, lost, tsc);
        return *this;
    }
    TraceBuilder& endUser(std::uint64_t tsc, bool final = true) {
        return end(tsc,
                   static_cast<std::uint16_t>(LTT_BLOCK_F_USER | (final ? LTT_BLOCK_F_FINAL : 0)));
    }
    // Closes the block and appends it to the file.
    TraceBuilder& end(std::uint64_t tsc, std::uint16_t flags = 0) {
        const std::span<const std::byte> b = block_m.finish(tsc, flags);
        blockOffsets.push_back(body_m.size() + sizeof header_m);
        body_m.insert(body_m.end(), b.begin(), b.end());
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
    ltt_file_header header_m;
    BlockBuilder block_m;
    std::vector<std::byte> body_m;
    std::uint32_t seq_m[LTT_MAX_CPUS] = {};
};

// A trace held in memory and the reader of it (null, with `error`, when it
// does not open).
struct Opened {
    std::vector<std::byte> bytes;
    std::unique_ptr<TraceReader> reader;
    TraceError error;
};
inline Opened open(std::vector<std::byte> bytes) {
    Opened o;
    o.bytes = std::move(bytes);
    o.reader = TraceReader::openMemory(o.bytes, "t.trace", &o.error);
    return o;
}

template <class T> void poke(std::vector<std::byte>& b, std::size_t off, T v) {
    std::memcpy(b.data() + off, &v, sizeof v);
}

} // namespace ltt::test
