// FollowController: see follow_controller.hpp.
#include "follow_controller.hpp"

#include "main_window.hpp"

namespace traceview {

FollowController::FollowController(MainWindow& window, std::string trace, std::string proc,
                                   FollowSettings settings, std::function<void(bool)> ended)
    : window_m(window), trace_m(std::move(trace)), proc_m(std::move(proc)),
      follower_m(trace_m, proc_m, settings.options), ended_m(std::move(ended)),
      self_m(std::make_shared<FollowController*>(this)) {
    timer_m = Glib::signal_timeout().connect(sigc::mem_fun(*this, &FollowController::tick),
                                             static_cast<unsigned>(settings.interval.count()));
    std::weak_ptr<FollowController*> self = self_m;
    Glib::signal_idle().connect_once([self] {
        if (auto s = self.lock())
            (*s)->tick();
    });
    window_m.statusLabel().set_text("Following " + Glib::path_get_basename(trace_m) +
                                    ": waiting for whole blocks…");
}

FollowController::~FollowController() {
    timer_m.disconnect();
}

bool FollowController::tick() {
    if (done_m)
        return false;
    // One re-open at a time, and none while the window runs other work
    // (a filter, a search): openTrace() would refuse to start.
    if (reloading_m || window_m.busy())
        return true;
    if (!follower_m.finished())
        pending_m = follower_m.poll() || pending_m;
    if (follower_m.finished()) {
        // The finished file as a plain open shows it, warnings and errors
        // (in the window's error dialog) included.
        timer_m.disconnect();
        reload(true);
        return false;
    }
    if (pending_m && follower_m.reader())
        reload(false);
    return true;
}

void FollowController::reload(bool last) {
    pending_m = false;
    reloading_m = true;
    std::weak_ptr<FollowController*> self = self_m;
    // The first update replaces whatever the window showed; the later ones
    // keep the view the user set up on this trace.
    window_m.reloadTrace(trace_m, proc_m, shown_m, [self, last](bool ok) {
        auto s = self.lock();
        if (!s)
            return;
        FollowController& c = **s;
        c.reloading_m = false;
        ++c.reloads_m;
        c.shown_m = c.shown_m || (ok && c.window_m.document());
        Gtk::Label& status = c.window_m.statusLabel();
        if (last) {
            c.done_m = true;
            status.set_text(status.get_text() + "   (following ended: " + c.follower_m.endReason() +
                            ")");
            if (c.ended_m)
                c.ended_m(ok);
            return;
        }
        // While following, a block still being written is no warning.
        if (ok && c.window_m.document())
            status.set_text("Following " + Glib::path_get_basename(c.trace_m) + ": " +
                            c.window_m.document()->summary() +
                            (c.follower_m.snapshot() || c.proc_m.empty()
                                 ? ""
                                 : "   (" + Glib::path_get_basename(c.proc_m) + " not there yet)"));
    });
}

} // namespace traceview
