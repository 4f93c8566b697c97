// The GTK application around one MainWindow: see application.hpp.
#include "application.hpp"

#include <iostream>
#include <memory>

namespace traceview {

int runApplication(const char* argv0,
                   const std::function<void(Gtk::Application&, MainWindow&, int&)>& activated) {
    if (!gtk_init_check()) {
        std::cerr << Glib::path_get_basename(argv0)
                  << ": cannot open a display (set DISPLAY, or run under xvfb-run)\n";
        return 3;
    }
    auto app = Gtk::Application::create("org.ltt.traceview", Gio::Application::Flags::NON_UNIQUE);
    int status = 0;
    std::unique_ptr<MainWindow> window;
    // Keyboard shortcuts for the window's actions.
    const std::pair<const char*, std::vector<Glib::ustring>> accels[] = {
        {"win.open", {"<Control>o"}},
        {"win.quit", {"<Control>q"}},
        {"win.zoom-in", {"<Control>plus", "<Control>equal", "<Control>KP_Add"}},
        {"win.zoom-out", {"<Control>minus", "<Control>KP_Subtract"}},
        {"win.zoom-fit", {"<Control>0"}},
        {"win.goto-event", {"<Control>g"}},
        {"win.goto-time", {"<Control>t"}},
        {"win.find-next", {"F3"}},
        {"win.find-prev", {"<Shift>F3"}},
    };
    for (const auto& [action, keys] : accels)
        app->set_accels_for_action(action, keys);
    app->signal_activate().connect([&] {
        window = std::make_unique<MainWindow>();
        app->add_window(*window);
        window->present();
        activated(*app, *window, status);
    });
    char* fakeArgv[] = {const_cast<char*>(argv0), nullptr};
    int rc = app->run(1, fakeArgv);
    window.reset();
    return status ? status : rc;
}

} // namespace traceview
