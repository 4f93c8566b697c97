// TraceWriter: see trace_writer.hpp. Each append() is one logical write of
// whole blocks; short writes and EINTR are retried so a block is never left
// half-written unless the process dies inside write(2).
#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <fcntl.h>
#include <libltt/block_codec.hpp>
#include <libltt/private_file.hpp>
#include <libltt/trace_writer.hpp>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <system_error>
#include <unistd.h>

namespace ltt {

namespace {

template <std::size_t N> void copyField(char (&dst)[N], std::string_view src) {
    std::memset(dst, 0, N);
    std::memcpy(dst, src.data(), std::min(src.size(), N - 1));
}

[[noreturn]] void throwErrno(int err, const std::string& what) {
    throw std::system_error(err, std::generic_category(), what);
}

} // namespace

ltt_file_header makeFileHeader(const ltt_trace_info& info, std::string_view producer,
                               unsigned version) {
    ltt_file_header h;
    std::memset(&h, 0, sizeof h);
    std::memcpy(h.magic, LTT_FILE_MAGIC, sizeof h.magic);
    h.endian = LTT_ENDIAN_MARK;
    h.version = static_cast<std::uint16_t>(version);
    h.header_size = sizeof(ltt_file_header);
    h.abi_version = info.abi_version;
    h.ncpus = info.ncpus;
    h.tsc_khz = info.tsc_khz;
    h.anchor_tsc = info.anchor_tsc;
    h.anchor_realtime_ns = info.anchor_realtime_ns;
    h.anchor_monotonic_ns = info.anchor_monotonic_ns;
    h.flags = info.flags;
    h.max_block = info.max_block;
    h.config = info.config;
    struct utsname u;
    if (uname(&u) == 0) {
        copyField(h.sysname, u.sysname);
        copyField(h.release, u.release);
        copyField(h.hostname, u.nodename);
    } else {
        copyField(h.sysname, "Linux");
    }
    copyField(h.producer, producer);
    return h;
}

TraceWriter::TraceWriter(const std::string& path, const ltt_file_header& header)
    : TraceWriter(openPrivateFile(path), path, header) {}

TraceWriter::TraceWriter(UniqueFd fd, std::string path, const ltt_file_header& header)
    : path_m(std::move(path)), fd_m(std::move(fd)) {
    struct stat st;
    if (::fstat(fd_m.get(), &st) != 0)
        throwErrno(errno, "cannot create " + path_m);
    regular_m = S_ISREG(st.st_mode);
    if (regular_m && ::ftruncate(fd_m.get(), 0) != 0)
        throwErrno(errno, "cannot truncate " + path_m);
    writeAll(std::as_bytes(std::span(&header, 1)), [](std::size_t) { return std::size_t{0}; });
}

TraceWriter::~TraceWriter() = default;

template <typename Keep> void TraceWriter::writeAll(std::span<const std::byte> bytes, Keep keep) {
    if (!fd_m)
        throwErrno(EBADF, "write to closed trace " + path_m);
    const std::uint64_t before = bytes_m;
    const std::byte* p = bytes.data();
    std::size_t left = bytes.size();
    while (left > 0) {
        ssize_t n = ::write(fd_m.get(), p, left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int err = errno;
            // Whatever part of a block reached the file is cut off again:
            // the file ends with a whole block.
            const std::uint64_t end = before + keep(static_cast<std::size_t>(bytes_m - before));
            if (regular_m && bytes_m != end &&
                ::ftruncate(fd_m.get(), static_cast<off_t>(end)) == 0 &&
                ::lseek(fd_m.get(), static_cast<off_t>(end), SEEK_SET) >= 0)
                bytes_m = end;
            throwErrno(err, "cannot write " + path_m);
        }
        p += n;
        left -= static_cast<std::size_t>(n);
        bytes_m += static_cast<std::uint64_t>(n);
    }
}

void TraceWriter::append(std::span<const std::byte> blocks) {
    // The bytes of the blocks that were written whole: each block's
    // BLOCK_START gives its length.
    auto wholeBlocks = [blocks](std::size_t written) {
        return wholeBlockBytes(blocks.first(written));
    };
    writeAll(blocks, wholeBlocks);
}

void TraceWriter::sync() {
    if (fd_m && ::fdatasync(fd_m.get()) != 0 && errno != EINVAL)
        throwErrno(errno, "cannot sync " + path_m);
}

void TraceWriter::close() {
    if (!fd_m)
        return;
    int fd = fd_m.release();
    if (::close(fd) != 0 && errno != EINTR)
        throwErrno(errno, "cannot close " + path_m);
}

} // namespace ltt
