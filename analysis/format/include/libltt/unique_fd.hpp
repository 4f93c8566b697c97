// UniqueFd: owns one file descriptor and closes it exactly once. libltt's
// writers and tracedaemon hold every descriptor in one.
#pragma once

#include <unistd.h>
#include <utility>

namespace ltt {

class UniqueFd {
public:
    UniqueFd() = default;
    explicit UniqueFd(int fd) : fd_m(fd) {}
    ~UniqueFd() { reset(); }
    UniqueFd(UniqueFd&& other) noexcept : fd_m(other.release()) {}
    UniqueFd& operator=(UniqueFd&& other) noexcept {
        if (this != &other)
            reset(other.release());
        return *this;
    }
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;

    int get() const { return fd_m; }
    explicit operator bool() const { return fd_m >= 0; }
    int release() { return std::exchange(fd_m, -1); }
    void reset(int fd = -1) {
        if (fd_m >= 0)
            ::close(fd_m);
        fd_m = fd;
    }

private:
    int fd_m = -1;
};

} // namespace ltt
