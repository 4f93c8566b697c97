// FollowController: traceview's live view of a trace tracedaemon is still
// writing (traceview --follow, File → Follow…).
//
// A timer on the main loop asks libltt's TraceFollower (trace_follow.hpp)
// whether whole blocks or the .proc arrived; that look is cheap (an fstat,
// and a scan of the block frames when the file grew). When something
// arrived and the window is not busy, the controller re-opens the trace
// through MainWindow::reloadTrace(), whose worker threads rebuild the graph,
// the analysis and the index off the UI thread with the usual progress bar
// and Cancel; the next look waits until that is done. Updates after the
// first keep the view (MainWindow::reloadTrace): the zoom or, when the whole
// trace was shown, the whole grown trace, the scroll, the selection, the
// tab, the hidden event kinds and the processes selected. When the follower
// ends (every CPU's FINAL block, the producer's close, the idle timeout),
// a last re-open shows the finished file exactly as opening it would.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <glibmm/main.h>
#include <libltt/trace_follow.hpp>
#include <memory>
#include <string>

namespace Gtk {
class Application;
}

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

    bool finished() const { return done_m; }
    // Re-opens done while following (the last one included).
    std::uint64_t reloads() const { return reloads_m; }
    const ltt::TraceFollower& follower() const { return follower_m; }

private:
    bool tick();
    void reload(bool last);

    MainWindow& window_m;
    std::string trace_m, proc_m;
    ltt::TraceFollower follower_m;
    std::function<void(bool)> ended_m;
    sigc::connection timer_m;
    bool pending_m = false;   // something arrived that is not shown yet
    bool reloading_m = false; // a re-open is running
    bool done_m = false;
    bool shown_m = false; // an update showed this trace
    std::uint64_t reloads_m = 0;
    // The re-opens' callbacks hold it weakly: one that completes after this
    // controller is gone does nothing.
    std::shared_ptr<FollowController*> self_m;
};

// traceview --follow --selftest OUTDIR TRACE PROC: follows TRACE while a
// producer writes it, then opens the finished file and checks that the
// figures shown (events, processes, the system-wide and per-process
// analysis) are the same; prints "ok"/"FAIL" lines and "selftest: N
// passed, N failed", saves a screenshot in OUTDIR and quits.
void runFollowSelfTest(Gtk::Application& app, MainWindow& win, const std::string& trace,
                       const std::string& proc, const std::string& outDir, int& status);

} // namespace traceview
