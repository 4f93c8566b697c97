// CtfStream: one CPU's CTF 1.8 stream file, written packet by packet from a
// buffer of fixed size, so memory stays flat however long the trace.
//
// Each packet is the packet header (magic, trace UUID, stream id 0, the CPU
// as stream instance) and LTTng's kernel packet context (timestamp_begin,
// timestamp_end, content_size, packet_size, packet_seq_num,
// events_discarded, cpu_id), then events, each with LTTng's "large" event
// header: a 16-bit id and the low 32 bits of the timestamp, or, when the
// time since the stream's previous timestamp does not fit in 32 bits, id
// 65535 followed by the 32-bit id and the whole 64-bit timestamp. All
// integers are little-endian and byte-aligned (the metadata says so).
//
// events_discarded is, as in LTTng, the stream's running total of lost
// events, which readers (babeltrace2, Trace Compass) report between the
// end of a packet and the end of the next one whose total is higher: a
// loss closes the current packet and gets an empty packet of its own that
// spans the gap.
#pragma once

#include "convert_output.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <libltt/unique_fd.hpp>
#include <memory>
#include <string>

namespace ltt::convert {

class CtfStream {
public:
    static constexpr std::uint32_t kMagic = 0xC1FC1FC1;
    static constexpr std::size_t kHeaderBytes = 4 + 16 + 4 + 8;             // packet header
    static constexpr std::size_t kContextBytes = 8 + 8 + 8 + 8 + 8 + 8 + 4; // packet context
    static constexpr std::size_t kPacketBytes = std::size_t{256} * 1024;
    // The largest event (a custom event's payload, a file name) fits with room.
    static constexpr std::size_t kMaxEventBytes = 4096;
    static constexpr std::uint16_t kExtendedId = 65535;

    CtfStream(UniqueFd fd, std::string path, std::uint32_t cpu, const std::uint8_t (&uuid)[16]);

    // Starts an event of `id` at `ns` (clamped to the stream's previous
    // timestamp: CTF streams never go back in time) with up to
    // kMaxEventBytes of fields; returns where the fields go. end(p) closes it.
    std::byte* begin(std::uint16_t id, std::uint64_t ns) {
        if (ns < lastNs_m) [[unlikely]]
            ns = lastNs_m;
        if (!open_m || used_m + kMaxEventBytes > kPacketBytes) [[unlikely]]
            startPacket(ns);
        std::byte* p = buf_m.get() + used_m;
        if (ns - lastNs_m < (std::uint64_t(1) << 32) && id != kExtendedId) [[likely]] {
            const std::uint32_t low = static_cast<std::uint32_t>(ns);
            std::memcpy(p, &id, 2);
            std::memcpy(p + 2, &low, 4);
            p += 6;
        } else {
            const std::uint32_t wide = id;
            std::memcpy(p, &kExtendedId, 2);
            std::memcpy(p + 2, &wide, 4);
            std::memcpy(p + 6, &ns, 8);
            p += 14;
        }
        lastNs_m = ns;
        return p;
    }
    void end(std::byte* p) { used_m = static_cast<std::size_t>(p - buf_m.get()); }

    // `count` events were lost before `ns` (the first event after them):
    // ends the current packet and writes an empty one for the gap.
    void lost(std::uint64_t count, std::uint64_t ns);
    // Writes the last packet (an empty one for a stream with no events, so
    // every CPU's stream file exists with its cpu_id and loss count) and
    // checks the file was written. `endNs`: when the CPU's trace ended.
    void finish(std::uint64_t endNs);
    std::uint64_t lastNs() const { return lastNs_m; }

private:
    void startPacket(std::uint64_t ns);
    void closePacket(std::uint64_t endNs);

    UniqueFd fd_m;
    std::string path_m;
    std::uint32_t cpu_m;
    std::uint8_t uuid_m[16];
    std::unique_ptr<std::byte[]> buf_m;
    std::size_t used_m = 0;
    bool open_m = false;
    std::uint64_t lastNs_m = 0;
    std::uint64_t beginNs_m = 0;
    std::uint64_t seq_m = 0;
    std::uint64_t discarded_m = 0;
};

} // namespace ltt::convert
