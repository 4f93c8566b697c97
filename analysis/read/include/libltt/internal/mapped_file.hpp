// ltt::MappedFile: the read-only mapping TraceReader reads a trace through,
// guarded against the file shrinking under it. Not part of libltt's
// interface.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace ltt {

// Read-only mapping of a whole file; unmapped on destruction.
//
// Another program may truncate the file while it is mapped; a load from a
// page past the new end would then raise SIGBUS. A process-wide SIGBUS
// handler (installed with the first mapping) knows every live mapping: a
// fault inside one replaces the mapping from the faulting page to its end
// with zero-filled anonymous memory, marks the file as shrunk and lets the
// load go on. The walk then finds zeros where records should be (corrupt
// input, which it already handles) and the cursor reports that the file
// shrank. Nothing on the hot path pays for this, and no longjmp crosses
// the consumers' C++ frames. A fault outside every mapping gets the
// previous disposition.
class MappedFile {
public:
    static std::unique_ptr<MappedFile> open(const std::string& path, std::string* why);
    // Borrows `bytes` (which must outlive the object) instead of mapping a
    // file: for tests and fuzzing.
    static std::unique_ptr<MappedFile> borrow(std::span<const std::byte> bytes);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    std::span<const std::byte> bytes() const { return {data_m, size_m}; }
    // Hints the kernel that the mapping will be read front to back.
    void adviseSequential() const;
    void release(std::uint64_t below) const;
    // Copies bytes [offset, offset + n) (which must lie in the file) without
    // touching the mapping: a read() of the file, so that a pass over a few
    // bytes here and there (the block frames, when a trace is opened) does
    // not map the file's pages only to map them again in the walk.
    void copy(std::uint64_t offset, void* out, std::size_t n) const;
    // The first byte at or after `from` that may hold data: holes of a
    // sparse file read as zeros and can be skipped when searching for
    // something that is not zero. The file size when none is left.
    std::uint64_t nextData(std::uint64_t from) const;
    // The end of the data extent that holds `from` (the next hole).
    std::uint64_t dataEnd(std::uint64_t from) const;
    // True once a load from the mapping faulted because the file had
    // shrunk below it (its pages past the fault now read as zeros).
    bool shrunk() const;
    // The file's size now (the mapped size for borrowed memory).
    std::uint64_t currentSize() const;

private:
    MappedFile() = default;
    const std::byte* data_m = nullptr;
    std::size_t size_m = 0;
    bool mapped_m = false; // false: borrowed memory, never unmapped or advised
    int fd_m = -1;         // the mapped file, for copy()
    int guard_m = -1;      // slot in the SIGBUS handler's table; -1: none
};

} // namespace ltt
