// The off-CPU flame graph, a page of the Latency tab: where the selected
// process (or every task) was blocked over the event graph's visible
// window, by stack, drawn by traceview itself as flamegraph.pl draws it
// (gui/model/flame_model.hpp): a box per frame, as wide as the blocked
// time spent below it, the root at the bottom. Pointing at a box shows its
// frame and time; clicking it zooms in on it, clicking the root zooms out.
// Computed from the trace's STACK records (tracedaemon -S) by libltt's
// analyzeOffCpu on a worker thread, when the page is shown after the
// selection changed.
#pragma once

#include "flame_model.hpp"
#include "trace_document.hpp"

#include <gtkmm.h>
#include <memory>
#include <thread>

namespace traceview {

class FlameView : public Gtk::Box {
public:
    FlameView();
    // Waits for a computation under way (it cannot be interrupted).
    ~FlameView() override;
    void setDocument(const TraceDocument* doc);
    // Binaries are looked up under `dir` (--symfs); for graphs computed
    // from now on.
    void setSymfs(std::string dir) { symfs_m = std::move(dir); }
    // The selection: task or process `pid` (0 or -1: every task), over
    // [fromNs, toNs) of the event graph's time.
    void setProcess(std::int32_t pid);
    void setWindow(std::uint64_t fromNs, std::uint64_t toNs);
    // Computes the graph if the selection changed since the last one.
    void refresh();

    // For tests: the note above the graph, whether the worker is still
    // computing, the report and boxes shown, the boxes the last paint
    // drew, and a click at a box.
    std::string note() const { return note_m.get_text(); }
    bool computing() const { return worker_m.joinable(); }
    const ltt::OffCpuReport* report() const { return report_m.get(); }
    const std::vector<FlameBox>& boxes() const { return boxes_m; }
    std::size_t lastBoxesDrawn() const { return drawn_m; }
    void clickBox(const FlameBox& box);
    Gtk::DrawingArea& area() { return area_m; }

private:
    void start();
    void finished();
    void layout();
    void draw(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height);
    const FlameBox* boxAt(double x, double y) const;

    const TraceDocument* doc_m = nullptr;
    std::string symfs_m;
    std::int32_t pid_m = -1;
    std::uint64_t fromNs_m = 0, toNs_m = ~0ull;
    bool dirty_m = true;
    std::thread worker_m;
    Glib::Dispatcher done_m;
    unsigned generation_m = 0, workerGeneration_m = 0;
    std::shared_ptr<const ltt::OffCpuReport> result_m; // the worker's, until finished()
    std::string resultError_m;
    std::shared_ptr<const ltt::OffCpuReport> report_m;
    FlameNode tree_m;
    const FlameNode* zoom_m = nullptr; // the node shown as the root
    std::vector<FlameBox> boxes_m;
    std::size_t drawn_m = 0;
    Gtk::Label note_m;
    Gtk::Label hover_m;
    Gtk::DrawingArea area_m;
    Gtk::ScrolledWindow scroll_m;
};

} // namespace traceview
