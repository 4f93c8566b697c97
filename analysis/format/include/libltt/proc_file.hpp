// The .proc file: the system's state when tracing started (docs/trace-format.md
// §4). tracedaemon fills a ProcSnapshot from /proc, ltt-synth from its model;
// both write it with writeProcFile(); libltt reads it with readProcFile().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ltt {

struct ProcTask {
    std::int32_t pid = 0; // thread id
    std::int32_t ppid = 0;
    std::int32_t tgid = 0;  // 0 when unknown: readers use pid
    std::int32_t pgrp = -1; // -1 when unknown
    std::int64_t uid = -1;
    std::int64_t gid = -1;
    char state = '?';
    bool kthread = false;
    std::string name;
};

struct ProcIrq {
    std::string irq; // number, or /proc/interrupts label such as "LOC"
    std::string name;
};

struct ProcMap {
    std::int32_t pid = 0;
    std::uint64_t start = 0;
    std::uint64_t end = 0;
    std::string perm; // "r-xp"
    std::uint64_t offset = 0;
    std::string path;
};

struct ProcSnapshot {
    std::vector<ProcTask> tasks;
    std::vector<ProcIrq> irqs;
    std::vector<ProcMap> maps;
};

// Writes the snapshot to the open file `fd` (its current offset; `path`
// names it in messages). Throws std::system_error naming the path on failure.
void writeProcFile(int fd, const std::string& path, const ProcSnapshot& snapshot);
// The same into `path`, created 0600 or truncated, never through a symbolic
// link.
void writeProcFile(const std::string& path, const ProcSnapshot& snapshot);

struct ProcParseError {
    std::string path;
    std::uint64_t line = 0; // 1-based
    std::string message;
    std::string str() const; // "PATH:LINE: MESSAGE"
};

// Reads a .proc file. On malformed input returns the first error (file, line,
// what is wrong) in `error` and std::nullopt. A last line without its '\n'
// was cut while the file was written: it is ignored, and said so in `cut`
// (when given) as a warning; the lines before it are read as usual.
std::optional<ProcSnapshot> readProcFile(const std::string& path, ProcParseError* error,
                                         std::optional<ProcParseError>* cut = nullptr);

} // namespace ltt
