// traceview-selftest OUTDIR TRACE PROC: the self test's script, one named
// step function each (see selftest.hpp). The steps share a SelfTest: the
// window, the checks, and what one step leaves for a later one.
#include "selftest.hpp"

#include "screenshot.hpp"
#include "unattributed_fixture.hpp"
#include "vars_fixture.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <libltt/callsites.hpp>
#include <libltt/event_format.hpp>
#include <libltt/latency.hpp>
#include <libltt/proc_file.hpp>
#include <libltt/syscall_args.hpp>
#include <libltt/trace_analysis.hpp>
#include <libltt/trace_reader.hpp>
#include <ltt/events.h>
#include <map>
#include <memory>

namespace traceview {

namespace {

using Next = std::function<void()>;

struct SelfTest {
    Gtk::Application& app;
    MainWindow& win;
    std::string trace, proc, outDir;
    int& status;
    Checks checks;

    // A screenshot of the window, or of one widget alone (the README's
    // pictures), in outDir; each is a check.
    void shot(const std::string& name) {
        const std::string path = outDir + "/" + name + ".png";
        checks.check(saveScreenshot(win, path), "screenshot " + path);
    }
    void shotWidget(Gtk::Widget& w, const std::string& name) {
        checks.check(saveScreenshot(w, outDir + "/" + name + ".png"),
                     "screenshot " + name + ".png");
    }
    std::function<void(const std::string&)> shotFn() {
        return [this](const std::string& name) { shot(name); };
    }
    std::function<void(Gtk::Widget&, const std::string&)> shotWidgetFn() {
        return [this](Gtk::Widget& w, const std::string& name) { shotWidget(w, name); };
    }

    // Left by one step for a later one.
    std::shared_ptr<std::uint64_t> clicked = std::make_shared<std::uint64_t>(0);
    // Markers by kind and transitions before a kind was hidden.
    std::shared_ptr<std::pair<std::array<std::size_t, ltt::kGraphEventKinds>, std::size_t>> before =
        std::make_shared<std::pair<std::array<std::size_t, ltt::kGraphEventKinds>, std::size_t>>();
    std::shared_ptr<std::size_t> refiningBefore = std::make_shared<std::size_t>(0);
    std::shared_ptr<std::size_t> exactMarks = std::make_shared<std::size_t>(0);
    std::shared_ptr<std::uint64_t> span = std::make_shared<std::uint64_t>(0);
    std::shared_ptr<std::int32_t> csPid = std::make_shared<std::int32_t>(0);
    std::shared_ptr<std::optional<std::uint64_t>> firstHit =
        std::make_shared<std::optional<std::uint64_t>>();
};

// First event of a process row visible in the graph, as a click position.
std::optional<std::pair<std::uint64_t, std::pair<double, double>>>
clickableEvent(EventGraphView& view, const TraceDocument& doc) {
    const auto& g = doc.graph();
    ltt::RowBins bins;
    int w = view.area().get_width() - EventGraphView::kLabelWidth;
    if (w <= 0)
        return std::nullopt;
    for (std::size_t r = 2; r < g.rows().size(); ++r) {
        g.bin(r, view.viewBegin(), view.viewEnd(), unsigned(w), bins);
        for (unsigned c = 0; c < bins.firstEvent.size(); ++c) {
            if (bins.firstEvent[c] < 0)
                continue;
            auto idx = std::uint64_t(bins.firstEvent[c]);
            if (auto pos = view.positionOf(idx))
                return std::make_pair(idx, *pos);
        }
    }
    return std::nullopt;
}

// Picks menu entry `choice` of the raw view's event filter, applies it and,
// once the background filter is done, checks that rows remain, fewer than
// the trace's, and that each of the first 200 is an event `accept` takes.
void checkTypeFilter(MainWindow& win, Checks* checks, guint choice,
                     std::function<bool(const std::string&)> accept, const std::string& name,
                     std::function<void()> next) {
    auto& r = win.rawView();
    r.typeChooser().set_selected(choice);
    r.applyFilter();
    auto poll = std::make_shared<std::function<void()>>();
    *poll = [&win, checks, accept, name, next, poll] {
        if (win.busy()) {
            Glib::signal_timeout().connect_once([poll] { (*poll)(); }, 50);
            return;
        }
        auto& r = win.rawView();
        bool all = r.rowCount() > 0;
        for (guint i = 0; i < std::min<guint>(r.rowCount(), 200); ++i)
            all = all && accept(r.cellText(i, 1));
        checks->check(all, name + " (" + std::to_string(r.rowCount()) + " rows)");
        checks->check(r.rowCount() < win.document()->eventCount(),
                      name + ": the filter removes rows");
        next();
        Glib::signal_idle().connect_once([poll] { *poll = nullptr; }); // break the cycle
    };
    Glib::signal_timeout().connect_once([poll] { (*poll)(); }, 50);
}

// A report figure as an integer ("12", "0.123456789 s => 1.2 %" -> 123456789);
// nullopt for text such as "masked out at trace time".
std::optional<long long> figureValue(const std::string& v) {
    std::string digits;
    std::size_t i = 0;
    for (; i < v.size() && (std::isdigit(static_cast<unsigned char>(v[i])) || v[i] == '.'); ++i)
        if (v[i] != '.')
            digits += v[i];
    if (digits.empty() || (i < v.size() && v[i] != ' '))
        return std::nullopt;
    return std::stoll(digits);
}

std::string windowText(const EventGraphView& g) {
    return "(" + ltt::formatSeconds(g.viewBegin()) + ", " + ltt::formatSeconds(g.viewEnd()) + ")";
}

// ------------------------------------------------------------------ steps

// Opens the trace; without it nothing else can be checked.
void openTrace(SelfTest& st, Next next) {
    Gtk::Application& app = st.app;
    int& status = st.status;
    MainWindow& win = st.win;
    const std::string& trace = st.trace;
    const std::string& proc = st.proc;
    Checks* checks = &st.checks;
    win.openTrace(trace, proc, [checks, next, &app, &status, &win](bool ok) {
        checks->check(ok, "open trace", ok ? "" : win.statusLabel().get_text());
        if (ok) {
            next();
            return;
        }
        // Nothing else can be checked without a trace.
        checks->summary();
        status = 1;
        app.quit();
    });
}

// The trace as opened: Open Recent, the rows and their labels, markers and
// control lines, the whole trace in view, the status bar's window.
void checkOpened(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    auto shot = st.shotFn();
    auto shotWidget = st.shotWidgetFn();
    const TraceDocument* doc = win.document();
    if (!doc) {
        checks->check(false, "document loaded");
        next();
        return;
    }
    bool recent = false;
    for (const auto& [t, p] : win.recentTraces())
        recent = recent || t == doc->tracePath();
    std::string listed;
    for (const auto& [t, p] : win.recentTraces())
        listed += t + " ";
    checks->check(recent, "File → Open Recent lists the trace",
                  "want " + doc->tracePath() + ", have " + listed);
    auto& g = win.graphView();
    auto labels = g.visibleRowLabels();
    checks->check(labels.size() >= 3 && labels[0] == "Kernel" && labels[1] == "Idle (0)",
                  "event graph rows start with Kernel, Idle (0)",
                  labels.empty() ? "no rows" : labels[0]);
    std::size_t procRows = doc->graph().rows().size() - 2;
    checks->check(procRows > 0, "event graph has process rows (" + std::to_string(procRows) + ")");
    bool named = std::all_of(labels.begin() + 2, labels.end(), [](const std::string& l) {
        return l.find(" (") != std::string::npos && l.back() == ')';
    });
    checks->check(named, "process rows are labelled NAME (PID)");
    checks->check(g.lastMarkerCount() > 0,
                  "graph draws event markers (" + std::to_string(g.lastMarkerCount()) + ")");
    checks->check(g.lastTransitionCount() > 0, "graph draws control transitions (" +
                                                   std::to_string(g.lastTransitionCount()) +
                                                   " columns)");
    checks->check(g.viewBegin() == doc->graph().startNs() && g.viewEnd() >= doc->graph().endNs(),
                  "initial view is the whole trace");
    checks->check(win.windowText() == windowText(g), "status bar shows the visible window (t1, t2)",
                  win.windowText() + " vs " + windowText(g));
    shot("event-graph");
    shotWidget(g, "graph-view");
    next();
}

// The CPU view: one row per CPU, the task the model says at each column.
void checkCpuView(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    auto& g = win.graphView();
    const TraceDocument* doc = win.document();
    const auto& graph = doc->graph();
    checks->check(graph.cpuCount() > 0 && g.lastCpuRows() == graph.cpuCount(),
                  "CPU view has a row per CPU (" + std::to_string(g.lastCpuRows()) + ")");
    // The task of an event's CPU at its time is the event's task (the
    // trace's own answer), for events spread over the trace.
    std::size_t tried = 0, agree = 0;
    std::string bad;
    for (std::uint64_t i = 0; i < doc->eventCount() && tried < 60;
         i += std::max<std::uint64_t>(1, doc->eventCount() / 97)) {
        EventLine l = doc->event(i);
        if (l.id == LTT_EV_SCHEDCHANGE || l.id == LTT_EV_BLOCK_START || l.id == LTT_EV_BLOCK_END ||
            l.id == LTT_EV_HEARTBEAT || l.id == LTT_EV_TRACE_START || l.id == LTT_EV_LOST ||
            l.cpu >= LTT_MAX_CPUS) // a user stream's (ltt::kUserCpu): on no CPU
            continue;
        // Events sharing their instant with another on the CPU (an exit
        // and the switch that follows it) are left out: the answer is
        // after every event of the instant.
        auto tied = [&](std::uint64_t j) {
            if (j >= doc->eventCount())
                return false;
            EventLine o = doc->event(j);
            return o.cpu == l.cpu && o.timeNs == l.timeNs;
        };
        if ((i > 0 && tied(i - 1)) || tied(i + 1))
            continue;
        ++tried;
        const std::int32_t t = graph.taskAt(std::uint16_t(l.cpu), l.timeNs);
        if (t == l.pid)
            ++agree;
        else if (bad.empty())
            bad = "#" + std::to_string(i) + " CPU " + std::to_string(l.cpu) + ": pid " +
                  std::to_string(l.pid) + ", CPU view " + std::to_string(t);
    }
    checks->check(tried > 10 && agree == tried,
                  "CPU view: the task on an event's CPU at its time is the event's (" +
                      std::to_string(agree) + "/" + std::to_string(tried) + ")",
                  bad);
    // What the CPU view drew: column c shows the task current at its start.
    const int w = g.area().get_width() - EventGraphView::kLabelWidth;
    bool drawn = w > 0;
    std::string what;
    for (int c = 0; c < w && drawn; c += std::max(1, w / 37))
        for (std::size_t cpu = 0; cpu < graph.cpuCount() && drawn; ++cpu) {
            const std::uint64_t t =
                ltt::EventGraph::columnStart(g.viewBegin(), g.viewEnd(), unsigned(w), unsigned(c));
            const std::int32_t want = t > graph.startNs() ? graph.taskAt(std::uint16_t(cpu), t - 1)
                                                          : g.cpuTaskAtX(cpu, c);
            if (g.cpuTaskAtX(cpu, c) != want) {
                drawn = false;
                what = "column " + std::to_string(c) + " CPU " + std::to_string(cpu) + ": " +
                       std::to_string(g.cpuTaskAtX(cpu, c)) + " vs " + std::to_string(want);
            }
        }
    checks->check(drawn, "CPU view columns show the task at their start", what);
    // Utilisation strip: libltt's busy time, the process analysis' total.
    std::uint64_t busy = 0;
    for (auto b : g.utilisationBusy())
        busy += b;
    const double want = double(doc->busyCpuNs());
    checks->check(!g.utilisationBusy().empty() && want > 0 &&
                      std::abs(double(busy) - want) <= 0.02 * want,
                  "CPU utilisation strip sums to the analysis' busy CPU time (within 2%)",
                  std::to_string(busy) + " vs " + std::to_string(std::uint64_t(want)));
    next();
}

// Event kinds: hiding one removes its markers, the control lines stay.
void hideSchedChanges(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    auto before = st.before;
    auto& g = win.graphView();
    *before = {g.lastMarkersByKind(), g.lastTransitionCount()};
    checks->check(before->first[std::size_t(ltt::GraphEventKind::SchedChange)] > 0,
                  "scheduling changes are drawn before hiding them");
    win.activate_action("win.kind-" + std::to_string(unsigned(ltt::GraphEventKind::SchedChange)));
    next();
}

// Scheduling changes hidden: none of their markers, the same control
// lines, the other kinds still drawn.
void checkKindHidden(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    auto before = st.before;
    auto shot = st.shotFn();
    auto& g = win.graphView();
    const auto sched = std::size_t(ltt::GraphEventKind::SchedChange);
    checks->check(!g.kindVisible(ltt::GraphEventKind::SchedChange) &&
                      g.lastMarkersByKind()[sched] == 0,
                  "View → Event kinds: hiding scheduling changes removes their markers");
    checks->check(g.lastTransitionCount() == before->second,
                  "hiding an event kind leaves the control lines as they were");
    std::size_t others = 0;
    for (std::size_t k = 0; k < ltt::kGraphEventKinds; ++k)
        others += k == sched ? 0 : g.lastMarkersByKind()[k];
    checks->check(others > 0, "the other kinds are still drawn");
    shot("event-graph-kinds-hidden");
    win.activate_action("win.kind-" + std::to_string(sched));
    next();
}

// Shown again: every marker back. Then a zoom with no re-read allowed in a
// frame, so the columns are computed by the worker.
void showKindAgainThenRefine(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    auto before = st.before;
    auto refiningBefore = st.refiningBefore;
    auto& g = win.graphView();
    checks->check(g.lastMarkersByKind() == before->first,
                  "showing the kind again restores every marker");
    // The worker path: with no re-read allowed in a frame, the paint
    // shows the summary, then the worker's exact columns arrive.
    *refiningBefore = g.refiningPaints();
    g.setSyncReread(0);
    g.zoom(64); // below one summary bin per column: columns re-read
    next();
}

// The summary was painted while the worker ran; waits for its columns.
void waitForRefinement(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    auto exactMarks = st.exactMarks;
    auto refiningBefore = st.refiningBefore;
    auto& g = win.graphView();
    auto poll = std::make_shared<std::function<void()>>();
    *poll = [&win, checks, exactMarks, next, poll] {
        auto& g = win.graphView();
        if (g.refining() || g.lastPaintRefining()) {
            g.area().queue_draw();
            Glib::signal_timeout().connect_once([poll] { (*poll)(); }, 50);
            return;
        }
        *exactMarks = g.lastMarkerCount();
        g.setSyncReread(EventGraphView::kSyncReread);
        next();
        Glib::signal_idle().connect_once([poll] { *poll = nullptr; });
    };
    checks->check(g.refiningPaints() > *refiningBefore,
                  "zoomed view painted while its columns were computed in the background");
    (*poll)();
}

// The worker's columns are the ones the paint computes itself.
void checkRefinedColumns(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    auto exactMarks = st.exactMarks;
    auto& g = win.graphView();
    checks->check(!g.lastPaintRefining() && g.lastMarkerCount() == *exactMarks,
                  "the background columns equal the ones computed in the paint (" +
                      std::to_string(*exactMarks) + " markers)",
                  std::to_string(g.lastMarkerCount()));
    win.activate_action("win.zoom-fit");
    next();
}

// Three ×2 zooms from the whole trace.
void zoomInThrice(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    auto span = st.span;
    *span = win.graphView().viewEnd() - win.graphView().viewBegin();
    win.activate_action("win.zoom-in");
    win.activate_action("win.zoom-in");
    win.activate_action("win.zoom-in");
    next();
}

// The span divided by 8 (to whole summary bins), the status bar following.
void checkZoom(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    auto span = st.span;
    auto shot = st.shotFn();
    auto& g = win.graphView();
    std::uint64_t now = g.viewEnd() - g.viewBegin();
    // Zoomed out, the view is a whole number of the model's summary bins
    // per pixel, so a zoom lands on the nearest such width: within one
    // bin per pixel of the exact eighth.
    const double slack = double(win.document()->graph().binWidthNs()) *
                         std::max(1, g.area().get_width() - EventGraphView::kLabelWidth);
    checks->check(std::abs(double(now) - double(*span) / 8) <= slack,
                  "three ×2 zooms divide the visible span by 8 (to one summary bin per pixel)",
                  std::to_string(*span) + " -> " + std::to_string(now));
    checks->check(win.windowText() == windowText(g),
                  "status bar follows the zoom: " + windowText(g), win.windowText());
    shot("event-graph-zoomed");
    next();
}

// Hover and click on a process event: its tooltip, its selection.
void clickEvent(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    auto clicked = st.clicked;
    auto& g = win.graphView();
    const TraceDocument* doc = win.document();
    auto target = doc ? clickableEvent(g, *doc) : std::nullopt;
    checks->check(target.has_value(), "a process event is visible to click");
    if (target) {
        auto [x, y] = target->second;
        auto tip = g.tooltipAt(x, y);
        checks->check(tip && tip->find('#') == 0, "hover tooltip describes the event",
                      tip ? *tip : "no tooltip");
        g.clickAt(x, y);
        auto sel = win.selectedEvent();
        checks->check(sel.has_value(), "click selects an event");
        if (sel) {
            *clicked = *sel;
            EventLine a = doc->event(*sel), b = doc->event(target->first);
            checks->check(a.pid == b.pid || a.timeNs == b.timeNs,
                          "clicked event is the one under the pointer");
        }
    }
    next();
}

// Zooms in around the selected event, as far as single events.
void zoomToSingleEvents(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    auto clicked = st.clicked;
    // Zoom in around the selected event, as far as single events.
    auto& g = win.graphView();
    if (const TraceDocument* doc = win.document())
        g.showTime(doc->event(*clicked).timeNs);
    for (int i = 0; i < 5; ++i)
        g.zoom(2);
    next();
}

// Zoomed in, events and the CPU view's tasks are labelled.
void checkZoomedLabels(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    auto shot = st.shotFn();
    auto shotWidget = st.shotWidgetFn();
    auto& g = win.graphView();
    checks->check(g.lastLabelCount() > 0,
                  "zoomed in, events carry labels (" + std::to_string(g.lastLabelCount()) + ")");
    checks->check(g.lastCpuLabelCount() > 0, "zoomed in, the CPU view names its tasks (" +
                                                 std::to_string(g.lastCpuLabelCount()) + ")");
    shot("event-graph-detail");
    shotWidget(g.cpuArea(), "cpu-view");
    next();
}

// The selected event's screenshot, then the process tab.
void showProcessTab(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    auto shot = st.shotFn();
    shot("event-graph-selected");
    win.notebook().set_current_page(1);
    next();
}

// The process tree, the selection synchronised, traceanalyze's labels and
// precision.
void checkProcessTab(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    auto shot = st.shotFn();
    auto clicked = st.clicked;
    auto& p = win.processView();
    const TraceDocument* doc = win.document();
    checks->check(p.rootLabel() == "The All Mighty (0)", "process tree root", p.rootLabel());
    checks->check(p.processCount() > 0,
                  "process tree lists processes (" + std::to_string(p.processCount()) + ")");
    if (doc) {
        EventLine line = doc->event(*clicked);
        checks->check(p.selectedPid() == line.pid,
                      "selection synchronised: process tab shows PID " + std::to_string(line.pid),
                      "shows " + std::to_string(p.selectedPid()));
    }
    checks->check(!p.reportLines().empty(), "process characteristics shown");
    // libltt's labels and precision, as traceanalyze prints them.
    bool delay = false;
    for (const auto& [label, value] : p.reportLines())
        delay = delay || (label == "Time waiting to run (sched delay)" &&
                          value.find(" s => ") == 11 && value.find('.') == 1);
    checks->check(delay, "process figures carry traceanalyze's labels and precision");
    checks->check(p.unattributedLabel().empty(),
                  "no unattributed row when the trace attributes every event",
                  p.unattributedLabel());
    shot("process-analysis-selected");
    p.selectPid(0);
    next();
}

// The root: the system-wide figures.
void checkRoot(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    auto shot = st.shotFn();
    auto& p = win.processView();
    checks->check(p.selectedPid() == 0, "root selected");
    checks->check(!p.reportLines().empty() && p.reportLines()[0].first == "Events in trace",
                  "system-wide figures for the root");
    shot("process-analysis");
    next();
}

// Several processes: their figures summed.
void selectThreeProcesses(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    auto& p = win.processView();
    const TraceDocument* doc = win.document();
    auto procs = doc->processes();
    std::sort(procs.begin(), procs.end(),
              [](const ProcessInfo& a, const ProcessInfo& b) { return a.syscalls > b.syscalls; });
    std::vector<std::int64_t> ids;
    for (const auto& pi : procs)
        if (pi.id != 0 && ids.size() < 3)
            ids.push_back(pi.id);
    std::sort(ids.begin(), ids.end());
    p.selectIds(ids);
    checks->check(p.shownIds() == ids && ids.size() == 3,
                  "three processes selected in the tree (" + std::to_string(ids.size()) + ")");
    // Every summed figure equals the sum of the individual ones (the
    // longest delay and slice: the largest).
    std::size_t compared = 0;
    std::string bad;
    for (const auto& [label, value] : p.reportLines()) {
        auto sum = figureValue(value);
        if (!sum || label == "Processes selected")
            continue;
        long long want = 0;
        bool all = true;
        const bool peak = label.rfind("Longest", 0) == 0;
        for (auto id : ids) {
            std::optional<long long> v;
            for (const auto& l : doc->processReport(id))
                if (l.label == label)
                    v = figureValue(l.value);
            all = all && v;
            if (v)
                want = peak ? std::max(want, *v) : want + *v;
        }
        if (!all)
            continue;
        ++compared;
        if (*sum != want && bad.empty())
            bad = label + ": " + value + " vs " + std::to_string(want);
    }
    checks->check(compared >= 10 && bad.empty(),
                  "selection figures equal the sums of the processes' (" +
                      std::to_string(compared) + " figures)",
                  bad);
    std::map<std::string, std::uint64_t> calls;
    for (auto id : ids)
        for (const auto& s : doc->syscalls(id))
            calls[s.name] += s.count;
    std::map<std::string, std::uint64_t> shown;
    for (const auto& s : p.syscallLines())
        shown[s.name] = s.count;
    checks->check(!shown.empty() && shown == calls,
                  "selection system call accounting is the sum of the processes' (" +
                      std::to_string(shown.size()) + " calls)");
    TraceDocument::TimeBreakdown want;
    for (auto id : ids) {
        auto b = doc->timeBreakdown({id});
        for (std::size_t k = 0; k < want.ns.size(); ++k)
            want.ns[k] += b.ns[k];
    }
    checks->check(p.breakdown().ns == want.ns && want.ns[0] + want.ns[1] > 0,
                  "time breakdown of the selection is the sum of the processes'");
    next();
}

// The selection's screenshots (the README's time breakdown).
void shootSelection(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    auto shot = st.shotFn();
    auto shotWidget = st.shotWidgetFn();
    shot("process-selection");
    shotWidget(win.processView().breakdownArea(), "time-breakdown");
    next();
}

// Call sites of the busiest process: computed on the worker (the UI
// thread returns at once with a note), then the rows are libltt's.
void startCallSites(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    auto csPid = st.csPid;
    auto& p = win.processView();
    auto procs = win.document()->processes();
    const ProcessInfo* top = nullptr;
    for (const auto& pi : procs)
        if (pi.id != 0 && (!top || pi.syscalls > top->syscalls))
            top = &pi;
    checks->check(top && top->syscalls > 0, "a process made system calls");
    if (!top)
        return next();
    *csPid = top->pid;
    p.selectIds({top->id});
    auto& cs = p.callSites();
    cs.set_expanded(true);
    checks->check(cs.computing() && cs.rows() == 0 &&
                      cs.note().find("Computing") != std::string::npos,
                  "call sites are computed off the UI thread", cs.note());
    auto waited = std::make_shared<int>(0);
    Glib::signal_timeout().connect(
        [&cs, waited, next] {
            if (cs.computing() && ++*waited < 1200)
                return true;
            next();
            return false;
        },
        100);
}

// The call site table against libltt's analyzeCallSites; none for several
// processes.
void checkCallSites(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    auto csPid = st.csPid;
    auto& p = win.processView();
    auto& cs = p.callSites();
    const TraceDocument* doc = win.document();
    checks->check(!cs.computing() && cs.report(), "call site worker finished");
    std::vector<CallSiteView::Row> want;
    ltt::TraceError err;
    auto reader = ltt::TraceReader::open(doc->tracePath(), &err);
    if (reader) {
        std::optional<ltt::ProcSnapshot> snap;
        if (!doc->procPath().empty()) {
            ltt::ProcParseError perr;
            snap = ltt::readProcFile(doc->procPath(), &perr);
        }
        ltt::Symbolizer sym;
        std::string why;
        sym.loadTraceKallsyms(doc->tracePath(), &why);
        auto rep = ltt::analyzeCallSites(*reader, snap ? &*snap : nullptr, sym, *csPid);
        for (const auto& proc : rep.processes)
            if (proc.pid == *csPid)
                for (const auto& site : proc.sites)
                    want.push_back({std::string(ltt::TraceAnalysis::syscallSlotName(site.nr)),
                                    ltt::escaped(site.site), site.count});
    }
    const auto shown = cs.shownRows();
    bool same = shown.size() == want.size();
    std::string diff;
    for (std::size_t i = 0; same && i < shown.size(); ++i) {
        same = shown[i].syscall == want[i].syscall && shown[i].site == want[i].site &&
               shown[i].count == want[i].count;
        if (!same)
            diff = "row " + std::to_string(i) + ": " + shown[i].syscall + " " + shown[i].site +
                   " " + std::to_string(shown[i].count) + " vs " + want[i].syscall + " " +
                   want[i].site + " " + std::to_string(want[i].count);
    }
    checks->check(!want.empty() && same,
                  "call site rows of PID " + std::to_string(*csPid) +
                      " equal analyzeCallSites's (" + std::to_string(want.size()) + " rows)",
                  diff.empty() ? std::to_string(shown.size()) + " rows shown" : diff);
    // Several processes: no table of the one selected before.
    std::vector<std::int64_t> ids;
    for (const auto& pi : doc->processes())
        if (pi.id != 0 && ids.size() < 2)
            ids.push_back(pi.id);
    p.selectIds(ids);
    checks->check(ids.size() == 2 && cs.rows() == 0 &&
                      cs.note().find("select one process") != std::string::npos,
                  "several processes selected: the call site table asks for one",
                  std::to_string(cs.rows()) + " rows; note: " + cs.note());
    cs.set_expanded(false);
    next();
}

// Include descendants: a process and everything below it.
void checkDescendants(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    auto& p = win.processView();
    const TraceDocument* doc = win.document();
    auto procs = doc->processes();
    // A process and its descendants.
    std::int64_t parent = -1;
    for (const auto& pi : procs)
        if (pi.id != 0 && pi.parent > 0 && parent < 0)
            parent = pi.parent;
    if (parent > 0) {
        p.setIncludeDescendants(true);
        p.selectIds({parent});
        const auto family = doc->withDescendants(parent);
        checks->check(family.size() >= 2 && p.shownIds() == family,
                      "Include descendants: a process and its " +
                          std::to_string(family.size() - 1) + " descendants");
        p.setIncludeDescendants(false);
    }
    p.selectPid(0);
    win.notebook().set_current_page(2);
    next();
}

// The raw list: columns, times, every event, the selected row; then a search
// forward from the selection.
void checkRawListThenSearch(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    auto shot = st.shotFn();
    auto clicked = st.clicked;
    auto& r = win.rawView();
    const TraceDocument* doc = win.document();
    std::vector<std::string> want = {"CPU-ID", "Event",        "Seconds",          "Microseconds",
                                     "PID",    "Entry Length", "Event Description"};
    checks->check(r.columnTitles() == want, "raw trace columns");
    if (doc) {
        // Seconds and Microseconds together are the event's time.
        bool same = true;
        std::string diff;
        for (guint i = 0; i < std::min<guint>(r.rowCount(), 500) && same; i += 7) {
            std::string us = r.cellText(i, 6);
            us.erase(std::remove(us.begin(), us.end(), '.'), us.end());
            const std::string t = r.cellText(i, 2) + "." + us;
            const std::string want = ltt::formatSeconds(doc->event(i).timeNs);
            same = t == want;
            if (!same)
                diff = t + " vs " + want;
        }
        checks->check(same, "raw trace Seconds and Microseconds give the event's time", diff);
    }
    if (doc) {
        checks->check(r.rowCount() == doc->eventCount(),
                      "raw trace lists every event (" + std::to_string(r.rowCount()) + ")");
        EventLine line = doc->event(*clicked);
        checks->check(r.cellText(guint(*clicked), 1) == line.event &&
                          r.cellText(guint(*clicked), 3) == std::to_string(line.pid),
                      "raw trace row of the selected event");
    }
    shot("raw-trace");
    win.searchEntry().set_text("Sched change");
    win.find(true, [checks, clicked, &win, next](std::optional<std::uint64_t> hit) {
        checks->check(hit && *hit > *clicked, "search forward finds the next match");
        if (hit) {
            EventLine l = win.document()->event(*hit);
            checks->check(l.event == "Sched change", "search hit matches", l.event);
            checks->check(win.selectedEvent() == hit, "search hit is selected");
        }
        next();
    });
}

// The next search hit.
void searchAgain(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    auto firstHit = st.firstHit;
    *firstHit = win.selectedEvent();
    win.find(true, [checks, firstHit, next](std::optional<std::uint64_t> hit) {
        checks->check(hit && *firstHit && *hit > **firstHit, "search forward again");
        next();
    });
}

// Backward: the previous hit again.
void searchBackward(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    auto firstHit = st.firstHit;
    win.find(false, [checks, firstHit, next](std::optional<std::uint64_t> hit) {
        checks->check(hit && *hit == *firstHit, "search backward returns to the previous match");
        next();
    });
}

// The filter bar: one event type.
void filterByType(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    auto shot = st.shotFn();
    shot("raw-trace-search");
    // Through the filter bar, as a user would: pick the type, apply,
    // wait for the background filter to finish.
    checkTypeFilter(
        win, checks, 1 + LTT_EV_SCHEDCHANGE, // after "All events"
        [](const std::string& e) { return e == "Sched change"; },
        "filter by event type keeps only that type", next);
}

// The filter bar: a group of the event-name vocabulary.
void filterBySyscallGroup(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    // A group of the event-name vocabulary (tracedaemon -e SYSCALL).
    const auto types = TraceDocument::eventTypes();
    guint at = 0;
    for (guint i = 0; i < types.size(); ++i)
        if (types[i].label == "SYSCALL")
            at = i + 1; // after "All events"
    checks->check(at > 0, "the event filter offers the SYSCALL group");
    checkTypeFilter(
        win, checks, at,
        [](const std::string& e) { return e == "Syscall entry" || e == "Syscall exit"; },
        "filter by the SYSCALL group keeps system call entries and exits", next);
}

// Go to an event number (a missing one refused) and to a time.
void goToEventAndTime(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    auto shot = st.shotFn();
    shot("raw-trace-filtered");
    checks->check(win.goToEvent("5") && win.selectedEvent() == 5u, "go to event number");
    checks->check(!win.goToEvent("999999999999"), "go to a missing event is refused");
    checks->check(win.goToTime("0") && win.selectedEvent().has_value(), "go to time");
    win.notebook().set_current_page(0);
    next();
}

// The graph shows the event selected elsewhere; lost events marked.
void checkGraphFollowsSelection(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    auto& g = win.graphView();
    const TraceDocument* doc = win.document();
    auto sel = win.selectedEvent();
    if (doc && sel) {
        auto t = doc->event(*sel).timeNs;
        checks->check(t >= g.viewBegin() && t < g.viewEnd(),
                      "graph shows the event selected elsewhere");
    }
    // A trace with lost events has a mark in the graph for them; one
    // without has none.
    if (doc)
        checks->check(doc->graph().lost().empty() == (doc->totalLost() == 0),
                      "lost events marked (" + std::to_string(doc->totalLost()) + " lost, " +
                          std::to_string(doc->graph().lost().size()) + " places)");
    win.activate_action("win.zoom-fit");
    next();
}

// Clicking a process row's label selects that process in the process tab.
void clickRowLabel(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    // Clicking a process row's label selects that process in the
    // process tab.
    auto& g = win.graphView();
    auto labels = g.visibleRowLabels();
    if (labels.size() > 2) {
        const std::string& l = labels[2];
        auto open = l.rfind('(');
        std::int32_t pid = open == std::string::npos ? -1 : std::atoi(l.c_str() + open + 1);
        g.clickAt(10, EventGraphView::kAxisHeight + 2.5 * EventGraphView::kRowHeight);
        checks->check(win.processView().selectedPid() == pid,
                      "clicking the label " + l + " selects it in the process tab",
                      "process tab shows " + std::to_string(win.processView().selectedPid()));
    }
    next();
}

// Cancel re-opening the trace at once: the open stops, the trace already
// shown stays.
void cancelOpen(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    const std::string& trace = st.trace;
    const std::string& proc = st.proc;
    // Cancel re-opening the trace at once: the open stops, the trace
    // already shown stays.
    const TraceDocument* before = win.document();
    win.openTrace(trace, proc, [checks, &win, before, next](bool ok) {
        checks->check(
            !ok && win.document() == before && win.statusLabel().get_text() == "Opening cancelled",
            "Cancel stops opening and keeps the current trace", win.statusLabel().get_text());
        next();
    });
    win.cancelJob();
}

// No counter strips without VARS records; then the fixture trace with them
// (vars_fixture.cpp), written in the output directory, opened.
void openVarsTrace(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    const std::string& outDir = st.outDir;
    // No VARS records in this trace: no counter strips.
    auto& g = win.graphView();
    checks->check(g.counterStrips() == 0 && !g.counterArea().get_visible(),
                  "without VARS records the counter strips are hidden");
    const std::string vars = outDir + "/vars.trace";
    try {
        writeVarsTrace(vars);
    } catch (const std::exception& e) {
        checks->check(false, "write the VARS test trace", e.what());
        next();
        return;
    }
    win.openTrace(vars, "", [checks, next, &win](bool ok) {
        checks->check(ok, "open the VARS test trace", ok ? "" : win.statusLabel().get_text());
        next();
    });
}

// The counter strips against the records, the pointer's text, the decoded
// openat calls in the raw list.
void checkCounterStrips(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    const std::string& outDir = st.outDir;
    auto shotWidget = st.shotWidgetFn();
    auto& g = win.graphView();
    const TraceDocument* doc = win.document();
    if (!doc) {
        next();
        return;
    }
    std::string names;
    for (const auto& s : doc->varSeries())
        names += std::string(names.empty() ? "" : ",") + std::string(ltt::varName(s.var));
    checks->check(names == "freemem,totalmem,pgfault,loadavg" && g.counterStrips() == 4 &&
                      g.counterArea().get_visible() && g.counterArea().get_height() > 0,
                  "a counter strip per memory and load variable in the trace", names);
    std::size_t compared = 0;
    const std::string bad = compareVarSeries(outDir + "/vars.trace", *doc, compared);
    checks->check(bad.empty() && compared > 20,
                  "counter series equal decodeVars() at every VARS record (" +
                      std::to_string(compared) + " values)",
                  bad);
    // Known values: free memory 47000 pages from CPU 1 at 2500 ns until
    // CPU 1's 46000 at 5000 ns; page faults 200 + 200 + 300 in all.
    const auto& all = doc->varSeries();
    const bool four = all.size() == 4;
    checks->check(four && all[0].valueAt(2600) == 47000 && all[0].valueAt(999) == 50000 &&
                      all[0].valueAt(7500) == 45000 && all[2].counter &&
                      all[2].valueAt(9000) == 700 && all[2].valueAt(2000) == 0,
                  "free memory and page faults at known times",
                  four ? std::to_string(all[0].valueAt(2600)) + " " +
                             std::to_string(all[2].valueAt(9000))
                       : std::to_string(all.size()) + " series");
    // The pointer's text: strip 0 (free memory) at 6000 ns, strip 3
    // (load) at the end.
    const int gw = g.area().get_width() - EventGraphView::kLabelWidth;
    auto xOf = [&g, gw](double t) {
        return EventGraphView::kLabelWidth +
               (t - double(g.viewBegin())) / double(g.viewEnd() - g.viewBegin()) * gw;
    };
    const auto free = g.counterTextAt(xOf(6000), 5);
    const auto load = g.counterTextAt(xOf(8500), 3 * EventGraphView::kCounterRowHeight + 5);
    checks->check(free && free->starts_with("Free memory: 46000 pages at ") && load &&
                      load->starts_with("Load average: 2.00 at "),
                  "the pointer shows the strip's value",
                  (free ? *free : "none") + " / " + (load ? *load : "none"));
    shotWidget(g, "counter-strips");
    // The raw list: the openat entry shows the call, its exit the call
    // and return value; the failed one its errno.
    auto& r = win.rawView();
    std::vector<std::string> rows;
    for (guint i = 0; i < r.rowCount(); ++i)
        if (r.cellText(i, 3) == "100" &&
            (r.cellText(i, 1) == "Syscall entry" || r.cellText(i, 1) == "Syscall exit"))
            rows.push_back(r.cellText(i, 5));
    const std::string call = "openat(AT_FDCWD, \"/etc/passwd\", O_RDONLY)";
    const bool ok = rows.size() >= 4 && rows[0].ends_with("; " + call) &&
                    rows[1].ends_with("; " + call + " = 3") &&
                    rows[3].ends_with("; openat(AT_FDCWD, \"/missing\", O_RDONLY) = -1 ENOENT");
    std::string got;
    for (const auto& l : rows)
        got += "\n       " + l;
    checks->check(ok, "raw trace rows show the decoded openat calls", got);
    next();
}

// The Latency tab: computed on the worker the first time it is shown, then
// the figures, bars and worst instances are libltt's LatencyAnalysis.
void showLatencyTab(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    checks->check(win.document()->latency() == nullptr,
                  "latency is not computed before its tab is shown");
    win.notebook().set_current_page(3);
    auto waited = std::make_shared<int>(0);
    Glib::signal_timeout().connect(
        [&win, waited, next] {
            if ((win.busy() || !win.document()->latency()) && ++*waited < 1200)
                return true;
            next();
            return false;
        },
        100);
}

void checkLatencyTab(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    const ltt::LatencyAnalysis* a = win.document()->latency();
    checks->check(a != nullptr, "latency computed when its tab is shown");
    if (!a)
        return next();
    // The same figures from libltt directly.
    ltt::TraceError err;
    auto reader = ltt::TraceReader::open(st.trace, &err);
    ltt::ProcParseError perr;
    auto snap = ltt::readProcFile(st.proc, &perr);
    ltt::LatencyAnalysis direct(*reader, snap ? &*snap : nullptr);
    direct.run();
    auto& lv = win.latencyView();
    bool same = true;
    std::string detail;
    for (const auto& k : latencyKinds()) {
        lv.selectKind(k.kind);
        const auto& d = direct.all(k.kind);
        const std::string want = latencyFigures(direct, k.kind);
        if (lv.figuresText() != want || lv.worstRows().size() != d.worst().size()) {
            same = false;
            detail += std::string(k.title) + ": " + lv.figuresText() + " vs " + want + "; ";
        }
    }
    checks->check(same, "latency tab: every kind's figures and worst list are libltt's", detail);
    lv.selectKind(ltt::LatencyKind::Wakeup);
    checks->check(direct.all(ltt::LatencyKind::Wakeup).count() > 0 && !lv.worstRows().empty(),
                  "latency tab lists the worst wakeups (" + std::to_string(lv.worstRows().size()) +
                      ")");
    next();
}

void shootLatencyTab(SelfTest& st, Next next) {
    auto& lv = st.win.latencyView();
    const auto bars = latencyBars(st.win.document()->latency()->all(ltt::LatencyKind::Wakeup));
    std::size_t nonEmpty = 0;
    for (const auto& b : bars)
        nonEmpty += b.count != 0;
    st.checks.check(lv.lastBarsDrawn() == nonEmpty && nonEmpty > 0,
                    "latency histogram draws a bar per non-empty bucket (" +
                        std::to_string(lv.lastBarsDrawn()) + " of " + std::to_string(nonEmpty) +
                        ")");
    st.shot("latency-tab");
    // Activating the worst wakeup: the graph at that moment.
    lv.activateWorst(0);
    next();
}

void checkLatencyJump(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    const auto& w = win.latencyView().worstRows().at(0);
    const auto sel = win.selectedEvent();
    const EventLine e = sel ? win.document()->event(*sel) : EventLine{};
    checks->check(win.notebook().get_current_page() == 0 && sel && e.timeNs == w.endNs &&
                      e.cpu == w.cpu && e.id == LTT_EV_SCHEDCHANGE,
                  "a worst wakeup shows the graph with its switch-in selected",
                  sel ? "event " + std::to_string(*sel) + " at " + std::to_string(e.timeNs) +
                            " CPU " + std::to_string(e.cpu)
                      : "nothing selected");
    auto& g = win.graphView();
    checks->check(g.viewBegin() <= w.startNs && g.viewEnd() >= w.endNs,
                  "the graph's window covers the instance", windowText(g));
    next();
}

// The critical path of the worst wakeup's task, over the graph.
void showCriticalPathStep(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    const auto pid = win.latencyView().worstRows().at(0).pid;
    win.showCriticalPath(pid, [next](bool) { next(); });
}

void checkCriticalPath(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    auto& g = win.graphView();
    const ltt::CriticalPath* p = g.criticalPath();
    checks->check(p && p->found() && !p->segments().empty(),
                  "critical path computed for the selected task");
    if (!p)
        return next();
    // The segments in view whose task has a row: those the paint drew.
    std::size_t want = 0;
    for (const auto& s : p->segments())
        if (s.endNs > g.viewBegin() && s.startNs < g.viewEnd() &&
            win.document()->graph().rowOfPid(s.pid)) {
            const auto row = *win.document()->graph().rowOfPid(s.pid);
            want += g.viewport().yOfRow(row, g.area().get_height()).has_value();
        }
    checks->check(g.lastCriticalSegments() == want && want > 0,
                  "critical path: a band per segment in view (" +
                      std::to_string(g.lastCriticalSegments()) + " of " + std::to_string(want) +
                      ")");
    st.shot("critical-path");
    win.showCriticalPath(-1);
    checks->check(g.criticalPath() == nullptr, "critical path hidden again");
    next();
}

// The last screenshot and the summary line; quits.
// The fixture trace with events no task can have (unattributed_fixture.cpp),
// written in the output directory, opened.
void openUnattributedTrace(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    const std::string path = st.outDir + "/unattributed.trace";
    try {
        writeUnattributedTrace(path);
    } catch (const std::exception& e) {
        checks->check(false, "write the unattributed test trace", e.what());
        next();
        return;
    }
    win.openTrace(path, "", [checks, next, &win](bool ok) {
        checks->check(ok, "open the unattributed test trace",
                      ok ? "" : win.statusLabel().get_text());
        win.notebook().set_current_page(1); // drawn before the next step's shot
        next();
    });
}

// Its row after the tree, with count and reasons; selected, its figures,
// reasons and system calls; the warning; the graph's row name.
void checkUnattributed(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    auto& p = win.processView();
    const TraceDocument* doc = win.document();
    checks->check(p.unattributedLabel() == "unattributed: 11 events (8 no_context, 3 no_task)",
                  "the process tab has the unattributed row, its count and reasons",
                  p.unattributedLabel());
    p.selectPid(ltt::kUnattributedPid);
    const auto shown = p.reportLines(); // a copy: one vector for both ends
    std::map<std::string, std::string> lines(shown.begin(), shown.end());
    checks->check(p.selectedPid() == ltt::kUnattributedPid && lines["Events"] == "11" &&
                      lines["Reason no_context"].starts_with("8: ") &&
                      lines["Reason no_task"].starts_with("3: ") &&
                      lines["Number of system calls"] == "4" && !lines.count("PID"),
                  "selected, it shows its events, reasons and figures",
                  "Events " + lines["Events"] + ", calls " + lines["Number of system calls"]);
    checks->check(p.syscallRows() == 2, "and its system calls (getpid, write)",
                  std::to_string(p.syscallRows()) + " rows");
    const std::string status = win.statusLabel().get_text();
    checks->check(status.find("WARNING: 11 events not attributed to any task") != std::string::npos,
                  "the status bar warns of the unattributed events", status);
    const auto row = doc ? doc->graph().rowOfPid(ltt::kUnattributedPid) : std::nullopt;
    checks->check(row && doc->rowLabel(*row) == "unattributed (-1)",
                  "the event graph names its row", row ? doc->rowLabel(*row) : "no row");
    next();
}

// The panel as selected in the step before (laid out since).
void shootUnattributed(SelfTest& st, Next next) {
    st.shot("process-analysis-unattributed");
    next();
}

void finish(SelfTest& st, Next next) {
    Gtk::Application& app = st.app;
    Checks* checks = &st.checks;
    int& status = st.status;
    auto shot = st.shotFn();
    shot("event-graph-final");
    checks->summary();
    status = checks->failed ? 1 : 0;
    app.quit();
    next();
}

// The flame graph page of a trace without stacks says how to get them.
void checkFlameWithoutStacks(SelfTest& st, Next next) {
    auto& lv = st.win.latencyView();
    lv.showFlame();
    st.checks.check(
        lv.flame().note().find("tracedaemon -S") != std::string::npos && lv.flame().boxes().empty(),
        "flame graph: a trace without stacks says to take one with -S", lv.flame().note());
    next();
}

// The off-CPU fixture (tests/gui/data/offcpu.trace: wl_offcpu traced with
// -S in the guest, its kallsyms copy cut to the functions its stacks
// name), its workload selected, the whole trace in the window.
void openOffCpuTrace(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    Checks* checks = &st.checks;
    const std::string dir = st.trace.substr(0, st.trace.rfind('/') + 1);
    win.openTrace(dir + "offcpu.trace", dir + "offcpu.proc", [checks, next, &win](bool ok) {
        checks->check(ok, "open the off-CPU fixture", ok ? "" : win.statusLabel().get_text());
        next();
    });
}

void showFlameGraph(SelfTest& st, Next next) {
    MainWindow& win = st.win;
    std::int32_t pid = -1;
    std::int64_t id = -1;
    for (const auto& p : win.document()->processes())
        if (p.name == "wl_offcpu" && pid < 0) {
            pid = p.pid;
            id = p.id;
        }
    st.checks.check(pid > 0, "the fixture has the wl_offcpu process");
    // Selected in the process tab, as a click there does.
    win.processView().selectIds({id});
    win.graphView().setView(0, win.document()->graph().endNs(), true);
    win.notebook().set_current_page(3);
    auto& flame = win.latencyView().flame();
    win.latencyView().showFlame();
    auto waited = std::make_shared<int>(0);
    Glib::signal_timeout().connect(
        [&flame, waited, next] {
            if ((flame.computing() || !flame.report()) && ++*waited < 600)
                return true;
            next();
            return false;
        },
        100);
}

void checkFlameGraph(SelfTest& st, Next next) {
    auto& flame = st.win.latencyView().flame();
    Checks& checks = st.checks;
    const ltt::OffCpuReport* r = flame.report();
    checks.check(r && r->intervals > 0 && r->stacksRecorded &&
                     flame.note().find("wl_offcpu (") != std::string::npos,
                 "flame graph computed from stacks for the selected process", flame.note());
    if (!r)
        return next();
    // Its boxes: the three code paths the workload blocks in, each under
    // wl_offcpu, as wide as their share.
    std::map<std::string, double> width;
    for (const auto& b : flame.boxes())
        width[b.node->name] += b.x1 - b.x0;
    checks.check(width.count("pipe_read") && width.count("do_nanosleep") &&
                     width.count("wl_offcpu") && width["wl_offcpu"] > 0.99,
                 "flame graph: pipe_read and do_nanosleep above wl_offcpu, which takes it all",
                 std::to_string(width.size()) + " frames");
    checks.check(width["do_nanosleep"] > width["pipe_read"] && width["pipe_read"] > 0.3,
                 "flame graph: the 300 ms sleep wider than the 200 ms pipe read");
    st.shot("flame-graph");
    checks.check(flame.lastBoxesDrawn() == flame.boxes().size() && flame.lastBoxesDrawn() > 5,
                 "flame graph: every box drawn (" + std::to_string(flame.lastBoxesDrawn()) + ")");
    // Zoom in on pipe_read, then out again.
    const std::size_t all = flame.boxes().size();
    for (const auto& b : flame.boxes())
        if (b.node->name == "pipe_read") {
            flame.clickBox(b);
            break;
        }
    checks.check(!flame.boxes().empty() && flame.boxes()[0].node->name == "pipe_read" &&
                     flame.boxes().size() < all,
                 "flame graph: a click zooms in on the frame");
    flame.clickBox(flame.boxes()[0]);
    checks.check(flame.boxes().size() == all, "flame graph: the bottom bar zooms out again");
    next();
}

} // namespace

void runSelfTest(Gtk::Application& app, MainWindow& win, const std::string& trace,
                 const std::string& proc, const std::string& outDir, int& status) {
    g_mkdir_with_parents(outDir.c_str(), 0755);
    auto st = std::shared_ptr<SelfTest>(new SelfTest{app, win, trace, proc, outDir, status, {}});
    auto script = std::make_shared<Script>();
    auto add = [&script, st](std::initializer_list<void (*)(SelfTest&, Next)> steps) {
        for (auto step : steps)
            script->add([st, step](Next next) { step(*st, std::move(next)); });
    };
    // The event graph: rows, CPU view, event kinds, the worker, zoom,
    // click, labels.
    add({openTrace, checkOpened, checkCpuView, hideSchedChanges, checkKindHidden,
         showKindAgainThenRefine, waitForRefinement, checkRefinedColumns, zoomInThrice, checkZoom,
         clickEvent, zoomToSingleEvents, checkZoomedLabels});
    // The process tab: tree, figures, a selection summed, call sites.
    add({showProcessTab, checkProcessTab, checkRoot, selectThreeProcesses, shootSelection,
         startCallSites, checkCallSites, checkDescendants});
    // The raw list: columns, search, filters, go to; back in the graph.
    add({checkRawListThenSearch, searchAgain, searchBackward, filterByType, filterBySyscallGroup,
         goToEventAndTime, checkGraphFollowsSelection, clickRowLabel});
    // The latency tab, a jump to its worst wakeup, the critical path.
    add({showLatencyTab, checkLatencyTab, shootLatencyTab, checkFlameWithoutStacks,
         checkLatencyJump, showCriticalPathStep, checkCriticalPath});
    addUserEventSteps(*script, win, &st->checks, st->shotFn());
    // Cancel, then the fixture trace with VARS records.
    add({cancelOpen, openVarsTrace, checkCounterStrips});
    // A trace with unattributed events: the process tab's row.
    add({openUnattributedTrace, checkUnattributed, shootUnattributed});
    // The off-CPU flame graph of a trace taken with stacks: the fixture
    // beside the main one (tests/gui/data), when the run has it.
    const std::string dir = trace.substr(0, trace.rfind('/') + 1);
    if (Glib::file_test(dir + "offcpu.trace", Glib::FileTest::IS_REGULAR))
        add({openOffCpuTrace, showFlameGraph, checkFlameGraph});
    add({finish});
    script->run(win, 300);
}

} // namespace traceview
