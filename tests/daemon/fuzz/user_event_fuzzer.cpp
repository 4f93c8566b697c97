// libFuzzer target: the records of libltt-user's shared memory as
// tracedaemon's user-event server reads them (daemon/src/user_server.cpp).
// The input fills a protocol-conformant image (4 KiB rings): two type
// entries, two rings (the second starting near its end, so records wrap),
// their heads and flags; the server drains it as it drains a registered
// process. Whatever the input, every block the server writes must parse
// and walk cleanly with libltt's codec (the file stays valid), and nothing
// may touch memory out of bounds (ASan).
#include "user_server.hpp"
#include "user_shm.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <libltt/block_codec.hpp>
#include <span>
#include <unistd.h>
#include <vector>

namespace {

constexpr std::uint32_t kRing = LTT_USER_RING_MIN;

struct Control {
    std::uint32_t tid[2];
    std::uint16_t bytes[2]; // each ring's head - tail
    std::uint8_t flags;     // bit 0, 1: ring 0, 1 closing
    std::uint8_t lost;
};

void check(std::span<const std::byte> block) {
    ltt::FrameRules rules;
    rules.userStreams = true;
    ltt::BlockInfo b;
    const ltt::FrameFault f = ltt::parseFrame(block, rules, b);
    if (f.kind != ltt::FrameFault::None || b.length != block.size() ||
        !(b.flags & LTT_BLOCK_F_USER))
        std::abort();
    const ltt::RecordFault r = ltt::walkBlock(block, b, [](const ltt::BlockRecord&) {});
    if (r.kind != ltt::RecordFault::None)
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Control c{};
    if (size < sizeof c)
        return 0;
    std::memcpy(&c, data, sizeof c);
    data += sizeof c;
    size -= sizeof c;
    std::vector<std::byte> image(LTT_USER_SHM_SIZE(kRing));
    auto* h = reinterpret_cast<ltt_user_shm_header*>(image.data());
    h->magic = LTT_USER_SHM_MAGIC;
    h->version = LTT_USER_SHM_VERSION;
    h->size = static_cast<std::uint32_t>(image.size());
    h->ring_bytes = kRing;
    h->ntypes = 2;
    // Two type entries, straight from the input.
    const std::size_t types = std::min(size, 2 * sizeof(ltt_user_shm_type));
    std::memcpy(image.data() + LTT_USER_SHM_TYPES_OFF, data, types);
    data += types;
    size -= types;
    // The rest: ring 0 from its start, ring 1 from 100 bytes before its end.
    for (unsigned i = 0; i < 2; ++i) {
        auto* r =
            reinterpret_cast<ltt_user_shm_ring*>(image.data() + LTT_USER_SHM_RING_OFF(i, kRing));
        auto* ring = reinterpret_cast<std::byte*>(r + 1);
        const std::uint64_t tail = i == 0 ? 0 : kRing - 100;
        const std::size_t n = std::min<std::size_t>(size, kRing);
        for (std::size_t k = 0; k < n; ++k)
            ring[(tail + k) % kRing] = static_cast<std::byte>(data[k]);
        r->tid = c.tid[i] ? c.tid[i] : static_cast<std::uint32_t>(::getpid());
        r->tail = tail;
        r->head = tail + c.bytes[i];
        r->closing = (c.flags >> i) & 1;
        r->lost = c.lost;
    }
    ltt::daemon::UserServerConfig config;
    config.procRoot = "/nonexistent"; // every tid is taken as a thread gone
    config.maxBlock = 4096;
    ltt::daemon::UserServer::drainImage(config, image, check);
    return 0;
}
