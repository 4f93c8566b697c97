// Saves what a widget shows to a PNG file, through the widget's own renderer
// (used by the self test to leave screenshots as build artifacts).
#pragma once

#include <gtkmm.h>
#include <string>

namespace traceview {

bool saveScreenshot(Gtk::Widget& widget, const std::string& path);

} // namespace traceview
