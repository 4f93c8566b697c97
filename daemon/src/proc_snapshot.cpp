#include "proc_snapshot.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <dirent.h>
#include <fcntl.h>
#include <libltt/unique_fd.hpp>
#include <memory>
#include <sstream>
#include <unistd.h>

namespace ltt::daemon {

namespace {

constexpr unsigned long kPfKthread = 0x00200000; // PF_KTHREAD in <linux/sched.h>

// Reads a whole (small, /proc) file; nullopt when it cannot be opened.
std::optional<std::string> slurp(const std::string& path) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd)
        return std::nullopt;
    std::string out;
    char buf[8192];
    while (true) {
        ssize_t n = ::read(fd.get(), buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return std::nullopt;
        }
        if (n == 0)
            break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
}

std::vector<int> numericEntries(const std::string& dir) {
    std::vector<int> out;
    std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), ::closedir);
    if (!d)
        return out;
    while (dirent* e = ::readdir(d.get())) {
        int v = 0;
        std::string_view name = e->d_name;
        auto [p, ec] = std::from_chars(name.data(), name.data() + name.size(), v);
        if (ec == std::errc() && p == name.data() + name.size() && v > 0)
            out.push_back(v);
    }
    std::sort(out.begin(), out.end());
    return out;
}

template <class Int> bool toInt(std::string_view s, Int& out, int base = 10) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
    return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

std::vector<std::string_view> splitWs(std::string_view s) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
            ++i;
        std::size_t j = i;
        while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j])))
            ++j;
        if (j > i)
            out.push_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

// "1-edge", "0-fasteoi", "512000-edge", "edge": the hwirq/type column.
bool isHwirqType(std::string_view t) {
    auto dash = t.find('-');
    std::string_view num = t.substr(0, dash);
    bool digits = !num.empty() && std::all_of(num.begin(), num.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
    });
    if (digits)
        return true;
    return t == "edge" || t == "level" || t == "fasteoi" || t == "simple";
}

} // namespace

std::optional<StatFields> parseStat(std::string_view text) {
    // "pid (comm) state ppid pgrp session tty tpgid flags ..."; comm may hold
    // spaces and parentheses, so it ends at the last ')'.
    auto open = text.find('(');
    auto close = text.rfind(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open)
        return std::nullopt;
    StatFields f;
    f.comm = std::string(text.substr(open + 1, close - open - 1));
    auto rest = splitWs(text.substr(close + 1));
    if (rest.size() < 7 || rest[0].size() != 1)
        return std::nullopt;
    f.state = rest[0][0];
    if (!toInt(rest[1], f.ppid) || !toInt(rest[2], f.pgrp) || !toInt(rest[6], f.flags))
        return std::nullopt;
    return f;
}

StatusFields parseStatus(std::string_view text) {
    StatusFields f;
    std::size_t pos = 0;
    while (pos < text.size()) {
        auto nl = text.find('\n', pos);
        std::string_view line = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
        pos = nl == std::string_view::npos ? text.size() : nl + 1;
        auto colon = line.find(':');
        if (colon == std::string_view::npos)
            continue;
        std::string_view key = line.substr(0, colon);
        auto values = splitWs(line.substr(colon + 1));
        if (key == "Tgid" && !values.empty())
            toInt(values[0], f.tgid);
        else if (key == "Uid" && values.size() >= 2) { // real, effective, saved, fs
            toInt(values[0], f.ruid);
            toInt(values[1], f.uid);
        } else if (key == "Gid" && values.size() >= 2)
            toInt(values[1], f.gid);
    }
    return f;
}

std::vector<ProcIrq> parseInterrupts(std::string_view text) {
    std::vector<ProcIrq> out;
    std::size_t pos = 0;
    std::size_t ncpus = 0;
    bool header = true;
    while (pos < text.size()) {
        auto nl = text.find('\n', pos);
        std::string_view line = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
        pos = nl == std::string_view::npos ? text.size() : nl + 1;
        if (header) { // "           CPU0       CPU1"
            ncpus = splitWs(line).size();
            header = false;
            continue;
        }
        auto colon = line.find(':');
        if (colon == std::string_view::npos)
            continue;
        std::string label(trim(line.substr(0, colon)));
        if (label.empty())
            continue;
        // Skip up to ncpus count columns, then what is left is the name
        // (numbered IRQs: chip, hwirq-type, then the actions' names).
        std::string_view rest = line.substr(colon + 1);
        for (std::size_t c = 0; c < ncpus; ++c) {
            std::string_view t = trim(rest);
            std::size_t n = 0;
            while (n < t.size() && std::isdigit(static_cast<unsigned char>(t[n])))
                ++n;
            if (n == 0)
                break;
            rest = t.substr(n);
        }
        rest = trim(rest);
        bool numbered = std::all_of(label.begin(), label.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c));
        });
        std::string name;
        if (numbered) {
            auto tok = splitWs(rest);
            std::size_t k = 0;
            std::string chip;
            if (k < tok.size())
                chip = tok[k++];
            if (k < tok.size() && isHwirqType(tok[k]))
                ++k;
            if (k < tok.size()) {
                // Everything from token k on, with its original spacing.
                name = std::string(trim(rest.substr(tok[k].data() - rest.data())));
            } else {
                name = chip;
            }
        } else {
            name = std::string(rest);
        }
        if (name.empty())
            continue; // ERR:, MIS: have counts only
        out.push_back({label, name});
    }
    return out;
}

std::vector<ProcMap> parseMaps(int pid, std::string_view text) {
    std::vector<ProcMap> out;
    std::size_t pos = 0;
    while (pos < text.size()) {
        auto nl = text.find('\n', pos);
        std::string_view line = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
        pos = nl == std::string_view::npos ? text.size() : nl + 1;
        // start-end perms offset dev inode [path]
        auto tok = splitWs(line);
        if (tok.size() < 5)
            continue;
        auto dash = tok[0].find('-');
        ProcMap m;
        m.pid = pid;
        if (dash == std::string_view::npos || !toInt(tok[0].substr(0, dash), m.start, 16) ||
            !toInt(tok[0].substr(dash + 1), m.end, 16) || !toInt(tok[2], m.offset, 16))
            continue;
        m.perm = std::string(tok[1]);
        if (m.perm.size() < 3 || m.perm[2] != 'x')
            continue;
        if (tok.size() >= 6)
            m.path = std::string(trim(line.substr(tok[5].data() - line.data())));
        out.push_back(std::move(m));
    }
    return out;
}

ProcSnapshot takeProcSnapshot(const std::string& procRoot, std::optional<long long> onlyUid) {
    ProcSnapshot snap;
    for (int pid : numericEntries(procRoot)) {
        std::string pdir = procRoot + "/" + std::to_string(pid);
        auto tids = numericEntries(pdir + "/task");
        if (tids.empty())
            tids.push_back(pid); // no task/ (very old kernels, or it just exited)
        bool alive = false;
        for (int tid : tids) {
            std::string tdir = pdir + "/task/" + std::to_string(tid);
            auto stat = slurp(tdir + "/stat");
            if (!stat)
                stat = tid == pid ? slurp(pdir + "/stat") : std::nullopt;
            if (!stat)
                continue;
            auto sf = parseStat(*stat);
            if (!sf)
                continue;
            auto status = slurp(tdir + "/status");
            if (!status && tid == pid)
                status = slurp(pdir + "/status");
            StatusFields st = status ? parseStatus(*status) : StatusFields{};
            if (onlyUid && st.uid != *onlyUid && st.ruid != *onlyUid)
                continue;
            ProcTask t;
            t.pid = tid;
            t.ppid = sf->ppid;
            t.tgid = st.tgid > 0 ? st.tgid : pid;
            t.pgrp = sf->pgrp;
            t.uid = st.uid;
            t.gid = st.gid;
            t.state = sf->state;
            t.kthread = (sf->flags & kPfKthread) != 0;
            t.name = std::move(sf->comm);
            snap.tasks.push_back(std::move(t));
            alive = true;
        }
        if (!alive)
            continue;
        if (auto maps = slurp(pdir + "/maps")) {
            auto m = parseMaps(pid, *maps);
            snap.maps.insert(snap.maps.end(), std::make_move_iterator(m.begin()),
                             std::make_move_iterator(m.end()));
        }
    }
    if (auto irqs = slurp(procRoot + "/interrupts"))
        snap.irqs = parseInterrupts(*irqs);
    return snap;
}

} // namespace ltt::daemon
