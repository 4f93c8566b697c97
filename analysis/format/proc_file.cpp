// The .proc file (docs/trace-format.md §4): one `KEY: value; ...` line per
// task, IRQ or mapping. NAME and PATH take the rest of the line because task
// names and paths may contain "; ". Parsing is strict about the fields it
// needs (PID, PPID, NAME) and tolerant of everything else, so older (LTT's
// `PID: %d; PPID: %d; NAME: %s`) and newer producers are both readable.
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <libltt/proc_file.hpp>
#include <libltt/text_escape.hpp>
#include <libltt/unique_fd.hpp>
#include <string_view>
#include <system_error>
#include <unistd.h>

namespace ltt {

namespace {

// Task names may hold any byte but '\n' would break the line structure.
std::string oneLine(const std::string& s) {
    std::string out = s;
    for (char& c : out)
        if (c == '\n' || c == '\r')
            c = '?';
    return out;
}

template <class Int> bool parseInt(std::string_view s, Int& out) {
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s.remove_prefix(2);
        base = 16;
    }
    if (s.empty())
        return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
    return ec == std::errc() && p == s.data() + s.size();
}

struct Field {
    std::string_view key, value;
};

// Splits a line into fields; returns false on a field without ": ".
bool splitFields(std::string_view line, std::vector<Field>& fields, std::string& why) {
    fields.clear();
    while (!line.empty()) {
        auto colon = line.find(": ");
        if (colon == std::string_view::npos) {
            // "KEY:" with an empty value at the end of a line.
            if (line.back() == ':') {
                fields.push_back({line.substr(0, line.size() - 1), {}});
                return true;
            }
            why = "field without \": \": \"" + escaped(line.substr(0, 40)) + "\"";
            return false;
        }
        std::string_view key = line.substr(0, colon);
        line.remove_prefix(colon + 2);
        if (key == "NAME" || key == "PATH") {
            fields.push_back({key, line});
            return true;
        }
        auto semi = line.find("; ");
        std::string_view value = line.substr(0, semi);
        fields.push_back({key, value});
        line = semi == std::string_view::npos ? std::string_view{} : line.substr(semi + 2);
    }
    return true;
}

} // namespace

std::string ProcParseError::str() const {
    return path + ":" + std::to_string(line) + ": " + message;
}

void writeProcFile(int fd, const std::string& path, const ProcSnapshot& snapshot) {
    // A stream over a duplicate: fclose() closes that, the caller keeps fd.
    int dup = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
    std::FILE* f = dup < 0 ? nullptr : ::fdopen(dup, "w");
    if (!f) {
        int err = errno;
        if (dup >= 0)
            ::close(dup);
        throw std::system_error(err, std::generic_category(), "cannot write " + path);
    }
    std::fprintf(f, "# ltt-proc 1\n");
    for (const ProcTask& t : snapshot.tasks) {
        std::fprintf(f,
                     "PID: %d; PPID: %d; TGID: %d; PGRP: %d; UID: %lld; GID: %lld; STATE: %c; "
                     "KTHREAD: %d; NAME: %s\n",
                     t.pid, t.ppid, t.tgid ? t.tgid : t.pid, t.pgrp, static_cast<long long>(t.uid),
                     static_cast<long long>(t.gid), t.state ? t.state : '?', t.kthread ? 1 : 0,
                     oneLine(t.name).c_str());
    }
    for (const ProcIrq& i : snapshot.irqs)
        std::fprintf(f, "IRQ: %s; NAME: %s\n", oneLine(i.irq).c_str(), oneLine(i.name).c_str());
    for (const ProcMap& m : snapshot.maps)
        std::fprintf(f, "MAP: %d; START: 0x%llx; END: 0x%llx; PERM: %s; OFFSET: 0x%llx; PATH: %s\n",
                     m.pid, static_cast<unsigned long long>(m.start),
                     static_cast<unsigned long long>(m.end), oneLine(m.perm).c_str(),
                     static_cast<unsigned long long>(m.offset), oneLine(m.path).c_str());
    bool bad = std::ferror(f);
    int err = errno;
    if (std::fclose(f) != 0 || bad)
        throw std::system_error(bad ? err : errno, std::generic_category(), "cannot write " + path);
}

void writeProcFile(const std::string& path, const ProcSnapshot& snapshot) {
    // Never through a symbolic link, private to the caller.
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!fd)
        throw std::system_error(errno, std::generic_category(), "cannot create " + path);
    writeProcFile(fd.get(), path, snapshot);
}

std::optional<ProcSnapshot> readProcFile(const std::string& path, ProcParseError* error,
                                         std::optional<ProcParseError>* cut) {
    auto fail = [&](std::uint64_t line, std::string msg) -> std::optional<ProcSnapshot> {
        if (error)
            *error = ProcParseError{path, line, std::move(msg)};
        return std::nullopt;
    };
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return fail(0, std::string("cannot open: ") + std::strerror(errno));
    ProcSnapshot snap;
    std::string raw;
    std::vector<Field> fields;
    std::string why;
    std::uint64_t lineNo = 0;
    if (cut)
        cut->reset();
    while (std::getline(in, raw)) {
        ++lineNo;
        if (in.eof()) {
            // No '\n' after the last line: the writer stopped inside it (a
            // crash or power cut), so it may have lost fields or the last
            // digits of a number. Everything before it is whole.
            if (cut)
                *cut = ProcParseError{path, lineNo,
                                      "last line is cut short (no newline at the end of the "
                                      "file); ignored"};
            break;
        }
        std::string_view line = raw;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (line.empty() || line[0] == '#')
            continue;
        if (!splitFields(line, fields, why))
            return fail(lineNo, why);
        const std::string_view kind = fields[0].key;
        auto bad = [&](std::string_view key, std::string_view value) {
            return fail(lineNo, "bad " + escaped(key) + " value \"" + escaped(value) + "\"");
        };
        if (kind == "PID") {
            ProcTask t;
            bool havePpid = false, haveName = false;
            for (const Field& fl : fields) {
                if (fl.key == "PID") {
                    if (!parseInt(fl.value, t.pid))
                        return bad(fl.key, fl.value);
                } else if (fl.key == "PPID") {
                    if (!parseInt(fl.value, t.ppid))
                        return bad(fl.key, fl.value);
                    havePpid = true;
                } else if (fl.key == "TGID") {
                    if (!parseInt(fl.value, t.tgid))
                        return bad(fl.key, fl.value);
                } else if (fl.key == "PGRP") {
                    if (!parseInt(fl.value, t.pgrp))
                        return bad(fl.key, fl.value);
                } else if (fl.key == "UID") {
                    if (!parseInt(fl.value, t.uid))
                        return bad(fl.key, fl.value);
                } else if (fl.key == "GID") {
                    if (!parseInt(fl.value, t.gid))
                        return bad(fl.key, fl.value);
                } else if (fl.key == "STATE") {
                    t.state = fl.value.empty() ? '?' : fl.value[0];
                } else if (fl.key == "KTHREAD") {
                    int k = 0;
                    if (!parseInt(fl.value, k))
                        return bad(fl.key, fl.value);
                    t.kthread = k != 0;
                } else if (fl.key == "NAME") {
                    t.name = std::string(fl.value);
                    haveName = true;
                }
            }
            if (!havePpid)
                return fail(lineNo, "PID line without PPID");
            if (!haveName)
                return fail(lineNo, "PID line without NAME");
            snap.tasks.push_back(std::move(t));
        } else if (kind == "IRQ") {
            ProcIrq irq;
            irq.irq = std::string(fields[0].value);
            for (const Field& fl : fields)
                if (fl.key == "NAME")
                    irq.name = std::string(fl.value);
            snap.irqs.push_back(std::move(irq));
        } else if (kind == "MAP") {
            ProcMap m;
            for (const Field& fl : fields) {
                bool ok = true;
                if (fl.key == "MAP")
                    ok = parseInt(fl.value, m.pid);
                else if (fl.key == "START")
                    ok = parseInt(fl.value, m.start);
                else if (fl.key == "END")
                    ok = parseInt(fl.value, m.end);
                else if (fl.key == "OFFSET")
                    ok = parseInt(fl.value, m.offset);
                else if (fl.key == "PERM")
                    m.perm = std::string(fl.value);
                else if (fl.key == "PATH")
                    m.path = std::string(fl.value);
                if (!ok)
                    return bad(fl.key, fl.value);
            }
            snap.maps.push_back(std::move(m));
        }
        // Unknown kinds are skipped: later versions may add lines.
    }
    if (in.bad())
        return fail(lineNo, "read error");
    return snap;
}

} // namespace ltt
