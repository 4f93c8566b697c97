// FollowController: see follow_controller.hpp.
#include "follow_controller.hpp"

#include "main_window.hpp"

namespace traceview {

FollowController::FollowController(MainWindow& window, std::string trace, std::string proc,
                                   FollowSettings settings, std::function<void(bool)> ended)
    : window_m(window), session_m(std::move(trace), std::move(proc), settings.options),
      ended_m(std::move(ended)), self_m(std::make_shared<FollowController*>(this)) {
    timer_m = Glib::signal_timeout().connect(sigc::mem_fun(*this, &FollowController::tick),
                                             static_cast<unsigned>(settings.interval.count()));
    std::weak_ptr<FollowController*> self = self_m;
    Glib::signal_idle().connect_once([self] {
        if (auto s = self.lock())
            (*s)->tick();
    });
    window_m.statusLabel().set_text(session_m.waitingText());
}

FollowController::~FollowController() {
    timer_m.disconnect();
}

bool FollowController::tick() {
    switch (session_m.tick(window_m.busy())) {
    case FollowSession::Step::Stop:
        return false;
    case FollowSession::Step::Wait:
        return true;
    case FollowSession::Step::ReloadLast:
        timer_m.disconnect();
        reload(true);
        return false;
    case FollowSession::Step::Reload:
        reload(false);
        return true;
    }
    return true;
}

void FollowController::reload(bool last) {
    std::weak_ptr<FollowController*> self = self_m;
    // The first update replaces whatever the window showed; the later ones
    // keep the view the user set up on this trace.
    window_m.reloadTrace(session_m.trace(), session_m.proc(), session_m.keepView(),
                         [self, last](bool ok) {
                             auto s = self.lock();
                             if (!s)
                                 return;
                             FollowController& c = **s;
                             const TraceDocument* doc = c.window_m.document();
                             c.session_m.reloaded(last, ok && doc);
                             Gtk::Label& status = c.window_m.statusLabel();
                             if (last) {
                                 status.set_text(status.get_text() + c.session_m.endedSuffix());
                                 if (c.ended_m)
                                     c.ended_m(ok);
                                 return;
                             }
                             if (ok && doc)
                                 status.set_text(c.session_m.followingText(doc->summary()));
                         });
}

} // namespace traceview
