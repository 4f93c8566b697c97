#include "test_emitter.hpp"

#include <chrono>

namespace ltt::daemon {

TestEmitter::TestEmitter(TraceDevice& dev, std::uint64_t eventsPerSecond, unsigned cpus)
    : dev_m(dev), rate_m(eventsPerSecond), cpus_m(cpus ? cpus : 1) {
    thread_m = std::thread([this] { run(); });
}

TestEmitter::~TestEmitter() {
    stop();
}

std::uint64_t TestEmitter::stop() {
    {
        std::lock_guard lock(mutex_m);
        stop_m = true;
    }
    cv_m.notify_all();
    if (thread_m.joinable())
        thread_m.join();
    return emitted_m;
}

void TestEmitter::run() {
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    std::unique_lock lock(mutex_m);
    while (!cv_m.wait_for(lock, std::chrono::milliseconds(5), [this] { return stop_m; })) {
        double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
        auto want = static_cast<std::uint64_t>(elapsed * static_cast<double>(rate_m));
        std::uint64_t have = emitted_m;
        if (want <= have)
            continue;
        std::uint64_t perCpu = (want - have) / cpus_m;
        if (perCpu == 0)
            continue;
        ltt_test_emit e{};
        e.count = perCpu;
        e.cpu_mask = 0;
        e.payload = sizeof(ltt_test_payload);
        lock.unlock();
        int r = dev_m.control(LTT_IOC_TEST_EMIT, &e);
        lock.lock();
        if (r < 0) {
            error_m = -r;
            return;
        }
        emitted_m += perCpu * cpus_m;
    }
}

} // namespace ltt::daemon
