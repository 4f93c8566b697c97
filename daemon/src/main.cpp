// tracedaemon: see options.cpp for the command line and trace_session.hpp for
// what a session does.
#include "options.hpp"
#include "trace_session.hpp"

#include <csignal>
#include <iostream>

int main(int argc, char** argv) {
    using namespace ltt::daemon;
    ParseResult parsed = parseCommandLine(argc, argv);
    if (!parsed.options) {
        std::cerr << "tracedaemon: " << parsed.error << "\n"
                  << "Try 'tracedaemon --help' for more information.\n";
        return 2;
    }
    const Options& o = *parsed.options;
    if (o.action == Options::Action::Help) {
        std::cout << usageText();
        return 0;
    }
    if (o.action == Options::Action::Version) {
        std::cout << versionText();
        return 0;
    }
    // A trace written to a pipe whose reader left must fail with EPIPE (and
    // stop the module cleanly), not kill the daemon.
    std::signal(SIGPIPE, SIG_IGN);
    return runTraceSession(o, std::cerr).exitCode;
}
