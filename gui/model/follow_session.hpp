// FollowSession: the decisions of traceview's live view of a trace that
// tracedaemon is still writing, without a toolkit. The widget side
// (gui/widgets/follow_controller) calls tick() from a main-loop timer,
// performs the re-open it asks for through the window, and reports back
// with reloaded(); this class says when to re-open, whether the re-open
// keeps the view, when following is over, and what the status bar says.
//
// libltt's TraceFollower (trace_follow.hpp) does the looking: each poll is
// an fstat, and a scan of the block frames when the file grew. A re-open
// runs only when something arrived, one at a time and never while the
// window runs other work; once the follower has ended (every CPU's FINAL
// block, the producer's close, the idle timeout) one last re-open shows the
// finished file exactly as opening it would.
#pragma once

#include <cstdint>
#include <libltt/trace_follow.hpp>
#include <string>

namespace traceview {

class FollowSession {
public:
    FollowSession(std::string trace, std::string proc, ltt::FollowOptions options = {});

    enum class Step {
        Wait,       // nothing to do now; look again at the next tick
        Reload,     // re-open the trace (it grew, or the .proc arrived)
        ReloadLast, // following ended: re-open the finished file, then stop
        Stop,       // following is over: stop ticking
    };
    // One look. `busy`: the window runs other work (an open, a filter, a
    // search), which a re-open would have to wait for. After Reload or
    // ReloadLast, ticks answer Wait until reloaded().
    Step tick(bool busy);
    // The re-open asked for finished; `shown`: it succeeded and the window
    // shows a document.
    void reloaded(bool last, bool shown);

    // Whether a re-open keeps the view the user set up: the first one
    // replaces whatever the window showed, the later ones keep it.
    bool keepView() const { return shown_m; }
    bool finished() const { return done_m; }
    bool reloading() const { return reloading_m; }
    // Re-opens done while following (the last one included).
    std::uint64_t reloads() const { return reloads_m; }
    const ltt::TraceFollower& follower() const { return follower_m; }
    const std::string& trace() const { return trace_m; }
    const std::string& proc() const { return proc_m; }

    // The status bar: before the first update, after an update (with the
    // document's summary), and the tail added to the last status.
    std::string waitingText() const;
    std::string followingText(const std::string& summary) const;
    std::string endedSuffix() const;

private:
    std::string trace_m, proc_m;
    ltt::TraceFollower follower_m;
    bool pending_m = false;   // something arrived that is not shown yet
    bool reloading_m = false; // a re-open is running
    bool done_m = false;
    bool shown_m = false; // an update showed this trace
    std::uint64_t reloads_m = 0;
};

} // namespace traceview
