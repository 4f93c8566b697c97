// traceview's main window: menu, toolbar, the three tabs of LTT's viewer
// (Event Graph, Process analysis, Raw Trace), a status bar with a progress
// bar and Cancel for work done off the UI thread. The window owns the open
// TraceDocument and keeps the selection in step across the tabs.
#pragma once

#include "event_graph_view.hpp"
#include "follow_controller.hpp"
#include "latency_view.hpp"
#include "process_view.hpp"
#include "raw_trace_view.hpp"
#include "trace_document.hpp"

#include <functional>
#include <gtkmm.h>
#include <memory>
#include <thread>

namespace traceview {

// Runs one function on a worker thread; its completion runs on the UI thread.
class BackgroundJob {
public:
    BackgroundJob();
    ~BackgroundJob();
    bool busy() const { return thread_m.joinable(); }
    // `work` runs on the worker and returns what to do on the UI thread.
    void start(std::function<std::function<void()>(Progress&)> work);
    void cancel() { progress_m.cancel = true; }
    double fraction() const { return progress_m.fraction.load(); }

private:
    void finished();
    std::thread thread_m;
    Progress progress_m;
    Glib::Dispatcher done_m;
    std::function<void()> then_m;
};

class MainWindow : public Gtk::ApplicationWindow {
public:
    MainWindow();
    ~MainWindow() override;

    // Opens in the background; `then` runs on the UI thread afterwards.
    // `shown` runs when the graph is drawn (first stage), `then` when the
    // process analysis and the raw list are ready too.
    void openTrace(const std::string& trace, const std::string& proc,
                   std::function<void(bool)> then = {}, std::function<void()> shown = {});
    // Opens the trace again after it grew (traceview --follow), leaving the
    // recent-files list alone. With `keepView`, what the user set up stays:
    // the visible window (or, when it was the whole trace, the whole grown
    // trace), the row scroll, the selected event, the tab, the hidden event
    // kinds and the processes selected.
    void reloadTrace(const std::string& trace, const std::string& proc, bool keepView,
                     std::function<void(bool)> then = {});
    const TraceDocument* document() const { return doc_m.get(); }
    // Follows a trace tracedaemon is still writing (follow_controller.hpp);
    // opening or closing another trace stops following.
    void followTrace(const std::string& trace, const std::string& proc,
                     FollowSettings settings = {}, std::function<void(bool)> ended = {});
    const FollowController* follower() const { return follow_m.get(); }
    void selectEvent(std::uint64_t index, const void* source = nullptr);
    std::optional<std::uint64_t> selectedEvent() const { return selected_m; }
    // Searches from the selection; `then` gets the result on the UI thread.
    void find(bool forward, std::function<void(std::optional<std::uint64_t>)> then = {});
    void runFilter(const EventFilter& f, std::function<void()> then = {});
    bool goToEvent(const std::string& text);
    bool goToTime(const std::string& text);

    Gtk::Notebook& notebook() { return notebook_m; }
    EventGraphView& graphView() { return graph_m; }
    ProcessView& processView() { return process_m; }
    RawTraceView& rawView() { return raw_m; }
    LatencyView& latencyView() { return latency_m; }
    // Computes the latency distributions (on the worker, once per
    // document) and shows them in the Latency tab; `then` runs on the UI
    // thread when they are shown (false: cancelled or no trace ready).
    void computeLatency(std::function<void(bool)> then = {});
    // Shows a worst instance in the event graph: the graph tab, a view
    // covering the instance, the event that ended it selected.
    void showLatencyInstance(ltt::LatencyKind kind, const LatencyWorstRow& row);
    // The critical path of `pid` over the event graph (computed on the
    // worker; `then` when drawn), or none (pid < 0). View → Critical path
    // draws the selected process's.
    void showCriticalPath(std::int32_t pid, std::function<void(bool)> then = {});
    Gtk::Entry& searchEntry() { return search_m; }
    Gtk::Label& statusLabel() { return status_m; }
    // The visible time window "(t1, t2)", in seconds since the trace start,
    // as the status bar shows it.
    const std::string& windowText() const { return windowText_m; }
    bool busy() const { return job_m.busy(); }
    // What the status bar's Cancel button does.
    void cancelJob() { job_m.cancel(); }
    std::vector<std::string> menuLabels() const;
    // Traces in File → Open Recent (trace, proc).
    const std::vector<std::pair<std::string, std::string>>& recentTraces() const {
        return recent_m;
    }
    // Traces added to the recent-files list by this window (for tests).
    const std::vector<std::string>& rememberedTraces() const { return openedThisSession_m; }

private:
    // What reloadTrace() keeps of the view across documents.
    struct KeptView {
        int page = 0;
        std::optional<std::uint64_t> selected;
        std::uint64_t selectedTime = 0;
        std::uint16_t selectedCpu = 0;
        std::vector<std::int64_t> processIds;
    };
    void loadTrace(const std::string& trace, const std::string& proc, bool keepView, bool remember,
                   std::function<void(bool)> then, std::function<void()> shown);
    KeptView keptView() const;
    void restoreView(const KeptView& kept);
    void remember(const std::string& trace);
    void buildMenu();
    void buildToolbar();
    void rebuildRecentMenu();
    void showOpenDialog(bool follow = false);
    void setStatus(const std::string& text);
    void startJob(const std::string& what, std::function<std::function<void()>(Progress&)> work);
    void showError(const std::string& text);

    std::shared_ptr<TraceDocument> doc_m;
    std::optional<std::uint64_t> selected_m;
    Gtk::Box root_m{Gtk::Orientation::VERTICAL};
    Gtk::Box toolbar_m{Gtk::Orientation::HORIZONTAL, 4};
    Gtk::Notebook notebook_m;
    EventGraphView graph_m;
    ProcessView process_m;
    RawTraceView raw_m;
    LatencyView latency_m;
    bool criticalOn_m = false;       // View → Critical path of the selected process
    std::int32_t criticalPid_m = -1; // the process selected (graph row or tree)
    Gtk::Box statusBar_m{Gtk::Orientation::HORIZONTAL, 6};
    Gtk::Label status_m;
    // Drawn, not a Gtk::Label: a label's new text queues a resize of the
    // whole window at every zoom and scroll, which cost more than the
    // graph's paint.
    Gtk::DrawingArea window_m;
    std::string windowText_m;
    Gtk::ProgressBar progress_m;
    Gtk::Button cancel_m{"Cancel"};
    Gtk::Entry gotoEvent_m, gotoTime_m, search_m;
    Gtk::DropDown searchType_m;
    std::vector<std::uint64_t> searchTypeMasks_m; // by menu position; 0: any
    Glib::RefPtr<Gio::Menu> recentMenu_m;
    std::vector<std::pair<std::string, std::string>> recent_m;
    std::vector<std::string> openedThisSession_m; // newest last
    std::unique_ptr<Gtk::FileChooserDialog> chooser_m;
    BackgroundJob job_m;
    sigc::connection pulse_m;
    std::unique_ptr<FollowController> follow_m;
};

} // namespace traceview
