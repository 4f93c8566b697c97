// The "offcpu" member of the JSON document (docs/json.md).
#include <algorithm>
#include <libltt/offcpu_render.hpp>
#include <libltt/text_escape.hpp>
#include <ltt/module_events.h>
#include <string>

namespace ltt {

namespace {

using ull = unsigned long long;

void jsonStr(std::FILE* f, std::string_view s) {
    std::string out = "\"";
    appendJsonEscaped(out, s);
    out.push_back('"');
    std::fwrite(out.data(), 1, out.size(), f);
}

void jsonFrames(std::FILE* f, const std::vector<std::string>& frames, std::size_t from,
                std::size_t n) {
    std::fprintf(f, "[");
    for (std::size_t i = from; i < from + n && i < frames.size(); ++i) {
        if (i != from)
            std::fprintf(f, ", ");
        jsonStr(f, frames[i]);
    }
    std::fprintf(f, "]");
}

} // namespace

void writeOffCpuJson(std::FILE* f, const OffCpuReport& r) {
    std::fprintf(f, ",\n  \"offcpu\": {\"pid\": ");
    if (r.pid >= 0)
        std::fprintf(f, "%lld", static_cast<long long>(r.pid));
    else
        std::fprintf(f, "null");
    std::fprintf(f,
                 ", \"from_ns\": %llu, \"to_ns\": %llu, \"stacks_recorded\": %s, "
                 "\"kernel_stacks\": %s, \"kallsyms\": %s,\n    \"stack_records\": %llu, "
                 "\"truncated\": %llu, \"depth_max\": %d, \"intervals\": %llu, "
                 "\"blocked_ns\": %llu, \"without_stack\": %llu, \"without_stack_ns\": %llu, "
                 "\"dropped\": %llu, \"open_at_end\": %llu,\n  \"processes\": [",
                 ull(r.fromNs), ull(r.toNs), r.stacksRecorded ? "true" : "false",
                 r.kernelStacks ? "true" : "false", r.kallsyms ? "true" : "false",
                 ull(r.stackRecords), ull(r.truncated), LTT_STACK_DEPTH_MAX, ull(r.intervals),
                 ull(r.blockedNs), ull(r.withoutStack), ull(r.withoutStackNs), ull(r.droppedLost),
                 ull(r.openAtEnd));
    bool first = true;
    for (const OffCpuProcess& p : r.processes) {
        std::fprintf(f, "%s\n    {\"pid\": %d, \"name\": ", first ? "" : ",", p.pid);
        jsonStr(f, p.name);
        std::fprintf(f,
                     ", \"intervals\": %llu, \"blocked_ns\": %llu, \"without_stack\": %llu, "
                     "\"without_stack_ns\": %llu}",
                     ull(p.intervals), ull(p.ns), ull(p.withoutStack), ull(p.withoutStackNs));
        first = false;
    }
    std::fprintf(f, "%s],\n  \"stacks\": [", first ? "" : "\n  ");
    // Longest first; equal times keep the stacks' lexicographic order.
    std::vector<const OffCpuStack*> order;
    for (const OffCpuStack& s : r.stacks)
        order.push_back(&s);
    std::stable_sort(order.begin(), order.end(),
                     [](const OffCpuStack* a, const OffCpuStack* b) { return a->ns > b->ns; });
    first = true;
    for (const OffCpuStack* s : order) {
        std::fprintf(f, "%s\n    {\"task\": ", first ? "" : ",");
        jsonStr(f, s->frames.empty() ? std::string_view() : std::string_view(s->frames.front()));
        std::fprintf(f,
                     ", \"recorded\": %s, \"blocked_ns\": %llu, \"blocked_us\": %llu, "
                     "\"intervals\": %llu,\n     \"user\": ",
                     s->recorded ? "true" : "false", ull(s->ns), ull(foldedMicros(s->ns)),
                     ull(s->intervals));
        jsonFrames(f, s->frames, 1, s->userFrames);
        std::fprintf(f, ",\n     \"kernel\": ");
        jsonFrames(f, s->frames, 1 + s->userFrames, s->kernelFrames);
        std::fprintf(f, ",\n     \"processes\": [");
        for (std::size_t i = 0; i < s->shares.size(); ++i)
            std::fprintf(f, "%s{\"pid\": %d, \"blocked_ns\": %llu, \"intervals\": %llu}",
                         i ? ", " : "", s->shares[i].pid, ull(s->shares[i].ns),
                         ull(s->shares[i].intervals));
        std::fprintf(f, "]}");
        first = false;
    }
    std::fprintf(f, "%s]}", first ? "" : "\n  ");
}

} // namespace ltt
