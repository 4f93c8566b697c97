// The event graph's columns for one paint, without a toolkit: for each
// visible row the model's bins (control, first marker, count, kinds) and
// for each CPU the task current in each column. Exact columns may re-read
// the trace (EventGraph::binRows, cpuTasks: zoomed in below a summary bin
// per column); the stretched summary re-reads nothing and is what the
// widget paints while a worker thread computes the exact ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <libltt/timebin_model.hpp>
#include <vector>

namespace traceview {

// Which columns: the window [begin, end) cut into `columns`, for `rows`.
struct GraphColumnsKey {
    std::uint64_t begin = 0, end = 0;
    unsigned columns = 0;
    std::vector<std::size_t> rows;
    bool operator==(const GraphColumnsKey&) const = default;
};

struct GraphColumns {
    GraphColumnsKey key;
    std::vector<ltt::RowBins> bins;              // by row (the key's rows filled)
    std::vector<std::vector<std::int32_t>> cpus; // task per CPU per column, -1: none
};

// The exact columns (may re-read up to EventGraph::rereadEstimate() events).
void exactColumns(const ltt::EventGraph& g, const GraphColumnsKey& key,
                  std::vector<ltt::RowBins>& bins, std::vector<std::vector<std::int32_t>>& cpus);

// The summary's bins covering the window, stretched over the columns: the
// first column of each bin gets the bin's control flags, first marker,
// count and kinds, the following ones of the same bin only whether the row
// holds control (no changes, no markers). Rows not in the key keep what
// `bins` held. Nothing is re-read from the trace.
void stretchedSummary(const ltt::EventGraph& g, const GraphColumnsKey& key,
                      std::vector<ltt::RowBins>& bins,
                      std::vector<std::vector<std::int32_t>>& cpus);

} // namespace traceview
