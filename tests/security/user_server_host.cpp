// ltt-user-server-host: tracedaemon's user-event server (daemon/src/
// user_server.cpp, the daemon's own code) on the host, without the trace
// module, for tests/security/daemon-attacks.sh where no /dev/tracer is:
// it serves SOCKET as a root flight recorder would, writes the blocks to
// TRACE, counts the snapshot requests it passes on, and at SIGINT or
// SIGTERM prints
//   snapshot requests passed: N
//   user events: ... (describe())
//   warning: ... (each warning)
// and exits 0.
//   ltt-user-server-host SOCKET TRACE
#include "user_server.hpp"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <exception>
#include <libltt/trace_writer.hpp>
#include <mutex>
#include <signal.h>
#include <unistd.h>

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: ltt-user-server-host SOCKET TRACE\n");
        return 2;
    }
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    try {
        ltt_trace_info info{};
        info.abi_version = LTT_ABI_VERSION;
        info.ncpus = 1;
        info.tsc_khz = 1000000;
        info.flags = LTT_TRACE_F_TSC_RELIABLE;
        info.max_block = 1u << 20;
        ltt::TraceWriter writer(argv[2], ltt::makeFileHeader(info, "ltt-user-server-host"));
        std::mutex m;
        std::atomic<unsigned long> requests{0};
        ltt::daemon::UserServerConfig c;
        c.socketPath = argv[1];
        ltt::daemon::UserServer server(
            c,
            [&](std::span<const std::byte> b) {
                std::lock_guard g(m);
                writer.append(b);
            },
            [&](std::string_view) { ++requests; });
        std::printf("serving %s\n", argv[1]);
        std::fflush(stdout);
        int sig;
        sigwait(&set, &sig);
        server.stop();
        writer.close();
        std::printf("snapshot requests passed: %lu\n", requests.load());
        std::printf("%s\n", ltt::daemon::describe(server.stats()).c_str());
        for (const auto& w : server.warnings())
            std::printf("warning: %s\n", w.c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ltt-user-server-host: %s\n", e.what());
        return 1;
    }
}
