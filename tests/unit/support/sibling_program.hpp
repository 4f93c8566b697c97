// The path of a program built next to the running test binary: the tests
// run from the build tree's bin/, where ltt-synth and traceanalyze are too.
#pragma once

#include <filesystem>
#include <unistd.h>

namespace ltt::test {

// Empty when /proc/self/exe cannot be read.
inline std::filesystem::path siblingProgram(const char* name) {
    char self[4096];
    const ssize_t len = ::readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return {};
    self[len] = 0;
    return std::filesystem::path(self).parent_path() / name;
}

} // namespace ltt::test
