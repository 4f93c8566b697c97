// traceview's model (TraceDocument), tested without a display.
//
// One report model, three renderings: on a trace recorded with system calls
// masked out (tests/data/masked.trace), traceanalyze's text report, its
// JSON report and traceview's process-analysis model (TraceDocument, the
// lines the panel shows) say the same thing: the same labels, the same
// values to the same precision, and "masked out at trace time" (JSON null)
// for every figure whose events were not recorded.
//
// TraceDocument (gui/model, the traceview_model library this binary links)
// is the whole model the panel renders, and it needs no toolkit.
#include "trace_document.hpp"
#include "unattributed_fixture.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <gtest/gtest.h>
#include <libltt/process_report.hpp>
#include <libltt/report_render.hpp>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

const std::string kData = std::string(LTT_SOURCE_DIR) + "/tests/data/";

std::string render(void (*writer)(std::FILE*, const ltt::TraceAnalysis&, const ltt::ReportOptions&),
                   const ltt::TraceAnalysis& a) {
    char* buf = nullptr;
    std::size_t size = 0;
    std::FILE* f = open_memstream(&buf, &size);
    ltt::ReportOptions o;
    o.analyze = o.summarize = true;
    writer(f, a, o);
    std::fclose(f);
    std::string s(buf, size);
    std::free(buf);
    return s;
}

std::vector<std::string> lines(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);)
        out.push_back(l);
    return out;
}

// A text report's process block: its header line and its "  Label: value"
// characteristics, label without the colon.
struct TextProcess {
    std::string header;
    std::vector<std::pair<std::string, std::string>> figures;
    std::string syscallLine; // "System call accounting ..."
};

std::vector<TextProcess> textProcesses(const std::vector<std::string>& text) {
    std::vector<TextProcess> out;
    bool inAnalysis = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const std::string& l = text[i];
        if (l == "Process analysis") {
            inAnalysis = true;
        } else if (inAnalysis && l.rfind("Wait times", 0) == 0) {
            break;
        } else if (inAnalysis && l == "Process characteristics :") {
            out.push_back({text[i - 1], {}, {}});
        } else if (inAnalysis && !out.empty() && l.rfind("  ", 0) == 0 &&
                   out.back().syscallLine.empty()) {
            // "  %-36s %s": the label ends at its colon, the value starts
            // after the 36-column field.
            const auto colon = l.find(':');
            out.back().figures.emplace_back(l.substr(2, colon - 2), l.substr(2 + 36 + 1));
        } else if (inAnalysis && !out.empty() && l.rfind("System call accounting", 0) == 0) {
            out.back().syscallLine = l;
        }
    }
    return out;
}

// The JSON value of "key" in one line of the document ("null", "123").
std::string jsonValue(const std::string& line, const std::string& key) {
    const std::string k = "\"" + key + "\": ";
    const auto at = line.find(k);
    if (at == std::string::npos)
        return "<absent>";
    const auto from = at + k.size();
    return line.substr(from, line.find_first_of(",}", from) - from);
}

// "0.004283000 s => 0.04 %" or "0.000120000 s" -> "4283000"; counts as is.
std::string asJsonNumber(const std::string& text) {
    if (text == ltt::kMaskedOut)
        return "null";
    const auto dot = text.find('.');
    if (dot == std::string::npos || text.find(" s") == std::string::npos)
        return text;
    const std::uint64_t ns =
        std::stoull(text.substr(0, dot)) * 1000000000ull + std::stoull(text.substr(dot + 1, 9));
    return std::to_string(ns);
}

TEST(ReportAgreement, TextJsonAndGuiSayTheSameAboutMaskedSyscalls) {
    const std::string trace = kData + "masked.trace", proc = kData + "small.proc";
    ltt::TraceError err;
    auto reader = ltt::TraceReader::open(trace, &err);
    ASSERT_TRUE(reader) << err.str();
    auto snap = ltt::readProcFile(proc, nullptr, nullptr);
    ASSERT_TRUE(snap);
    ltt::TraceAnalysis a(*reader, &*snap);
    ASSERT_TRUE(a.run());
    ASSERT_FALSE(a.availability().syscalls) << "masked.trace must have system calls masked";

    traceview::Progress progress;
    std::string error;
    auto doc = traceview::TraceDocument::open(trace, proc, progress, error);
    ASSERT_TRUE(doc) << error;
    ASSERT_TRUE(doc->complete(progress));

    const auto text = lines(render(ltt::writeTextReport, a));
    const auto json = lines(render(ltt::writeJsonReport, a));

    // What was masked: the text header, the JSON list, the GUI's root.
    EXPECT_NE(std::find(text.begin(), text.end(), "Masked out at trace time: system calls"),
              text.end());
    EXPECT_NE(std::find(json.begin(), json.end(), "  \"masked_out\": [\"system calls\"],"),
              json.end());
    std::map<std::string, std::string> root;
    for (const auto& l : doc->processReport(0))
        root[l.label] = l.value;
    EXPECT_EQ(root["Masked out at trace time"], "system calls");
    EXPECT_EQ(root["Number of system calls"], ltt::kMaskedOut);
    EXPECT_EQ(doc->syscallNote(), ltt::kMaskedOut);
    EXPECT_TRUE(doc->syscalls(0).empty());

    // Every process the text report details, against the GUI's lines for the
    // same process instance and the JSON object of the same process.
    const auto blocks = textProcesses(text);
    ASSERT_FALSE(blocks.empty());
    std::vector<std::string> jsonProcs;
    for (const auto& l : json)
        if (l.rfind("    {\"pid\": ", 0) == 0)
            jsonProcs.push_back(l);
    const auto& procs = a.processes();
    std::size_t block = 0, jsonIndex = 0, maskedSeen = 0;
    for (std::uint32_t i = 0; i < procs.size(); ++i) {
        const ltt::Process& p = procs[i];
        if (p.pid == 0)
            continue;
        const std::string& jp = jsonProcs.at(jsonIndex++);
        ASSERT_EQ(jsonValue(jp, "pid"), std::to_string(p.pid));
        EXPECT_EQ(jsonValue(jp, "syscall_table"), "null") << p.pid;
        if (!p.stats.runningNs && !p.stats.syscalls && !p.stats.schedIn)
            continue; // only in the text report's tree
        ASSERT_LT(block, blocks.size());
        const TextProcess& tp = blocks[block++];
        ASSERT_NE(tp.header.find("(" + std::to_string(p.pid) + ")"), std::string::npos)
            << tp.header;
        EXPECT_EQ(tp.syscallLine, "System call accounting : masked out at trace time");
        EXPECT_EQ(doc->syscallNote(), ltt::kMaskedOut);
        EXPECT_TRUE(doc->syscalls(i).empty());

        std::map<std::string, std::string> gui;
        for (const auto& l : doc->processReport(i))
            gui[l.label] = l.value;
        const ltt::ProcessFigures model = ltt::processFigures(a.availability(), p.stats);
        ASSERT_EQ(tp.figures.size(), std::size(ltt::kCharacteristics));
        for (const auto& [label, value] : tp.figures) {
            ASSERT_TRUE(gui.count(label)) << "GUI has no \"" << label << "\" for " << p.pid;
            EXPECT_EQ(gui[label], value) << label << " of " << p.pid;
            const auto f = std::find_if(model.begin(), model.end(),
                                        [&](const auto& v) { return label == v.label; });
            ASSERT_NE(f, model.end()) << label;
            EXPECT_EQ(jsonValue(jp, f->key), asJsonNumber(value)) << label << " of " << p.pid;
            maskedSeen += value == ltt::kMaskedOut;
        }
        EXPECT_EQ(gui["Number of system calls"], ltt::kMaskedOut);
        EXPECT_EQ(gui["Time in system calls"], ltt::kMaskedOut);
        EXPECT_EQ(gui["Time executing process code"], ltt::kMaskedOut);
    }
    EXPECT_EQ(block, blocks.size());
    EXPECT_EQ(jsonIndex, jsonProcs.size());
    EXPECT_GT(maskedSeen, 0u);
}

// The second stage of opening (the process analysis, on libltt's fast
// walk) gives up when the user cancels, and leaves the document not ready.
TEST(TraceDocument, CompleteIsCancellable) {
    traceview::Progress progress;
    std::string error;
    auto doc = traceview::TraceDocument::open(kData + "small.trace", kData + "small.proc", progress,
                                              error);
    ASSERT_TRUE(doc) << error;
    progress.cancel = true;
    EXPECT_FALSE(doc->complete(progress));
    EXPECT_FALSE(doc->ready());
    progress.cancel = false;
    EXPECT_TRUE(doc->complete(progress));
    EXPECT_TRUE(doc->ready());
}

} // namespace

namespace {

std::map<std::string, std::string> asMap(const std::vector<ltt::ReportLine>& lines) {
    std::map<std::string, std::string> m;
    for (const auto& l : lines)
        m[l.label] = l.value;
    return m;
}

} // namespace

// The unattributed entry in traceview's model says what traceanalyze says:
// its events by reason, its figures and system calls, apart from the tree.
TEST(TraceDocument, UnattributedEntryAsTheReportsSayIt) {
    char dir[] = "/tmp/ltt-gui-unattributed.XXXXXX";
    ASSERT_TRUE(mkdtemp(dir));
    const std::string trace = std::string(dir) + "/u.trace";
    traceview::writeUnattributedTrace(trace);
    ltt::TraceError err;
    auto reader = ltt::TraceReader::open(trace, &err);
    ASSERT_TRUE(reader) << err.str();
    ltt::TraceAnalysis a(*reader, nullptr);
    ASSERT_TRUE(a.run());
    ASSERT_EQ(a.unattributedEvents(ltt::Unattributed::NoContext), 8u);
    ASSERT_EQ(a.unattributedEvents(ltt::Unattributed::NoBlockTask), 3u);

    traceview::Progress progress;
    std::string error;
    auto doc = traceview::TraceDocument::open(trace, "", progress, error);
    ASSERT_TRUE(doc) << error;
    EXPECT_FALSE(doc->unattributed()) << "nothing before the analysis";
    ASSERT_TRUE(doc->complete(progress));

    const auto u = doc->unattributed();
    ASSERT_TRUE(u);
    EXPECT_EQ(u->events, a.unattributedEvents());
    ASSERT_EQ(u->reasons.size(), 2u);
    EXPECT_EQ(u->reasons[0].key, "no_context");
    EXPECT_EQ(u->reasons[0].events, 8u);
    EXPECT_EQ(u->reasons[0].text, ltt::unattributedReason(ltt::Unattributed::NoContext, false));
    EXPECT_EQ(u->reasons[1].key, "no_task");
    EXPECT_EQ(u->reasons[1].events, 3u);
    EXPECT_EQ(u->syscalls, 4u);
    EXPECT_EQ(u->runningNs, a.unattributed().stats.runningNs);

    // Never a process of the tree; its name where a row shows pid -1.
    for (const auto& p : doc->processes())
        EXPECT_NE(p.pid, ltt::kUnattributedPid) << p.name;
    EXPECT_EQ(doc->processName(ltt::kUnattributedPid), "unattributed");
    bool warned = false;
    for (const auto& w : doc->warnings())
        warned |= w == "11 events not attributed to any task (\"unattributed\", 8 no_context, "
                       "3 no_task)";
    EXPECT_TRUE(warned);

    // Its lines: the count, each reason, then the text report's figures of
    // its block, label for label.
    const auto gui = asMap(doc->processReport(traceview::kUnattributedId));
    EXPECT_EQ(gui.at("Events"), "11");
    EXPECT_EQ(gui.at("Reason no_context"),
              "8: " + std::string(ltt::unattributedReason(ltt::Unattributed::NoContext, false)));
    EXPECT_EQ(gui.at("Reason no_task"),
              "3: " + std::string(ltt::unattributedReason(ltt::Unattributed::NoBlockTask, false)));
    EXPECT_FALSE(gui.count("PID"));
    const auto blocks = textProcesses(lines(render(ltt::writeTextReport, a)));
    const auto text = std::find_if(blocks.begin(), blocks.end(), [](const TextProcess& t) {
        return t.header.rfind("unattributed (", 0) == 0;
    });
    ASSERT_NE(text, blocks.end());
    ASSERT_FALSE(text->figures.empty());
    for (const auto& [label, value] : text->figures) {
        ASSERT_TRUE(gui.count(label)) << label;
        EXPECT_EQ(gui.at(label), value) << label;
    }
    EXPECT_EQ(gui.at("Number of system calls"), "4");
    const auto calls = doc->syscalls(traceview::kUnattributedId);
    std::map<std::string, std::uint64_t> byName;
    for (const auto& c : calls)
        byName[c.name] = c.count;
    EXPECT_EQ(byName["getpid"], 3u);
    EXPECT_EQ(byName["write"], 1u);
    EXPECT_EQ(asMap(doc->processReport(0)).at("Unattributed events"), "11");

    // In a selection it counts like a process; it has no descendants.
    EXPECT_EQ(doc->withDescendants(traceview::kUnattributedId),
              std::vector<std::int64_t>{traceview::kUnattributedId});
    // The root (pid 0, no calls here) and the entry: its calls.
    const auto sel = asMap(doc->selectionReport({0, traceview::kUnattributedId}));
    EXPECT_EQ(sel.at("Processes selected"), "2");
    EXPECT_EQ(sel.at("Number of system calls"), "4");
    std::remove(trace.c_str());
    rmdir(dir);

    // A trace that attributes every event has no entry.
    auto small = traceview::TraceDocument::open(kData + "small.trace", kData + "small.proc",
                                                progress, error);
    ASSERT_TRUE(small) << error;
    ASSERT_TRUE(small->complete(progress));
    EXPECT_FALSE(small->unattributed());
    EXPECT_FALSE(asMap(small->processReport(0)).count("Unattributed events"));
}
