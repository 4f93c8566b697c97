// FollowController: traceview's live view of a trace tracedaemon is still
// writing (traceview --follow, File → Follow…), on the GTK main loop.
//
// The decisions are FollowSession's (gui/model/follow_session.hpp, no
// toolkit): a timer asks it at each interval whether to re-open; when it
// says so, the controller re-opens the trace through
// MainWindow::reloadTrace(), whose worker threads rebuild the graph, the
// analysis and the index off the UI thread with the usual progress bar and
// Cancel, and reports back. Updates after the first keep the view
// (MainWindow::reloadTrace): the zoom or, when the whole trace was shown,
// the whole grown trace, the scroll, the selection, the tab, the hidden
// event kinds and the processes selected. When the follower ends (every
// CPU's FINAL block, the producer's close, the idle timeout), a last
// re-open shows the finished file exactly as opening it would.
#pragma once

#include "follow_session.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <glibmm/main.h>
#include <memory>
#include <string>

namespace traceview {

class MainWindow;

struct FollowSettings {
    std::chrono::milliseconds interval{1000}; // between looks at the file
    ltt::FollowOptions options;               // idle timeout
};

class FollowController {
public:
    // Starts following at once. `ended(ok)` runs on the UI thread after
    // the last re-open (ok: the finished file's document is shown).
    FollowController(MainWindow& window, std::string trace, std::string proc,
                     FollowSettings settings = {}, std::function<void(bool)> ended = {});
    ~FollowController();
    FollowController(const FollowController&) = delete;
    FollowController& operator=(const FollowController&) = delete;

    bool finished() const { return session_m.finished(); }
    // Re-opens done while following (the last one included).
    std::uint64_t reloads() const { return session_m.reloads(); }
    const ltt::TraceFollower& follower() const { return session_m.follower(); }

private:
    bool tick();
    void reload(bool last);

    MainWindow& window_m;
    FollowSession session_m;
    std::function<void(bool)> ended_m;
    sigc::connection timer_m;
    // The re-opens' callbacks hold it weakly: one that completes after this
    // controller is gone does nothing.
    std::shared_ptr<FollowController*> self_m;
};

} // namespace traceview
