// The event graph's stretched summary (what a paint shows while the worker
// computes the exact columns): on columns that are the summary's own bins
// it is the exact answer; on finer columns it keeps each bin's markers in
// the bin's first column, holds control without inventing changes, and
// shows the same tasks as the bins it stretches. On
// tests/gui/data/small.trace.
#include "graph_columns.hpp"
#include "trace_document.hpp"

#include <algorithm>
#include <gtest/gtest.h>
#include <numeric>

namespace {

using traceview::GraphColumnsKey;

class Columns : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        traceview::Progress progress;
        std::string error;
        const std::string data = std::string(LTT_SOURCE_DIR) + "/tests/gui/data/";
        doc = traceview::TraceDocument::open(data + "small.trace", data + "small.proc", progress,
                                             error)
                  .release();
        ASSERT_TRUE(doc) << error;
    }
    static void TearDownTestSuite() {
        delete doc;
        doc = nullptr;
    }
    static GraphColumnsKey allRows(std::uint64_t begin, std::uint64_t end, unsigned columns) {
        GraphColumnsKey key{begin, end, columns, {}};
        for (std::size_t r = 0; r < doc->graph().rows().size(); ++r)
            key.rows.push_back(r);
        return key;
    }
    // The first of `n` summary bins around the busiest one.
    static std::uint64_t busyBins(std::uint64_t n) {
        const auto& g = doc->graph();
        const std::uint64_t bins = g.binCount(), w = g.binWidthNs();
        const auto density = g.density(g.startNs(), g.startNs() + bins * w, unsigned(bins));
        const auto peak =
            std::uint64_t(std::max_element(density.begin(), density.end()) - density.begin());
        return std::min(peak > n / 2 ? peak - n / 2 : 0, bins - n);
    }
    static traceview::TraceDocument* doc;
};
traceview::TraceDocument* Columns::doc = nullptr;

TEST_F(Columns, OnWholeBinsTheStretchedSummaryIsExact) {
    const auto& g = doc->graph();
    const std::uint64_t w = g.binWidthNs(), lo = g.startNs();
    ASSERT_GT(g.binCount(), 40u);
    const std::uint64_t b = busyBins(30);
    const auto key = allRows(lo + b * w, lo + (b + 30) * w, 30); // a bin per column
    std::vector<ltt::RowBins> exact, stretched;
    std::vector<std::vector<std::int32_t>> exactCpus, stretchedCpus;
    traceview::exactColumns(g, key, exact, exactCpus);
    traceview::stretchedSummary(g, key, stretched, stretchedCpus);
    ASSERT_EQ(stretched.size(), exact.size());
    std::uint64_t markers = 0;
    for (std::size_t r : key.rows)
        for (auto n : exact[r].eventCount)
            markers += n;
    EXPECT_GT(markers, 0u);
    for (std::size_t r : key.rows) {
        EXPECT_EQ(stretched[r].control, exact[r].control) << "row " << r;
        EXPECT_EQ(stretched[r].firstEvent, exact[r].firstEvent) << "row " << r;
        EXPECT_EQ(stretched[r].eventCount, exact[r].eventCount) << "row " << r;
        EXPECT_EQ(stretched[r].kinds, exact[r].kinds) << "row " << r;
    }
    EXPECT_EQ(stretchedCpus, exactCpus);
}

TEST_F(Columns, FinerColumnsKeepEachBinsMarkersInItsFirstColumn) {
    const auto& g = doc->graph();
    const std::uint64_t w = g.binWidthNs(), lo = g.startNs();
    const unsigned perBin = 8, nbins = 20;
    const std::uint64_t b = busyBins(nbins);
    const auto key = allRows(lo + b * w, lo + (b + nbins) * w, perBin * nbins);
    const auto coarseKey = allRows(key.begin, key.end, nbins);
    std::vector<ltt::RowBins> coarse, stretched;
    std::vector<std::vector<std::int32_t>> coarseCpus, stretchedCpus;
    traceview::exactColumns(g, coarseKey, coarse, coarseCpus);
    traceview::stretchedSummary(g, key, stretched, stretchedCpus);
    std::uint64_t markers = 0;
    for (std::size_t r : key.rows) {
        const auto& s = stretched[r];
        ASSERT_EQ(s.control.size(), key.columns);
        for (unsigned c = 0; c < key.columns; ++c) {
            const unsigned bin = c / perBin;
            if (c % perBin == 0) {
                EXPECT_EQ(s.eventCount[c], coarse[r].eventCount[bin]);
                EXPECT_EQ(s.control[c], coarse[r].control[bin]);
            } else {
                EXPECT_EQ(s.eventCount[c], 0u);
                EXPECT_EQ(s.firstEvent[c], -1);
                EXPECT_EQ(s.control[c], coarse[r].control[bin] & ~ltt::RowBins::kControlChanges);
            }
            markers += s.eventCount[c];
        }
        for (unsigned c = 0; c < key.columns; ++c)
            for (std::size_t cpu = 0; cpu < stretchedCpus.size(); ++cpu)
                EXPECT_EQ(stretchedCpus[cpu][c], coarseCpus[cpu][c / perBin]);
    }
    std::uint64_t want = 0;
    for (std::size_t r : key.rows)
        want += std::accumulate(coarse[r].eventCount.begin(), coarse[r].eventCount.end(),
                                std::uint64_t(0));
    EXPECT_EQ(markers, want);
    EXPECT_GT(markers, 0u);
}

} // namespace
