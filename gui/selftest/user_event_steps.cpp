// The self test's steps on application events (user streams): see
// selftest.hpp.
#include "selftest.hpp"

#include <algorithm>
#include <cmath>
#include <libltt/trace_reader.hpp>
#include <libltt/user_events.hpp>
#include <ltt/events.h>

namespace traceview {

namespace {

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

using Next = std::function<void()>;

// What the steps share: the window, the checks, the screenshot function,
// libltt's walk of the trace's application events and the markers drawn
// before they were hidden.
struct UserEventSteps {
    MainWindow& win;
    Checks* checks;
    std::function<void(const std::string&)> shot;
    std::shared_ptr<std::vector<UserMark>> want = std::make_shared<std::vector<UserMark>>();
    std::shared_ptr<std::size_t> markers = std::make_shared<std::size_t>(0);
};

struct Query {
    std::string text;
    bool forward;
    bool fromStart; // search from the first event
};

// libltt's own walk of the application events; the whole trace in the graph.
void collectUserEvents(UserEventSteps& u, Next next) {
    MainWindow& win = u.win;
    auto want = u.want;
    if (win.document())
        *want = walkUserEvents(win.document()->tracePath());
    win.notebook().set_current_page(0);
    win.graphView().zoomToFit();
    next();
}

// The markers against the walk: placed on their thread's row at their time,
// named; the tooltip and a click on one. None on a trace without them.
void checkUserEventMarks(UserEventSteps& u, Next next) {
    MainWindow& win = u.win;
    Checks* checks = u.checks;
    auto want = u.want;
    auto markers = u.markers;
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
    checks->check(win.selectedEvent() == target->index, "clicking an application event selects it");
    next();
}

// A screenshot, then View → Event kinds → Application events off.
void hideUserEvents(UserEventSteps& u, Next next) {
    MainWindow& win = u.win;
    auto want = u.want;
    auto markers = u.markers;
    auto shot = u.shot;
    if (!want->empty()) {
        shot("event-graph-user-events");
        *markers = win.graphView().lastMarkerCount();
        win.activate_action("win.kind-user");
    }
    next();
}

// Hidden: their markers only are gone; then shown again.
void checkUserEventsHidden(UserEventSteps& u, Next next) {
    MainWindow& win = u.win;
    Checks* checks = u.checks;
    auto want = u.want;
    auto markers = u.markers;
    auto& g = win.graphView();
    if (!want->empty()) {
        checks->check(!g.userEventsVisible() && g.lastUserMarks().empty() &&
                          g.lastMarkerCount() == *markers,
                      "View → Event kinds → Application events hides only their markers");
        win.activate_action("win.kind-user");
    }
    next();
}

// Shown again; the raw list's rows of application events: UserEvents' text
// and u<stream>.
void checkUserEventRows(UserEventSteps& u, Next next) {
    MainWindow& win = u.win;
    Checks* checks = u.checks;
    auto want = u.want;
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
        const std::string cpu = r.cellText(guint(m.index), 0), text = r.cellText(guint(m.index), 5);
        if (cpu != "u" + std::to_string(m.stream) || text != m.text) {
            same = false;
            diff = "#" + std::to_string(m.index) + ": " + cpu + " " + text + " vs " + m.text;
            break;
        }
    }
    if (!want->empty())
        checks->check(same, "raw rows of application events show UserEvents' text and u<stream>",
                      diff);
    next();
}

// A search (by name, by a field's value, backward by a name) lands on the
// event the walk says, centred in the graph.
void searchUserEvent(UserEventSteps& u, const Query& q, Next next) {
    MainWindow& win = u.win;
    Checks* checks = u.checks;
    auto want = u.want;
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
                      "search " + std::string(q.forward ? "forward" : "backward") + " for \"" +
                          q.text + "\" finds that application event, centred in the graph",
                      "hit " + (hit ? std::to_string(*hit) : "none") + ", want " +
                          (expect ? std::to_string(*expect) : "none"));
        next();
    });
}

// Back to the whole trace in the graph, as the steps after expect.
void backToWholeTrace(UserEventSteps& u, Next next) {
    MainWindow& win = u.win;
    win.notebook().set_current_page(0);
    win.activate_action("win.zoom-fit");
    next();
}

} // namespace

// Application events (user streams): the graph's markers against libltt's
// walk, their tooltip and click, the event-kind entry that hides them, the
// raw rows' text and the search by name and field value. A trace without
// user streams must show none.
void addUserEventSteps(Script& script, MainWindow& win, Checks* checks,
                       std::function<void(const std::string&)> shot) {
    auto u = std::shared_ptr<UserEventSteps>(new UserEventSteps{win, checks, std::move(shot)});
    for (auto step : {collectUserEvents, checkUserEventMarks, hideUserEvents, checkUserEventsHidden,
                      checkUserEventRows})
        script.add([u, step](Next next) { step(*u, std::move(next)); });
    // By name, by a field's value, then backward by a name.
    for (Query q : {Query{"ltt_mark", true, true}, Query{"id=1006", true, false},
                    Query{"tick", false, false}})
        script.add([u, q](Next next) { searchUserEvent(*u, q, std::move(next)); });
    script.add([u](Next next) { backToWholeTrace(*u, std::move(next)); });
}

} // namespace traceview
