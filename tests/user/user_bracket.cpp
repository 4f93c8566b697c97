// ltt-user-bracket TRACE LOAD_PID [BOUND_NS]: the fallback-clock guest test's check
// (tests/suites/64-user-vm.sh) of `ltt-user-load COUNT --bracket N`: each
// thread calls getppid() just before and just after each event, so each
// application event (stamped CLOCK_MONOTONIC, placed on the kernel's
// clock by the daemon) must stand between the exit of the call
// before it and the entry of the call after it, among the kernel's events
// of the same thread. The kernel's fallback clock is itself off from
// CLOCK_MONOTONIC by its per-tick drift, and stalls when a tick comes late
// (sched_clock_cpu() never runs past the last tick's time plus a tick), so
// the placement is exact only within that error; BOUND_NS is the daemon's
// measure of it (the kernel clock's largest move against CLOCK_MONOTONIC
// between two of its clock pairs, in its summary). Checks: the trace's
// clock is the fallback, the user streams say CLOCK_MONOTONIC, each
// thread's events in order with no gap, two getppid() calls per event,
// and every event inside its window, or outside by no more than BOUND_NS,
// or in a window where the kernel's clock stood still (its two system
// calls' events at the same time: a stall, the kernel clock's error, not
// the placement's); a conversion off by more than the bound (a wrong
// offset, the wrong clock) fails it. Notes
// the measured cross-clock error: the share inside, how far the others
// fall outside (median, 99th percentile, farthest), against BOUND_NS.
// Prints "ok - ..." / "FAIL - ..." lines, "# ..." notes and
// "N passed, N failed".
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <libltt/trace_reader.hpp>
#include <ltt/module_events.h>
#include <map>
#include <string>
#include <vector>

using namespace ltt;

namespace {
int passed = 0, failed = 0;
void check(bool ok, const std::string& name, const std::string& why = {}) {
    if (ok) {
        ++passed;
        std::printf("ok - %s\n", name.c_str());
    } else {
        ++failed;
        std::printf("FAIL - %s: %s\n", name.c_str(), why.c_str());
    }
}

constexpr std::uint32_t kGetppid = 110; // x86_64

struct Call {
    std::uint64_t entry = 0, exit = 0;
    bool exited = false;
};
struct Thread {
    std::vector<Call> calls;
    std::vector<std::pair<std::uint64_t, std::int64_t>> events; // (time, seq)
    bool inCall = false;
};
} // namespace

int main(int argc, char** argv) {
    if (argc != 3 && argc != 4) {
        std::fprintf(stderr, "usage: ltt-user-bracket TRACE LOAD_PID [BOUND_NS]\n");
        return 2;
    }
    const std::int64_t bound = argc == 4 ? std::strtoll(argv[3], nullptr, 10) : 0;
    const auto loadPid = static_cast<std::uint32_t>(std::strtoul(argv[2], nullptr, 10));
    TraceError err;
    auto reader = TraceReader::open(argv[1], &err);
    if (!reader) {
        check(false, "the trace opens", err.str());
        std::printf("%d passed, %d failed\n", passed, failed);
        return 1;
    }
    const auto& h = reader->header();
    check(h.flags & LTT_TRACE_F_CLOCK_FALLBACK,
          "the trace's clock is the kernel's fallback (LTT_TRACE_F_CLOCK_FALLBACK), " +
              std::to_string(h.ncpus) + " CPUs",
          "flags " + std::to_string(h.flags));
    std::map<std::int32_t, Thread> threads;
    const std::uint64_t kernelLost = reader->lostEvents();
    for (auto c = reader->begin(); c.valid(); c.next()) {
        const Event& e = c.event();
        if (e.isUser()) {
            ltt_ev_user u{};
            if (e.id != LTT_EV_USER || e.subtype != LTT_USER_EVENT || e.copyDetails(u) < 16 ||
                u.tgid != loadPid)
                continue;
            std::int64_t seq;
            std::memcpy(&seq, u.data, sizeof seq);
            threads[e.pid].events.emplace_back(e.tsc, seq);
            continue;
        }
        if (e.id == LTT_EV_SYSCALL_ENTRY) {
            ltt_ev_syscall_entry s{};
            e.copyDetails(s);
            Thread* t = nullptr;
            if (s.nr == kGetppid)
                t = &threads[e.pid];
            else if (auto it = threads.find(e.pid); it != threads.end())
                t = &it->second;
            if (!t)
                continue;
            t->inCall = s.nr == kGetppid;
            if (t->inCall)
                t->calls.push_back({e.tsc, 0, false});
        } else if (e.id == LTT_EV_SYSCALL_EXIT) {
            auto it = threads.find(e.pid);
            if (it == threads.end() || !it->second.inCall || it->second.calls.empty())
                continue;
            it->second.calls.back().exit = e.tsc;
            it->second.calls.back().exited = true;
            it->second.inCall = false;
        }
    }
    check(kernelLost == 0, "no kernel events lost", std::to_string(kernelLost) + " lost");
    check(reader->userLostEvents() == 0, "no application events lost",
          std::to_string(reader->userLostEvents()) + " lost");
    bool allMono = !reader->userStreams().empty();
    for (const auto& s : reader->userStreams())
        allMono = allMono && s.monotonic;
    check(allMono, "the user streams say their times came from CLOCK_MONOTONIC",
          std::to_string(reader->userStreams().size()) + " streams");

    std::size_t events = 0, loggers = 0, outside = 0, beyond = 0, stalled = 0;
    std::size_t moving = 0, movingInside = 0; // windows the kernel's clock moved in
    std::string order, pairing;
    std::int64_t worstOutside = 0;
    std::uint64_t minBefore = UINT64_MAX, minAfter = UINT64_MAX;
    std::int64_t errLo = INT64_MIN, errHi = INT64_MAX;
    std::vector<std::uint64_t> widths;
    std::vector<std::int64_t> outsideBy; // of the events outside, how far
    for (const auto& [tid, t] : threads) {
        if (t.events.empty())
            continue;
        ++loggers;
        events += t.events.size();
        for (std::size_t i = 1; i < t.events.size(); ++i)
            if (t.events[i].second != t.events[i - 1].second + 1 && order.empty())
                order = "thread " + std::to_string(tid) + ": seq " +
                        std::to_string(t.events[i].second) + " after " +
                        std::to_string(t.events[i - 1].second);
        if (t.calls.size() != 2 * t.events.size()) {
            if (pairing.empty())
                pairing = "thread " + std::to_string(tid) + ": " + std::to_string(t.calls.size()) +
                          " getppid() calls for " + std::to_string(t.events.size()) + " events";
            continue;
        }
        for (std::size_t i = 0; i < t.events.size(); ++i) {
            const Call& before = t.calls[2 * i];
            const Call& after = t.calls[2 * i + 1];
            const std::uint64_t at = t.events[i].first;
            if (!before.exited) {
                pairing = pairing.empty() ? "a getppid() with no exit record" : pairing;
                continue;
            }
            const auto lo = static_cast<std::int64_t>(before.exit);
            const auto hi = static_cast<std::int64_t>(after.entry);
            const auto x = static_cast<std::int64_t>(at);
            widths.push_back(static_cast<std::uint64_t>(hi - lo));
            if (hi > lo) {
                ++moving;
                movingInside += x >= lo && x <= hi;
            }
            if (std::getenv("LTT_BRACKET_DUMP"))
                std::printf("D %d %zu %lld %lld %lld\n", tid, i, static_cast<long long>(x),
                            static_cast<long long>(x - lo), static_cast<long long>(hi - x));
            if (x < lo || x > hi) {
                ++outside;
                worstOutside = std::max(worstOutside, x < lo ? lo - x : x - hi);
                outsideBy.push_back(x < lo ? lo - x : x - hi);
                if (x >= lo - bound && x <= hi + bound)
                    ;
                else if (hi == lo)
                    ++stalled;
                else
                    ++beyond;
            } else {
                minBefore = std::min(minBefore, static_cast<std::uint64_t>(x - lo));
                minAfter = std::min(minAfter, static_cast<std::uint64_t>(hi - x));
            }
            // The placed time is the true one plus err: err in [x - hi, x - lo].
            errLo = std::max(errLo, x - hi);
            errHi = std::min(errHi, x - lo);
        }
    }
    check(loggers >= 2,
          "events from " + std::to_string(loggers) + " threads of pid " + std::to_string(loadPid),
          "fewer than two threads logged");
    check(events == 10000, "10000 events of ltt-user-load --bracket",
          std::to_string(events) + " found");
    check(order.empty(), "each thread's events in order, none missing", order);
    check(pairing.empty(), "two getppid() calls around each event in the kernel trace", pairing);
    check(!widths.empty() && beyond == 0,
          "every event inside its window, or outside by at most the daemon's bound (" +
              std::to_string(bound) + " ns), or where the kernel's clock stood still (" +
              std::to_string(stalled) + " events)",
          std::to_string(beyond) + " events farther out, the farthest by " +
              std::to_string(worstOutside) + " ns");
    if (!widths.empty()) {
        std::sort(outsideBy.begin(), outsideBy.end());
        auto pct = [&](double q) {
            return outsideBy.empty() ? 0LL
                                     : static_cast<long long>(outsideBy[static_cast<std::size_t>(
                                           q * static_cast<double>(outsideBy.size() - 1))]);
        };
        std::printf("# the kernel's clock stood still across %zu of the %zu windows; of the "
                    "others %zu hold their event\n",
                    widths.size() - moving, widths.size(), movingInside);
        std::printf("# cross-clock error: %.1f%% of %zu events inside their window; the %zu "
                    "outside by median %lld ns, 99th percentile %lld ns, at most %lld ns; of "
                    "them %zu where the kernel's clock stood still, %zu others beyond the daemon's "
                    "bound of %lld ns\n",
                    100.0 * static_cast<double>(widths.size() - outside) /
                        static_cast<double>(widths.size()),
                    widths.size(), outside, pct(0.5), pct(0.99),
                    static_cast<long long>(worstOutside), stalled, beyond,
                    static_cast<long long>(bound));
        std::sort(widths.begin(), widths.end());
        std::printf("# cross-clock placement: %zu events, %zu outside their window (farthest "
                    "%lld ns, the daemon's bound %lld ns); window median %llu ns, narrowest room "
                    "before %lld ns, after %lld ns; a constant conversion error err=[%lld,%lld] "
                    "ns fits every window\n",
                    widths.size(), outside, static_cast<long long>(worstOutside),
                    static_cast<long long>(bound),
                    static_cast<unsigned long long>(widths[widths.size() / 2]),
                    minBefore == UINT64_MAX ? -1LL : static_cast<long long>(minBefore),
                    minAfter == UINT64_MAX ? -1LL : static_cast<long long>(minAfter),
                    static_cast<long long>(errLo), static_cast<long long>(errHi));
    }
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
