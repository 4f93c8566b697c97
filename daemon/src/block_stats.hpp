// What the daemon learns from the blocks it passes through, without
// interpreting events: per CPU, the blocks, bytes and records written, the
// events the module lost and the largest single loss (one block's `lost`).
// From these the end-of-trace report says how big a buffer would have held
// the largest loss: the module loses events only when a CPU's write buffer
// fills while its read buffer still waits for us, so a buffer larger by the
// lost events' bytes would have absorbed that burst.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <ltt/abi.h>
#include <span>
#include <string>
#include <vector>

namespace ltt::daemon {

struct CpuBlockStats {
    std::uint64_t blocks = 0;
    std::uint64_t bytes = 0;
    std::uint64_t records = 0; // BLOCK_START/END and LOST included
    std::uint64_t lost = 0;
    std::uint64_t maxLost = 0; // largest `lost` of one block
    bool final = false;        // saw a block flagged LTT_BLOCK_F_FINAL
};

class BlockStats {
public:
    // Accounts every whole block in `data` (what one read() returned).
    // Returns false, and stops at that block, when the data is not a sequence
    // of well-formed blocks; the caller still writes it (the reader will
    // report the corruption with its offset) but warns once.
    bool scan(std::span<const std::byte> data);

    const CpuBlockStats& cpu(unsigned c) const { return cpus_m.at(c); }
    unsigned cpusSeen() const; // highest CPU seen + 1
    std::uint64_t totalBlocks() const;
    std::uint64_t totalBytes() const;
    std::uint64_t totalLost() const;
    std::uint64_t malformed() const { return malformed_m; }
    std::string lastProblem() const { return problem_m; }

private:
    std::array<CpuBlockStats, LTT_MAX_CPUS> cpus_m{};
    std::uint64_t malformed_m = 0;
    std::string problem_m;
};

// One CPU's line of the lost-events report.
struct CpuLoss {
    unsigned cpu = 0;
    std::uint64_t lost = 0;
    std::uint64_t recorded = 0;
    std::uint64_t largestBurst = 0;
    std::uint64_t suggestedBuffer = 0; // bytes; 0 if no buffer size would do
};

struct LossReport {
    std::uint64_t totalLost = 0;
    std::uint64_t totalRecorded = 0;
    std::vector<CpuLoss> cpus;         // only CPUs that lost events
    std::uint64_t suggestedBuffer = 0; // max over cpus; 0 = beyond LTT_BUFFER_MAX
    std::string text() const;          // the report as printed
};

// Combines the module's counts (GET_LOST, if it answered) with what the
// blocks showed. `bufferSize` is the module buffer size in effect.
LossReport makeLossReport(const BlockStats& stats, const ltt_lost_counts* module,
                          std::uint32_t bufferSize, unsigned ncpus);

// Smallest power of two >= needed, at least LTT_BUFFER_MIN; 0 when above
// LTT_BUFFER_MAX.
std::uint64_t roundBufferSize(std::uint64_t needed);

std::string formatBytes(std::uint64_t bytes); // "1.5 MiB", "812 KiB", "96 B"
std::string sizeOption(std::uint64_t bytes);  // "2M", "512K", "4096"

} // namespace ltt::daemon
