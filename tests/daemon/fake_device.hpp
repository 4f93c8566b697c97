// A trace module stand-in for the daemon's unit tests: records every ioctl,
// answers the ABI and trace-info requests, and serves prepared blocks through
// readBlocks() with the real device's rules (whole blocks only, EAGAIN when
// none is ready, 0 once stopped and drained). A producer thread can add
// blocks and raise SIGIO, as the module does when a buffer fills.
#pragma once

#include "block_stats.hpp"
#include "trace_device.hpp"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <libltt/block_codec.hpp>
#include <ltt/abi.h>
#include <map>
#include <memory>
#include <mutex>
#include <signal.h>
#include <unistd.h>
#include <vector>

namespace ltt::daemon::testing {

using Bytes = std::vector<std::byte>;

// One well-formed block: BLOCK_START, [LOST], `events` CUSTOM records of 24
// bytes (test payload: seq, cpu), BLOCK_END.
inline Bytes makeBlock(unsigned cpu, unsigned sequence, unsigned events, std::uint64_t lost = 0,
                       std::uint64_t startTsc = 1000, bool final = false) {
    BlockBuilder b(LTT_FILE_VERSION); // as the module the daemon accepts writes them
    b.start(static_cast<std::uint16_t>(cpu), sequence, startTsc, 0, lost, startTsc);
    for (unsigned i = 0; i < events; ++i)
        b.record(startTsc + i + 1, LTT_EV_CUSTOM, 0, ltt_test_payload{i, cpu, 0});
    const std::span<const std::byte> block =
        b.finish(startTsc + events + 1, final ? LTT_BLOCK_F_FINAL : 0);
    return Bytes(block.begin(), block.end());
}

struct FakeState {
    std::mutex mutex;
    std::vector<unsigned long> requests;   // every ioctl, in order
    std::map<unsigned long, Bytes> args;   // last argument of each ioctl
    std::map<unsigned long, int> failWith; // ioctl -> errno to return
    std::uint32_t abi = LTT_ABI_VERSION;
    unsigned ncpus = 2;
    std::uint32_t maxBlock = 4096;
    std::atomic<bool> started{false};
    bool stopped = false;
    bool sigio = false;
    bool endAfterStop = true;  // false: never report the end (EAGAIN forever)
    std::deque<Bytes> ready;   // blocks read() can return
    std::vector<Bytes> onStop; // blocks that STOP flushes
    Bytes served;              // everything read() returned, in order
    ltt_lost_counts lost{};
    bool lostSupported = true;
    long readError = 0; // -errno to return from read() once started
    // The module's buffers: at most this many blocks wait for read() (0: no
    // limit). offer() drops a block beyond it and counts its events lost,
    // as the module does when the daemon does not drain in time.
    std::size_t capacity = 0;

    void add(Bytes block) {
        std::lock_guard lock(mutex);
        ready.push_back(std::move(block));
    }
    // add() within `capacity`; false (and `events` lost on `cpu`) when full.
    bool offer(Bytes block, unsigned cpu, unsigned events) {
        std::lock_guard lock(mutex);
        lost.ncpus = ncpus;
        if (capacity && ready.size() >= capacity) {
            lost.per_cpu[cpu] += events;
            lost.total += events;
            return false;
        }
        lost.recorded[cpu] += events + 2;
        ready.push_back(std::move(block));
        return true;
    }
    std::size_t count(unsigned long req) {
        std::lock_guard lock(mutex);
        std::size_t n = 0;
        for (auto r : requests)
            n += r == req;
        return n;
    }
    template <class T> T arg(unsigned long req) {
        std::lock_guard lock(mutex);
        T v{};
        auto it = args.find(req);
        if (it != args.end())
            std::memcpy(&v, it->second.data(), std::min(sizeof v, it->second.size()));
        return v;
    }
};

class FakeDevice final : public TraceDevice {
public:
    FakeDevice(std::shared_ptr<FakeState> s, std::string path = "/dev/faketracer")
        : s_m(std::move(s)), path_m(std::move(path)) {}

    const std::string& path() const override { return path_m; }

    int control(unsigned long req, void* arg) override {
        std::lock_guard lock(s_m->mutex);
        s_m->requests.push_back(req);
        if (auto it = s_m->failWith.find(req); it != s_m->failWith.end())
            return -it->second;
        std::size_t size = _IOC_SIZE(req);
        if (arg && (_IOC_DIR(req) & _IOC_WRITE)) {
            auto p = static_cast<const std::byte*>(arg);
            s_m->args[req] = Bytes(p, p + size);
        }
        switch (req) {
        case LTT_IOC_GET_ABI_VERSION:
            *static_cast<__u32*>(arg) = s_m->abi;
            return 0;
        case LTT_IOC_START:
            s_m->started = true;
            return 0;
        case LTT_IOC_STOP:
            if (!s_m->stopped)
                for (auto& b : s_m->onStop)
                    s_m->ready.push_back(b);
            s_m->stopped = true;
            return 0;
        case LTT_IOC_GET_TRACE_INFO: {
            if (!s_m->started)
                return -EINVAL;
            ltt_trace_info info{};
            info.abi_version = s_m->abi;
            info.ncpus = s_m->ncpus;
            info.tsc_khz = 2000000;
            info.anchor_tsc = 1000;
            info.anchor_realtime_ns = 1700000000000000000ull;
            info.anchor_monotonic_ns = 5000000000ull;
            info.flags = LTT_TRACE_F_TSC_RELIABLE;
            info.max_block = s_m->maxBlock;
            auto cfg = [&](unsigned long r) {
                auto it = s_m->args.find(r);
                return it == s_m->args.end() ? Bytes{} : it->second;
            };
            if (auto b = cfg(LTT_IOC_SET_BUFFER_SIZE); b.size() == 4)
                std::memcpy(&info.config.buffer_size, b.data(), 4);
            if (auto b = cfg(LTT_IOC_SET_EVENT_MASK); b.size() == 8)
                std::memcpy(&info.config.event_mask, b.data(), 8);
            if (auto b = cfg(LTT_IOC_SET_DETAILS_MASK); b.size() == 8)
                std::memcpy(&info.config.details_mask, b.data(), 8);
            *static_cast<ltt_trace_info*>(arg) = info;
            return 0;
        }
        case LTT_IOC_GET_LOST:
            if (!s_m->lostSupported)
                return -ENOTTY;
            *static_cast<ltt_lost_counts*>(arg) = s_m->lost;
            return 0;
        default:
            return 0;
        }
    }

    long readBlocks(std::span<std::byte> buf) override {
        std::lock_guard lock(s_m->mutex);
        if (s_m->readError && s_m->started)
            return s_m->readError;
        std::size_t n = 0;
        while (!s_m->ready.empty() && n + s_m->ready.front().size() <= buf.size()) {
            const Bytes& b = s_m->ready.front();
            std::memcpy(buf.data() + n, b.data(), b.size());
            s_m->served.insert(s_m->served.end(), b.begin(), b.end());
            n += b.size();
            s_m->ready.pop_front();
        }
        if (n)
            return static_cast<long>(n);
        if (!s_m->ready.empty())
            return -EINVAL; // buffer smaller than one block
        if (s_m->stopped && s_m->endAfterStop)
            return 0;
        return -EAGAIN;
    }

    void enableSigio() override {
        std::lock_guard lock(s_m->mutex);
        s_m->sigio = true;
    }

    bool waitReadable(std::chrono::milliseconds timeout) override {
        ::usleep(static_cast<useconds_t>(std::min<long long>(timeout.count(), 20) * 1000));
        std::lock_guard lock(s_m->mutex);
        return !s_m->ready.empty() || (s_m->stopped && s_m->endAfterStop);
    }

private:
    std::shared_ptr<FakeState> s_m;
    std::string path_m;
};

// A SessionEnv opener that hands out one FakeDevice over `state`.
inline auto fakeOpener(std::shared_ptr<FakeState> state) {
    return [state](const std::string& path) -> std::unique_ptr<TraceDevice> {
        return std::make_unique<FakeDevice>(state, path);
    };
}

} // namespace ltt::daemon::testing
