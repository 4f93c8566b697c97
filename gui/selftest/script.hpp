// What traceview-selftest's scripts are made of: a chain of asynchronous
// steps run on the GTK main loop, and the checks they print.
#pragma once

#include <functional>
#include <gtkmm.h>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace traceview {

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

// One "ok   - NAME" or "FAIL - NAME" line per check (the detail indented
// under a failure), counted; suite 80 folds the lines into its own count.
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
    // The last line: "selftest: N passed, N failed".
    void summary() const {
        std::cout << "selftest: " << passed << " passed, " << failed << " failed\n";
        std::cout.flush();
    }
};

} // namespace traceview
