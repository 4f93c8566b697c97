// CtfStream: see convert_ctf_stream.hpp for the packet layout.
#include "convert_ctf_stream.hpp"

#include <cerrno>
#include <libltt/convert.hpp>
#include <system_error>
#include <unistd.h>

namespace ltt::convert {

namespace {

template <class T> std::byte* put(std::byte* p, T v) {
    std::memcpy(p, &v, sizeof v);
    return p + sizeof v;
}

} // namespace

CtfStream::CtfStream(UniqueFd fd, std::string path, std::uint32_t cpu,
                     const std::uint8_t (&uuid)[16])
    : fd_m(std::move(fd)), path_m(std::move(path)), cpu_m(cpu),
      buf_m(std::make_unique<std::byte[]>(kPacketBytes)) {
    std::memcpy(uuid_m, uuid, sizeof uuid_m);
}

void CtfStream::startPacket(std::uint64_t ns) {
    if (open_m)
        closePacket(lastNs_m);
    std::byte* p = buf_m.get();
    p = put(p, kMagic);
    std::memcpy(p, uuid_m, sizeof uuid_m);
    p += sizeof uuid_m;
    p = put(p, std::uint32_t(0));     // stream_id
    p = put(p, std::uint64_t(cpu_m)); // stream_instance_id
    p += kContextBytes;               // filled in by closePacket()
    used_m = static_cast<std::size_t>(p - buf_m.get());
    open_m = true;
    beginNs_m = ns;
    lastNs_m = ns;
}

void CtfStream::closePacket(std::uint64_t endNs) {
    std::byte* p = buf_m.get() + kHeaderBytes;
    const std::uint64_t bits = std::uint64_t(used_m) * 8;
    p = put(p, beginNs_m);
    p = put(p, endNs < beginNs_m ? beginNs_m : endNs);
    p = put(p, bits); // content_size
    p = put(p, bits); // packet_size: no padding after the content
    p = put(p, seq_m++);
    p = put(p, discarded_m);
    put(p, cpu_m);
    writeFully(fd_m.get(), path_m, buf_m.get(), used_m);
    open_m = false;
    used_m = 0;
}

// The loss gets a packet of its own, with no events, from the last event
// before it to `ns`: readers report the events discarded between the end
// of the packet before and the end of this one, the gap itself.
void CtfStream::lost(std::uint64_t count, std::uint64_t ns) {
    if (ns < lastNs_m)
        ns = lastNs_m;
    if (open_m)
        closePacket(lastNs_m);
    discarded_m += count;
    startPacket(lastNs_m);
    closePacket(ns);
    lastNs_m = ns;
}

void CtfStream::finish(std::uint64_t endNs) {
    if (!open_m)
        startPacket(lastNs_m);
    closePacket(endNs < lastNs_m ? lastNs_m : endNs);
    if (::close(fd_m.release()) != 0)
        throw Error("cannot write " + path_m + ": " + std::generic_category().message(errno));
}

} // namespace ltt::convert
