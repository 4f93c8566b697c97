#include "block_stats.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <libltt/block_codec.hpp>

namespace ltt::daemon {

namespace {

// The frame checks are libltt's (block_codec.hpp); the words are the
// daemon's own, short for a warning about one read.
std::string problemText(const FrameFault& f) {
    switch (f.kind) {
    case FrameFault::Short:
        return "truncated block";
    case FrameFault::NotBlockStart:
    case FrameFault::BadStartHeader:
    case FrameFault::BadMagic:
        return "no block start";
    case FrameFault::BadLength:
    case FrameFault::PastEnd:
        return "bad block length " + std::to_string(f.value);
    case FrameFault::BadCpu:
        return "bad CPU " + std::to_string(f.value);
    case FrameFault::NoBlockEnd:
        return "no block end";
    default:
        return f.message();
    }
}

} // namespace

bool BlockStats::scan(std::span<const std::byte> data) {
    std::size_t off = 0;
    while (off < data.size()) {
        BlockInfo b;
        FrameRules rules;
        rules.version = LTT_FILE_VERSION;
        const FrameFault fault = parseFrame(data.subspan(off), rules, b);
        if (fault.kind != FrameFault::None) {
            ++malformed_m;
            problem_m = problemText(fault) + " at offset " + std::to_string(off) + " of a " +
                        std::to_string(data.size()) + "-byte read";
            return false;
        }
        CpuBlockStats& c = cpus_m[b.cpu];
        ++c.blocks;
        c.bytes += b.length;
        c.records += b.records;
        c.lost += b.lost;
        c.maxLost = std::max(c.maxLost, b.lost);
        if (b.flags & LTT_BLOCK_F_FINAL)
            c.final = true;
        off += b.length;
    }
    return true;
}

unsigned BlockStats::cpusSeen() const {
    unsigned n = 0;
    for (unsigned i = 0; i < cpus_m.size(); ++i)
        if (cpus_m[i].blocks)
            n = i + 1;
    return n;
}

std::uint64_t BlockStats::totalBlocks() const {
    std::uint64_t n = 0;
    for (const auto& c : cpus_m)
        n += c.blocks;
    return n;
}

std::uint64_t BlockStats::totalBytes() const {
    std::uint64_t n = 0;
    for (const auto& c : cpus_m)
        n += c.bytes;
    return n;
}

std::uint64_t BlockStats::totalLost() const {
    std::uint64_t n = 0;
    for (const auto& c : cpus_m)
        n += c.lost;
    return n;
}

std::uint64_t roundBufferSize(std::uint64_t needed) {
    std::uint64_t s = LTT_BUFFER_MIN;
    while (s < needed && s <= LTT_BUFFER_MAX)
        s <<= 1;
    return s > LTT_BUFFER_MAX ? 0 : s;
}

std::string formatBytes(std::uint64_t bytes) {
    char buf[32];
    if (bytes >= (1ull << 30))
        std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / (1ull << 30));
    else if (bytes >= (1ull << 20))
        std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1ull << 20));
    else if (bytes >= (1ull << 10))
        std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / (1ull << 10));
    else
        std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
    return buf;
}

std::string sizeOption(std::uint64_t bytes) {
    if (bytes && bytes % (1ull << 20) == 0)
        return std::to_string(bytes >> 20) + "M";
    if (bytes && bytes % (1ull << 10) == 0)
        return std::to_string(bytes >> 10) + "K";
    return std::to_string(bytes);
}

LossReport makeLossReport(const BlockStats& stats, const ltt_lost_counts* module,
                          std::uint32_t bufferSize, unsigned ncpus) {
    LossReport r;
    ncpus = std::clamp(ncpus, 1u, static_cast<unsigned>(LTT_MAX_CPUS));
    if (module)
        ncpus = std::max(ncpus, std::min(module->ncpus, static_cast<__u32>(LTT_MAX_CPUS)));
    ncpus = std::max(ncpus, stats.cpusSeen());

    // Average record size over the whole trace: the fallback for a CPU whose
    // blocks told us little.
    std::uint64_t allBytes = 0, allRecords = 0;
    for (unsigned c = 0; c < ncpus; ++c) {
        allBytes += stats.cpu(c).bytes;
        allRecords += stats.cpu(c).records;
    }
    double avgAll = allRecords ? static_cast<double>(allBytes) / allRecords : 16.0;

    bool tooBig = false;
    for (unsigned c = 0; c < ncpus; ++c) {
        const CpuBlockStats& s = stats.cpu(c);
        std::uint64_t lost = module ? std::max<std::uint64_t>(module->per_cpu[c], s.lost) : s.lost;
        std::uint64_t recorded = module ? module->recorded[c] : s.records;
        r.totalLost += lost;
        r.totalRecorded += recorded;
        if (lost == 0)
            continue;
        CpuLoss l;
        l.cpu = c;
        l.lost = lost;
        l.recorded = recorded;
        // Losses the blocks did not show (at the very end) count as one burst.
        l.largestBurst = std::max(s.maxLost, lost - std::min(lost, s.lost));
        if (l.largestBurst == 0)
            l.largestBurst = lost;
        double avg = s.records >= 16 ? static_cast<double>(s.bytes) / s.records : avgAll;
        auto burstBytes = static_cast<std::uint64_t>(static_cast<double>(l.largestBurst) * avg);
        l.suggestedBuffer = roundBufferSize(static_cast<std::uint64_t>(bufferSize) + burstBytes);
        if (l.suggestedBuffer == 0)
            tooBig = true;
        r.suggestedBuffer = std::max(r.suggestedBuffer, l.suggestedBuffer);
        r.cpus.push_back(l);
    }
    if (tooBig)
        r.suggestedBuffer = 0;
    return r;
}

std::string LossReport::text() const {
    if (totalLost == 0)
        return "no events lost\n";
    std::string out;
    char line[256];
    double pct =
        100.0 * static_cast<double>(totalLost) / static_cast<double>(totalLost + totalRecorded);
    std::snprintf(line, sizeof line, "%llu events lost (%.2f%% of %llu), per CPU:\n",
                  static_cast<unsigned long long>(totalLost), pct,
                  static_cast<unsigned long long>(totalLost) + totalRecorded);
    out += line;
    for (const auto& c : cpus) {
        std::snprintf(line, sizeof line,
                      "  cpu %u: %llu lost, %llu recorded, largest loss %llu events; ", c.cpu,
                      static_cast<unsigned long long>(c.lost),
                      static_cast<unsigned long long>(c.recorded),
                      static_cast<unsigned long long>(c.largestBurst));
        out += line;
        if (c.suggestedBuffer)
            out += "a buffer of " + formatBytes(c.suggestedBuffer) + " would have held it\n";
        else
            out += "even the largest buffer (" + formatBytes(LTT_BUFFER_MAX) +
                   ") would not have held it\n";
    }
    if (totalLost > totalRecorded)
        out += "more events were lost than recorded: they came faster than they could be "
               "written, and a larger buffer only absorbs bursts; record fewer events (-e, -D) "
               "or filter (-P, -G, -u, -g)\n";
    if (suggestedBuffer)
        out += "to avoid these losses, trace with -b " + sizeOption(suggestedBuffer) + "\n";
    else
        out += "to avoid these losses, record fewer events (-e, -D) or filter (-P, -G, -u, -g)\n";
    return out;
}

} // namespace ltt::daemon
