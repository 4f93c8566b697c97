// TraceReader and TraceCursor: see trace_reader.hpp for the design. Corrupt
// input is expected input: every offset is checked against the file size
// before it is read (through readAt() or MappedFile::copy()).
#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <libltt/internal/mapped_file.hpp>
#include <libltt/trace_reader.hpp>
#include <limits>
#include <numeric>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ltt {

namespace {

constexpr std::uint64_t kNone = kNoTsc;
constexpr std::uint32_t kStartRecord = kBlockStartRecord;
constexpr std::uint32_t kEndRecord = kBlockEndRecord;

template <class T> T readAt(std::span<const std::byte> bytes, std::uint64_t offset) {
    T v;
    std::memcpy(&v, bytes.data() + offset, sizeof v);
    return v;
}

// In-block offsets are 32 bits (Stream::offset, endRecord): with a block at
// most LTT_BUFFER_MAX bytes long, an offset plus a record size (16 bits)
// plus the next record's size cannot wrap, so no check can be fooled by a
// wrapped sum.
static_assert(std::uint64_t{LTT_BUFFER_MAX} + std::uint64_t{2} * 0xffff <
              std::numeric_limits<std::uint32_t>::max());

std::string hexOffset(std::uint64_t v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%" PRIu64 " (0x%" PRIx64 ")", v, v);
    return buf;
}

// ------------------------------------------------------ the SIGBUS guard
//
// The handler's table of live mappings. A slot is free while `start` is 0
// and claimed (being filled) while it is 1; the handler only reads it.
struct GuardSlot {
    std::atomic<std::uintptr_t> start{0};
    std::atomic<std::uintptr_t> end{0};
    std::atomic<bool> shrunk{false};
};
constexpr int kGuardSlots = 64;
GuardSlot guardSlots[kGuardSlots];
std::uintptr_t guardPage = 4096;
struct sigaction previousSigbus;
std::once_flag guardOnce;

void onSigbus(int sig, siginfo_t* info, void* context) {
    const auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
    for (GuardSlot& g : guardSlots) {
        const std::uintptr_t start = g.start.load(std::memory_order_acquire);
        const std::uintptr_t end = g.end.load(std::memory_order_acquire);
        if (start <= 1 || addr < start || addr >= end)
            continue;
        // The file shrank below this page: zeros from here to the end of
        // the mapping, so the load that faulted and every later one read.
        const std::uintptr_t page = addr & ~(guardPage - 1);
        void* p = ::mmap(reinterpret_cast<void*>(page), end - page, PROT_READ,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        if (p != MAP_FAILED) {
            g.shrunk.store(true, std::memory_order_release);
            return;
        }
        break;
    }
    // Not a fault on a trace mapping: what the process did before.
    if ((previousSigbus.sa_flags & SA_SIGINFO) && previousSigbus.sa_sigaction) {
        previousSigbus.sa_sigaction(sig, info, context);
    } else if (previousSigbus.sa_handler != SIG_DFL && previousSigbus.sa_handler != SIG_IGN) {
        previousSigbus.sa_handler(sig);
    } else {
        // The load faults again on return and the default action ends the
        // process, as it would have without this handler.
        ::signal(SIGBUS, SIG_DFL);
    }
}

int guardMapping(const void* data, std::size_t size) {
    std::call_once(guardOnce, [] {
        guardPage = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
        struct sigaction sa {};
        sa.sa_sigaction = onSigbus;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        ::sigaction(SIGBUS, &sa, &previousSigbus);
    });
    const auto start = reinterpret_cast<std::uintptr_t>(data);
    for (int i = 0; i < kGuardSlots; ++i) {
        std::uintptr_t free = 0;
        if (!guardSlots[i].start.compare_exchange_strong(free, 1))
            continue;
        guardSlots[i].end.store(start + (size + guardPage - 1) / guardPage * guardPage,
                                std::memory_order_release);
        guardSlots[i].shrunk.store(false, std::memory_order_release);
        guardSlots[i].start.store(start, std::memory_order_release);
        return i;
    }
    return -1; // every slot taken: this mapping is not guarded
}

} // namespace

std::string TraceError::str() const {
    return file + ": offset " + hexOffset(offset) + ": " + message;
}

// ---------------------------------------------------------------- MappedFile

std::unique_ptr<MappedFile> MappedFile::open(const std::string& path, std::string* why) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *why = std::strerror(errno);
        return nullptr;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        *why = std::strerror(errno);
        ::close(fd);
        return nullptr;
    }
    if (!S_ISREG(st.st_mode)) {
        *why = "not a regular file";
        ::close(fd);
        return nullptr;
    }
    std::unique_ptr<MappedFile> f(new MappedFile);
    f->size_m = static_cast<std::size_t>(st.st_size);
    if (f->size_m > 0) {
        void* p = ::mmap(nullptr, f->size_m, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            *why = std::string("mmap: ") + std::strerror(errno);
            ::close(fd);
            return nullptr;
        }
        f->data_m = static_cast<const std::byte*>(p);
        f->mapped_m = true;
        f->guard_m = guardMapping(p, f->size_m);
    }
    f->fd_m = fd; // for copy()
    return f;
}

std::unique_ptr<MappedFile> MappedFile::borrow(std::span<const std::byte> bytes) {
    std::unique_ptr<MappedFile> f(new MappedFile);
    f->data_m = bytes.data();
    f->size_m = bytes.size();
    return f;
}

MappedFile::~MappedFile() {
    if (guard_m >= 0)
        guardSlots[guard_m].start.store(0, std::memory_order_release);
    if (mapped_m)
        ::munmap(const_cast<std::byte*>(data_m), size_m);
    if (fd_m >= 0)
        ::close(fd_m);
}

void MappedFile::copy(std::uint64_t offset, void* out, std::size_t n) const {
    auto* dst = static_cast<char*>(out);
    while (fd_m >= 0 && n > 0) {
        const ssize_t got = ::pread(fd_m, dst, n, static_cast<off_t>(offset));
        if (got <= 0) {
            if (got < 0 && errno == EINTR)
                continue;
            break; // fall back on the mapping (the file cannot shrink under it unnoticed)
        }
        dst += got;
        offset += static_cast<std::uint64_t>(got);
        n -= static_cast<std::size_t>(got);
    }
    if (n > 0)
        std::memcpy(dst, data_m + offset, n);
}

std::uint64_t MappedFile::nextData(std::uint64_t from) const {
    if (from >= size_m)
        return size_m;
    if (fd_m < 0)
        return from;
    const off_t at = ::lseek(fd_m, static_cast<off_t>(from), SEEK_DATA);
    if (at < 0)
        return errno == ENXIO ? size_m : from; // ENXIO: only a hole is left
    return std::min<std::uint64_t>(static_cast<std::uint64_t>(at), size_m);
}

std::uint64_t MappedFile::dataEnd(std::uint64_t from) const {
    if (fd_m < 0 || from >= size_m)
        return size_m;
    const off_t at = ::lseek(fd_m, static_cast<off_t>(from), SEEK_HOLE);
    if (at <= static_cast<off_t>(from))
        return size_m;
    return std::min<std::uint64_t>(static_cast<std::uint64_t>(at), size_m);
}

bool MappedFile::shrunk() const {
    return guard_m >= 0 && guardSlots[guard_m].shrunk.load(std::memory_order_acquire);
}

std::uint64_t MappedFile::currentSize() const {
    struct stat st;
    if (fd_m >= 0 && ::fstat(fd_m, &st) == 0)
        return static_cast<std::uint64_t>(st.st_size);
    return size_m;
}

void MappedFile::adviseSequential() const {
    if (mapped_m) {
        // Two calls: madvise advice values are not flags.
        ::madvise(const_cast<std::byte*>(data_m), size_m, MADV_SEQUENTIAL);
        ::madvise(const_cast<std::byte*>(data_m), size_m, MADV_WILLNEED);
    }
}

void MappedFile::release(std::uint64_t below) const {
    const std::uint64_t page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    below = std::min<std::uint64_t>(below, size_m) / page * page;
    // Only for a real mapping: MADV_DONTNEED on borrowed heap memory would
    // zero it.
    if (mapped_m && below)
        ::madvise(const_cast<std::byte*>(data_m), below, MADV_DONTNEED);
}

// ---------------------------------------------------------------- TscConverter

void TscConverter::init(std::uint64_t anchorTsc, std::uint64_t khz) {
    anchor = anchorTsc;
    const std::uint64_t g = std::gcd<std::uint64_t>(1000000, khz);
    a = 1000000 / g;
    b = khz / g;
    whole = a / b;
    const std::uint64_t rem = a % b; // fraction rem/b, rounded up to 2^-64 units
    frac =
        rem ? static_cast<std::uint64_t>(((static_cast<unsigned __int128>(rem) << 64) + b - 1) / b)
            : 0;
    exactBelow = rem ? ~0ull / b : ~0ull;
}

// ---------------------------------------------------------------- TraceReader

TraceReader::~TraceReader() = default;

std::span<const std::byte> TraceReader::bytes() const {
    return file_m->bytes();
}

void TraceReader::adviseSequential() const {
    file_m->adviseSequential();
}

void TraceReader::releaseBefore(std::uint64_t offset) const {
    file_m->release(offset);
}

std::unique_ptr<TraceReader> TraceReader::open(const std::string& path, TraceError* error) {
    std::unique_ptr<TraceReader> r(new TraceReader);
    r->path_m = path;
    std::string why;
    r->file_m = MappedFile::open(path, &why);
    if (!r->file_m) {
        if (error)
            *error = TraceError{path, 0, "cannot open: " + why};
        return nullptr;
    }
    TraceError err;
    if (!r->scan(&err)) {
        if (error)
            *error = std::move(err);
        return nullptr;
    }
    return r;
}

std::unique_ptr<TraceReader> TraceReader::openMemory(std::span<const std::byte> bytes,
                                                     const std::string& name, TraceError* error) {
    std::unique_ptr<TraceReader> r(new TraceReader);
    r->path_m = name;
    r->file_m = MappedFile::borrow(bytes);
    TraceError err;
    if (!r->scan(&err)) {
        if (error)
            *error = std::move(err);
        return nullptr;
    }
    return r;
}

bool TraceReader::scan(TraceError* error) {
    auto fail = [&](std::uint64_t off, std::string msg) {
        *error = TraceError{path_m, off, std::move(msg)};
        return false;
    };
    const auto bytes = file_m->bytes();
    const std::uint64_t size = bytes.size();
    if (size < sizeof(ltt_file_header))
        return fail(0, "file too short for a trace header (" + std::to_string(size) +
                           " bytes, need " + std::to_string(sizeof(ltt_file_header)) + ")");
    header_m = readAt<ltt_file_header>(bytes, 0);
    if (std::memcmp(header_m.magic, LTT_FILE_MAGIC, sizeof header_m.magic) != 0)
        return fail(0, "not an ltt trace (bad magic)");
    if (header_m.endian != LTT_ENDIAN_MARK)
        return fail(offsetof(ltt_file_header, endian),
                    header_m.endian == 0x04030201u ? "trace written with the other byte order "
                                                     "(not supported)"
                                                   : "bad endianness marker");
    if (header_m.version != LTT_FORMAT_V1 && header_m.version != LTT_FORMAT_V2)
        return fail(offsetof(ltt_file_header, version),
                    "unsupported format version " + std::to_string(header_m.version));
    if (header_m.header_size < sizeof(ltt_file_header) || header_m.header_size % 8 != 0)
        return fail(offsetof(ltt_file_header, header_size),
                    "bad header size " + std::to_string(header_m.header_size));
    if (header_m.ncpus == 0 || header_m.ncpus > LTT_MAX_CPUS)
        return fail(offsetof(ltt_file_header, ncpus),
                    "bad CPU count " + std::to_string(header_m.ncpus));
    if (header_m.tsc_khz == 0)
        return fail(offsetof(ltt_file_header, tsc_khz), "TSC frequency is 0");
    // Every ABI major up to this one wrote readable files (version 1 files
    // come from modules of major 1).
    if ((header_m.abi_version >> 16) == 0 || (header_m.abi_version >> 16) > LTT_ABI_MAJOR)
        return fail(offsetof(ltt_file_header, abi_version),
                    "unsupported ABI major version " + std::to_string(header_m.abi_version >> 16));

    tsc_m.init(header_m.anchor_tsc, header_m.tsc_khz);

    streamBlocks_m.assign(header_m.ncpus, {});
    lostPerCpu_m.assign(header_m.ncpus, 0);
    std::vector<std::int64_t> lastSeq(header_m.ncpus, -1);
    // User streams by number while scanning (a number may be anything up
    // to 65535; the vectors grow to the largest number seen).
    std::vector<std::int64_t> lastUserSeq;
    std::vector<std::int32_t> userIndex; // number -> index into userStreams_m, -1: none
    firstTsc_m = kNone;
    lastTsc_m = 0;
    // The frames are read through a small window: each block's BLOCK_END
    // and the next block's BLOCK_START are adjacent, so one copy() per block.
    std::byte window[kEndRecord + kStartRecord];
    std::uint64_t windowOff = 0, windowLen = 0;
    auto fetch = [&]<class T>(std::uint64_t at) {
        if (at < windowOff || at + sizeof(T) > windowOff + windowLen) {
            windowOff = at;
            windowLen = std::min<std::uint64_t>(sizeof window, size - at);
            file_m->copy(at, window, windowLen);
        }
        T v;
        std::memcpy(&v, window + (at - windowOff), sizeof v);
        return v;
    };
    // Checks the frame of a block at `at` (block_codec.hpp) and fills `b`.
    // The fault names the offending field's offset from `at`.
    const unsigned version = header_m.version;
    // User blocks accepted (a version 1 trace's are damage: its records
    // cannot hold them).
    FrameRules rules{version, header_m.ncpus, maxBlockLength(header_m), lastSeq, true, {}};
    auto frame = [&](std::uint64_t at, BlockInfo& b, FrameFault& fault) {
        const auto rh = fetch.operator()<ltt_record_header>(at);
        const auto bs = fetch.operator()<ltt_block_start>(at + sizeof rh);
        fault = checkBlockStart(rh, bs, size - at, rules);
        if (fault.kind != FrameFault::None)
            return false;
        const std::uint64_t endOff = at + bs.length - kEndRecord;
        const auto eh = fetch.operator()<ltt_record_header>(endOff);
        const auto be = fetch.operator()<ltt_block_end>(endOff + sizeof eh);
        fault = checkBlockEnd(bs, eh, be, version, b);
        b.offset = at;
        return fault.kind == FrameFault::None;
    };
    // Damage at `from` is the tail a power cut leaves (zeros, garbage or a
    // half-written block after the last whole block) unless a whole block
    // of this trace follows it: a frame that passes every check above,
    // with a sequence after the last one of its CPU. The search visits
    // every offset after `from` aligned as blocks are (8 bytes in version
    // 1, 4 in version 2), skipping holes, which are zeros. Also tells
    // whether the bytes from `from` to the end are all zero.
    struct Later {
        bool block = false;
        bool zeros = true;
    };
    auto laterBlock = [&](std::uint64_t from) {
        // A BLOCK_START's first 8 bytes, but the subtype: a first word of 0
        // (version 1's delta) or exactly EXT (version 2's), the event and size.
        constexpr std::uint64_t kMask = ~(std::uint64_t{0xff} << 40);
        const std::uint64_t kStart = (version == LTT_FORMAT_V1 ? 0 : LTT_CODE_EXT) |
                                     std::uint64_t{LTT_EV_BLOCK_START} << 32 |
                                     std::uint64_t{kStartRecord} << 48;
        const std::uint64_t align = recordAlign(version);
        Later r;
        std::vector<std::byte> buf(std::size_t{1} << 16);
        std::uint64_t pos = from;
        while ((pos = file_m->nextData(pos)) < size) {
            pos = std::max(pos & ~(align - 1), from);
            const std::uint64_t end = std::max(file_m->dataEnd(pos), pos + 1);
            while (pos < end) {
                const std::size_t n = static_cast<std::size_t>(
                    std::min<std::uint64_t>({buf.size(), end - pos, size - pos}));
                file_m->copy(pos, buf.data(), n);
                std::size_t i = 0;
                for (; i + 8 <= n; i += align) {
                    std::uint64_t v;
                    std::memcpy(&v, buf.data() + i, sizeof v);
                    r.zeros = r.zeros && v == 0;
                    BlockInfo b;
                    FrameFault f;
                    if ((v & kMask) == kStart && pos + i > from &&
                        size - (pos + i) >= kStartRecord && frame(pos + i, b, f)) {
                        r.block = true;
                        return r;
                    }
                }
                for (; i < n; ++i)
                    r.zeros = r.zeros && buf[i] == std::byte{0};
                pos += n;
            }
        }
        return r;
    };
    std::uint64_t off = header_m.header_size;
    while (off < size) {
        const std::uint64_t left = size - off;
        if (left < kStartRecord) {
            truncation_m = TraceError{path_m, off,
                                      "trace ends inside a block (" + std::to_string(left) +
                                          " stray bytes); analyzed up to here"};
            break;
        }
        BlockInfo b;
        FrameFault fault;
        if (!frame(off, b, fault)) {
            const Later later = laterBlock(off);
            if (later.block)
                return fail(off + fault.at, fault.message()); // damage inside the trace
            if (fault.kind == FrameFault::PastEnd) {
                // A producer killed mid-write leaves a short last block.
                truncation_m =
                    TraceError{path_m, off,
                               "last block is cut short (" + std::to_string(left) + " of " +
                                   std::to_string(fault.value) + " bytes); analyzed up to here"};
            } else {
                tailWithoutBlock_m = true;
                truncation_m = TraceError{
                    path_m, off,
                    later.zeros ? "trace ends in " + std::to_string(left) +
                                      " zero bytes after the last whole block; analyzed up to here"
                                : "trace ends in " + std::to_string(left) +
                                      " bytes that hold no whole block (" + fault.message() +
                                      "); analyzed up to here"};
            }
            break;
        }
        if (b.flags & LTT_BLOCK_F_USER) {
            if (b.cpu >= lastUserSeq.size()) {
                lastUserSeq.resize(b.cpu + 1u, -1);
                userIndex.resize(b.cpu + 1u, -1);
                rules.lastUserSequence = lastUserSeq;
            }
            // The cursor numbers its streams (CPUs, then these) in 16 bits:
            // the streams past that are skipped (-2), their records counted
            // as lost user events, and the rest of the trace is read.
            if (userIndex[b.cpu] == -1 && header_m.ncpus + userStreams_m.size() >= 0xffff)
                userIndex[b.cpu] = -2;
            if (userIndex[b.cpu] == -2) {
                lastUserSeq[b.cpu] = b.sequence;
                userLost_m += b.lost + b.records;
                off += b.length;
                dataEnd_m = off;
                continue;
            }
            if (userIndex[b.cpu] < 0) {
                userIndex[b.cpu] = static_cast<std::int32_t>(userStreams_m.size());
                userStreams_m.push_back({b.cpu, b.pid, 0, false, {}});
            }
            UserStream& u = userStreams_m[static_cast<std::size_t>(userIndex[b.cpu])];
            if (b.pid != u.tid)
                return fail(off + sizeof(ltt_record_header) + offsetof(ltt_block_start, pid),
                            "block of thread " + std::to_string(b.pid) + " in user stream " +
                                std::to_string(b.cpu) + " of thread " + std::to_string(u.tid));
            lastUserSeq[b.cpu] = b.sequence;
            u.blocks.push_back(static_cast<std::uint32_t>(blocks_m.size()));
            u.lost += b.lost;
            u.final = b.flags & LTT_BLOCK_F_FINAL;
            u.monotonic = u.monotonic || (b.flags & LTT_BLOCK_F_USER_MONOTONIC);
            userLost_m += b.lost;
        } else {
            lastSeq[b.cpu] = b.sequence;
            streamBlocks_m[b.cpu].push_back(static_cast<std::uint32_t>(blocks_m.size()));
            lost_m += b.lost;
            lostPerCpu_m[b.cpu] += b.lost;
        }
        blocks_m.push_back(b);
        claimedEvents_m += b.records;
        firstTsc_m = std::min(firstTsc_m, b.startTsc);
        lastTsc_m = std::max(lastTsc_m, b.endTsc);
        off += b.length;
        dataEnd_m = off;
    }
    if (dataEnd_m == 0)
        dataEnd_m = header_m.header_size;
    if (blocks_m.empty())
        firstTsc_m = lastTsc_m = header_m.anchor_tsc;
    // The module closes every CPU with a FINAL block at STOP; a CPU whose
    // blocks stop without one was cut off (the daemon was killed).
    std::string cpus;
    for (std::uint32_t cpu = 0; cpu < header_m.ncpus; ++cpu) {
        const auto& list = streamBlocks_m[cpu];
        if (!list.empty() && !(blocks_m[list.back()].flags & LTT_BLOCK_F_FINAL))
            cpus += (cpus.empty() ? "" : ", ") + std::to_string(cpu);
    }
    // The user streams, by number, after the CPUs in the cursor's streams.
    std::sort(userStreams_m.begin(), userStreams_m.end(),
              [](const UserStream& a, const UserStream& b) { return a.number < b.number; });
    std::string users;
    for (const UserStream& u : userStreams_m) {
        streamBlocks_m.push_back(u.blocks);
        if (!u.final)
            users += (users.empty() ? "" : ", ") + std::to_string(u.number);
    }
    std::string which = cpus.empty() ? "" : "CPU " + cpus;
    if (!users.empty())
        which += (which.empty() ? "" : ", ") + std::string("user stream ") + users;
    if (!which.empty())
        unfinished_m = TraceError{path_m, dataEnd_m,
                                  "trace did not end cleanly: no final block for " + which +
                                      " (the producer was probably killed); analyzed up to here"};
    return true;
}

const TraceReader::UserStream* TraceReader::userStream(std::uint16_t number) const {
    auto it = std::lower_bound(userStreams_m.begin(), userStreams_m.end(), number,
                               [](const UserStream& u, std::uint16_t n) { return u.number < n; });
    return it != userStreams_m.end() && it->number == number ? &*it : nullptr;
}

void TraceReader::markUser(Event& e, std::size_t i) const {
    e.cpu = kUserCpu;
    e.stream = userStreams_m[i - header_m.ncpus].number;
}

TraceCursor TraceReader::startCursor() const {
    TraceCursor c(this);
    c.streams_m.resize(streamCount());
    for (std::size_t i = 0; i < streamCount(); ++i) {
        auto& s = c.streams_m[i];
        s.blockPos = 0;
        if (!c.enterBlock(s, static_cast<std::uint16_t>(i)) ||
            !c.peek(static_cast<std::uint16_t>(i)))
            return c;
    }
    c.index_m = static_cast<std::uint64_t>(-1); // next() yields event 0
    c.buildTree();
    return c;
}

TraceCursor TraceReader::begin() const {
    TraceCursor c = startCursor();
    c.next();
    return c;
}

const std::optional<TraceError>& TraceReader::buildIndex() const {
    std::call_once(indexOnce_m, [this] {
        // A checkpoint is the merge state just before its event is taken,
        // so restoring it and calling next() yields that event.
        TraceCursor c = startCursor();
        const std::size_t ncpus = header_m.ncpus, nuser = userStreams_m.size();
        userInitial_m.assign(c.streams_m.begin() +
                                 static_cast<std::ptrdiff_t>(std::min(ncpus, c.streams_m.size())),
                             c.streams_m.end());
        userInitial_m.resize(nuser);
        userFirst_m.assign(nuser, kNone);
        userLast_m.assign(nuser, kNone);
        userActiveAt_m.assign(1, 0);
        std::vector<detail::CursorCore::Stream> before;
        std::vector<std::uint32_t> activeIndex;
        std::vector<detail::CursorCore::Stream> active;
        std::uint64_t n = 0;
        for (;; ++n) {
            const bool checkpoint = n % kCheckpointInterval == 0;
            if (checkpoint) {
                before.assign(c.streams_m.begin(),
                              c.streams_m.begin() + static_cast<std::ptrdiff_t>(ncpus));
                activeIndex.clear();
                active.clear();
                for (std::size_t j = 0; j < nuser; ++j) {
                    const auto& s = c.streams_m[ncpus + j];
                    if (userFirst_m[j] != kNone && s.nextTsc != kNone) {
                        activeIndex.push_back(static_cast<std::uint32_t>(j));
                        active.push_back(s);
                    }
                }
            }
            if (!c.next())
                break;
            if (nuser && c.event().isUser()) [[unlikely]] {
                const auto j =
                    static_cast<std::size_t>(userStream(c.event().stream) - userStreams_m.data());
                if (userFirst_m[j] == kNone)
                    userFirst_m[j] = n;
                userLast_m[j] = n;
            }
            if (checkpoint) {
                checkpoints_m.insert(checkpoints_m.end(), before.begin(), before.end());
                checkpointTsc_m.push_back(c.event().tsc);
                userActiveIndex_m.insert(userActiveIndex_m.end(), activeIndex.begin(),
                                         activeIndex.end());
                userActive_m.insert(userActive_m.end(), active.begin(), active.end());
                userActiveAt_m.push_back(userActive_m.size());
            }
        }
        indexedEvents_m = n;
        indexError_m = c.error();
    });
    return indexError_m;
}

std::uint64_t TraceReader::eventCount() const {
    buildIndex();
    return indexedEvents_m;
}

// Restores checkpoint `k`: the streams just before event k*interval.
void TraceReader::restore(TraceCursor& c, std::uint64_t k) const {
    const std::size_t n = header_m.ncpus;
    c.streams_m.assign(checkpoints_m.begin() + k * n, checkpoints_m.begin() + (k + 1) * n);
    if (!userStreams_m.empty()) {
        // A user stream not kept with the checkpoint has not begun (its
        // initial state) or is done (exhausted) by then.
        const std::uint64_t at = k * kCheckpointInterval;
        detail::CursorCore::Stream done;
        done.nextTsc = kNone;
        done.blockPos = std::numeric_limits<std::uint32_t>::max();
        for (std::size_t j = 0; j < userStreams_m.size(); ++j)
            c.streams_m.push_back(userLast_m[j] != kNone && userLast_m[j] < at ? done
                                                                               : userInitial_m[j]);
        for (std::size_t i = userActiveAt_m[k]; i < userActiveAt_m[k + 1]; ++i)
            c.streams_m[n + userActiveIndex_m[i]] = userActive_m[i];
    }
    c.error_m.reset();
    c.pendingError_m.reset();
    c.stopped_m = false;
    c.buildTree();
    c.index_m = k * kCheckpointInterval - 1; // wraps for k == 0; next() yields event k*interval
}

TraceCursor TraceReader::atIndex(std::uint64_t index) const {
    buildIndex();
    TraceCursor c(this);
    if (index >= indexedEvents_m) {
        detail::CursorCore::Stream done;
        done.nextTsc = kNone;
        done.blockPos = std::numeric_limits<std::uint32_t>::max();
        c.streams_m.assign(streamCount(), done);
        c.index_m = indexedEvents_m;
        c.buildTree();
        return c;
    }
    const std::uint64_t k = index / kCheckpointInterval;
    restore(c, k);
    c.next();
    while (c.valid() && c.index_m < index)
        c.next();
    return c;
}

TraceCursor TraceReader::atTime(std::uint64_t ns) const {
    buildIndex();
    // Last checkpoint whose event is before `ns`, then walk.
    auto it = std::lower_bound(
        checkpointTsc_m.begin(), checkpointTsc_m.end(), ns,
        [this](std::uint64_t tsc, std::uint64_t t) { return nsFromAnchor(tsc) < t; });
    std::uint64_t k = it == checkpointTsc_m.begin() ? 0 : (it - checkpointTsc_m.begin()) - 1;
    if (checkpointTsc_m.empty())
        return atIndex(0);
    TraceCursor c(this);
    restore(c, k);
    c.next();
    while (c.valid() && nsFromAnchor(c.event().tsc) < ns)
        c.next();
    return c;
}

// ---------------------------------------------------------------- TraceCursor

detail::CursorCore::CursorCore(const TraceReader* reader)
    : reader_m(reader), data_m(reader->file_m->bytes().data()), userFrom_m(reader->header_m.ncpus),
      user_m(!reader->userStreams_m.empty()), v2_m(reader->header_m.version == LTT_FORMAT_V2) {}

bool detail::CursorCore::fail(std::uint64_t offset, std::string message) {
    error_m = TraceError{reader_m->path_m, offset, std::move(message)};
    valid_m = false;
    stopped_m = true;
    checkShrunk();
    return false;
}

void detail::CursorCore::checkShrunk() {
    // A fault past the new end (pages since read as zeros), or an end
    // inside the last page, whose bytes past it read as zeros without one.
    const MappedFile& file = *reader_m->file_m;
    const std::uint64_t now = file.currentSize();
    if (!file.shrunk() && now >= reader_m->dataEnd_m) [[likely]]
        return;
    // What the walk found in those zeros is not the cause.
    error_m = TraceError{reader_m->path_m, now,
                         "the file shrank to " + std::to_string(now) +
                             " bytes while it was being read (truncated by another program)"};
    pendingError_m.reset();
    valid_m = false;
    stopped_m = true;
}

// Loads the frame of block `s.blockPos` of `cpu` (or marks the stream
// exhausted).
bool detail::CursorCore::enterBlock(Stream& s, std::uint16_t cpu) {
    const auto& list = reader_m->streamBlocks_m[cpu];
    s.offset = 0;
    s.records = 0;
    if (s.blockPos >= list.size()) {
        s.nextTsc = kNone;
        return true;
    }
    const BlockInfo& b = reader_m->blocks_m[list[s.blockPos]];
    s.blockOffset = b.offset;
    s.endRecord = b.length - kEndRecord;
    s.expected = b.records;
    s.base = b.startTsc;
    // A user stream's pid is its thread; a CPU's the block's task, if the
    // trace says which task is current after it.
    s.pid = cpu >= userFrom_m || (b.pid >= 0 && reader_m->contextRecorded()) ? b.pid : kUnknownPid;
    s.lastIp = 0;
    return true;
}

// Decodes the header of stream `cpu`'s next record to learn its time, moving
// to the CPU's next block when the current one is consumed. Validates the
// record's frame; false (with error_m set) on corruption. The block's first
// and last records were validated when the file was opened.
template <unsigned V> bool detail::CursorCore::peekAs(std::uint16_t cpu) {
    Stream& s = streams_m[cpu];
    const std::byte* data = data_m;
    for (;;) {
        if (s.nextTsc == kNone && s.blockPos >= reader_m->streamBlocks_m[cpu].size())
            return true;
        if (s.offset > s.endRecord) {
            // Block consumed: the BLOCK_END record was the last one.
            if (s.records != s.expected) {
                const RecordFault f{RecordFault::CountMismatch, 0, s.records, s.expected};
                return fail(s.blockOffset + s.endRecord + sizeof(ltt_record_header) +
                                offsetof(ltt_block_end, events),
                            f.message());
            }
            const std::uint64_t last = s.lastIp;
            ++s.blockPos;
            enterBlock(s, cpu);
            if (s.nextTsc == kNone)
                return true;
            // A user stream's time never goes back, from block to block too
            // (a CPU's blocks may: a CPU's clock can step back).
            if (cpu >= userFrom_m && s.base < last) [[unlikely]]
                return fail(s.blockOffset + sizeof(ltt_record_header) +
                                offsetof(ltt_block_start, start_tsc),
                            "user stream block starts at " + std::to_string(s.base) +
                                ", before the stream's previous record at " + std::to_string(last));
            continue;
        }
        const std::uint64_t off = s.blockOffset + s.offset;
        s.next = recordHead<V>(data + off);
        const ltt_record_header& h = s.next;
        if (s.offset == 0 || s.offset == s.endRecord) {
            // The frame was checked when the file was opened; what the
            // mapping shows now must still be it, or taking the record
            // would not move the stream on.
            const bool start = s.offset == 0;
            if (h.event != (start ? LTT_EV_BLOCK_START : LTT_EV_BLOCK_END) ||
                h.size != (start ? kStartRecord : kEndRecord)) [[unlikely]]
                return fail(off + 4, std::string(start ? "BLOCK_START" : "BLOCK_END") +
                                         " record changed since the file was opened");
            if (!start && cpu >= userFrom_m)
                s.lastIp = s.base; // the time of the block's last record before BLOCK_END
        } else {
            const RecordFault f = checkRecord<V>(data + off, h, s.offset, s.endRecord);
            if (f.kind != RecordFault::None) [[unlikely]]
                return fail(off + f.at, f.message());
        }
        RecordFault timeFault;
        s.nextTsc = recordTsc<V>(h, data + off, s.base, &timeFault);
        if (timeFault.kind != RecordFault::None) [[unlikely]]
            return fail(off + timeFault.at, timeFault.message());
        return true;
    }
}

template bool detail::CursorCore::peekAs<LTT_FORMAT_V1>(std::uint16_t);
template bool detail::CursorCore::peekAs<LTT_FORMAT_V2>(std::uint16_t);

// The walk stopped on an error: surface it (once found while peeking past
// the previous event, it becomes the cursor's error now).
bool detail::CursorCore::stop() {
    if (pendingError_m) {
        error_m = std::move(pendingError_m);
        pendingError_m.reset();
    }
    valid_m = false;
    checkShrunk();
    return false;
}

// Plays the full tournament: after the streams were set (start, restore).
void detail::CursorCore::buildTree() {
    keys_m.resize(std::max<std::size_t>(streams_m.size(), 1), kNoTsc);
    for (std::size_t i = 0; i < streams_m.size(); ++i)
        keys_m[i] = streams_m[i].nextTsc;
    scan_m = keys_m.size() <= kScanCpus;
    if (scan_m)
        return;
    const std::size_t n = keys_m.size();
    const std::size_t leaves = std::bit_ceil(n);
    tree_m.assign(leaves, 0);
    std::vector<int> win(2 * leaves);
    for (std::size_t i = 0; i < leaves; ++i)
        win[leaves + i] = static_cast<int>(i);
    for (std::size_t node = leaves - 1; node >= 1; --node) {
        const int a = win[2 * node], b = win[2 * node + 1];
        const bool aFirst = before(a, b);
        win[node] = aFirst ? a : b;
        tree_m[node] = aFirst ? b : a;
    }
    tree_m[0] = leaves > 1 ? win[1] : 0;
}

// The next record of the lead stream is not an ordinary record of its
// block: a heartbeat, the block's end, the next block, or corruption.
void detail::CursorCore::advanceSlow(std::uint16_t cpu) {
    if (!peek(cpu)) {
        // The current event is fine; the error stops the walk at the next step.
        pendingError_m = std::move(error_m);
        error_m.reset();
        stopped_m = true;
        valid_m = true;
    }
}

std::uint64_t TraceCursor::lowestOffset() const {
    std::uint64_t low = kNone;
    for (const Stream& s : streams_m)
        if (s.nextTsc != kNone)
            low = std::min(low, s.blockOffset);
    return low == kNone ? reader_m->dataEnd_m : low;
}

bool TraceCursor::prev() {
    if (index_m == 0 || index_m == static_cast<std::uint64_t>(-1)) {
        valid_m = false;
        return false;
    }
    *this = reader_m->atIndex(index_m - 1);
    return valid_m;
}

} // namespace ltt
