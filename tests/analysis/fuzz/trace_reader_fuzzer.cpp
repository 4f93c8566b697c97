// libFuzzer target: any byte string through libltt's whole read path (open
// and validate, merge walk, analysis -- checked against the merged
// sequence --, descriptions, random access). The
// reader must reject or read every input without crashing, hanging or
// touching memory outside it (built with ASan and UBSan).
#include "../analysis_equal.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <libltt/event_format.hpp>
#include <libltt/trace_analysis.hpp>
#include <libltt/trace_reader.hpp>
#include <span>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
    ltt::TraceError error;
    auto reader = ltt::TraceReader::openMemory(bytes, "fuzz.trace", &error);
    if (!reader)
        return 0;
    // The analysis's own walk (each CPU's events in runs) must agree with
    // the merged sequence fed one event at a time.
    const std::string diff = ltt::test::runMatchesMergedOrder(*reader, nullptr);
    if (!diff.empty()) {
        std::fprintf(stderr, "TraceAnalysis::run() differs from the merged walk: %s\n",
                     diff.c_str());
        std::abort();
    }
    std::string text;
    int n = 0;
    for (auto c = reader->begin(); c.valid() && n < 4096; c.next(), ++n) {
        text.clear();
        ltt::describeEvent(c.event(), text);
        (void)ltt::isControlEvent(c.event());
    }
    const std::uint64_t count = reader->eventCount();
    if (count) {
        auto mid = reader->atIndex(count / 2);
        if (mid.valid()) {
            auto t = reader->atTime(reader->nsFromAnchor(mid.event().tsc));
            (void)t.valid();
        }
        auto last = reader->atIndex(count - 1);
        last.prev();
    }
    return 0;
}
