// traceview --follow --selftest: see follow_controller.hpp.
#include "follow_controller.hpp"
#include "main_window.hpp"
#include "screenshot.hpp"

#include <iostream>
#include <set>

namespace traceview {

namespace {

// Every figure the window shows about a trace, one a line: the status
// line's summary, the process tree, and the analysis of the system and of
// each process (characteristics and system call accounting).
std::vector<std::string> figures(const TraceDocument& doc) {
    std::vector<std::string> out;
    out.push_back("summary: " + doc.summary());
    out.push_back("events: " + std::to_string(doc.eventCount()));
    out.push_back("lost: " + std::to_string(doc.totalLost()));
    for (const auto& w : doc.warnings())
        out.push_back("warning: " + w);
    const auto procs = doc.processes();
    for (const auto& p : procs) {
        out.push_back("process " + std::to_string(p.id) + ": pid " + std::to_string(p.pid) +
                      ", parent " + std::to_string(p.parent) + ", " + p.name + ", " +
                      std::to_string(p.syscalls) + " syscalls, " + std::to_string(p.runningNs) +
                      " ns running");
        for (const auto& l : doc.processReport(p.id))
            out.push_back("  " + l.label + ": " + l.value);
        for (const auto& s : doc.syscalls(p.id))
            out.push_back("  syscall " + s.name + ": " + std::to_string(s.count) + ", " +
                          std::to_string(s.totalNs) + " ns, " + std::to_string(s.errors) +
                          " errors");
    }
    return out;
}

struct FollowChecks {
    int passed = 0, failed = 0;
    void check(bool ok, const std::string& name, const std::string& detail = {}) {
        (ok ? passed : failed)++;
        std::cout << (ok ? "ok   - " : "FAIL - ") << name << "\n";
        if (!ok && !detail.empty())
            std::cout << "       " << detail << "\n";
        std::cout.flush();
    }
};

} // namespace

void runFollowSelfTest(Gtk::Application& app, MainWindow& win, const std::string& trace,
                       const std::string& proc, const std::string& outDir, int& status) {
    auto checks = std::make_shared<FollowChecks>();
    g_mkdir_with_parents(outDir.c_str(), 0755);
    // The event counts the window showed while following.
    auto seen = std::make_shared<std::set<std::uint64_t>>();
    auto watcher = std::make_shared<sigc::connection>(Glib::signal_timeout().connect(
        [&win, seen] {
            if (const TraceDocument* d = win.document())
                seen->insert(d->eventCount());
            return true;
        },
        20));
    auto finish = [&app, &status, checks] {
        std::cout << "selftest: " << checks->passed << " passed, " << checks->failed << " failed\n";
        status = checks->failed ? 1 : 0;
        app.quit();
    };
    FollowSettings settings;
    settings.interval = std::chrono::milliseconds(100);
    settings.options.idleTimeout = std::chrono::seconds(20);
    win.followTrace(trace, proc, settings, [=, &win](bool ok) {
        watcher->disconnect();
        checks->check(ok && win.document(), "following ends with the finished trace shown",
                      win.statusLabel().get_text());
        if (!ok || !win.document()) {
            finish();
            return;
        }
        const FollowController& f = *win.follower();
        checks->check(f.follower().end() == ltt::TraceFollower::End::Final,
                      "following ended at the FINAL blocks", f.follower().endReason());
        const std::uint64_t total = win.document()->eventCount();
        std::size_t partial = 0;
        for (std::uint64_t n : *seen)
            partial += n > 0 && n < total;
        checks->check(f.reloads() >= 3 && partial >= 2,
                      "the view was updated as the trace grew (" + std::to_string(f.reloads()) +
                          " updates, " + std::to_string(partial) + " partial views)");
        const std::string statusText = win.statusLabel().get_text();
        checks->check(statusText.find("following ended: every CPU wrote its final block") !=
                          std::string::npos,
                      "the status bar says why following ended", statusText);
        auto followed = std::make_shared<std::vector<std::string>>(figures(*win.document()));
        // After a pause for layout and painting, the screenshot; then the
        // same file opened as any finished trace is.
        Glib::signal_timeout().connect_once(
            [=, &win] {
                const std::string path = outDir + "/event-graph-followed.png";
                checks->check(saveScreenshot(win, path), "screenshot " + path);
                win.openTrace(trace, proc, [=, &win](bool ok2) {
                    checks->check(ok2, "the finished trace opens");
                    if (ok2) {
                        const auto plain = figures(*win.document());
                        std::string diff;
                        for (std::size_t i = 0; i < std::max(plain.size(), followed->size()); ++i) {
                            const std::string a = i < followed->size() ? (*followed)[i] : "(none)";
                            const std::string b = i < plain.size() ? plain[i] : "(none)";
                            if (a != b) {
                                diff = "followed '" + a + "', opened '" + b + "'";
                                break;
                            }
                        }
                        checks->check(diff.empty(),
                                      "the followed view's figures equal the finished file's (" +
                                          std::to_string(plain.size()) + " figures)",
                                      diff);
                    }
                    finish();
                });
            },
            300);
    });
}

} // namespace traceview
