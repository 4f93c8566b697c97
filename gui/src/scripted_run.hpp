// Scripted runs of traceview under a (virtual) display:
//  - the self test (--selftest DIR): opens a trace, visits each tab, zooms,
//    searches, filters, selects, saves screenshots in DIR and prints one
//    "ok   - ..." / "FAIL - ..." line per structural check;
//  - the benchmark (--bench): time to first paint and redraw times for a
//    fixed sequence of zooms and scrolls.
#pragma once

#include "main_window.hpp"

#include <chrono>
#include <string>

namespace traceview {

// Both return the process exit status through `status` when they finish,
// then quit the application.
void runSelfTest(Gtk::Application& app, MainWindow& win, const std::string& trace,
                 const std::string& proc, const std::string& outDir, int& status);
void runBenchmark(Gtk::Application& app, MainWindow& win, const std::string& trace,
                  const std::string& proc, std::chrono::steady_clock::time_point start,
                  int& status);

} // namespace traceview
