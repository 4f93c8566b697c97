// traceview [TRACE [PROC]]            browse a trace (PROC defaults to TRACE's .proc)
// traceview --follow TRACE [PROC]     browse a trace tracedaemon is still writing
// traceview --selftest DIR TRACE PROC drive the UI, check it, save screenshots in DIR
// traceview --bench TRACE PROC        time to first paint and redraw times
#include "main_window.hpp"
#include "scripted_run.hpp"

#include <chrono>
#include <cstring>
#include <iostream>

namespace {

void usage(std::ostream& out) {
    out << "usage: traceview [TRACE [PROC]]\n"
           "       traceview --follow TRACE [PROC]\n"
           "       traceview --follow --selftest OUTDIR TRACE PROC\n"
           "       traceview --selftest OUTDIR TRACE PROC\n"
           "       traceview --bench TRACE PROC\n"
           "       traceview --help | --version\n";
}

std::string defaultProc(const std::string& trace) {
    const std::string ext = ".trace";
    if (trace.size() > ext.size() && trace.compare(trace.size() - ext.size(), ext.size(), ext) == 0)
        return trace.substr(0, trace.size() - ext.size()) + ".proc";
    return trace + ".proc";
}

} // namespace

int main(int argc, char** argv) {
    const auto start = std::chrono::steady_clock::now();
    enum class Mode { Browse, SelfTest, Bench } mode = Mode::Browse;
    std::string trace, proc, outDir;
    std::vector<std::string> args(argv + 1, argv + argc);
    // --follow: keep the view up to date while the trace grows
    // (follow_controller.hpp); with --selftest, the follow self test.
    const bool follow = !args.empty() && args[0] == "--follow";
    if (follow)
        args.erase(args.begin());
    if (!args.empty() && (args[0] == "-h" || args[0] == "--help")) {
        usage(std::cout);
        return 0;
    }
    if (!args.empty() && args[0] == "--version") {
        std::cout << "traceview " LTT_VERSION_STRING "\n";
        return 0;
    }
    if (!args.empty() && args[0] == "--selftest") {
        if (args.size() != 4) {
            usage(std::cerr);
            return 2;
        }
        mode = Mode::SelfTest;
        outDir = args[1];
        trace = args[2];
        proc = args[3];
    } else if (!args.empty() && args[0] == "--bench") {
        if (args.size() != 3) {
            usage(std::cerr);
            return 2;
        }
        mode = Mode::Bench;
        if (follow) {
            usage(std::cerr);
            return 2;
        }
        trace = args[1];
        proc = args[2];
    } else if (args.size() <= 2) {
        if (!args.empty() && args[0].starts_with("-")) {
            std::cerr << "traceview: unknown option " << args[0] << "\n";
            usage(std::cerr);
            return 2;
        }
        if (!args.empty()) {
            trace = args[0];
            proc = args.size() > 1 ? args[1] : defaultProc(trace);
        }
    } else {
        usage(std::cerr);
        return 2;
    }

    if (follow && trace.empty()) {
        std::cerr << "traceview: --follow needs a TRACE\n";
        usage(std::cerr);
        return 2;
    }
    if (!gtk_init_check()) {
        std::cerr << "traceview: cannot open a display (set DISPLAY, or run under xvfb-run)\n";
        return 3;
    }
    auto app = Gtk::Application::create("org.ltt.traceview", Gio::Application::Flags::NON_UNIQUE);
    int status = 0;
    std::unique_ptr<traceview::MainWindow> window;
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
        window = std::make_unique<traceview::MainWindow>();
        app->add_window(*window);
        window->present();
        switch (mode) {
        case Mode::Browse:
            if (!trace.empty() && follow)
                window->followTrace(trace, proc);
            else if (!trace.empty())
                window->openTrace(trace, proc);
            break;
        case Mode::SelfTest:
            if (follow)
                traceview::runFollowSelfTest(*app, *window, trace, proc, outDir, status);
            else
                traceview::runSelfTest(*app, *window, trace, proc, outDir, status);
            break;
        case Mode::Bench:
            traceview::runBenchmark(*app, *window, trace, proc, start, status);
            break;
        }
    });
    char* fakeArgv[] = {argv[0], nullptr};
    int rc = app->run(1, fakeArgv);
    window.reset();
    return status ? status : rc;
}
