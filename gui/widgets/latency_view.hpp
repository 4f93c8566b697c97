// The Latency tab: traceanalyze --latency's distributions (libltt's
// LatencyAnalysis, through gui/model/latency_model.hpp): a kind chooser,
// the kind's figures, its runqlat histogram drawn as bars, and its worst
// instances as a list; activating one asks the window to show that moment
// in the event graph (signalJump).
//
// The tab is a Gtk::Stack of views under a switcher, so that views of the
// same selection can be added beside the distributions (an off-CPU flame
// graph once the trace records stacks).
#pragma once

#include "flame_view.hpp"
#include "latency_model.hpp"
#include "trace_document.hpp"

#include <gtkmm.h>

namespace traceview {

class LatencyView : public Gtk::Box {
public:
    LatencyView();
    // The document whose LatencyAnalysis (TraceDocument::latency) is shown;
    // "Computing…" until it is there (refresh() once it is).
    void setDocument(const TraceDocument* doc);
    void refresh();
    void selectKind(ltt::LatencyKind k);
    ltt::LatencyKind kind() const;
    // Emitted when a worst instance is activated.
    sigc::signal<void(ltt::LatencyKind, LatencyWorstRow)>& signalJump() { return jump_m; }

    // For tests: the figures line, the bars the last paint drew, the worst
    // rows listed, and activating the i-th.
    std::string figuresText() const { return figures_m.get_text(); }
    std::size_t lastBarsDrawn() const { return barsDrawn_m; }
    const std::vector<LatencyWorstRow>& worstRows() const { return worst_m; }
    void activateWorst(std::size_t i);
    Gtk::DrawingArea& histogramArea() { return histogram_m; }
    // The off-CPU flame graph page, and showing it.
    FlameView& flame() { return flame_m; }
    void showFlame();

private:
    struct Columns : Gtk::TreeModel::ColumnRecord {
        Columns() {
            add(index);
            add(duration);
            add(start);
            add(cpu);
            add(pid);
            add(task);
            add(what);
        }
        Gtk::TreeModelColumn<guint> index;
        Gtk::TreeModelColumn<Glib::ustring> duration, start;
        Gtk::TreeModelColumn<guint> cpu;
        Gtk::TreeModelColumn<Glib::ustring> pid, task, what;
    };
    void drawHistogram(const Cairo::RefPtr<Cairo::Context>& cr, int width, int height);
    void fill();

    const TraceDocument* doc_m = nullptr;
    std::vector<LatencyBar> bars_m;
    std::vector<LatencyWorstRow> worst_m;
    std::size_t barsDrawn_m = 0;
    sigc::signal<void(ltt::LatencyKind, LatencyWorstRow)> jump_m;

    Gtk::StackSwitcher switcher_m;
    Gtk::Stack stack_m;
    Gtk::Box dist_m{Gtk::Orientation::VERTICAL, 6};
    Gtk::Box top_m{Gtk::Orientation::HORIZONTAL, 8};
    Gtk::DropDown kinds_m;
    Gtk::Label figures_m;
    Gtk::DrawingArea histogram_m;
    Gtk::Label worstTitle_m;
    Gtk::ScrolledWindow scroll_m;
    Columns cols_m;
    Glib::RefPtr<Gtk::ListStore> store_m;
    Gtk::TreeView view_m;
    FlameView flame_m;
};

} // namespace traceview
