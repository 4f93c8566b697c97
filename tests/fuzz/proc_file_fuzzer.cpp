// libFuzzer target: any byte string as a .proc file (docs/trace-format.md
// §4) through libltt's reader (readProcFile), then through what uses it: a
// snapshot read is written back with writeProcFile and must read again with
// the same tasks, IRQs and mappings, and it names the processes of a
// committed trace in the analysis and its text and JSON reports. The
// reader must reject or read every input without crashing, hanging or
// touching memory outside it (built with ASan and UBSan).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <libltt/proc_file.hpp>
#include <libltt/report_render.hpp>
#include <libltt/trace_analysis.hpp>
#include <libltt/trace_reader.hpp>
#include <libltt/unique_fd.hpp>
#include <memory>
#include <optional>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

namespace {

// A memfd holding `size` bytes of `data`, and the path that opens it.
struct MemFile {
    ltt::UniqueFd fd;
    std::string path;
};

MemFile memFile(const void* data, std::size_t size) {
    MemFile f{ltt::UniqueFd(::memfd_create("fuzz.proc", MFD_CLOEXEC)), {}};
    if (!f.fd)
        std::abort();
    const auto* p = static_cast<const char*>(data);
    for (std::size_t done = 0; done < size;) {
        const ssize_t n = ::write(f.fd.get(), p + done, size - done);
        if (n <= 0)
            std::abort();
        done += static_cast<std::size_t>(n);
    }
    f.path = "/proc/self/fd/" + std::to_string(f.fd.get());
    return f;
}

// The committed traces the snapshot names processes of, read once.
const std::vector<std::unique_ptr<ltt::TraceReader>>& traces() {
    static const auto all = [] {
        std::vector<std::unique_ptr<ltt::TraceReader>> v;
        for (const char* name : {"names", "small", "user"}) {
            const std::string path = std::string(LTT_SOURCE_DIR "/tests/data/") + name + ".trace";
            ltt::TraceError error;
            auto r = ltt::TraceReader::open(path, &error);
            if (!r) {
                std::fprintf(stderr, "cannot read %s\n", path.c_str());
                std::abort();
            }
            v.push_back(std::move(r));
        }
        return v;
    }();
    return all;
}

bool sameSnapshot(const ltt::ProcSnapshot& a, const ltt::ProcSnapshot& b) {
    if (a.tasks.size() != b.tasks.size() || a.irqs.size() != b.irqs.size() ||
        a.maps.size() != b.maps.size())
        return false;
    for (std::size_t i = 0; i < a.tasks.size(); ++i)
        if (a.tasks[i].pid != b.tasks[i].pid || a.tasks[i].ppid != b.tasks[i].ppid ||
            a.tasks[i].pgrp != b.tasks[i].pgrp || a.tasks[i].uid != b.tasks[i].uid ||
            a.tasks[i].gid != b.tasks[i].gid || a.tasks[i].kthread != b.tasks[i].kthread)
            return false;
    for (std::size_t i = 0; i < a.maps.size(); ++i)
        if (a.maps[i].pid != b.maps[i].pid || a.maps[i].start != b.maps[i].start ||
            a.maps[i].end != b.maps[i].end || a.maps[i].offset != b.maps[i].offset)
            return false;
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const MemFile in = memFile(data, size);
    ltt::ProcParseError error;
    std::optional<ltt::ProcParseError> cut;
    const auto snap = ltt::readProcFile(in.path, &error, &cut);
    if (!snap) {
        // A refusal names the file and a line of it.
        if (error.path != in.path || error.line == 0 || error.message.empty())
            std::abort();
        return 0;
    }
    // What the writer makes of it reads back the same.
    MemFile out = memFile("", 0);
    ltt::writeProcFile(out.fd.get(), out.path, *snap);
    const auto again = ltt::readProcFile(out.path, &error);
    if (!again || !sameSnapshot(*snap, *again)) {
        std::fprintf(stderr, "the written .proc file reads back differently: %s\n",
                     again ? "other values" : error.str().c_str());
        std::abort();
    }
    // The snapshot names the processes of a trace, in the analysis and its
    // reports.
    const ltt::TraceReader& reader = *traces()[size % traces().size()];
    ltt::TraceAnalysis analysis(reader, &*snap);
    if (!analysis.run())
        std::abort(); // a committed trace, valid whatever the snapshot says
    std::FILE* sink = std::fopen("/dev/null", "we");
    if (!sink)
        std::abort();
    ltt::ReportOptions options;
    options.summarize = options.analyze = true;
    ltt::writeTextReport(sink, analysis, options);
    ltt::writeJsonReport(sink, analysis, options);
    std::fclose(sink);
    return 0;
}
