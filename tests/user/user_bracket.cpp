// ltt-user-bracket TRACE LOAD_PID: the fallback-clock guest test's check
// (tests/suites/64-user-vm.sh) of `ltt-user-load COUNT --bracket N`: each
// thread calls getppid() just before and just after each event, so each
// application event (stamped CLOCK_MONOTONIC, placed on the kernel's
// local_clock() by the daemon) must stand between the exit of the call
// before it and the entry of the call after it, among the kernel's events
// of the same thread. Checks: the trace's clock is the fallback, the user
// streams say CLOCK_MONOTONIC, each thread's events in order with no gap,
// two getppid() calls per event, every event inside its window. Notes the
// measured cross-clock error: how far events fall outside their windows
// (0 when none does), the narrowest room left on either side, and the
// interval a constant error of the conversion must lie in for every event
// to be inside ("err=[LO,HI]"). Prints "ok - ..." / "FAIL - ..." lines,
// "# ..." notes and "N passed, N failed".
#include <libltt/trace_reader.hpp>
#include <ltt/module_events.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
    if (argc != 3) {
        std::fprintf(stderr, "usage: ltt-user-bracket TRACE LOAD_PID\n");
        return 2;
    }
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

    std::size_t events = 0, loggers = 0, outside = 0;
    std::string order, pairing;
    std::int64_t worstOutside = 0;
    std::uint64_t minBefore = UINT64_MAX, minAfter = UINT64_MAX;
    std::int64_t errLo = INT64_MIN, errHi = INT64_MAX;
    std::vector<std::uint64_t> widths;
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
            if (x < lo || x > hi) {
                ++outside;
                worstOutside = std::max(worstOutside, x < lo ? lo - x : x - hi);
            } else {
                minBefore = std::min(minBefore, static_cast<std::uint64_t>(x - lo));
                minAfter = std::min(minAfter, static_cast<std::uint64_t>(hi - x));
            }
            // The placed time is the true one plus err: err in [x - hi, x - lo].
            errLo = std::max(errLo, x - hi);
            errHi = std::min(errHi, x - lo);
        }
    }
    check(loggers >= 2, "events from " + std::to_string(loggers) + " threads of pid " +
                            std::to_string(loadPid),
          "fewer than two threads logged");
    check(events == 10000, "10000 events of ltt-user-load --bracket",
          std::to_string(events) + " found");
    check(order.empty(), "each thread's events in order, none missing", order);
    check(pairing.empty(), "two getppid() calls around each event in the kernel trace", pairing);
    check(!widths.empty() && outside == 0,
          "every event between the exit of the getppid() before it and the entry of the one "
          "after it",
          std::to_string(outside) + " of " + std::to_string(widths.size()) +
              " outside, the farthest by " + std::to_string(worstOutside) + " ns");
    if (!widths.empty()) {
        std::sort(widths.begin(), widths.end());
        std::printf("# cross-clock placement: %zu events, %zu outside their window (farthest "
                    "%lld ns); window median %llu ns, narrowest room before %lld ns, after %lld "
                    "ns; a constant conversion error err=[%lld,%lld] ns fits every window\n",
                    widths.size(), outside, static_cast<long long>(worstOutside),
                    static_cast<unsigned long long>(widths[widths.size() / 2]),
                    minBefore == UINT64_MAX ? -1LL : static_cast<long long>(minBefore),
                    minAfter == UINT64_MAX ? -1LL : static_cast<long long>(minAfter),
                    static_cast<long long>(errLo), static_cast<long long>(errHi));
    }
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
