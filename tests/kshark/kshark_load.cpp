// ltt-kshark-load PLUGIN TRACE [INDEX...]: opens TRACE through libkshark
// with the input plugin PLUGIN registered, the way KernelShark does, and
// prints what KernelShark would have (tests/suites/85-kernelshark.sh
// compares it with traceanalyze):
//   format FORMAT            the data format the stream was opened as
//   cpus N
//   entries N                kshark_load_entries()
//   entries-out-of-order N   entries whose time is before the previous one's
//   tasks PID...             kshark_get_task_pids(), sorted
//   task PID NAME            the name KernelShark shows for each
//   entry INDEX: TIME CPU PID EVENT | TASK | INFO   for each INDEX asked
// Exit status 1 with a message when the plugin or the trace does not load.
extern "C" {
#include <libkshark-plugin.h>
#include <libkshark.h>
}

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

// A string KernelShark returns, freed with free().
std::string take(char* s) {
    std::string out = s ? s : "(null)";
    std::free(s);
    return out;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: ltt-kshark-load PLUGIN TRACE [INDEX...]\n");
        return 2;
    }
    kshark_context* ctx = nullptr;
    if (!kshark_instance(&ctx)) {
        std::fprintf(stderr, "ltt-kshark-load: no kshark context\n");
        return 1;
    }
    if (!kshark_register_plugin(ctx, "ltt", argv[1])) {
        std::fprintf(stderr, "ltt-kshark-load: cannot load plugin %s\n", argv[1]);
        return 1;
    }
    const int sd = kshark_open(ctx, argv[2]);
    if (sd < 0) {
        std::fprintf(stderr, "ltt-kshark-load: cannot open %s: error %d\n", argv[2], sd);
        return 1;
    }
    kshark_data_stream* stream = ctx->stream[sd];
    std::printf("format %s\ncpus %d\n", stream->data_format, stream->n_cpus);

    kshark_entry** rows = nullptr;
    const ssize_t n = kshark_load_entries(ctx, sd, &rows);
    if (n < 0) {
        std::fprintf(stderr, "ltt-kshark-load: kshark_load_entries: error %zd\n", n);
        return 1;
    }
    std::printf("entries %zd\n", n);
    ssize_t disorder = 0;
    for (ssize_t i = 1; i < n; ++i)
        disorder += rows[i]->ts < rows[i - 1]->ts;
    std::printf("entries-out-of-order %zd\n", disorder);

    int* pids = nullptr;
    const ssize_t ntasks = kshark_get_task_pids(ctx, sd, &pids);
    std::vector<int> sorted(pids, pids + std::max<ssize_t>(ntasks, 0));
    std::free(pids);
    std::sort(sorted.begin(), sorted.end());
    std::printf("tasks");
    for (int p : sorted)
        std::printf(" %d", p);
    std::printf("\n");
    for (int p : sorted) {
        kshark_entry probe{};
        probe.stream_id = static_cast<std::int16_t>(sd);
        probe.pid = p;
        probe.visible = 0xff;
        std::printf("task %d %s\n", p, take(kshark_get_task(&probe)).c_str());
    }

    for (int i = 3; i < argc; ++i) {
        const long idx = std::strtol(argv[i], nullptr, 10);
        if (idx < 0 || idx >= n)
            continue;
        const kshark_entry* e = rows[idx];
        std::printf("entry %ld: %lld %d %d %s | %s | %s\n", idx, static_cast<long long>(e->ts),
                    e->cpu, e->pid, take(kshark_get_event_name(e)).c_str(),
                    take(kshark_get_task(e)).c_str(), take(kshark_get_info(e)).c_str());
    }

    for (ssize_t i = 0; i < n; ++i)
        std::free(rows[i]);
    std::free(rows);
    kshark_close_all(ctx);
    kshark_free(ctx);
    return 0;
}
