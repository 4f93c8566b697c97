// Peak resident memory of a piece of work, for tests that bound what a model
// holds: the work runs in a forked child whose peak RSS is reset first
// (/proc/self/clear_refs), so that what the test process held before does
// not count.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sys/wait.h>
#include <unistd.h>

// Under AddressSanitizer the resident set is mostly the sanitizer's
// (shadow memory, quarantine): RSS tests skip themselves.
#if defined(__SANITIZE_ADDRESS__)
#define LTT_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LTT_UNDER_ASAN 1
#endif
#endif

namespace ltt::test {

// kB from a "Name:   N kB" line of /proc/self/status, -1 when missing.
inline long statusKb(const char* name) {
    FILE* f = std::fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long kb = -1;
    const std::size_t n = std::strlen(name);
    while (std::fgets(line, sizeof line, f))
        if (std::strncmp(line, name, n) == 0 && line[n] == ':')
            kb = std::strtol(line + n + 1, nullptr, 10);
    std::fclose(f);
    return kb;
}

// The peak RSS in kB that `work` adds, measured in a child whose peak is
// reset first. -1: the peak cannot be reset; -2: `work` failed; -3: the
// child died.
inline long childPeakKb(const std::function<bool()>& work) {
    int fds[2];
    if (pipe(fds) != 0)
        return -3;
    const pid_t child = fork();
    if (child == 0) {
        long result = -1;
        FILE* clear = std::fopen("/proc/self/clear_refs", "w");
        if (clear && std::fputs("5", clear) >= 0 && std::fclose(clear) == 0) {
            const long start = statusKb("VmRSS");
            result = work() ? statusKb("VmHWM") - start : -2;
        }
        (void)!write(fds[1], &result, sizeof result);
        _exit(0);
    }
    close(fds[1]);
    long peakKb = -3;
    if (child < 0 || read(fds[0], &peakKb, sizeof peakKb) != sizeof peakKb)
        peakKb = -3;
    close(fds[0]);
    if (child > 0)
        waitpid(child, nullptr, 0);
    return peakKb;
}

} // namespace ltt::test
