// A steady load of test events for benchmarks and tests (--test-emit): a
// thread asks the module's test mode (LTT_IOC_TEST_EMIT) every few
// milliseconds for as many events as keep the requested rate. It uses the
// daemon's own file descriptor, since /dev/tracer has a single opener. The
// count it asked for lets a test check recorded + lost == emitted.
#pragma once

#include "trace_device.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

namespace ltt::daemon {

class TestEmitter {
public:
    // `cpus`: online CPUs (each emits its share). Start after START.
    TestEmitter(TraceDevice& dev, std::uint64_t eventsPerSecond, unsigned cpus);
    ~TestEmitter();
    TestEmitter(const TestEmitter&) = delete;
    TestEmitter& operator=(const TestEmitter&) = delete;

    // Stops and joins the thread; returns the events emitted (all CPUs).
    std::uint64_t stop();
    // errno of a failed TEST_EMIT (the thread then stopped), else 0.
    int error() const { return error_m; }

private:
    void run();

    TraceDevice& dev_m;
    std::uint64_t rate_m;
    unsigned cpus_m;
    std::atomic<std::uint64_t> emitted_m{0};
    std::atomic<int> error_m{0};
    std::mutex mutex_m;
    std::condition_variable cv_m;
    bool stop_m = false;
    std::thread thread_m;
};

} // namespace ltt::daemon
