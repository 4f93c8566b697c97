// traceview-selftest --bench: see selftest.hpp.
#include "selftest.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace traceview {

namespace {
// CPU time of the calling thread, in ms.
double threadCpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}
} // namespace

void runBenchmark(Gtk::Application& app, MainWindow& win, const std::string& trace,
                  const std::string& proc, std::chrono::steady_clock::time_point start,
                  int& status) {
    using clock = std::chrono::steady_clock;
    struct State {
        std::vector<std::function<void()>> actions;
        std::size_t next = 0;
        clock::time_point issued;
        std::vector<double> drawMs, frameMs, renderMs, refinedMs, renderCpuMs;
        clock::time_point beforePaint;
        double beforePaintCpuMs = 0;
        std::function<void()> onBeforePaint;
        bool firstPaint = false;
        bool waiting = false;
        double lastDrawMs = 0;
        sigc::connection painted;
        std::function<void()> onAfterPaint;
        std::function<void()> issueNext;
    };
    auto st = std::make_shared<State>();
    auto& g = win.graphView();
    for (int i = 0; i < 12; ++i)
        st->actions.push_back([&g] { g.zoom(2); });
    for (int i = 0; i < 20; ++i)
        st->actions.push_back([&g, i] { g.scrollBy(i % 4 == 3 ? -0.9 : 0.5); });
    for (int i = 0; i < 6; ++i)
        st->actions.push_back([&g, i] { g.zoomAt(0.25, 100.0 + 150 * i); });
    for (int i = 0; i < 10; ++i)
        st->actions.push_back([&g] { g.scrollBy(0.3); });
    for (int i = 0; i < 6; ++i)
        st->actions.push_back([&g] { g.zoom(4); });
    st->actions.push_back([&g] { g.zoomToFit(); });

    auto report = [&app, &win, st, &status] {
        auto stats = [](std::vector<double> v) {
            std::sort(v.begin(), v.end());
            return std::make_pair(v.empty() ? 0.0 : v[v.size() / 2], v.empty() ? 0.0 : v.back());
        };
        auto [dmed, dmax] = stats(st->drawMs);
        auto [fmed, fmax] = stats(st->frameMs);
        auto [rmed, rmax] = stats(st->renderMs);
        auto [cmed, cmax] = stats(st->renderCpuMs);
        if (std::getenv("TRACEVIEW_BENCH_VERBOSE"))
            for (std::size_t i = 0; i < st->drawMs.size(); ++i)
                std::printf("  action %zu: paint %.2f ms, frame %.2f ms (UI thread CPU %.2f ms), "
                            "input to frame %.2f ms\n",
                            i, st->drawMs[i], st->renderMs[i], st->renderCpuMs[i], st->frameMs[i]);
        std::printf("redraws: %zu (zoom and scroll sequence)\n", st->drawMs.size());
        std::printf("redraw (graph paint): median %.2f ms, worst %.2f ms\n", dmed, dmax);
        std::printf("redraw (whole frame: layout, graph paint, render): median %.2f ms, worst "
                    "%.2f ms\n",
                    rmed, rmax);
        // The UI thread's own CPU time over the same span: what the frame
        // costs without the time the thread waited for a CPU (other work on
        // a loaded machine, the refining worker).
        std::printf("redraw (whole frame, UI thread CPU time): median %.2f ms, worst %.2f ms\n",
                    cmed, cmax);
        std::printf("redraw (input to frame painted, incl. waiting for the frame clock): "
                    "median %.2f ms, worst %.2f ms\n",
                    fmed, fmax);
        auto [xmed, xmax] = stats(st->refinedMs);
        std::printf("views refined off the UI thread (summary shown first): %zu, exact columns "
                    "after median %.2f ms, worst %.2f ms\n",
                    st->refinedMs.size(), xmed, xmax);
        const auto& graph = win.document()->graph();
        std::printf("event graph model: %.2f MB (%zu summary bins of %llu ns), %llu events "
                    "re-read by the redraws\n",
                    double(graph.memoryBytes()) / 1e6, graph.binCount(),
                    (unsigned long long)graph.binWidthNs(),
                    (unsigned long long)graph.eventsReread());
        // Resident memory: the anonymous part is the program's own; the file
        // part is the trace mapping (page cache, shared).
        if (FILE* f = std::fopen("/proc/self/status", "r")) {
            char line[256];
            while (std::fgets(line, sizeof line, f))
                if (!std::strncmp(line, "VmHWM:", 6) || !std::strncmp(line, "VmRSS:", 6) ||
                    !std::strncmp(line, "RssAnon:", 8) || !std::strncmp(line, "RssFile:", 8))
                    std::printf("memory %s", line);
            std::fclose(f);
        }
        std::fflush(stdout);
        status = 0;
        app.quit();
    };
    auto issue = std::make_shared<std::function<void()>>();
    *issue = [st, report, issue] {
        if (st->next >= st->actions.size()) {
            report();
            return;
        }
        st->waiting = true;
        st->issued = clock::now();
        st->actions[st->next++]();
    };

    st->painted = g.signalPainted().connect([st](std::chrono::nanoseconds d) {
        st->lastDrawMs = std::chrono::duration<double, std::milli>(d).count();
    });
    g.signalRefined().connect([st](std::chrono::nanoseconds d) {
        st->refinedMs.push_back(std::chrono::duration<double, std::milli>(d).count());
    });
    auto shown = [&win, &g, st, start] {
        auto clockp = g.area().get_frame_clock();
        std::printf("events: %llu\n", (unsigned long long)win.document()->eventCount());
        std::printf("graph model built after %.1f ms\n",
                    std::chrono::duration<double, std::milli>(clock::now() - start).count());
        st->onAfterPaint = [st, start] {
            auto now = clock::now();
            if (!st->firstPaint) {
                st->firstPaint = true;
                std::printf("first paint: %.1f ms after start\n",
                            std::chrono::duration<double, std::milli>(now - start).count());
                std::fflush(stdout);
                return;
            }
            if (!st->waiting)
                return;
            st->waiting = false;
            st->drawMs.push_back(st->lastDrawMs);
            st->frameMs.push_back(
                std::chrono::duration<double, std::milli>(now - st->issued).count());
            st->renderMs.push_back(
                std::chrono::duration<double, std::milli>(now - st->beforePaint).count());
            st->renderCpuMs.push_back(threadCpuMs() - st->beforePaintCpuMs);
            Glib::signal_idle().connect_once([st] { st->issueNext(); });
        };
        // gtkmm 4.8 does not wrap GdkFrameClock::after-paint.
        g_signal_connect(clockp->gobj(), "after-paint",
                         G_CALLBACK(+[](GdkFrameClock*, gpointer data) {
                             (*static_cast<std::function<void()>*>(data))();
                         }),
                         &st->onAfterPaint);
        st->onBeforePaint = [st] {
            st->beforePaint = clock::now();
            st->beforePaintCpuMs = threadCpuMs();
        };
        g_signal_connect(clockp->gobj(), "before-paint",
                         G_CALLBACK(+[](GdkFrameClock*, gpointer data) {
                             (*static_cast<std::function<void()>*>(data))();
                         }),
                         &st->onBeforePaint);
        g.area().queue_draw();
    };
    st->issueNext = [issue] { (*issue)(); };
    win.openTrace(
        trace, proc,
        [st, start, issue, &app, &status](bool ok) {
            if (!ok) {
                std::fprintf(stderr, "traceview: cannot open the trace\n");
                status = 1;
                app.quit();
                return;
            }
            std::printf("process analysis and index ready after %.1f ms\n",
                        std::chrono::duration<double, std::milli>(clock::now() - start).count());
            // The redraw sequence runs on a quiet machine: after the second
            // stage, as a user browsing the trace would.
            Glib::signal_timeout().connect_once([issue] { (*issue)(); }, 100);
        },
        shown);
}

} // namespace traceview
