// The GTK application around one MainWindow: its keyboard shortcuts, the
// window created at activation, the exit status. traceview (gui/app) and
// traceview-selftest (gui/selftest) both run it; what each does with the
// window once it is shown is the `activated` callback's.
#pragma once

#include "main_window.hpp"

#include <functional>

namespace traceview {

// Opens the display, runs the application until it quits and returns the
// exit status: `status` as `activated` left it when non-zero, else the
// application's. 3 (with a message) when no display can be opened.
int runApplication(
    const char* argv0,
    const std::function<void(Gtk::Application& app, MainWindow& window, int& status)>& activated);

} // namespace traceview
