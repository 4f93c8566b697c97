// traceview-selftest --follow OUTDIR TRACE PROC: follows TRACE while a
// producer writes it, then opens the finished file and checks that the
// figures shown (events, processes, the system-wide and per-process
// analysis) are the same, and that the view set up while following survived
// the later updates; prints "ok"/"FAIL" lines and "selftest: N passed, N
// failed", saves a screenshot in OUTDIR and quits.
#include "screenshot.hpp"
#include "selftest.hpp"

#include <iostream>
#include <set>

namespace traceview {

namespace {

// Every figure the window shows about a trace, one a line: the status
// line's summary, the process tree, and the analysis of the system and of
// each process (characteristics and system call accounting).
std::vector<std::string> figures(const TraceDocument& doc) {
    std::vector<std::string> out;
    out.push_back("summary: " + doc.summary());
    out.push_back("events: " + std::to_string(doc.eventCount()));
    out.push_back("lost: " + std::to_string(doc.totalLost()));
    for (const auto& w : doc.warnings())
        out.push_back("warning: " + w);
    const auto procs = doc.processes();
    for (const auto& p : procs) {
        out.push_back("process " + std::to_string(p.id) + ": pid " + std::to_string(p.pid) +
                      ", parent " + std::to_string(p.parent) + ", " + p.name + ", " +
                      std::to_string(p.syscalls) + " syscalls, " + std::to_string(p.runningNs) +
                      " ns running");
        for (const auto& l : doc.processReport(p.id))
            out.push_back("  " + l.label + ": " + l.value);
        for (const auto& s : doc.syscalls(p.id))
            out.push_back("  syscall " + s.name + ": " + std::to_string(s.count) + ", " +
                          std::to_string(s.totalNs) + " ns, " + std::to_string(s.errors) +
                          " errors");
    }
    return out;
}

// What the self test sets up on the view while following, and checks that
// later updates keep.
struct KeepProbe {
    int stage = 0;             // 0: first update, 1: a later one, 2: view set up
    std::uint64_t reloads = 0; // updates done when the stage began
    std::uint64_t endNs = 0;   // the trace's end at the first update
    bool wholeGrew = false;    // the whole-trace view showed the grown trace
    std::uint64_t begin = 0, end = 0;
    std::string windowText;
    std::uint64_t selTime = 0;
    unsigned selCpu = 0;
    std::vector<std::int64_t> processIds;
};

constexpr auto kHidden = ltt::GraphEventKind::Syscall;

ltt::GraphEventKind kindOf(const EventLine& l) {
    return ltt::graphEventKindOf(l.id, l.subtype).value_or(ltt::GraphEventKind::Other);
}

// Sets up a view a user would: zoomed into the trace's middle quarter, an
// event of a shown kind selected, system calls hidden, the process tab
// showing two processes. False when the trace has no such event yet.
bool setUpView(MainWindow& win, KeepProbe& k) {
    const TraceDocument& d = *win.document();
    const auto& g = d.graph();
    const std::uint64_t span = g.endNs() - g.startNs();
    win.graphView().setView(g.startNs() + span * 3 / 8, g.startNs() + span * 5 / 8);
    const std::uint64_t from = d.eventAtTime(win.graphView().viewBegin());
    std::optional<std::uint64_t> pick;
    for (std::uint64_t i = from; i < d.eventCount() && i < from + 100000; ++i) {
        const EventLine l = d.event(i);
        if (l.timeNs >= win.graphView().viewEnd())
            break;
        const auto kind = ltt::graphEventKindOf(l.id, l.subtype);
        if (kind && *kind != kHidden && *kind != ltt::GraphEventKind::Lost) {
            pick = i;
            break;
        }
    }
    if (!pick)
        return false;
    win.selectEvent(*pick);
    win.activate_action("win.kind-" + std::to_string(unsigned(kHidden)));
    const auto procs = d.processes();
    std::vector<std::int64_t> ids;
    for (const auto& p : procs)
        if (p.id != 0 && ids.size() < 2)
            ids.push_back(p.id);
    win.notebook().set_current_page(1);
    win.processView().selectIds(ids);
    k.processIds = win.processView().selectedIds();
    k.begin = win.graphView().viewBegin();
    k.end = win.graphView().viewEnd();
    k.windowText = win.windowText();
    const EventLine l = d.event(*pick);
    k.selTime = l.timeNs;
    k.selCpu = l.cpu;
    return true;
}

} // namespace

void runFollowSelfTest(Gtk::Application& app, MainWindow& win, const std::string& trace,
                       const std::string& proc, const std::string& outDir, int& status) {
    auto checks = std::make_shared<Checks>();
    g_mkdir_with_parents(outDir.c_str(), 0755);
    // The event counts the window showed while following.
    auto seen = std::make_shared<std::set<std::uint64_t>>();
    auto probe = std::make_shared<KeepProbe>();
    auto watcher = std::make_shared<sigc::connection>(Glib::signal_timeout().connect(
        [&win, seen, probe] {
            const TraceDocument* d = win.document();
            if (!d)
                return true;
            seen->insert(d->eventCount());
            const FollowController* f = win.follower();
            // Between updates only: the document is analysed and indexed.
            if (!f || win.busy() || !d->ready() || f->reloads() <= probe->reloads)
                return true;
            KeepProbe& k = *probe;
            if (k.stage == 0) {
                k.endNs = d->graph().endNs();
                k.reloads = f->reloads();
                k.stage = win.graphView().showsWholeTrace() ? 1 : 0;
            } else if (k.stage == 1) {
                k.wholeGrew = win.graphView().showsWholeTrace() && d->graph().endNs() > k.endNs;
                if (setUpView(win, k)) {
                    k.reloads = f->reloads();
                    k.stage = 2;
                }
            }
            return true;
        },
        20));
    auto finish = [&app, &status, checks] {
        checks->summary();
        status = checks->failed ? 1 : 0;
        app.quit();
    };
    FollowSettings settings;
    settings.interval = std::chrono::milliseconds(100);
    settings.options.idleTimeout = std::chrono::seconds(20);
    win.followTrace(trace, proc, settings, [=, &win](bool ok) {
        watcher->disconnect();
        checks->check(ok && win.document(), "following ends with the finished trace shown",
                      win.statusLabel().get_text());
        if (!ok || !win.document()) {
            finish();
            return;
        }
        const FollowController& f = *win.follower();
        checks->check(f.follower().end() == ltt::TraceFollower::End::Final,
                      "following ended at the FINAL blocks", f.follower().endReason());
        const std::uint64_t total = win.document()->eventCount();
        std::size_t partial = 0;
        for (std::uint64_t n : *seen)
            partial += n > 0 && n < total;
        checks->check(f.reloads() >= 3 && partial >= 2,
                      "the view was updated as the trace grew (" + std::to_string(f.reloads()) +
                          " updates, " + std::to_string(partial) + " partial views)");
        const std::string statusText = win.statusLabel().get_text();
        checks->check(statusText.find("following ended: every CPU wrote its final block") !=
                          std::string::npos,
                      "the status bar says why following ended", statusText);
        // The view set up while following, after the later updates.
        const KeepProbe& k = *probe;
        checks->check(k.wholeGrew,
                      "a view of the whole trace grew with the trace at the next update");
        checks->check(k.stage == 2 && f.reloads() > k.reloads,
                      "the trace was updated after the view was set up (" +
                          std::to_string(f.reloads() - std::min(f.reloads(), k.reloads)) +
                          " updates)");
        if (k.stage == 2) {
            EventGraphView& g = win.graphView();
            checks->check(g.viewBegin() == k.begin && g.viewEnd() == k.end &&
                              win.windowText() == k.windowText,
                          "updates keep the zoomed window " + k.windowText,
                          "now " + win.windowText());
            const auto sel = win.selectedEvent();
            const bool same = sel && g.selected() == sel &&
                              win.document()->event(*sel).timeNs == k.selTime &&
                              win.document()->event(*sel).cpu == k.selCpu;
            checks->check(same, "updates keep the selected event",
                          sel ? "selected #" + std::to_string(*sel) : "nothing selected");
            checks->check(!g.kindVisible(kHidden), "updates keep the hidden event kind");
            checks->check(win.notebook().get_current_page() == 1, "updates keep the tab",
                          "tab " + std::to_string(win.notebook().get_current_page()));
            checks->check(
                k.processIds.size() == 2 && win.processView().selectedIds() == k.processIds,
                "updates keep the " + std::to_string(k.processIds.size()) + " processes selected");
        }
        std::size_t remembered = 0;
        for (const auto& r : win.rememberedTraces())
            remembered += Glib::path_get_basename(r) == Glib::path_get_basename(trace);
        checks->check(remembered == 1, "the trace went into the recent files once (" +
                                           std::to_string(remembered) + " times)");
        win.notebook().set_current_page(0);
        auto followed = std::make_shared<std::vector<std::string>>(figures(*win.document()));
        // After a pause for layout and painting, the screenshot; then the
        // same file opened as any finished trace is.
        Glib::signal_timeout().connect_once(
            [=, &win] {
                const std::string path = outDir + "/event-graph-followed.png";
                checks->check(saveScreenshot(win, path), "screenshot " + path);
                // A click on a hidden kind's marker picks a shown event or
                // nothing.
                EventGraphView& g = win.graphView();
                const TraceDocument& d = *win.document();
                std::optional<std::uint64_t> hidden;
                std::pair<double, double> at;
                const std::uint64_t from = d.eventAtTime(g.viewBegin());
                for (std::uint64_t i = from; i < d.eventCount() && i < from + 100000; ++i) {
                    const EventLine l = d.event(i);
                    if (l.timeNs >= g.viewEnd())
                        break;
                    auto pos = g.positionOf(i);
                    if (kindOf(l) == kHidden && pos) {
                        hidden = i;
                        at = *pos;
                        break;
                    }
                }
                checks->check(hidden.has_value(), "a hidden system call is in the view");
                if (hidden) {
                    g.clickAt(at.first, at.second);
                    const auto sel = win.selectedEvent();
                    checks->check(
                        !sel || (*sel != *hidden && kindOf(d.event(*sel)) != kHidden),
                        "a click on a hidden kind's marker selects no event of it",
                        sel ? "selected #" + std::to_string(*sel) + " " + d.event(*sel).event : "");
                }
                win.openTrace(trace, proc, [=, &win](bool ok2) {
                    checks->check(ok2, "the finished trace opens");
                    if (ok2) {
                        const auto plain = figures(*win.document());
                        std::string diff;
                        for (std::size_t i = 0; i < std::max(plain.size(), followed->size()); ++i) {
                            const std::string a = i < followed->size() ? (*followed)[i] : "(none)";
                            const std::string b = i < plain.size() ? plain[i] : "(none)";
                            if (a != b) {
                                diff = "followed '" + a + "', opened '" + b + "'";
                                break;
                            }
                        }
                        checks->check(diff.empty(),
                                      "the followed view's figures equal the finished file's (" +
                                          std::to_string(plain.size()) + " figures)",
                                      diff);
                    }
                    finish();
                });
            },
            300);
    });
}

} // namespace traceview
