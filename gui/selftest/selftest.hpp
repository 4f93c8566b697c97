// traceview-selftest: the scripted runs of traceview's window under a
// (virtual) display, kept out of the shipped traceview.
//  - runSelfTest: opens a trace, visits each tab, zooms, searches, filters,
//    selects, checks the result structurally, saves screenshots in OUTDIR;
//  - runFollowSelfTest: follows a trace while a producer writes it, then
//    checks that the figures shown are the finished file's;
//  - runBenchmark: time to first paint and redraw times for a fixed
//    sequence of zooms and scrolls.
// Each prints its results, sets the exit status through `status` and quits
// the application when done.
#pragma once

#include "main_window.hpp"
#include "script.hpp"

#include <chrono>
#include <string>

namespace traceview {

void runSelfTest(Gtk::Application& app, MainWindow& win, const std::string& trace,
                 const std::string& proc, const std::string& outDir, int& status);
void runFollowSelfTest(Gtk::Application& app, MainWindow& win, const std::string& trace,
                       const std::string& proc, const std::string& outDir, int& status);
void runBenchmark(Gtk::Application& app, MainWindow& win, const std::string& trace,
                  const std::string& proc, std::chrono::steady_clock::time_point start,
                  int& status);

// The steps that check application events (user streams), added to the
// self test's script (user_event_steps.cpp).
void addUserEventSteps(Script& script, MainWindow& win, Checks* checks,
                       std::function<void(const std::string&)> shot);

} // namespace traceview
