// libFuzzer target: any byte string through libltt's whole read path (open
// and validate, the C API's block checks, merge walk, analysis -- checked against the merged
// sequence --, descriptions, random access). The
// reader must reject or read every input without crashing, hanging or
// touching memory outside it (built with ASan and UBSan).
#include "analysis_equal.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <libltt/block_codec.h>
#include <libltt/event_format.hpp>
#include <libltt/syscall_args.hpp>
#include <libltt/trace_analysis.hpp>
#include <libltt/trace_reader.hpp>
#include <libltt/user_events.hpp>
#include <optional>
#include <span>
#include <string>

namespace {
unsigned checked; // what the C API's records summed to (kept, so it is computed)
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
    ltt::TraceError error;
    auto reader = ltt::TraceReader::openMemory(bytes, "fuzz.trace", &error);
    if (!reader)
        return 0;
    // The analysis's own walk (each CPU's events in runs) must agree with
    // the merged sequence fed one event at a time.
    // The C API's checks over the whole blocks, each record's decoded
    // details read (so that ASan sees any read past them).
    const std::uint64_t from = reader->header().header_size;
    if (reader->dataEnd() > from) {
        ltt_blocks_result res;
        ltt_blocks_check(
            data + from, reader->dataEnd() - from, reader->header().version, reader->ncpus(), 0,
            LTT_CHECK_ALL_RECORDS,
            [](const ltt_checked_record* r, void* arg) {
                const auto* d = static_cast<const std::uint8_t*>(r->details);
                unsigned sum = 0;
                for (unsigned i = 0; i + 8 < r->size; ++i)
                    sum += d[i];
                *static_cast<unsigned*>(arg) += sum;
            },
            &checked, &res);
    }
    const std::string diff = ltt::test::runMatchesMergedOrder(*reader, nullptr);
    if (!diff.empty()) {
        std::fprintf(stderr, "TraceAnalysis::run() differs from the merged walk: %s\n",
                     diff.c_str());
        std::abort();
    }
    std::string text;
    int n = 0;
    ltt::SyscallTracker calls; // the dump's strace-style lines
    // Application events: declarations read, each record decoded as text
    // and JSON.
    std::optional<ltt::UserEvents> user;
    if (!reader->userStreams().empty())
        user.emplace(*reader);
    for (auto c = reader->begin(); c.valid() && n < 4096; c.next(), ++n) {
        text.clear();
        if (c.event().isUser()) {
            std::string why;
            (void)user->check(c.event(), nullptr, &why);
            (void)user->appendText(c.event(), text);
            (void)user->appendJson(c.event(), text);
        }
        ltt::describeEvent(c.event(), text);
        (void)ltt::isControlEvent(c.event());
        calls.feed(c.event());
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
