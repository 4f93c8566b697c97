// The Latency tab's model (gui/model/latency_model.hpp) on the committed
// small trace: what the tab shows is what traceanalyze --latency prints
// (the figures line, the histogram's rows, the worst instances), and a
// worst instance's interval ends at an event of its CPU, where the graph
// jumps to.
#include "latency_model.hpp"
#include "trace_document.hpp"

#include <cstdio>
#include <gtest/gtest.h>
#include <libltt/event_format.hpp>
#include <libltt/latency_render.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace {

const std::string kData = std::string(LTT_SOURCE_DIR) + "/tests/gui/data/";

std::vector<std::string> latencyTextLines(const ltt::LatencyAnalysis& a) {
    char* buf = nullptr;
    std::size_t size = 0;
    std::FILE* f = open_memstream(&buf, &size);
    ltt::writeLatencyText(f, a);
    std::fclose(f);
    std::istringstream in(std::string(buf, size));
    std::free(buf);
    std::vector<std::string> out;
    for (std::string l; std::getline(in, l);)
        out.push_back(l);
    return out;
}

} // namespace

TEST(LatencyModel, ShowsWhatTraceanalyzePrints) {
    traceview::Progress progress;
    std::string err;
    auto doc =
        traceview::TraceDocument::open(kData + "small.trace", kData + "small.proc", progress, err);
    ASSERT_TRUE(doc) << err;
    ASSERT_TRUE(doc->complete(progress));
    EXPECT_EQ(doc->latency(), nullptr); // not computed until asked
    ASSERT_TRUE(doc->computeLatency(progress));
    const ltt::LatencyAnalysis* a = doc->latency();
    ASSERT_NE(a, nullptr);
    const auto text = latencyTextLines(*a);
    std::size_t checkedWorst = 0;
    for (const auto& choice : traceview::latencyKinds()) {
        // The kind's block in the text: its title, then its figures line.
        std::size_t at = 0;
        while (at < text.size() && text[at] != choice.title)
            ++at;
        ASSERT_LT(at, text.size()) << choice.title;
        std::size_t fig = at + 1;
        while (fig < text.size() && text[fig].find("  count ") != 0 &&
               text[fig].find("  none") != 0 && text[fig].find("  not recorded") != 0)
            ++fig;
        ASSERT_LT(fig, text.size()) << choice.title;
        const std::string figures = traceview::latencyFigures(*a, choice.kind);
        EXPECT_EQ("  " + figures.substr(0, figures.find(";")), text[fig]) << choice.title;
        const auto& d = a->all(choice.kind);
        const auto bars = traceview::latencyBars(d);
        if (d.count() == 0) {
            EXPECT_TRUE(bars.empty());
            continue;
        }
        // runqlat's rows: "low -> high : count |***|", one per bar.
        ASSERT_LT(fig + 2 + bars.size(), text.size());
        for (std::size_t i = 0; i < bars.size(); ++i) {
            std::istringstream row(text[fig + 2 + i]);
            std::uint64_t low = 0, high = 0, count = 0;
            std::string arrow, colon;
            row >> low >> arrow >> high >> colon >> count;
            EXPECT_EQ(bars[i].lowUs, low) << choice.title << " bar " << i;
            EXPECT_EQ(bars[i].highUs, high) << choice.title << " bar " << i;
            EXPECT_EQ(bars[i].count, count) << choice.title << " bar " << i;
        }
        const auto worst = traceview::latencyWorst(*a, choice.kind);
        ASSERT_EQ(worst.size(), d.worst().size());
        for (std::size_t i = 0; i < worst.size(); ++i) {
            const std::string& line = text[fig + 2 + bars.size() + 1 + i];
            EXPECT_NE(line.find(worst[i].duration + "  from "), std::string::npos) << line;
            EXPECT_NE(line.find("CPU " + std::to_string(worst[i].cpu)), std::string::npos);
            EXPECT_EQ(worst[i].endNs - worst[i].startNs, d.worst()[i].ns);
            // The instance ends at an event of its CPU at exactly endNs,
            // of the kind that ends it.
            auto ev = traceview::latencyEndEvent(*doc, choice.kind, worst[i]);
            ASSERT_TRUE(ev) << choice.title;
            const traceview::EventLine e = doc->event(*ev);
            EXPECT_EQ(e.timeNs, worst[i].endNs) << choice.title;
            EXPECT_EQ(e.cpu, worst[i].cpu);
            if (choice.kind == ltt::LatencyKind::Wakeup ||
                choice.kind == ltt::LatencyKind::Preemption) {
                EXPECT_EQ(e.id, LTT_EV_SCHEDCHANGE) << choice.title;
            } else if (choice.kind == ltt::LatencyKind::Syscall) {
                EXPECT_EQ(e.id, LTT_EV_SYSCALL_EXIT) << choice.title;
            } else if (choice.kind == ltt::LatencyKind::Irq) {
                EXPECT_EQ(e.id, LTT_EV_IRQ_EXIT) << choice.title;
            }
            ++checkedWorst;
        }
    }
    EXPECT_GT(checkedWorst, 10u);
}

TEST(LatencyModel, CriticalPathOfABusyTask) {
    traceview::Progress progress;
    std::string err;
    auto doc =
        traceview::TraceDocument::open(kData + "small.trace", kData + "small.proc", progress, err);
    ASSERT_TRUE(doc) << err;
    ASSERT_TRUE(doc->complete(progress));
    std::int32_t pid = 0;
    std::uint64_t most = 0;
    for (const auto& p : doc->processes())
        if (p.pid > 0 && p.runningNs > most) {
            most = p.runningNs;
            pid = p.pid;
        }
    ASSERT_GT(pid, 0);
    auto path = doc->criticalPath(pid);
    ASSERT_TRUE(path->found());
    ASSERT_FALSE(path->segments().empty());
    // The segments tile the interval.
    std::uint64_t at = path->fromNs();
    for (const auto& s : path->segments()) {
        EXPECT_EQ(s.startNs, at);
        at = s.endNs;
    }
    EXPECT_EQ(at, path->toNs());
    EXPECT_FALSE(doc->criticalPath(999999)->found());
}
