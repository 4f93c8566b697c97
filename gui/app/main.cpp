// traceview [TRACE [PROC]]            browse a trace (PROC defaults to TRACE's .proc)
// traceview --follow TRACE [PROC]     browse a trace tracedaemon is still writing
// The self test and the benchmark are another program, traceview-selftest
// (gui/selftest), which is not installed.
#include "application.hpp"

#include <iostream>
#include <string>
#include <vector>

namespace {

void usage(std::ostream& out) {
    out << "usage: traceview [TRACE [PROC]]\n"
           "       traceview --follow TRACE [PROC]\n"
           "       traceview --help | --version\n";
}

std::string defaultProc(const std::string& trace) {
    const std::string ext = ".trace";
    if (trace.size() > ext.size() && trace.compare(trace.size() - ext.size(), ext.size(), ext) == 0)
        return trace.substr(0, trace.size() - ext.size()) + ".proc";
    return trace + ".proc";
}

} // namespace

int main(int argc, char** argv) {
    std::string trace, proc;
    std::vector<std::string> args(argv + 1, argv + argc);
    // --follow: keep the view up to date while the trace grows
    // (follow_controller.hpp).
    const bool follow = !args.empty() && args[0] == "--follow";
    if (follow)
        args.erase(args.begin());
    if (!args.empty() && (args[0] == "-h" || args[0] == "--help")) {
        usage(std::cout);
        return 0;
    }
    if (!args.empty() && args[0] == "--version") {
        std::cout << "traceview " LTT_VERSION_STRING "\n";
        return 0;
    }
    if (args.size() > 2) {
        usage(std::cerr);
        return 2;
    }
    if (!args.empty() && args[0].starts_with("-")) {
        std::cerr << "traceview: unknown option " << args[0] << "\n";
        usage(std::cerr);
        return 2;
    }
    if (!args.empty()) {
        trace = args[0];
        proc = args.size() > 1 ? args[1] : defaultProc(trace);
    }
    if (follow && trace.empty()) {
        std::cerr << "traceview: --follow needs a TRACE\n";
        usage(std::cerr);
        return 2;
    }
    return traceview::runApplication(argv[0],
                                     [&](Gtk::Application&, traceview::MainWindow& window, int&) {
                                         if (!trace.empty() && follow)
                                             window.followTrace(trace, proc);
                                         else if (!trace.empty())
                                             window.openTrace(trace, proc);
                                     });
}
