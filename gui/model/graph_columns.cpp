// The event graph's columns: see graph_columns.hpp.
#include "graph_columns.hpp"

#include <algorithm>

namespace traceview {

void exactColumns(const ltt::EventGraph& g, const GraphColumnsKey& key,
                  std::vector<ltt::RowBins>& bins, std::vector<std::vector<std::int32_t>>& cpus) {
    g.binRows(key.rows, key.begin, key.end, key.columns, bins);
    g.cpuTasks(key.begin, key.end, key.columns, cpus);
}

void stretchedSummary(const ltt::EventGraph& g, const GraphColumnsKey& key,
                      std::vector<ltt::RowBins>& bins,
                      std::vector<std::vector<std::int32_t>>& cpus) {
    using ltt::RowBins;
    // The whole summary bins covering the window, one coarse column each.
    const std::uint64_t w = g.binWidthNs(), lo = g.startNs();
    const std::uint64_t b0 = (std::max(key.begin, lo) - lo) / w;
    const std::uint64_t b1 = std::max(b0 + 1, (key.end - lo + w - 1) / w);
    const auto nb = unsigned(b1 - b0);
    const std::uint64_t cb = lo + b0 * w, ce = lo + b1 * w;
    std::vector<RowBins> coarse;
    std::vector<std::vector<std::int32_t>> coarseCpu;
    g.binRows(key.rows, cb, ce, nb, coarse);
    g.cpuTasks(cb, ce, nb, coarseCpu);
    bins.resize(coarse.size());
    for (std::size_t r : key.rows) {
        RowBins& o = bins[r];
        o.control.assign(key.columns, 0);
        o.firstEvent.assign(key.columns, -1);
        o.firstKind.assign(key.columns, ltt::GraphEventKind::Other);
        o.eventCount.assign(key.columns, 0);
        o.kinds.assign(key.columns, 0);
    }
    cpus.assign(coarseCpu.size(), std::vector<std::int32_t>(key.columns, -1));
    std::uint64_t last = ~0ull;
    for (unsigned c = 0; c < key.columns; ++c) {
        const std::uint64_t t = ltt::EventGraph::columnStart(key.begin, key.end, key.columns, c);
        const std::uint64_t j = std::min<std::uint64_t>(nb - 1, (std::max(t, cb) - cb) / w);
        const bool firstOfBin = j != last;
        last = j;
        for (std::size_t r : key.rows) {
            const RowBins& in = coarse[r];
            RowBins& o = bins[r];
            o.control[c] = in.control[j] & ~RowBins::kControlChanges;
            if (firstOfBin) {
                o.control[c] = in.control[j];
                o.firstEvent[c] = in.firstEvent[j];
                o.firstKind[c] = in.firstKind[j];
                o.eventCount[c] = in.eventCount[j];
                o.kinds[c] = in.kinds[j];
            }
        }
        for (std::size_t k = 0; k < coarseCpu.size(); ++k)
            cpus[k][c] = coarseCpu[k][j];
    }
}

} // namespace traceview
