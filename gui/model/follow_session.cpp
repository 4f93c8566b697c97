// FollowSession: see follow_session.hpp.
#include "follow_session.hpp"

#include <filesystem>

namespace traceview {

namespace {
std::string baseName(const std::string& path) {
    return std::filesystem::path(path).filename().string();
}
} // namespace

FollowSession::FollowSession(std::string trace, std::string proc, ltt::FollowOptions options)
    : trace_m(std::move(trace)), proc_m(std::move(proc)), follower_m(trace_m, proc_m, options) {}

FollowSession::Step FollowSession::tick(bool busy) {
    if (done_m)
        return Step::Stop;
    // One re-open at a time, and none while the window runs other work
    // (a filter, a search): the window would refuse to start it.
    if (reloading_m || busy)
        return Step::Wait;
    if (!follower_m.finished())
        pending_m = follower_m.poll() || pending_m;
    if (follower_m.finished()) {
        // The finished file as a plain open shows it, warnings and errors
        // included.
        pending_m = false;
        reloading_m = true;
        return Step::ReloadLast;
    }
    if (pending_m && follower_m.reader()) {
        pending_m = false;
        reloading_m = true;
        return Step::Reload;
    }
    return Step::Wait;
}

void FollowSession::reloaded(bool last, bool shown) {
    reloading_m = false;
    ++reloads_m;
    shown_m = shown_m || shown;
    if (last)
        done_m = true;
}

std::string FollowSession::waitingText() const {
    return "Following " + baseName(trace_m) + ": waiting for whole blocks…";
}

std::string FollowSession::followingText(const std::string& summary) const {
    // While following, a block still being written is no warning; a .proc
    // not written yet is said.
    return "Following " + baseName(trace_m) + ": " + summary +
           (follower_m.snapshot() || proc_m.empty()
                ? ""
                : "   (" + baseName(proc_m) + " not there yet)");
}

std::string FollowSession::endedSuffix() const {
    return "   (following ended: " + follower_m.endReason() + ")";
}

} // namespace traceview
