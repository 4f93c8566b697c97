// ltt-user-check TRACE LOAD_PID: the guest test's checks on the trace it
// brought back (tests/suites/64-user-vm.sh): kernel blocks beside user
// blocks, the 10 000 events of ltt-user-load (process LOAD_PID) in order
// with the values it logged (tests/user/user_load.c), ltt-mark's event,
// nothing lost, and the user streams' framing (user_trace.hpp). Prints
// "ok - ..." / "FAIL - ..." lines and "N passed, N failed".
#include "user_trace.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

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
} // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: ltt-user-check TRACE LOAD_PID\n");
        return 2;
    }
    const auto loadPid = static_cast<std::uint32_t>(std::strtoul(argv[2], nullptr, 10));
    const auto t = ltt::usertest::readUserTrace(argv[1]);
    check(t.error.empty(), "user blocks framed, declared and ordered as documented", t.error);
    check(t.kernelBlocks > 0, "kernel blocks beside the user blocks",
          std::to_string(t.kernelBlocks) + " kernel blocks");
    check(t.lost == 0, "no user events lost", std::to_string(t.lost) + " lost");
    std::int64_t next = 0;
    std::string bad;
    std::uint64_t lastTsc = 0;
    int marks = 0;
    for (const auto& e : t.events) {
        if (e.type == "ltt_mark") {
            marks += e.values.size() == 1 && std::get<std::string>(e.values[0]) == "guest mark one";
            continue;
        }
        if (e.type != "load" || e.tgid != loadPid) {
            bad = bad.empty() ? "unexpected event " + e.type : bad;
            continue;
        }
        const bool ok = e.values.size() == 3 && std::get<std::int64_t>(e.values[0]) == next &&
                        std::get<std::string>(e.values[1]) == "item-" + std::to_string(next % 97) &&
                        std::get<double>(e.values[2]) == static_cast<double>(next) * 0.5 &&
                        e.tsc >= lastTsc;
        if (!ok && bad.empty())
            bad = "event " + std::to_string(next) + " has other values or goes back in time";
        lastTsc = e.tsc;
        ++next;
    }
    check(next == 10000, "10000 load events from pid " + std::to_string(loadPid),
          std::to_string(next) + " found");
    check(bad.empty(), "load events in order with their values (seq, name, value)", bad);
    check(marks == 1, "one ltt_mark event \"guest mark one\"", std::to_string(marks) + " found");
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
