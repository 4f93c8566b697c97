// traceview [TRACE [PROC]]            browse a trace (PROC defaults to TRACE's .proc)
// traceview --follow TRACE [PROC]     browse a trace tracedaemon is still writing
// --symfs DIR (before either): the binaries of call sites under DIR
// The self test and the benchmark are another program, traceview-selftest
// (gui/selftest), which is not installed.
#include "application.hpp"

#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace {

void usage(std::ostream& out) {
    out << "usage: traceview [--symfs DIR] [TRACE [PROC]]\n"
           "       traceview [--symfs DIR] --follow TRACE [PROC]\n"
           "       traceview --help | --version\n"
           "  --symfs DIR   read the binaries of call sites under DIR (a copy of the\n"
           "                traced machine's root), as traceanalyze --symfs\n";
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
    // --symfs DIR: where the traced machine's binaries are (call sites).
    std::string symfs;
    if (!args.empty() && (args[0] == "--symfs" || args[0].starts_with("--symfs="))) {
        if (args[0] == "--symfs") {
            if (args.size() < 2) {
                std::cerr << "traceview: --symfs needs a DIR\n";
                usage(std::cerr);
                return 2;
            }
            symfs = args[1];
            args.erase(args.begin(), args.begin() + 2);
        } else {
            symfs = args[0].substr(8);
            args.erase(args.begin());
        }
        std::error_code ec;
        if (!std::filesystem::is_directory(symfs, ec)) {
            std::cerr << "traceview: --symfs " << symfs << ": not a directory\n";
            return 2;
        }
    }
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
                                         window.processView().callSites().setSymfs(symfs);
                                         window.latencyView().flame().setSymfs(symfs);
                                         if (!trace.empty() && follow)
                                             window.followTrace(trace, proc);
                                         else if (!trace.empty())
                                             window.openTrace(trace, proc);
                                     });
}
