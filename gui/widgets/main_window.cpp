// Main window: see main_window.hpp.
#include "main_window.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace traceview {

// ---------------------------------------------------------------------------
// BackgroundJob

BackgroundJob::BackgroundJob() {
    done_m.connect(sigc::mem_fun(*this, &BackgroundJob::finished));
}

BackgroundJob::~BackgroundJob() {
    if (thread_m.joinable()) {
        progress_m.cancel = true;
        thread_m.join();
    }
}

void BackgroundJob::start(std::function<std::function<void()>(Progress&)> work) {
    if (thread_m.joinable())
        thread_m.join();
    progress_m.cancel = false;
    progress_m.fraction = 0;
    thread_m = std::thread([this, work = std::move(work)] {
        then_m = work(progress_m);
        done_m.emit();
    });
}

void BackgroundJob::finished() {
    if (thread_m.joinable())
        thread_m.join();
    auto then = std::move(then_m);
    then_m = nullptr;
    if (then)
        then();
}

// ---------------------------------------------------------------------------
// MainWindow

namespace {
std::string procPathFor(const std::string& trace) {
    const std::string ext = ".trace";
    if (trace.size() > ext.size() && trace.compare(trace.size() - ext.size(), ext.size(), ext) == 0)
        return trace.substr(0, trace.size() - ext.size()) + ".proc";
    return trace + ".proc";
}
} // namespace

MainWindow::MainWindow() {
    set_title("traceview — Linux Trace Toolkit");
    set_default_size(1280, 800);
    buildMenu();
    buildToolbar();

    notebook_m.append_page(graph_m, "Event Graph");
    notebook_m.append_page(process_m, "Process analysis");
    notebook_m.append_page(raw_m, "Raw Trace");
    notebook_m.append_page(latency_m, "Latency");
    // The latency distributions are computed the first time their tab is
    // shown (a pass of their own over the trace).
    notebook_m.signal_switch_page().connect([this](Gtk::Widget* page, guint) {
        if (page == &latency_m && doc_m && doc_m->ready() && !doc_m->latency())
            computeLatency();
    });
    latency_m.signalJump().connect(
        [this](ltt::LatencyKind k, const LatencyWorstRow& row) { showLatencyInstance(k, row); });
    notebook_m.set_vexpand(true);
    root_m.append(toolbar_m);
    root_m.append(notebook_m);

    status_m.set_xalign(0);
    status_m.set_hexpand(true);
    status_m.set_ellipsize(Pango::EllipsizeMode::END);
    progress_m.set_show_text(true);
    progress_m.set_size_request(220, -1);
    progress_m.set_valign(Gtk::Align::CENTER);
    progress_m.set_visible(false);
    cancel_m.set_visible(false);
    cancel_m.signal_clicked().connect([this] { job_m.cancel(); });
    statusBar_m.set_margin(4);
    statusBar_m.append(status_m);
    window_m.set_tooltip_text("Visible time window (seconds since the trace start)");
    window_m.set_content_width(300);
    window_m.set_content_height(18);
    window_m.set_valign(Gtk::Align::CENTER);
    window_m.set_draw_func([this](const Cairo::RefPtr<Cairo::Context>& cr, int width, int height) {
        cr->select_font_face("Sans", Cairo::ToyFontFace::Slant::NORMAL,
                             Cairo::ToyFontFace::Weight::NORMAL);
        cr->set_font_size(13);
        Cairo::TextExtents ext;
        cr->get_text_extents(windowText_m, ext);
        cr->set_source_rgb(0.1, 0.1, 0.1);
        cr->move_to(width - ext.x_advance - 4, height / 2.0 + 4.5);
        cr->show_text(windowText_m);
    });
    statusBar_m.append(window_m);
    statusBar_m.append(progress_m);
    statusBar_m.append(cancel_m);
    root_m.append(statusBar_m);
    set_child(root_m);
    setStatus("No trace open");

    graph_m.signalEventSelected().connect([this](std::uint64_t i) { selectEvent(i, &graph_m); });
    graph_m.signalViewChanged().connect([this](std::uint64_t b, std::uint64_t e) {
        windowText_m = "(" + ltt::formatSeconds(b) + ", " + ltt::formatSeconds(e) + ")";
        latency_m.flame().setWindow(b, e);
        window_m.queue_draw();
    });
    raw_m.signalEventSelected().connect([this](std::uint64_t i) { selectEvent(i, &raw_m); });
    raw_m.signalFilterRequested().connect([this](EventFilter f) { runFilter(f); });
    process_m.signalPidSelected().connect([this](std::int32_t pid) {
        // Selecting a process brings its graph row into view; the event
        // selection stays.
        if (!doc_m)
            return;
        graph_m.showProcess(pid);
        setStatus(doc_m->processName(pid) + " (" + std::to_string(pid) + ")");
        latency_m.flame().setProcess(pid);
        criticalPid_m = pid;
        if (criticalOn_m)
            showCriticalPath(pid);
    });
    graph_m.signalRowClicked().connect([this](std::int32_t pid) {
        if (!doc_m || pid < 0)
            return;
        process_m.selectPid(pid);
        setStatus(doc_m->processName(pid) + " (" + std::to_string(pid) + ")");
        criticalPid_m = pid;
        if (criticalOn_m)
            showCriticalPath(pid);
    });
    Gtk::RecentManager::get_default()->signal_changed().connect([this] { rebuildRecentMenu(); });
    rebuildRecentMenu();
}

MainWindow::~MainWindow() {
    job_m.cancel();
}

void MainWindow::buildMenu() {
    auto menu = Gio::Menu::create();
    auto file = Gio::Menu::create();
    file->append("_Open…", "win.open");
    file->append("_Follow…", "win.follow");
    recentMenu_m = Gio::Menu::create();
    file->append_submenu("Open _Recent", recentMenu_m);
    file->append("_Close", "win.close-trace");
    file->append("_Quit", "win.quit");
    menu->append_submenu("_File", file);
    auto view = Gio::Menu::create();
    view->append("Zoom _in", "win.zoom-in");
    view->append("Zoom _out", "win.zoom-out");
    view->append("Zoom to _fit", "win.zoom-fit");
    // LTT §3.5: select the events to present and those to ignore.
    auto kinds = Gio::Menu::create();
    for (std::size_t k = 0; k < ltt::kGraphEventKinds; ++k) {
        const auto kind = static_cast<ltt::GraphEventKind>(k);
        const std::string name = "kind-" + std::to_string(k);
        kinds->append(std::string(ltt::graphEventKindName(kind)), "win." + name);
        auto action = Gio::SimpleAction::create_bool(name, true);
        action->signal_activate().connect([this, action, kind](const Glib::VariantBase&) {
            bool on = true;
            action->get_state(on);
            action->change_state(!on);
            graph_m.setKindVisible(kind, !on);
        });
        add_action(action);
    }
    {
        kinds->append("Application events", "win.kind-user");
        auto action = Gio::SimpleAction::create_bool("kind-user", true);
        action->signal_activate().connect([this, action](const Glib::VariantBase&) {
            bool on = true;
            action->get_state(on);
            action->change_state(!on);
            graph_m.setUserEventsVisible(!on);
        });
        add_action(action);
    }
    view->append_submenu("Event _kinds", kinds);
    {
        view->append("_Critical path of the selected process", "win.critical-path");
        auto action = Gio::SimpleAction::create_bool("critical-path", false);
        action->signal_activate().connect([this, action](const Glib::VariantBase&) {
            bool on = false;
            action->get_state(on);
            action->change_state(!on);
            criticalOn_m = !on;
            if (!criticalOn_m)
                showCriticalPath(-1);
            else if (criticalPid_m > 0)
                showCriticalPath(criticalPid_m);
            else
                setStatus("Select a process (its row's label, or the process tree) to see "
                          "its critical path");
        });
        add_action(action);
    }
    view->append("_Event Graph", "win.tab::0");
    view->append("_Process analysis", "win.tab::1");
    view->append("_Raw Trace", "win.tab::2");
    view->append("_Latency", "win.tab::3");
    menu->append_submenu("_View", view);
    auto go = Gio::Menu::create();
    go->append("Go to _event…", "win.goto-event");
    go->append("Go to _time…", "win.goto-time");
    go->append("Find _next", "win.find-next");
    go->append("Find _previous", "win.find-prev");
    menu->append_submenu("_Tools", go);
    auto help = Gio::Menu::create();
    help->append("_About", "win.about");
    menu->append_submenu("_Help", help);

    add_action("open", [this] { showOpenDialog(); });
    add_action("follow", [this] { showOpenDialog(true); });
    add_action("close-trace", [this] {
        follow_m.reset();
        job_m.cancel();
        graph_m.setDocument(nullptr);
        process_m.setDocument(nullptr);
        raw_m.setDocument(nullptr);
        latency_m.setDocument(nullptr);
        doc_m.reset();
        selected_m.reset();
        windowText_m.clear();
        window_m.queue_draw();
        setStatus("No trace open");
    });
    add_action("quit", [this] { close(); });
    add_action("zoom-in", [this] { graph_m.zoom(2); });
    add_action("zoom-out", [this] { graph_m.zoom(0.5); });
    add_action("zoom-fit", [this] { graph_m.zoomToFit(); });
    add_action_with_parameter("tab", Glib::VARIANT_TYPE_STRING, [this](const Glib::VariantBase& v) {
        auto s = Glib::VariantBase::cast_dynamic<Glib::Variant<Glib::ustring>>(v).get();
        notebook_m.set_current_page(std::atoi(s.c_str()));
    });
    add_action("goto-event", [this] { gotoEvent_m.grab_focus(); });
    add_action("goto-time", [this] { gotoTime_m.grab_focus(); });
    add_action("find-next", [this] { find(true); });
    add_action("find-prev", [this] { find(false); });
    add_action("about", [this] {
        auto* about = new Gtk::AboutDialog();
        about->set_transient_for(*this);
        about->set_program_name("traceview");
        about->set_version(LTT_VERSION_STRING);
        about->set_comments(
            "Event graph viewer of the Linux Trace Toolkit, rebuilt for Linux 6.12");
        about->set_hide_on_close(true);
        about->signal_hide().connect([about] { delete about; });
        about->show();
    });
    add_action_with_parameter(
        "open-recent", Glib::VARIANT_TYPE_INT32, [this](const Glib::VariantBase& v) {
            int i = Glib::VariantBase::cast_dynamic<Glib::Variant<gint32>>(v).get();
            follow_m.reset();
            if (i >= 0 && std::size_t(i) < recent_m.size())
                openTrace(recent_m[std::size_t(i)].first, recent_m[std::size_t(i)].second);
        });

    auto bar = Gtk::make_managed<Gtk::PopoverMenuBar>(menu);
    root_m.append(*bar);
}

std::vector<std::string> MainWindow::menuLabels() const {
    return {"File", "View", "Tools", "Help"};
}

void MainWindow::buildToolbar() {
    // Text buttons: an icon theme is not guaranteed on a minimal system.
    auto button = [this](const char* text, const char* tip, const char* action) {
        auto* b = Gtk::make_managed<Gtk::Button>(text);
        b->set_tooltip_text(tip);
        b->set_action_name(action);
        toolbar_m.append(*b);
    };
    toolbar_m.set_margin(4);
    button("Open…", "Open a trace", "win.open");
    toolbar_m.append(*Gtk::make_managed<Gtk::Separator>(Gtk::Orientation::VERTICAL));
    button("Zoom ×2", "Zoom in ×2 (or the mouse wheel, or drag a range)", "win.zoom-in");
    button("Zoom ÷2", "Zoom out ×2", "win.zoom-out");
    button("Whole trace", "Show the whole trace", "win.zoom-fit");
    toolbar_m.append(*Gtk::make_managed<Gtk::Separator>(Gtk::Orientation::VERTICAL));
    toolbar_m.append(*Gtk::make_managed<Gtk::Label>("Event #"));
    gotoEvent_m.set_width_chars(10);
    gotoEvent_m.set_placeholder_text("number");
    gotoEvent_m.signal_activate().connect([this] { goToEvent(gotoEvent_m.get_text()); });
    toolbar_m.append(gotoEvent_m);
    toolbar_m.append(*Gtk::make_managed<Gtk::Label>("Time"));
    gotoTime_m.set_width_chars(14);
    gotoTime_m.set_placeholder_text("seconds");
    gotoTime_m.signal_activate().connect([this] { goToTime(gotoTime_m.get_text()); });
    toolbar_m.append(gotoTime_m);
    toolbar_m.append(*Gtk::make_managed<Gtk::Separator>(Gtk::Orientation::VERTICAL));
    searchType_m.set_model(eventTypeMenu("Any event", searchTypeMasks_m));
    searchType_m.set_tooltip_text("Search this event type");
    toolbar_m.append(searchType_m);
    search_m.set_placeholder_text("Search text");
    search_m.set_width_chars(18);
    search_m.signal_activate().connect([this] { find(true); });
    toolbar_m.append(search_m);
    button("◀ Prev", "Find previous", "win.find-prev");
    button("Next ▶", "Find next", "win.find-next");
}

void MainWindow::rebuildRecentMenu() {
    recentMenu_m->remove_all();
    recent_m.clear();
    // GtkRecentManager saves asynchronously: this session's traces first.
    for (auto it = openedThisSession_m.rbegin(); it != openedThisSession_m.rend(); ++it)
        if (std::none_of(recent_m.begin(), recent_m.end(), [&](auto& r) { return r.first == *it; }))
            recent_m.emplace_back(*it, procPathFor(*it));
    auto manager = Gtk::RecentManager::get_default();
    for (const auto& info : manager->get_items()) {
        std::string uri = info->get_uri();
        if (uri.size() < 6 || uri.compare(uri.size() - 6, 6, ".trace") != 0)
            continue;
        std::string path = Glib::filename_from_uri(uri);
        if (std::any_of(recent_m.begin(), recent_m.end(), [&](auto& r) { return r.first == path; }))
            continue;
        recent_m.emplace_back(path, procPathFor(path));
        if (recent_m.size() >= 10)
            break;
    }
    for (std::size_t i = 0; i < recent_m.size(); ++i) {
        auto item = Gio::MenuItem::create(Glib::path_get_basename(recent_m[i].first), "");
        item->set_action_and_target("win.open-recent", Glib::Variant<gint32>::create(int(i)));
        recentMenu_m->append_item(item);
    }
    if (recent_m.empty())
        recentMenu_m->append("(none)", "win.none");
}

void MainWindow::showOpenDialog(bool follow) {
    chooser_m = std::make_unique<Gtk::FileChooserDialog>(
        *this, follow ? "Follow a trace being written" : "Open trace",
        Gtk::FileChooser::Action::OPEN);
    chooser_m->set_modal(true);
    chooser_m->add_button("_Cancel", Gtk::ResponseType::CANCEL);
    chooser_m->add_button("_Open", Gtk::ResponseType::ACCEPT);
    auto filter = Gtk::FileFilter::create();
    filter->set_name("LTT traces (*.trace)");
    filter->add_pattern("*.trace");
    chooser_m->add_filter(filter);
    chooser_m->signal_response().connect([this, follow](int response) {
        if (response == Gtk::ResponseType::ACCEPT) {
            if (auto file = chooser_m->get_file()) {
                std::string path = file->get_path();
                follow_m.reset();
                if (follow)
                    followTrace(path, procPathFor(path));
                else
                    openTrace(path, procPathFor(path));
            }
        }
        chooser_m->hide();
    });
    chooser_m->show();
}

void MainWindow::setStatus(const std::string& text) {
    status_m.set_text(text);
}

void MainWindow::showError(const std::string& text) {
    setStatus("Error: " + text);
    auto* dialog = new Gtk::MessageDialog(*this, "traceview", false, Gtk::MessageType::ERROR,
                                          Gtk::ButtonsType::CLOSE, true);
    dialog->set_secondary_text(text);
    dialog->signal_response().connect([dialog](int) { delete dialog; });
    dialog->show();
}

void MainWindow::startJob(const std::string& what,
                          std::function<std::function<void()>(Progress&)> work) {
    if (job_m.busy()) {
        setStatus("Busy: wait or press Cancel");
        return;
    }
    setStatus(what + "…");
    progress_m.set_fraction(0);
    progress_m.set_text(what);
    progress_m.set_visible(true);
    cancel_m.set_visible(true);
    pulse_m = Glib::signal_timeout().connect(
        [this] {
            progress_m.set_fraction(job_m.fraction());
            return true;
        },
        100);
    job_m.start([this, work = std::move(work)](Progress& p) {
        auto then = work(p);
        return std::function<void()>([this, then] {
            pulse_m.disconnect();
            progress_m.set_visible(false);
            cancel_m.set_visible(false);
            if (then)
                then();
        });
    });
}

void MainWindow::openTrace(const std::string& trace, const std::string& proc,
                           std::function<void(bool)> then, std::function<void()> shown) {
    loadTrace(trace, proc, false, true, std::move(then), std::move(shown));
}

void MainWindow::reloadTrace(const std::string& trace, const std::string& proc, bool keepView,
                             std::function<void(bool)> then) {
    loadTrace(trace, proc, keepView && doc_m, false, std::move(then), {});
}

void MainWindow::remember(const std::string& trace) {
    Gtk::RecentManager::get_default()->add_item(Glib::filename_to_uri(trace));
    openedThisSession_m.push_back(trace);
    rebuildRecentMenu();
}

MainWindow::KeptView MainWindow::keptView() const {
    KeptView k;
    k.page = notebook_m.get_current_page();
    k.processIds = process_m.selectedIds();
    if (selected_m && doc_m && doc_m->ready() && *selected_m < doc_m->eventCount()) {
        const EventLine line = doc_m->event(*selected_m);
        k.selected = selected_m;
        k.selectedTime = line.timeNs;
        k.selectedCpu = line.cpu;
    }
    return k;
}

void MainWindow::restoreView(const KeptView& k) {
    if (!doc_m || !doc_m->ready())
        return;
    notebook_m.set_current_page(k.page);
    if (!k.processIds.empty())
        process_m.selectIds(k.processIds);
    if (!k.selected)
        return;
    // The same event: events of a CPU whose blocks arrived late can sort
    // before it and shift its number, so it is found again by time and CPU.
    std::optional<std::uint64_t> index;
    const std::uint64_t n = doc_m->eventCount();
    auto same = [&](std::uint64_t i) {
        const EventLine line = doc_m->event(i);
        return line.timeNs == k.selectedTime && line.cpu == k.selectedCpu;
    };
    if (*k.selected < n && same(*k.selected))
        index = k.selected;
    for (std::uint64_t i = doc_m->eventAtTime(k.selectedTime); !index && i < n; ++i) {
        if (doc_m->event(i).timeNs != k.selectedTime)
            break;
        if (same(i))
            index = i;
    }
    if (!index)
        return;
    // Not selectEvent(): that would also select the event's process over
    // the processes the user selected.
    selected_m = index;
    graph_m.selectEvent(index);
    raw_m.selectEvent(index);
}

void MainWindow::loadTrace(const std::string& tracePath, const std::string& procPath, bool keepView,
                           bool rememberIt, std::function<void(bool)> then,
                           std::function<void()> shown) {
    // Absolute paths: the recent-files list stores URIs.
    const std::string trace = Gio::File::create_for_path(tracePath)->get_path();
    const std::string proc =
        procPath.empty() ? procPath : Gio::File::create_for_path(procPath)->get_path();
    job_m.cancel();
    startJob("Opening " + Glib::path_get_basename(trace), [this, trace, proc,
                                                           then = std::move(then),
                                                           shown = std::move(shown), keepView,
                                                           rememberIt](Progress& p) {
        auto err = std::make_shared<std::string>();
        std::shared_ptr<TraceDocument> doc(
            TraceDocument::open(trace, Glib::file_test(proc, Glib::FileTest::EXISTS) ? proc : "", p,
                                *err)
                .release());
        return std::function<void()>([this, doc, err, trace, then, shown, keepView, rememberIt] {
            if (!doc) {
                if (*err == "cancelled")
                    setStatus("Opening cancelled");
                else
                    showError(*err);
                if (then)
                    then(false);
                return;
            }
            const bool keep = keepView && doc_m;
            const KeptView kept = keep ? keptView() : KeptView{};
            process_m.setDocument(nullptr);
            raw_m.setDocument(nullptr);
            latency_m.setDocument(nullptr);
            // The graph reads the old document's extent while the
            // window still holds it.
            if (keep)
                graph_m.replaceDocument(doc.get());
            else
                graph_m.setDocument(nullptr);
            doc_m = doc;
            selected_m.reset();
            if (!keep)
                graph_m.setDocument(doc_m.get());
            set_title(Glib::path_get_basename(trace) + " — traceview");
            setStatus(doc_m->summary());
            if (rememberIt)
                remember(trace);
            if (shown)
                shown();
            // Second stage: process analysis and the index behind the raw
            // list, while the graph can already be browsed.
            startJob("Analyzing", [this, doc, then, keep, kept](Progress& p) {
                bool ok = doc->complete(p);
                return std::function<void()>([this, doc, ok, then, keep, kept] {
                    if (doc != doc_m)
                        return;
                    if (ok) {
                        process_m.setDocument(doc_m.get());
                        raw_m.setDocument(doc_m);
                        latency_m.setDocument(doc_m.get());
                        if (notebook_m.get_current_page() == 3)
                            computeLatency();
                        graph_m.area().queue_draw(); // process names
                        std::string status = doc_m->summary();
                        for (const auto& w : doc_m->warnings())
                            status += "   WARNING: " + w;
                        setStatus(status);
                        if (keep)
                            restoreView(kept);
                    } else {
                        setStatus("Analysis cancelled: only the event graph is available");
                    }
                    if (then)
                        then(ok);
                });
            });
        });
    });
}

void MainWindow::followTrace(const std::string& trace, const std::string& proc,
                             FollowSettings settings, std::function<void(bool)> ended) {
    follow_m.reset();
    // Into the recent-files list once, not at every update.
    remember(Gio::File::create_for_path(trace)->get_path());
    follow_m = std::make_unique<FollowController>(*this, trace, proc, settings, std::move(ended));
}

void MainWindow::selectEvent(std::uint64_t index, const void* source) {
    if (!doc_m || !doc_m->ready() || index >= doc_m->eventCount())
        return;
    selected_m = index;
    if (source != &graph_m)
        graph_m.selectEvent(index);
    if (source != &raw_m)
        raw_m.selectEvent(index);
    EventLine line = doc_m->event(index);
    process_m.selectPid(line.pid);
    setStatus("#" + std::to_string(index) + "  " + formatTime(line.timeNs) + "  CPU " +
              cellOf(line, 0) + "  PID " + std::to_string(line.pid) + "  " + line.event +
              (line.description.empty() ? "" : "  " + line.description));
}

void MainWindow::computeLatency(std::function<void(bool)> then) {
    if (!doc_m || !doc_m->ready()) {
        if (then)
            then(false);
        return;
    }
    if (doc_m->latency()) {
        latency_m.refresh();
        if (then)
            then(true);
        return;
    }
    auto doc = doc_m;
    startJob("Computing latency", [this, doc, then = std::move(then)](Progress& p) {
        const bool ok = doc->computeLatency(p);
        return std::function<void()>([this, doc, ok, then] {
            if (doc != doc_m)
                return;
            latency_m.refresh();
            setStatus(ok ? doc->summary() : "Latency cancelled");
            if (then)
                then(ok);
        });
    });
}

void MainWindow::showLatencyInstance(ltt::LatencyKind kind, const LatencyWorstRow& row) {
    if (!doc_m || !doc_m->ready())
        return;
    const auto index = latencyEndEvent(*doc_m, kind, row);
    notebook_m.set_current_page(0);
    if (index)
        selectEvent(*index);
    // The instance and as much again on each side.
    const std::uint64_t len = std::max<std::uint64_t>(row.endNs - row.startNs, 1000);
    graph_m.setView(row.startNs > len ? row.startNs - len : 0, row.endNs + len, true);
    if (row.pid > 0)
        graph_m.showProcess(row.pid);
}

void MainWindow::showCriticalPath(std::int32_t pid, std::function<void(bool)> then) {
    if (pid < 0 || !doc_m || !doc_m->ready()) {
        graph_m.setCriticalPath(nullptr);
        if (then)
            then(false);
        return;
    }
    auto doc = doc_m;
    startJob("Computing the critical path", [this, doc, pid, then = std::move(then)](Progress&) {
        auto path = doc->criticalPath(pid);
        return std::function<void()>([this, doc, path, then] {
            if (doc != doc_m)
                return;
            graph_m.setCriticalPath(path->found() ? path : nullptr);
            setStatus(path->found() ? "Critical path of " + path->name(path->options().pid) + " (" +
                                          std::to_string(path->options().pid) + ")"
                                    : "No critical path: the process does not run in the trace");
            if (then)
                then(path->found());
        });
    });
}

void MainWindow::find(bool forward, std::function<void(std::optional<std::uint64_t>)> then) {
    if (!doc_m || !doc_m->ready())
        return;
    SearchQuery q;
    q.text = search_m.get_text();
    guint sel = searchType_m.get_selected();
    if (sel != GTK_INVALID_LIST_POSITION && sel < searchTypeMasks_m.size())
        q.events = searchTypeMasks_m[sel];
    if (q.text.empty() && q.events == 0) {
        setStatus("Type a text to search, or pick an event type");
        return;
    }
    std::uint64_t from =
        selected_m ? *selected_m : (forward ? std::uint64_t(-1) : doc_m->eventCount());
    auto doc = doc_m;
    startJob(forward ? "Searching forward" : "Searching backward",
             [this, doc, q, from, forward, then = std::move(then)](Progress& p) {
                 auto hit = doc->search(q, from, forward, p);
                 bool cancelled = p.cancelled();
                 return std::function<void()>([this, hit, cancelled, then, doc] {
                     if (doc != doc_m)
                         return;
                     if (hit) {
                         selectEvent(*hit);
                         graph_m.showTime(doc->eventTimeNs(*hit));
                     } else
                         setStatus(cancelled ? "Search cancelled" : "Not found");
                     if (then)
                         then(hit);
                 });
             });
}

void MainWindow::runFilter(const EventFilter& f, std::function<void()> then) {
    if (!doc_m || !doc_m->ready())
        return;
    auto doc = doc_m;
    startJob("Filtering", [this, doc, f, then = std::move(then)](Progress& p) {
        auto result =
            std::make_shared<std::optional<std::vector<std::uint64_t>>>(doc->filter(f, p));
        return std::function<void()>([this, doc, f, result, then] {
            if (doc != doc_m)
                return;
            if (!*result) {
                setStatus("Filter cancelled");
            } else {
                std::string what;
                if (f.events != 0)
                    what += TraceDocument::eventTypeLabel(f.events);
                if (f.pid >= 0)
                    what +=
                        (what.empty() ? "" : ", ") + std::string("PID ") + std::to_string(f.pid);
                if (f.cpu >= 0)
                    what +=
                        (what.empty() ? "" : ", ") + std::string("CPU ") + std::to_string(f.cpu);
                raw_m.setFiltered(std::move(**result), what);
                if (selected_m)
                    raw_m.selectEvent(selected_m);
                setStatus("Filter: " + what);
            }
            if (then)
                then();
        });
    });
}

bool MainWindow::goToEvent(const std::string& text) {
    if (!doc_m || !doc_m->ready())
        return false;
    char* end = nullptr;
    unsigned long long n = std::strtoull(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || n >= doc_m->eventCount()) {
        setStatus("No event number " + text + " (0 to " + std::to_string(doc_m->eventCount() - 1) +
                  ")");
        return false;
    }
    selectEvent(n);
    return true;
}

bool MainWindow::goToTime(const std::string& text) {
    if (!doc_m || !doc_m->ready())
        return false;
    char* end = nullptr;
    double s = std::strtod(text.c_str(), &end);
    if (text.empty() || (*end != '\0' && std::string(end) != "s") || s < 0 || !std::isfinite(s)) {
        setStatus("Time is in seconds since the trace start, e.g. 1.25");
        return false;
    }
    auto ns = static_cast<std::uint64_t>(s * 1e9);
    graph_m.showTime(ns);
    std::uint64_t idx = doc_m->eventAtTime(ns);
    if (idx < doc_m->eventCount())
        selectEvent(idx);
    return true;
}

} // namespace traceview
