// traceview-selftest: traceview's window driven by a script, for the
// project's tests (suite 80, make screenshots, make bench-gui); not
// installed. It links the same model and widget libraries as traceview.
//   traceview-selftest OUTDIR TRACE PROC           the self test
//   traceview-selftest --follow OUTDIR TRACE PROC  the follow self test
//   traceview-selftest --bench TRACE PROC          first paint and redraw times
#include "application.hpp"
#include "selftest.hpp"

#include <chrono>
#include <iostream>
#include <string>
#include <vector>

namespace {

void usage(std::ostream& out) {
    out << "usage: traceview-selftest OUTDIR TRACE PROC\n"
           "       traceview-selftest --follow OUTDIR TRACE PROC\n"
           "       traceview-selftest --bench TRACE PROC\n"
           "       traceview-selftest --help\n";
}

} // namespace

int main(int argc, char** argv) {
    // The benchmark's "first paint" counts from here, as traceview's
    // start would.
    const auto start = std::chrono::steady_clock::now();
    enum class Mode { SelfTest, Follow, Bench } mode = Mode::SelfTest;
    std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && (args[0] == "-h" || args[0] == "--help")) {
        usage(std::cout);
        return 0;
    }
    if (!args.empty() && (args[0] == "--follow" || args[0] == "--bench")) {
        mode = args[0] == "--follow" ? Mode::Follow : Mode::Bench;
        args.erase(args.begin());
    }
    const std::size_t want = mode == Mode::Bench ? 2 : 3;
    if (args.size() != want) {
        usage(std::cerr);
        return 2;
    }
    for (const auto& a : args)
        if (a.starts_with("-")) {
            std::cerr << "traceview-selftest: unknown option " << a << "\n";
            usage(std::cerr);
            return 2;
        }
    return traceview::runApplication(
        argv[0], [&](Gtk::Application& app, traceview::MainWindow& window, int& status) {
            switch (mode) {
            case Mode::SelfTest:
                traceview::runSelfTest(app, window, args[1], args[2], args[0], status);
                break;
            case Mode::Follow:
                traceview::runFollowSelfTest(app, window, args[1], args[2], args[0], status);
                break;
            case Mode::Bench:
                traceview::runBenchmark(app, window, args[0], args[1], start, status);
                break;
            }
        });
}
