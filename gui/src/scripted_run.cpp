// Self test and benchmark drivers: see scripted_run.hpp.
#include "scripted_run.hpp"

#include "screenshot.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <libltt/block_codec.hpp>
#include <libltt/callsites.hpp>
#include <libltt/event_format.hpp>
#include <libltt/proc_file.hpp>
#include <libltt/syscall_args.hpp>
#include <libltt/trace_analysis.hpp>
#include <libltt/trace_reader.hpp>
#include <libltt/trace_writer.hpp>
#include <libltt/user_events.hpp>
#include <ltt/events.h>
#include <ltt/module_events.h>
#include <map>
#include <memory>
#include <unistd.h>

namespace traceview {

namespace {

// A chain of asynchronous steps: each gets a `next` to call when done; the
// following step runs after a short pause so the UI can lay out and paint.
class Script : public std::enable_shared_from_this<Script> {
public:
    using Step = std::function<void(std::function<void()> next)>;
    void add(Step s) { steps_m.push_back(std::move(s)); }
    // `widget` paces the steps: after each, a pause, then two frames of its
    // frame clock, so layout and painting are done even on a loaded machine.
    void run(Gtk::Widget& widget, unsigned pauseMs) {
        widget_m = &widget;
        pause_m = pauseMs;
        step(0);
    }

private:
    void step(std::size_t i) {
        if (i >= steps_m.size())
            return;
        auto self = shared_from_this();
        steps_m[i]([self, i] {
            Glib::signal_timeout().connect_once(
                [self, i] {
                    auto frames = std::make_shared<int>(0);
                    self->widget_m->queue_draw();
                    self->widget_m->add_tick_callback(
                        [self, i, frames](const Glib::RefPtr<Gdk::FrameClock>&) {
                            if (++*frames < 2)
                                return true;
                            Glib::signal_idle().connect_once([self, i] { self->step(i + 1); });
                            return false;
                        });
                },
                self->pause_m);
        });
    }
    std::vector<Step> steps_m;
    Gtk::Widget* widget_m = nullptr;
    unsigned pause_m = 200;
};

struct Checks {
    int passed = 0, failed = 0;
    void check(bool ok, const std::string& name, const std::string& detail = {}) {
        if (ok) {
            ++passed;
            std::cout << "ok   - " << name << "\n";
        } else {
            ++failed;
            std::cout << "FAIL - " << name << "\n";
            if (!detail.empty())
                std::cout << "       " << detail << "\n";
        }
        std::cout.flush();
    }
};

// A trace with VARS records (as tracedaemon -V args,freemem,totalmem,
// pgfault,loadavg records them) for the counter strips and the system call
// text, written with libltt's BlockBuilder and TraceWriter. One tick is one
// nanosecond and the anchor is tick 1000, so a record at tick T is at
// T - 1000 ns. CPU 0 (pid 100) opens /etc/passwd (= 3) and a missing file
// (= -1 ENOENT); CPU 1 (pid 200) calls getpid twice. Free memory falls by
// 1000 pages at each VARS record, the load rises; page faults are counted
// per CPU (CPU 0 from 1000, CPU 1 from 500).
constexpr std::int64_t kAtFdcwd = -100;
void writeVarsTrace(const std::string& path) {
    ltt_trace_info info{};
    info.abi_version = LTT_ABI_VERSION;
    info.ncpus = 2;
    info.tsc_khz = 1000000;
    info.anchor_tsc = 1000;
    info.anchor_realtime_ns = 1700000000000000000ull;
    info.max_block = 16384;
    info.config.event_mask = LTT_EV_MASK_ALL | LTT_EV_MASK_STRUCTURE;
    info.config.details_mask = LTT_EV_MASK_ALL | LTT_EV_MASK_STRUCTURE;
    info.config.pid = info.config.pgrp = -1;
    ltt::TraceWriter w(path, ltt::makeFileHeader(info, "traceview self test"));
    ltt::BlockBuilder b;
    const std::uint32_t mask = LTT_VAR_BIT(LTT_VAR_ARGS) | LTT_VAR_BIT(LTT_VAR_FREEMEM) |
                               LTT_VAR_BIT(LTT_VAR_TOTALMEM) | LTT_VAR_BIT(LTT_VAR_PGFAULT) |
                               LTT_VAR_BIT(LTT_VAR_LOADAVG);
    // A VARS record: the arguments, then the variables in bit order.
    auto vars = [&b](std::uint64_t tsc, std::uint32_t nr, std::vector<std::uint64_t> args,
                     std::vector<std::pair<unsigned, std::uint64_t>> values, bool withArgs) {
        ltt_ev_vars v{};
        unsigned n = 0;
        if (withArgs) {
            v.changed |= LTT_VAR_BIT(LTT_VAR_ARGS);
            v.nr = nr;
            for (auto a : args)
                v.values[n++] = a;
        }
        for (auto [var, value] : values) {
            v.changed |= LTT_VAR_BIT(var);
            v.values[n++] = value;
        }
        b.record(tsc, LTT_EV_VARS, std::uint8_t(args.size()), &v, LTT_EV_VARS_FIXED + n * 8);
    };
    auto entry = [&b](std::uint64_t tsc, std::uint32_t nr) {
        b.record(tsc, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{0x401000, nr, 0});
    };
    auto exitCall = [&b](std::uint64_t tsc, std::int64_t ret) {
        b.record(tsc, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{ret});
    };
    auto opened = [&b](std::uint64_t tsc, std::int32_t fd, const char* name) {
        ltt_ev_file_system f{};
        f.fd = fd;
        std::snprintf(f.name, sizeof f.name, "%s", name);
        b.record(tsc, LTT_EV_FILE_SYSTEM, LTT_FS_OPEN, &f,
                 LTT_EV_FS_FIXED + std::strlen(f.name) + 1);
    };
    const std::uint64_t openat = 257, getpid = 39;
    b.start(0, 0, 1000, 100);
    ltt_ev_trace_start_ext ts{};
    ts.start = {1000000, 1000, info.anchor_realtime_ns, LTT_EV_MASK_ALL, LTT_EV_MASK_ALL};
    ts.vars_mask = mask;
    b.record(1000, LTT_EV_TRACE_START, 0, ts);
    entry(2000, openat);
    vars(2000, openat, {std::uint64_t(kAtFdcwd), 0x7ffc1000, 0, 0},
         {{LTT_VAR_FREEMEM, 50000},
          {LTT_VAR_TOTALMEM, 262144},
          {LTT_VAR_PGFAULT, 1000},
          {LTT_VAR_LOADAVG, 3072}},
         true);
    opened(3000, 3, "/etc/passwd");
    vars(3000, 0, {}, {{LTT_VAR_FREEMEM, 49000}}, false);
    exitCall(4000, 3);
    entry(4500, openat);
    vars(4500, openat, {std::uint64_t(kAtFdcwd), 0x7ffc1100, 0, 0}, {}, true);
    opened(4700, -2, "/missing");
    exitCall(4900, -2);
    entry(8000, getpid);
    vars(8000, getpid, {},
         {{LTT_VAR_FREEMEM, 45000}, {LTT_VAR_PGFAULT, 1300}, {LTT_VAR_LOADAVG, 4096}}, true);
    exitCall(8100, 100);
    w.append(b.finish(10000, LTT_BLOCK_F_FINAL));
    b.start(1, 0, 1500, 200);
    entry(2500, getpid);
    vars(2500, getpid, {},
         {{LTT_VAR_FREEMEM, 48000},
          {LTT_VAR_TOTALMEM, 262144},
          {LTT_VAR_PGFAULT, 500},
          {LTT_VAR_LOADAVG, 3072}},
         true);
    exitCall(3500, 200);
    vars(3500, 0, {}, {{LTT_VAR_FREEMEM, 47000}, {LTT_VAR_PGFAULT, 700}}, false);
    entry(6000, getpid);
    vars(6000, getpid, {},
         {{LTT_VAR_FREEMEM, 46000}, {LTT_VAR_PGFAULT, 900}, {LTT_VAR_LOADAVG, 4096}}, true);
    exitCall(7000, 200);
    w.append(b.finish(10000, LTT_BLOCK_F_FINAL));
    w.close();
}

// The series VARS records give, worked out here from decodeVars() on every
// record: system-wide values the latest of any CPU, counters the sum of
// each CPU's increase since its first record. Checks the document's series
// at every record's time and returns what differed.
std::string compareVarSeries(const std::string& path, const TraceDocument& doc,
                             std::size_t& compared) {
    ltt::TraceError err;
    auto r = ltt::TraceReader::open(path, &err);
    if (!r)
        return err.str();
    std::map<unsigned, std::uint64_t> want;
    std::map<std::pair<unsigned, unsigned>, std::uint64_t> cpuLast; // (cpu, var)
    std::string bad;
    for (auto c = r->begin(); c.valid(); c.next()) {
        const auto v = ltt::decodeVars(c.event());
        if (!v)
            continue;
        const std::uint64_t t = r->nsFromAnchor(c.event().tsc);
        for (unsigned var = 0; var < LTT_VAR_COUNT; ++var) {
            if (!(v->changed & LTT_VAR_BIT(var)) || !ltt::VarSeriesBuilder::charted(var))
                continue;
            if (var >= LTT_VAR_PGFAULT && var <= LTT_VAR_PSWPOUT) {
                auto [it, first] = cpuLast.try_emplace({c.event().cpu, var}, v->values[var]);
                want[var] += first ? 0 : v->values[var] - it->second;
                it->second = v->values[var];
            } else {
                want[var] = v->values[var];
            }
        }
        for (const auto& s : doc.varSeries()) {
            ++compared;
            if (want.count(s.var) && s.valueAt(t) != want[s.var] && bad.empty())
                bad = std::string(ltt::varName(s.var)) + " at " + std::to_string(t) +
                      " ns: " + std::to_string(s.valueAt(t)) + ", records say " +
                      std::to_string(want[s.var]);
        }
    }
    return bad;
}

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
void checkTypeFilter(MainWindow& win, std::shared_ptr<Checks> checks, guint choice,
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

// CPU time of the calling thread, in ms.
double threadCpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

std::string windowText(const EventGraphView& g) {
    return "(" + ltt::formatSeconds(g.viewBegin()) + ", " + ltt::formatSeconds(g.viewEnd()) + ")";
}

// The application events of `path` as libltt's own walk finds them: every
// USER EVENT record UserEvents decodes, with its index, time, thread,
// stream and text.
std::vector<UserMark> walkUserEvents(const std::string& path) {
    std::vector<UserMark> out;
    ltt::TraceError error;
    auto reader = ltt::TraceReader::open(path, &error);
    if (!reader || reader->userStreams().empty())
        return out;
    ltt::UserEvents user(*reader);
    for (auto c = reader->begin(); c.valid(); c.next()) {
        const ltt::Event& e = c.event();
        UserMark m;
        if (!e.isUser() || e.id != LTT_EV_USER || !user.appendText(e, m.text) ||
            m.text.rfind("DECLARE ", 0) == 0)
            continue;
        m.index = c.index();
        m.timeNs = reader->nsFromAnchor(e.tsc);
        m.pid = e.pid;
        m.stream = e.stream;
        out.push_back(std::move(m));
    }
    return out;
}

// The first (forward) or last (backward) of `marks` past `from` whose text
// holds `what`.
std::optional<std::uint64_t> userMatch(const std::vector<UserMark>& marks, std::uint64_t from,
                                       bool forward, const std::string& what) {
    std::optional<std::uint64_t> hit;
    for (const auto& m : marks) {
        if (m.text.find(what) == std::string::npos)
            continue;
        if (forward && m.index > from)
            return m.index;
        if (!forward && m.index < from)
            hit = m.index;
    }
    return hit;
}

// Application events (user streams): the graph's markers against libltt's
// walk, their tooltip and click, the event-kind entry that hides them, the
// raw rows' text and the search by name and field value. A trace without
// user streams must show none.
void addUserEventSteps(Script& script, MainWindow& win, std::shared_ptr<Checks> checks,
                       std::function<void(const std::string&)> shot) {
    auto want = std::make_shared<std::vector<UserMark>>();
    auto markers = std::make_shared<std::size_t>(0);
    script.add([&win, want](auto next) {
        if (win.document())
            *want = walkUserEvents(win.document()->tracePath());
        win.notebook().set_current_page(0);
        win.graphView().zoomToFit();
        next();
    });
    script.add([&win, checks, want, markers, shot](auto next) {
        const TraceDocument* doc = win.document();
        auto& g = win.graphView();
        if (!doc) {
            next();
            return;
        }
        const auto& have = doc->userMarks();
        bool same = have.size() == want->size();
        std::string diff;
        for (std::size_t i = 0; same && i < have.size(); ++i) {
            const UserMark &a = have[i], &b = (*want)[i];
            same = a.index == b.index && a.timeNs == b.timeNs && a.pid == b.pid &&
                   a.stream == b.stream && a.text == b.text;
            if (!same)
                diff = "#" + std::to_string(a.index) + " " + a.text + " vs #" +
                       std::to_string(b.index) + " " + b.text;
        }
        checks->check(same,
                      "application events are libltt's walk (" + std::to_string(want->size()) +
                          ": index, time, thread, text)",
                      diff);
        if (want->empty()) {
            checks->check(g.lastUserMarks().empty() && g.lastUserLabelCount() == 0,
                          "a trace without user streams draws no application events");
            next();
            return;
        }
        // Each marker sits where the view places its event (the thread's row,
        // its time); each event on a visible row has a marker in its column.
        const auto& drawn = g.lastUserMarks();
        const auto labels = g.visibleRowLabels();
        bool placed = !drawn.empty();
        std::string why;
        for (const auto& d : drawn) {
            const auto pos = g.positionOf(d.index);
            const auto slot =
                std::size_t((d.y - EventGraphView::kAxisHeight) / EventGraphView::kRowHeight);
            const EventLine line = doc->event(d.index);
            const std::string tag = "(" + std::to_string(line.pid) + ")";
            if (!pos || std::abs(pos->first - d.x) > 0.5 || pos->second != d.y ||
                slot >= labels.size() || labels[slot].find(tag) == std::string::npos) {
                placed = false;
                why = "#" + std::to_string(d.index) + " at " + std::to_string(d.x) + "," +
                      std::to_string(d.y) + (slot < labels.size() ? " row " + labels[slot] : "");
                break;
            }
        }
        std::size_t inView = 0, covered = 0;
        for (const auto& m : *want) {
            const auto pos = g.positionOf(m.index);
            if (!pos)
                continue;
            ++inView;
            covered += std::any_of(drawn.begin(), drawn.end(), [&](const auto& d) {
                return d.y == pos->second && std::abs(d.x - pos->first) < 1.5;
            });
        }
        checks->check(placed && inView > 0 && covered == inView,
                      "application events are drawn on their thread's row at their time (" +
                          std::to_string(drawn.size()) + " markers, " + std::to_string(inView) +
                          " events on visible rows)",
                      why);
        checks->check(g.lastUserLabelCount() > 0 && g.lastUserLabelCount() <= drawn.size(),
                      "application events are named (" + std::to_string(g.lastUserLabelCount()) +
                          " names)");
        // Tooltip and click on the "phase 2 begins" mark (else the first).
        const EventGraphView::DrawnUserMark* target = &drawn.front();
        for (const auto& d : drawn)
            if (doc->event(d.index).description.rfind("ltt_mark ", 0) == 0)
                target = &d;
        const EventLine line = doc->event(target->index);
        const auto tip = g.tooltipAt(target->x, target->y);
        checks->check(tip && tip->find(line.description) != std::string::npos &&
                          tip->find("#" + std::to_string(target->index)) == 0,
                      "an application event's tooltip gives its decoded text",
                      tip ? *tip : "no tooltip");
        g.clickAt(target->x, target->y);
        checks->check(win.selectedEvent() == target->index,
                      "clicking an application event selects it");
        next();
    });
    script.add([&win, want, markers, shot](auto next) {
        if (!want->empty()) {
            shot("event-graph-user-events");
            *markers = win.graphView().lastMarkerCount();
            win.activate_action("win.kind-user");
        }
        next();
    });
    script.add([&win, checks, want, markers](auto next) {
        auto& g = win.graphView();
        if (!want->empty()) {
            checks->check(!g.userEventsVisible() && g.lastUserMarks().empty() &&
                              g.lastMarkerCount() == *markers,
                          "View → Event kinds → Application events hides only their markers");
            win.activate_action("win.kind-user");
        }
        next();
    });
    script.add([&win, checks, want](auto next) {
        auto& g = win.graphView();
        if (!want->empty())
            checks->check(g.userEventsVisible() && !g.lastUserMarks().empty(),
                          "showing application events again draws them");
        // The raw list, unfiltered: user rows give UserEvents' text and
        // the stream as u<stream>.
        auto& r = win.rawView();
        r.setFiltered(std::nullopt, {});
        win.notebook().set_current_page(2);
        bool same = true;
        std::string diff;
        for (const auto& m : *want) {
            const std::string cpu = r.cellText(guint(m.index), 0),
                              text = r.cellText(guint(m.index), 5);
            if (cpu != "u" + std::to_string(m.stream) || text != m.text) {
                same = false;
                diff = "#" + std::to_string(m.index) + ": " + cpu + " " + text + " vs " + m.text;
                break;
            }
        }
        if (!want->empty())
            checks->check(
                same, "raw rows of application events show UserEvents' text and u<stream>", diff);
        next();
    });
    // Search by name, by a field's value, then backward by a name.
    struct Query {
        std::string text;
        bool forward;
        bool fromStart; // search from the first event
    };
    for (Query q : {Query{"ltt_mark", true, true}, Query{"id=1006", true, false},
                    Query{"tick", false, false}})
        script.add([&win, checks, want, q](auto next) {
            if (want->empty() || !win.document()) {
                next();
                return;
            }
            if (q.fromStart)
                win.selectEvent(0);
            const std::uint64_t from = win.selectedEvent().value_or(0);
            const auto expect = userMatch(*want, from, q.forward, q.text);
            win.searchEntry().set_text(q.text);
            win.find(q.forward, [&win, checks, expect, q, next](std::optional<std::uint64_t> hit) {
                auto& g = win.graphView();
                const std::uint64_t t = hit ? win.document()->eventTimeNs(*hit) : 0;
                const std::uint64_t span = g.viewEnd() - g.viewBegin();
                const std::uint64_t mid = g.viewBegin() + span / 2;
                checks->check(expect && hit == expect && g.viewBegin() <= t && t < g.viewEnd() &&
                                  (t > mid ? t - mid : mid - t) <= span / 4,
                              "search " + std::string(q.forward ? "forward" : "backward") +
                                  " for \"" + q.text +
                                  "\" finds that application event, centred in the graph",
                              "hit " + (hit ? std::to_string(*hit) : "none") + ", want " +
                                  (expect ? std::to_string(*expect) : "none"));
                next();
            });
        });
    // Back to the whole trace in the graph, as the steps after expect.
    script.add([&win](auto next) {
        win.notebook().set_current_page(0);
        win.activate_action("win.zoom-fit");
        next();
    });
}
} // namespace

void runSelfTest(Gtk::Application& app, MainWindow& win, const std::string& trace,
                 const std::string& proc, const std::string& outDir, int& status) {
    auto checks = std::make_shared<Checks>();
    g_mkdir_with_parents(outDir.c_str(), 0755);
    auto script = std::make_shared<Script>();
    auto shot = [&win, outDir, checks](const std::string& name) {
        std::string path = outDir + "/" + name + ".png";
        checks->check(saveScreenshot(win, path), "screenshot " + path);
    };
    // One widget alone (the README's pictures).
    auto shotWidget = [outDir, checks](Gtk::Widget& w, const std::string& name) {
        checks->check(saveScreenshot(w, outDir + "/" + name + ".png"),
                      "screenshot " + name + ".png");
    };
    auto clicked = std::make_shared<std::uint64_t>(0);

    script->add([&app, &status, &win, trace, proc, checks](auto next) {
        win.openTrace(trace, proc, [checks, next, &app, &status, &win](bool ok) {
            checks->check(ok, "open trace", ok ? "" : win.statusLabel().get_text());
            if (ok) {
                next();
                return;
            }
            // Nothing else can be checked without a trace.
            std::cout << "selftest: " << checks->passed << " passed, " << checks->failed
                      << " failed\n";
            status = 1;
            app.quit();
        });
    });
    script->add([&win, checks, shot, shotWidget](auto next) {
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
        checks->check(procRows > 0,
                      "event graph has process rows (" + std::to_string(procRows) + ")");
        bool named = std::all_of(labels.begin() + 2, labels.end(), [](const std::string& l) {
            return l.find(" (") != std::string::npos && l.back() == ')';
        });
        checks->check(named, "process rows are labelled NAME (PID)");
        checks->check(g.lastMarkerCount() > 0,
                      "graph draws event markers (" + std::to_string(g.lastMarkerCount()) + ")");
        checks->check(g.lastTransitionCount() > 0, "graph draws control transitions (" +
                                                       std::to_string(g.lastTransitionCount()) +
                                                       " columns)");
        checks->check(g.viewBegin() == doc->graph().startNs() &&
                          g.viewEnd() >= doc->graph().endNs(),
                      "initial view is the whole trace");
        checks->check(win.windowText() == windowText(g),
                      "status bar shows the visible window (t1, t2)",
                      win.windowText() + " vs " + windowText(g));
        shot("event-graph");
        shotWidget(g, "graph-view");
        next();
    });
    // The CPU view: one row per CPU, the task the model says at each column.
    script->add([&win, checks](auto next) {
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
            if (l.id == LTT_EV_SCHEDCHANGE || l.id == LTT_EV_BLOCK_START ||
                l.id == LTT_EV_BLOCK_END || l.id == LTT_EV_HEARTBEAT ||
                l.id == LTT_EV_TRACE_START || l.id == LTT_EV_LOST ||
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
                const std::uint64_t t = ltt::EventGraph::columnStart(g.viewBegin(), g.viewEnd(),
                                                                     unsigned(w), unsigned(c));
                const std::int32_t want = t > graph.startNs()
                                              ? graph.taskAt(std::uint16_t(cpu), t - 1)
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
    });
    // Event kinds: hiding one removes its markers, the control lines stay.
    auto before =
        std::make_shared<std::pair<std::array<std::size_t, ltt::kGraphEventKinds>, std::size_t>>();
    script->add([&win, checks, before](auto next) {
        auto& g = win.graphView();
        *before = {g.lastMarkersByKind(), g.lastTransitionCount()};
        checks->check(before->first[std::size_t(ltt::GraphEventKind::SchedChange)] > 0,
                      "scheduling changes are drawn before hiding them");
        win.activate_action("win.kind-" +
                            std::to_string(unsigned(ltt::GraphEventKind::SchedChange)));
        next();
    });
    script->add([&win, checks, before, shot](auto next) {
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
    });
    auto refiningBefore = std::make_shared<std::size_t>(0);
    script->add([&win, checks, before, refiningBefore](auto next) {
        auto& g = win.graphView();
        checks->check(g.lastMarkersByKind() == before->first,
                      "showing the kind again restores every marker");
        // The worker path: with no re-read allowed in a frame, the paint
        // shows the summary, then the worker's exact columns arrive.
        *refiningBefore = g.refiningPaints();
        g.setSyncReread(0);
        g.zoom(64); // below one summary bin per column: columns re-read
        next();
    });
    auto exactMarks = std::make_shared<std::size_t>(0);
    script->add([&win, checks, exactMarks, refiningBefore](auto next) {
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
    });
    script->add([&win, checks, exactMarks](auto next) {
        auto& g = win.graphView();
        checks->check(!g.lastPaintRefining() && g.lastMarkerCount() == *exactMarks,
                      "the background columns equal the ones computed in the paint (" +
                          std::to_string(*exactMarks) + " markers)",
                      std::to_string(g.lastMarkerCount()));
        win.activate_action("win.zoom-fit");
        next();
    });
    auto span = std::make_shared<std::uint64_t>(0);
    script->add([&win, span](auto next) {
        *span = win.graphView().viewEnd() - win.graphView().viewBegin();
        win.activate_action("win.zoom-in");
        win.activate_action("win.zoom-in");
        win.activate_action("win.zoom-in");
        next();
    });
    script->add([&win, checks, span, shot](auto next) {
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
    });
    script->add([&win, checks, clicked](auto next) {
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
    });
    script->add([&win, clicked](auto next) {
        // Zoom in around the selected event, as far as single events.
        auto& g = win.graphView();
        if (const TraceDocument* doc = win.document())
            g.showTime(doc->event(*clicked).timeNs);
        for (int i = 0; i < 5; ++i)
            g.zoom(2);
        next();
    });
    script->add([&win, checks, shot, shotWidget](auto next) {
        auto& g = win.graphView();
        checks->check(g.lastLabelCount() > 0, "zoomed in, events carry labels (" +
                                                  std::to_string(g.lastLabelCount()) + ")");
        checks->check(g.lastCpuLabelCount() > 0, "zoomed in, the CPU view names its tasks (" +
                                                     std::to_string(g.lastCpuLabelCount()) + ")");
        shot("event-graph-detail");
        shotWidget(g.cpuArea(), "cpu-view");
        next();
    });
    script->add([&win, checks, shot, clicked](auto next) {
        shot("event-graph-selected");
        win.notebook().set_current_page(1);
        next();
    });
    script->add([&win, checks, shot, clicked](auto next) {
        auto& p = win.processView();
        const TraceDocument* doc = win.document();
        checks->check(p.rootLabel() == "The All Mighty (0)", "process tree root", p.rootLabel());
        checks->check(p.processCount() > 0,
                      "process tree lists processes (" + std::to_string(p.processCount()) + ")");
        if (doc) {
            EventLine line = doc->event(*clicked);
            checks->check(p.selectedPid() == line.pid,
                          "selection synchronised: process tab shows PID " +
                              std::to_string(line.pid),
                          "shows " + std::to_string(p.selectedPid()));
        }
        checks->check(!p.reportLines().empty(), "process characteristics shown");
        // libltt's labels and precision, as traceanalyze prints them.
        bool delay = false;
        for (const auto& [label, value] : p.reportLines())
            delay = delay || (label == "Time waiting to run (sched delay)" &&
                              value.find(" s => ") == 11 && value.find('.') == 1);
        checks->check(delay, "process figures carry traceanalyze's labels and precision");
        shot("process-analysis-selected");
        p.selectPid(0);
        next();
    });
    script->add([&win, checks, shot](auto next) {
        auto& p = win.processView();
        checks->check(p.selectedPid() == 0, "root selected");
        checks->check(!p.reportLines().empty() && p.reportLines()[0].first == "Events in trace",
                      "system-wide figures for the root");
        shot("process-analysis");
        next();
    });
    // Several processes: their figures summed.
    script->add([&win, checks, shot, shotWidget](auto next) {
        auto& p = win.processView();
        const TraceDocument* doc = win.document();
        auto procs = doc->processes();
        std::sort(procs.begin(), procs.end(), [](const ProcessInfo& a, const ProcessInfo& b) {
            return a.syscalls > b.syscalls;
        });
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
    });
    script->add([&win, shot, shotWidget](auto next) {
        shot("process-selection");
        shotWidget(win.processView().breakdownArea(), "time-breakdown");
        next();
    });
    // Call sites of the busiest process: computed on the worker (the UI
    // thread returns at once with a note), then the rows are libltt's.
    auto csPid = std::make_shared<std::int32_t>(0);
    script->add([&win, checks, csPid](auto next) {
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
    });
    script->add([&win, checks, csPid](auto next) {
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
    });
    script->add([&win, checks](auto next) {
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
    });
    script->add([&win, checks, shot, clicked](auto next) {
        auto& r = win.rawView();
        const TraceDocument* doc = win.document();
        std::vector<std::string> want = {"CPU-ID",           "Event", "Seconds",
                                         "Microseconds",     "PID",   "Entry Length",
                                         "Event Description"};
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
    });
    auto firstHit = std::make_shared<std::optional<std::uint64_t>>();
    script->add([&win, checks, firstHit](auto next) {
        *firstHit = win.selectedEvent();
        win.find(true, [checks, firstHit, next](std::optional<std::uint64_t> hit) {
            checks->check(hit && *firstHit && *hit > **firstHit, "search forward again");
            next();
        });
    });
    script->add([&win, checks, firstHit](auto next) {
        win.find(false, [checks, firstHit, next](std::optional<std::uint64_t> hit) {
            checks->check(hit && *hit == *firstHit,
                          "search backward returns to the previous match");
            next();
        });
    });
    script->add([&win, checks, shot](auto next) {
        shot("raw-trace-search");
        // Through the filter bar, as a user would: pick the type, apply,
        // wait for the background filter to finish.
        checkTypeFilter(
            win, checks, 1 + LTT_EV_SCHEDCHANGE, // after "All events"
            [](const std::string& e) { return e == "Sched change"; },
            "filter by event type keeps only that type", next);
    });
    script->add([&win, checks](auto next) {
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
    });
    script->add([&win, checks, shot](auto next) {
        shot("raw-trace-filtered");
        checks->check(win.goToEvent("5") && win.selectedEvent() == 5u, "go to event number");
        checks->check(!win.goToEvent("999999999999"), "go to a missing event is refused");
        checks->check(win.goToTime("0") && win.selectedEvent().has_value(), "go to time");
        win.notebook().set_current_page(0);
        next();
    });
    script->add([&win, checks, shot](auto next) {
        auto& g = win.graphView();
        const TraceDocument* doc = win.document();
        auto sel = win.selectedEvent();
        if (doc && sel) {
            auto t = doc->event(*sel).timeNs;
            checks->check(t >= g.viewBegin() && t < g.viewEnd(),
                          "graph shows the event selected elsewhere");
        }
        if (doc && !doc->graph().lost().empty())
            checks->check(true, "lost events marked (" +
                                    std::to_string(doc->graph().lost().size()) + " places)");
        win.activate_action("win.zoom-fit");
        next();
    });
    script->add([&win, checks](auto next) {
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
    });
    addUserEventSteps(*script, win, checks, shot);
    script->add([&win, checks, trace, proc](auto next) {
        // Cancel re-opening the trace at once: the open stops, the trace
        // already shown stays.
        const TraceDocument* before = win.document();
        win.openTrace(trace, proc, [checks, &win, before, next](bool ok) {
            checks->check(!ok && win.document() == before &&
                              win.statusLabel().get_text() == "Opening cancelled",
                          "Cancel stops opening and keeps the current trace",
                          win.statusLabel().get_text());
            next();
        });
        win.cancelJob();
    });
    script->add([&win, checks, outDir](auto next) {
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
    });
    script->add([&win, checks, outDir, shotWidget](auto next) {
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
    });
    script->add([&app, checks, &status, shot](auto next) {
        shot("event-graph-final");
        std::cout << "selftest: " << checks->passed << " passed, " << checks->failed << " failed\n";
        status = checks->failed ? 1 : 0;
        app.quit();
        next();
    });
    script->run(win, 300);
}

void runBenchmark(Gtk::Application& app, MainWindow& win, const std::string& trace,
                  const std::string& proc, std::chrono::steady_clock::time_point start,
                  int& status) {
    using clock = std::chrono::steady_clock;
    struct State {
        std::vector<std::function<void()>> actions;
        std::size_t next = 0;
        clock::time_point issued;
        std::vector<double> drawMs, frameMs, renderMs, refinedMs, renderCpuMs;
        clock::time_point beforePaint;
        double beforePaintCpuMs = 0;
        std::function<void()> onBeforePaint;
        bool firstPaint = false;
        bool waiting = false;
        double lastDrawMs = 0;
        sigc::connection painted;
        std::function<void()> onAfterPaint;
        std::function<void()> issueNext;
    };
    auto st = std::make_shared<State>();
    auto& g = win.graphView();
    for (int i = 0; i < 12; ++i)
        st->actions.push_back([&g] { g.zoom(2); });
    for (int i = 0; i < 20; ++i)
        st->actions.push_back([&g, i] { g.scrollBy(i % 4 == 3 ? -0.9 : 0.5); });
    for (int i = 0; i < 6; ++i)
        st->actions.push_back([&g, i] { g.zoomAt(0.25, 100.0 + 150 * i); });
    for (int i = 0; i < 10; ++i)
        st->actions.push_back([&g] { g.scrollBy(0.3); });
    for (int i = 0; i < 6; ++i)
        st->actions.push_back([&g] { g.zoom(4); });
    st->actions.push_back([&g] { g.zoomToFit(); });

    auto report = [&app, &win, st, &status] {
        auto stats = [](std::vector<double> v) {
            std::sort(v.begin(), v.end());
            return std::make_pair(v.empty() ? 0.0 : v[v.size() / 2], v.empty() ? 0.0 : v.back());
        };
        auto [dmed, dmax] = stats(st->drawMs);
        auto [fmed, fmax] = stats(st->frameMs);
        auto [rmed, rmax] = stats(st->renderMs);
        auto [cmed, cmax] = stats(st->renderCpuMs);
        if (std::getenv("TRACEVIEW_BENCH_VERBOSE"))
            for (std::size_t i = 0; i < st->drawMs.size(); ++i)
                std::printf("  action %zu: paint %.2f ms, frame %.2f ms (UI thread CPU %.2f ms), "
                            "input to frame %.2f ms\n",
                            i, st->drawMs[i], st->renderMs[i], st->renderCpuMs[i], st->frameMs[i]);
        std::printf("redraws: %zu (zoom and scroll sequence)\n", st->drawMs.size());
        std::printf("redraw (graph paint): median %.2f ms, worst %.2f ms\n", dmed, dmax);
        std::printf("redraw (whole frame: layout, graph paint, render): median %.2f ms, worst "
                    "%.2f ms\n",
                    rmed, rmax);
        // The UI thread's own CPU time over the same span: what the frame
        // costs without the time the thread waited for a CPU (other work on
        // a loaded machine, the refining worker).
        std::printf("redraw (whole frame, UI thread CPU time): median %.2f ms, worst %.2f ms\n",
                    cmed, cmax);
        std::printf("redraw (input to frame painted, incl. waiting for the frame clock): "
                    "median %.2f ms, worst %.2f ms\n",
                    fmed, fmax);
        auto [xmed, xmax] = stats(st->refinedMs);
        std::printf("views refined off the UI thread (summary shown first): %zu, exact columns "
                    "after median %.2f ms, worst %.2f ms\n",
                    st->refinedMs.size(), xmed, xmax);
        const auto& graph = win.document()->graph();
        std::printf("event graph model: %.2f MB (%zu summary bins of %llu ns), %llu events "
                    "re-read by the redraws\n",
                    double(graph.memoryBytes()) / 1e6, graph.binCount(),
                    (unsigned long long)graph.binWidthNs(),
                    (unsigned long long)graph.eventsReread());
        // Resident memory: the anonymous part is the program's own; the file
        // part is the trace mapping (page cache, shared).
        if (FILE* f = std::fopen("/proc/self/status", "r")) {
            char line[256];
            while (std::fgets(line, sizeof line, f))
                if (!std::strncmp(line, "VmHWM:", 6) || !std::strncmp(line, "VmRSS:", 6) ||
                    !std::strncmp(line, "RssAnon:", 8) || !std::strncmp(line, "RssFile:", 8))
                    std::printf("memory %s", line);
            std::fclose(f);
        }
        std::fflush(stdout);
        status = 0;
        app.quit();
    };
    auto issue = std::make_shared<std::function<void()>>();
    *issue = [st, report, issue] {
        if (st->next >= st->actions.size()) {
            report();
            return;
        }
        st->waiting = true;
        st->issued = clock::now();
        st->actions[st->next++]();
    };

    st->painted = g.signalPainted().connect([st](std::chrono::nanoseconds d) {
        st->lastDrawMs = std::chrono::duration<double, std::milli>(d).count();
    });
    g.signalRefined().connect([st](std::chrono::nanoseconds d) {
        st->refinedMs.push_back(std::chrono::duration<double, std::milli>(d).count());
    });
    auto shown = [&win, &g, st, start] {
        auto clockp = g.area().get_frame_clock();
        std::printf("events: %llu\n", (unsigned long long)win.document()->eventCount());
        std::printf("graph model built after %.1f ms\n",
                    std::chrono::duration<double, std::milli>(clock::now() - start).count());
        st->onAfterPaint = [st, start] {
            auto now = clock::now();
            if (!st->firstPaint) {
                st->firstPaint = true;
                std::printf("first paint: %.1f ms after start\n",
                            std::chrono::duration<double, std::milli>(now - start).count());
                std::fflush(stdout);
                return;
            }
            if (!st->waiting)
                return;
            st->waiting = false;
            st->drawMs.push_back(st->lastDrawMs);
            st->frameMs.push_back(
                std::chrono::duration<double, std::milli>(now - st->issued).count());
            st->renderMs.push_back(
                std::chrono::duration<double, std::milli>(now - st->beforePaint).count());
            st->renderCpuMs.push_back(threadCpuMs() - st->beforePaintCpuMs);
            Glib::signal_idle().connect_once([st] { st->issueNext(); });
        };
        // gtkmm 4.8 does not wrap GdkFrameClock::after-paint.
        g_signal_connect(clockp->gobj(), "after-paint",
                         G_CALLBACK(+[](GdkFrameClock*, gpointer data) {
                             (*static_cast<std::function<void()>*>(data))();
                         }),
                         &st->onAfterPaint);
        st->onBeforePaint = [st] {
            st->beforePaint = clock::now();
            st->beforePaintCpuMs = threadCpuMs();
        };
        g_signal_connect(clockp->gobj(), "before-paint",
                         G_CALLBACK(+[](GdkFrameClock*, gpointer data) {
                             (*static_cast<std::function<void()>*>(data))();
                         }),
                         &st->onBeforePaint);
        g.area().queue_draw();
    };
    st->issueNext = [issue] { (*issue)(); };
    win.openTrace(
        trace, proc,
        [st, start, issue, &app, &status](bool ok) {
            if (!ok) {
                std::fprintf(stderr, "traceview: cannot open the trace\n");
                status = 1;
                app.quit();
                return;
            }
            std::printf("process analysis and index ready after %.1f ms\n",
                        std::chrono::duration<double, std::milli>(clock::now() - start).count());
            // The redraw sequence runs on a quiet machine: after the second
            // stage, as a user browsing the trace would.
            Glib::signal_timeout().connect_once([issue] { (*issue)(); }, 100);
        },
        shown);
}

} // namespace traceview
