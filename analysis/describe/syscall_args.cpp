// Kernel-state variables and strace-style system calls (syscall_args.hpp).
// The argument kinds of the common x86_64 calls are a table here; the
// flag values are Linux's x86_64 ABI numbers, written out so that the
// decoding does not depend on the headers of the machine that reads the
// trace.
#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <libltt/event_names.hpp>
#include <libltt/syscall_args.hpp>
#include <libltt/text_escape.hpp>

namespace ltt {

namespace {

using ull = unsigned long long;
using ll = long long;

template <class... A> void appendf(std::string& out, const char* fmt, A... args) {
    char buf[128];
    int n = std::snprintf(buf, sizeof buf, fmt, args...);
    if (n > 0)
        out.append(buf, std::min<std::size_t>(static_cast<std::size_t>(n), sizeof buf - 1));
}

// What an argument is, for its display.
enum class Arg : std::uint8_t {
    Int,      // signed decimal
    Uint,     // unsigned decimal (counts, sizes)
    Hex,      // addresses and anything else
    Fd,       // a file descriptor (int)
    DirFd,    // AT_FDCWD or an fd
    Path,     // a user pointer to a path the trace may name
    OFlags,   // open flags
    Mode,     // octal file mode (shown with O_CREAT/O_TMPFILE only)
    Prot,     // PROT_*
    MapFlags, // MAP_*
    Clone,    // CLONE_* and the exit signal
    Signal,   // SIG*
    Family,   // AF_*
    SockType, // SOCK_* and its flags
    Whence,   // SEEK_*
    MsFlags,  // MS_* of mount(2)
    UmountFl, // MNT_* of umount2(2)
    AtFlags,  // AT_* flags
};

struct CallSpec {
    std::uint32_t nr;
    std::uint8_t nargs;
    bool returnsAddress;
    Arg args[6];
};

// The calls shown with names and flags; every other call's arguments are hex.
constexpr CallSpec kCalls[] = {
    {0, 3, false, {Arg::Fd, Arg::Hex, Arg::Uint}},                                    // read
    {1, 3, false, {Arg::Fd, Arg::Hex, Arg::Uint}},                                    // write
    {2, 3, false, {Arg::Path, Arg::OFlags, Arg::Mode}},                               // open
    {3, 1, false, {Arg::Fd}},                                                         // close
    {4, 2, false, {Arg::Path, Arg::Hex}},                                             // stat
    {5, 2, false, {Arg::Fd, Arg::Hex}},                                               // fstat
    {6, 2, false, {Arg::Path, Arg::Hex}},                                             // lstat
    {8, 3, false, {Arg::Fd, Arg::Int, Arg::Whence}},                                  // lseek
    {9, 6, true, {Arg::Hex, Arg::Uint, Arg::Prot, Arg::MapFlags, Arg::Fd, Arg::Hex}}, // mmap
    {10, 3, false, {Arg::Hex, Arg::Uint, Arg::Prot}},                                 // mprotect
    {11, 2, false, {Arg::Hex, Arg::Uint}},                                            // munmap
    {12, 1, true, {Arg::Hex}},                                                        // brk
    {16, 3, false, {Arg::Fd, Arg::Hex, Arg::Hex}},                                    // ioctl
    {17, 4, false, {Arg::Fd, Arg::Hex, Arg::Uint, Arg::Int}},                         // pread64
    {18, 4, false, {Arg::Fd, Arg::Hex, Arg::Uint, Arg::Int}},                         // pwrite64
    {21, 2, false, {Arg::Path, Arg::Int}},                                            // access
    {32, 1, false, {Arg::Fd}},                                                        // dup
    {33, 2, false, {Arg::Fd, Arg::Fd}},                                               // dup2
    {41, 3, false, {Arg::Family, Arg::SockType, Arg::Int}},                           // socket
    {42, 3, false, {Arg::Fd, Arg::Hex, Arg::Uint}},                                   // connect
    {43, 3, false, {Arg::Fd, Arg::Hex, Arg::Hex}},                                    // accept
    {44, 6, false, {Arg::Fd, Arg::Hex, Arg::Uint, Arg::Hex, Arg::Hex, Arg::Uint}},    // sendto
    {45, 6, false, {Arg::Fd, Arg::Hex, Arg::Uint, Arg::Hex, Arg::Hex, Arg::Hex}},     // recvfrom
    {49, 3, false, {Arg::Fd, Arg::Hex, Arg::Uint}},                                   // bind
    {50, 2, false, {Arg::Fd, Arg::Int}},                                              // listen
    {56, 5, false, {Arg::Clone, Arg::Hex, Arg::Hex, Arg::Hex, Arg::Hex}},             // clone
    {59, 3, false, {Arg::Path, Arg::Hex, Arg::Hex}},                                  // execve
    {60, 1, false, {Arg::Int}},                                                       // exit
    {61, 4, false, {Arg::Int, Arg::Hex, Arg::Int, Arg::Hex}},                         // wait4
    {62, 2, false, {Arg::Int, Arg::Signal}},                                          // kill
    {98, 2, false, {Arg::Int, Arg::Hex}},                                             // getrusage
    {165, 5, false, {Arg::Path, Arg::Path, Arg::Hex, Arg::MsFlags, Arg::Hex}},        // mount
    {166, 2, false, {Arg::Path, Arg::UmountFl}},                                      // umount2
    {231, 1, false, {Arg::Int}},                                                      // exit_group
    {257, 4, false, {Arg::DirFd, Arg::Path, Arg::OFlags, Arg::Mode}},                 // openat
    {262, 4, false, {Arg::DirFd, Arg::Path, Arg::Hex, Arg::AtFlags}},                 // newfstatat
    {288, 4, false, {Arg::Fd, Arg::Hex, Arg::Hex, Arg::SockType}},                    // accept4
    {322, 5, false, {Arg::DirFd, Arg::Path, Arg::Hex, Arg::Hex, Arg::AtFlags}},       // execveat
};

const CallSpec* callSpec(std::uint32_t nr) {
    for (const auto& c : kCalls)
        if (c.nr == nr)
            return &c;
    return nullptr;
}

struct Flag {
    std::uint64_t bit;
    const char* name;
};

// Appends the names of the bits of `v` in `flags`, '|'-separated, and the
// bits left over in hex; "0" when `v` is 0 and `zero` is null.
void appendFlags(std::string& out, std::uint64_t v, const Flag* flags, std::size_t n,
                 const char* zero = nullptr) {
    bool any = false;
    for (std::size_t i = 0; i < n; ++i) {
        if (flags[i].bit && (v & flags[i].bit) == flags[i].bit) {
            out.append(any ? "|" : "").append(flags[i].name);
            v &= ~flags[i].bit;
            any = true;
        }
    }
    if (v || !any) {
        if (!v && zero) {
            out.append(zero);
            return;
        }
        if (any)
            out.push_back('|');
        appendf(out, "%#llx", ull(v));
    }
}

constexpr Flag kOpenFlags[] = {
    {0x40, "O_CREAT"},        {0x80, "O_EXCL"},        {0x100, "O_NOCTTY"},
    {0x200, "O_TRUNC"},       {0x400, "O_APPEND"},     {0x800, "O_NONBLOCK"},
    {0x101000, "O_SYNC"},     {0x1000, "O_DSYNC"},     {0x2000, "O_ASYNC"},
    {0x4000, "O_DIRECT"},     {0x8000, "O_LARGEFILE"}, {0x410000, "O_TMPFILE"},
    {0x10000, "O_DIRECTORY"}, {0x20000, "O_NOFOLLOW"}, {0x40000, "O_NOATIME"},
    {0x80000, "O_CLOEXEC"},   {0x200000, "O_PATH"},
};

void appendOpenFlags(std::string& out, std::uint64_t v) {
    static constexpr const char* access[] = {"O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE"};
    out.append(access[v & 3]);
    v &= ~std::uint64_t(3);
    if (v) {
        out.push_back('|');
        appendFlags(out, v, kOpenFlags, std::size(kOpenFlags));
    }
}

constexpr Flag kProt[] = {{1, "PROT_READ"},
                          {2, "PROT_WRITE"},
                          {4, "PROT_EXEC"},
                          {0x01000000, "PROT_GROWSDOWN"},
                          {0x02000000, "PROT_GROWSUP"}};
constexpr Flag kMap[] = {{0x01, "MAP_SHARED"},
                         {0x02, "MAP_PRIVATE"},
                         {0x03, "MAP_SHARED_VALIDATE"},
                         {0x10, "MAP_FIXED"},
                         {0x20, "MAP_ANONYMOUS"},
                         {0x40, "MAP_32BIT"},
                         {0x100, "MAP_GROWSDOWN"},
                         {0x800, "MAP_DENYWRITE"},
                         {0x1000, "MAP_EXECUTABLE"},
                         {0x2000, "MAP_LOCKED"},
                         {0x4000, "MAP_NORESERVE"},
                         {0x8000, "MAP_POPULATE"},
                         {0x10000, "MAP_NONBLOCK"},
                         {0x20000, "MAP_STACK"},
                         {0x40000, "MAP_HUGETLB"},
                         {0x80000, "MAP_SYNC"},
                         {0x100000, "MAP_FIXED_NOREPLACE"}};
constexpr Flag kClone[] = {
    {0x100, "CLONE_VM"},
    {0x200, "CLONE_FS"},
    {0x400, "CLONE_FILES"},
    {0x800, "CLONE_SIGHAND"},
    {0x1000, "CLONE_PIDFD"},
    {0x2000, "CLONE_PTRACE"},
    {0x4000, "CLONE_VFORK"},
    {0x8000, "CLONE_PARENT"},
    {0x10000, "CLONE_THREAD"},
    {0x20000, "CLONE_NEWNS"},
    {0x40000, "CLONE_SYSVSEM"},
    {0x80000, "CLONE_SETTLS"},
    {0x100000, "CLONE_PARENT_SETTID"},
    {0x200000, "CLONE_CHILD_CLEARTID"},
    {0x400000, "CLONE_DETACHED"},
    {0x800000, "CLONE_UNTRACED"},
    {0x1000000, "CLONE_CHILD_SETTID"},
    {0x2000000, "CLONE_NEWCGROUP"},
    {0x4000000, "CLONE_NEWUTS"},
    {0x8000000, "CLONE_NEWIPC"},
    {0x10000000, "CLONE_NEWUSER"},
    {0x20000000, "CLONE_NEWPID"},
    {0x40000000, "CLONE_NEWNET"},
    {0x80000000, "CLONE_IO"},
};
constexpr Flag kMsFlags[] = {
    {0x1, "MS_RDONLY"},         {0x2, "MS_NOSUID"},
    {0x4, "MS_NODEV"},          {0x8, "MS_NOEXEC"},
    {0x10, "MS_SYNCHRONOUS"},   {0x20, "MS_REMOUNT"},
    {0x40, "MS_MANDLOCK"},      {0x80, "MS_DIRSYNC"},
    {0x100, "MS_NOSYMFOLLOW"},  {0x400, "MS_NOATIME"},
    {0x800, "MS_NODIRATIME"},   {0x1000, "MS_BIND"},
    {0x2000, "MS_MOVE"},        {0x4000, "MS_REC"},
    {0x8000, "MS_SILENT"},      {0x40000, "MS_PRIVATE"},
    {0x80000, "MS_SLAVE"},      {0x100000, "MS_SHARED"},
    {0x200000, "MS_RELATIME"},  {0x1000000, "MS_STRICTATIME"},
    {0x2000000, "MS_LAZYTIME"},
};
constexpr Flag kUmount[] = {
    {1, "MNT_FORCE"}, {2, "MNT_DETACH"}, {4, "MNT_EXPIRE"}, {8, "UMOUNT_NOFOLLOW"}};
constexpr Flag kAtFlags[] = {{0x100, "AT_SYMLINK_NOFOLLOW"},
                             {0x200, "AT_REMOVEDIR"},
                             {0x400, "AT_SYMLINK_FOLLOW"},
                             {0x800, "AT_NO_AUTOMOUNT"},
                             {0x1000, "AT_EMPTY_PATH"}};
constexpr Flag kSockFlags[] = {{0x800, "SOCK_NONBLOCK"}, {0x80000, "SOCK_CLOEXEC"}};

const char* signalName(std::uint64_t s) {
    static constexpr const char* names[] = {
        "0",         "SIGHUP",  "SIGINT",    "SIGQUIT", "SIGILL",   "SIGTRAP", "SIGABRT", "SIGBUS",
        "SIGFPE",    "SIGKILL", "SIGUSR1",   "SIGSEGV", "SIGUSR2",  "SIGPIPE", "SIGALRM", "SIGTERM",
        "SIGSTKFLT", "SIGCHLD", "SIGCONT",   "SIGSTOP", "SIGTSTP",  "SIGTTIN", "SIGTTOU", "SIGURG",
        "SIGXCPU",   "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO",   "SIGPWR",  "SIGSYS"};
    return s < std::size(names) ? names[s] : nullptr;
}

void appendSignal(std::string& out, std::uint64_t s) {
    if (const char* n = signalName(s))
        out.append(n);
    else if (s >= 34 && s <= 64)
        appendf(out, "SIGRTMIN+%llu", ull(s - 34));
    else
        appendf(out, "%llu", ull(s));
}

void appendFamily(std::string& out, std::uint64_t v) {
    switch (v) {
    case 0:
        out.append("AF_UNSPEC");
        return;
    case 1:
        out.append("AF_UNIX");
        return;
    case 2:
        out.append("AF_INET");
        return;
    case 10:
        out.append("AF_INET6");
        return;
    case 16:
        out.append("AF_NETLINK");
        return;
    case 17:
        out.append("AF_PACKET");
        return;
    default:
        appendf(out, "%llu", ull(v));
    }
}

void appendSockType(std::string& out, std::uint64_t v) {
    static constexpr const char* types[] = {nullptr,    "SOCK_STREAM",    "SOCK_DGRAM", "SOCK_RAW",
                                            "SOCK_RDM", "SOCK_SEQPACKET", "SOCK_DCCP"};
    const std::uint64_t t = v & 0xf;
    std::uint64_t rest = v & ~std::uint64_t(0xf);
    if (t < std::size(types) && types[t])
        out.append(types[t]);
    else
        appendf(out, "%llu", ull(t));
    if (rest) {
        out.push_back('|');
        appendFlags(out, rest, kSockFlags, std::size(kSockFlags));
    }
}

void appendArg(std::string& out, Arg kind, std::uint64_t v, const std::string* path) {
    const auto i32 = static_cast<std::int32_t>(v);
    switch (kind) {
    case Arg::Int:
        appendf(out, "%lld", ll(v));
        return;
    case Arg::Uint:
        appendf(out, "%llu", ull(v));
        return;
    case Arg::Hex:
        if (v)
            appendf(out, "%#llx", ull(v));
        else
            out.append("NULL");
        return;
    case Arg::Fd:
        appendf(out, "%d", i32);
        return;
    case Arg::DirFd:
        if (i32 == -100)
            out.append("AT_FDCWD");
        else
            appendf(out, "%d", i32);
        return;
    case Arg::Path:
        if (path) {
            out.push_back('"');
            appendEscaped(out, *path);
            out.push_back('"');
        } else if (v) {
            appendf(out, "%#llx", ull(v));
        } else {
            out.append("NULL");
        }
        return;
    case Arg::OFlags:
        appendOpenFlags(out, v);
        return;
    case Arg::Mode:
        appendf(out, "%#llo", ull(v));
        return;
    case Arg::Prot:
        appendFlags(out, v, kProt, std::size(kProt), "PROT_NONE");
        return;
    case Arg::MapFlags: {
        // The mapping type is a 2-bit field, the rest flags.
        static constexpr const char* type[] = {nullptr, "MAP_SHARED", "MAP_PRIVATE",
                                               "MAP_SHARED_VALIDATE"};
        const std::uint64_t rest = v & ~std::uint64_t(3);
        if (type[v & 3])
            out.append(type[v & 3]);
        if (rest) {
            if (v & 3)
                out.push_back('|');
            appendFlags(out, rest, kMap + 3, std::size(kMap) - 3);
        } else if (!(v & 3)) {
            out.append("0");
        }
        return;
    }
    case Arg::Clone: {
        const std::uint64_t sig = v & 0xff, rest = v & ~std::uint64_t(0xff);
        if (rest)
            appendFlags(out, rest, kClone, std::size(kClone));
        if (sig) {
            if (rest)
                out.push_back('|');
            appendSignal(out, sig);
        } else if (!rest) {
            out.append("0");
        }
        return;
    }
    case Arg::Signal:
        appendSignal(out, v);
        return;
    case Arg::Family:
        appendFamily(out, v);
        return;
    case Arg::SockType:
        appendSockType(out, v);
        return;
    case Arg::Whence: {
        static constexpr const char* w[] = {"SEEK_SET", "SEEK_CUR", "SEEK_END", "SEEK_DATA",
                                            "SEEK_HOLE"};
        if (v < std::size(w))
            out.append(w[v]);
        else
            appendf(out, "%llu", ull(v));
        return;
    }
    case Arg::MsFlags:
        appendFlags(out, v & 0xffffffffu, kMsFlags, std::size(kMsFlags));
        return;
    case Arg::UmountFl:
        appendFlags(out, v, kUmount, std::size(kUmount));
        return;
    case Arg::AtFlags:
        appendFlags(out, v, kAtFlags, std::size(kAtFlags));
        return;
    }
}

// The errno names of Linux, for return values -1..-133.
const char* errnoName(std::int64_t e) {
    static constexpr const char* names[] = {
        nullptr,   "EPERM",        "ENOENT", "ESRCH",  "EINTR",     "EIO",     "ENXIO",
        "E2BIG",   "ENOEXEC",      "EBADF",  "ECHILD", "EAGAIN",    "ENOMEM",  "EACCES",
        "EFAULT",  "ENOTBLK",      "EBUSY",  "EEXIST", "EXDEV",     "ENODEV",  "ENOTDIR",
        "EISDIR",  "EINVAL",       "ENFILE", "EMFILE", "ENOTTY",    "ETXTBSY", "EFBIG",
        "ENOSPC",  "ESPIPE",       "EROFS",  "EMLINK", "EPIPE",     "EDOM",    "ERANGE",
        "EDEADLK", "ENAMETOOLONG", "ENOLCK", "ENOSYS", "ENOTEMPTY", "ELOOP"};
    if (e > 0 && e < std::int64_t(std::size(names)))
        return names[e];
    switch (e) {
    case 95:
        return "EOPNOTSUPP";
    case 97:
        return "EAFNOSUPPORT";
    case 98:
        return "EADDRINUSE";
    case 99:
        return "EADDRNOTAVAIL";
    case 101:
        return "ENETUNREACH";
    case 104:
        return "ECONNRESET";
    case 110:
        return "ETIMEDOUT";
    case 111:
        return "ECONNREFUSED";
    case 115:
        return "EINPROGRESS";
    case 512:
        return "ERESTARTSYS";
    case 513:
        return "ERESTARTNOINTR";
    case 514:
        return "ERESTARTNOHAND";
    case 516:
        return "ERESTART_RESTARTBLOCK";
    default:
        return nullptr;
    }
}

} // namespace

std::optional<VarsRecord> decodeVars(const Event& e) {
    if (e.id != LTT_EV_VARS)
        return std::nullopt;
    auto d = e.details();
    if (d.size() < LTT_EV_VARS_FIXED)
        return std::nullopt;
    VarsRecord v;
    std::memcpy(&v.changed, d.data(), 4);
    std::memcpy(&v.nr, d.data() + 4, 4);
    if (v.changed & ~LTT_VAR_MASK_ALL)
        return std::nullopt;
    v.nargs = (v.changed & LTT_VAR_BIT(LTT_VAR_ARGS)) ? e.subtype : 0;
    if (v.nargs > LTT_VAR_ARGS_MAX || (!(v.changed & LTT_VAR_BIT(LTT_VAR_ARGS)) && e.subtype))
        return std::nullopt;
    std::size_t need = v.nargs;
    for (unsigned i = 1; i < LTT_VAR_COUNT; ++i)
        need += (v.changed >> i) & 1;
    if (d.size() < LTT_EV_VARS_FIXED + need * 8)
        return std::nullopt;
    const std::byte* p = d.data() + LTT_EV_VARS_FIXED;
    for (unsigned i = 0; i < v.nargs; ++i, p += 8)
        std::memcpy(&v.args[i], p, 8);
    for (unsigned i = 1; i < LTT_VAR_COUNT; ++i)
        if (v.changed & LTT_VAR_BIT(i)) {
            std::memcpy(&v.values[i], p, 8);
            p += 8;
        }
    return v;
}

void appendVarValues(std::string& out, const VarsRecord& v) {
    bool first = true;
    for (unsigned i = 1; i < LTT_VAR_COUNT; ++i) {
        if (!(v.changed & LTT_VAR_BIT(i)))
            continue;
        out.append(first ? "" : "; ");
        first = false;
        for (char c : varName(i))
            out.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
        if (i == LTT_VAR_SIGPENDING)
            appendf(out, " : %#llx", ull(v.values[i]));
        else
            appendf(out, " : %llu", ull(v.values[i]));
    }
}

void appendSyscall(std::string& out, std::uint32_t nr, const std::uint64_t* args, unsigned nargs,
                   const std::string* paths, unsigned npaths) {
    const auto name = syscallName(nr);
    if (name.empty())
        appendf(out, "syscall_%u", nr);
    else
        out.append(name);
    out.push_back('(');
    const CallSpec* c = callSpec(nr);
    unsigned shown = c ? std::min<unsigned>(c->nargs, nargs) : nargs;
    // open and openat show a mode only when one is used, as strace does.
    if (c && (nr == 2 || nr == 257) && shown == c->nargs) {
        const std::uint64_t flags = args[c->nargs - 2];
        if (!(flags & 0x40) && (flags & 0x410000) != 0x410000)
            --shown;
    }
    unsigned pathNo = 0;
    for (unsigned i = 0; i < shown; ++i) {
        if (i)
            out.append(", ");
        if (!c) {
            appendf(out, "%#llx", ull(args[i]));
            continue;
        }
        const std::string* path = nullptr;
        if (c->args[i] == Arg::Path) {
            if (pathNo < npaths)
                path = &paths[pathNo];
            ++pathNo;
        }
        appendArg(out, c->args[i], args[i], path);
    }
    out.push_back(')');
}

void appendSyscallReturn(std::string& out, std::uint32_t nr, std::int64_t ret) {
    const CallSpec* c = callSpec(nr);
    if (ret < 0 && ret >= -4095) {
        const char* n = errnoName(-ret);
        if (n)
            appendf(out, " = -1 %s", n);
        else
            appendf(out, " = -1 errno %lld", ll(-ret));
        return;
    }
    if (c && c->returnsAddress)
        appendf(out, " = %#llx", ull(ret));
    else
        appendf(out, " = %lld", ll(ret));
}

void SyscallTracker::feed(const Event& e) {
    exitLine_m.clear();
    exitCallLength_m = 0;
    switch (e.id) {
    case LTT_EV_SYSCALL_ENTRY: {
        ltt_ev_syscall_entry d;
        Pending& p = pending_m[e.pid];
        p = Pending{};
        if (e.copyDetails(d) >= 12) {
            p.nr = d.nr;
            lastEntryPid_m = e.pid;
            lastEntryCpu_m = e.cpu;
            lastEntryNr_m = d.nr;
        } else {
            lastEntryPid_m = -1;
        }
        return;
    }
    case LTT_EV_VARS: {
        // Only the VARS record right after the entry, on its CPU, holds
        // the entry's arguments.
        const bool forEntry = lastEntryPid_m == e.pid && lastEntryCpu_m == e.cpu;
        lastEntryPid_m = -1;
        if (!forEntry)
            return;
        auto v = decodeVars(e);
        if (!v || !(v->changed & LTT_VAR_BIT(LTT_VAR_ARGS)) || v->nr != lastEntryNr_m)
            return;
        Pending& p = pending_m[e.pid];
        p.nargs = v->nargs;
        p.args = v->args;
        p.haveArgs = true;
        return;
    }
    case LTT_EV_FILE_SYSTEM: {
        lastEntryPid_m = -1;
        if (e.subtype != LTT_FS_OPEN && e.subtype != LTT_FS_EXEC)
            return;
        auto it = pending_m.find(e.pid);
        if (it == pending_m.end() || !it->second.haveArgs || it->second.npaths)
            return;
        ltt_ev_file_system d;
        const std::size_t n = e.copyDetails(d);
        if (n <= LTT_EV_FS_FIXED)
            return;
        it->second.paths[0].assign(d.name, strnlen(d.name, n - LTT_EV_FS_FIXED));
        it->second.npaths = 1;
        return;
    }
    case LTT_EV_MOUNT: {
        lastEntryPid_m = -1;
        auto it = pending_m.find(e.pid);
        if (it == pending_m.end() || !it->second.haveArgs)
            return;
        ltt_ev_mount d;
        const std::size_t n = e.copyDetails(d);
        if (n <= LTT_EV_MOUNT_FIXED)
            return;
        const std::size_t room = n - LTT_EV_MOUNT_FIXED;
        const std::size_t tlen = strnlen(d.names, room);
        std::string target(d.names, tlen);
        Pending& p = it->second;
        if (e.subtype == LTT_MOUNT_MOUNT && tlen + 1 < room) {
            // mount(source, target, ...): the record holds target, source.
            p.paths[0].assign(d.names + tlen + 1, strnlen(d.names + tlen + 1, room - tlen - 1));
            p.paths[1] = std::move(target);
            p.npaths = 2;
        } else if (e.subtype == LTT_MOUNT_UMOUNT) {
            p.paths[0] = std::move(target);
            p.npaths = 1;
        }
        return;
    }
    case LTT_EV_SYSCALL_EXIT: {
        lastEntryPid_m = -1;
        auto it = pending_m.find(e.pid);
        if (it == pending_m.end())
            return;
        ltt_ev_syscall_exit d;
        if (it->second.haveArgs && e.detailsAs(d)) {
            const Pending& p = it->second;
            appendSyscall(exitLine_m, p.nr, p.args.data(), p.nargs, p.paths, p.npaths);
            exitCallLength_m = exitLine_m.size();
            appendSyscallReturn(exitLine_m, p.nr, d.ret);
        }
        pending_m.erase(it);
        return;
    }
    default:
        if (e.id != LTT_EV_BLOCK_START && e.id != LTT_EV_BLOCK_END && e.id != LTT_EV_HEARTBEAT)
            lastEntryPid_m = -1;
        return;
    }
}

// --------------------------------------------------------------- VarSeries

std::uint64_t VarSeries::valueAt(std::uint64_t t) const {
    if (ns.empty())
        return 0;
    const auto it = std::upper_bound(ns.begin(), ns.end(), t);
    return value[it == ns.begin() ? 0 : std::size_t(it - ns.begin()) - 1];
}

std::pair<std::uint64_t, std::uint64_t> VarSeries::range(std::uint64_t t0, std::uint64_t t1) const {
    if (ns.empty())
        return {0, 0};
    // The point holding at t0, then every point before t1: whole blocks
    // from their minimum and maximum, the ends point by point.
    const auto up = std::upper_bound(ns.begin(), ns.end(), t0);
    std::size_t i = up == ns.begin() ? 0 : std::size_t(up - ns.begin()) - 1;
    const std::size_t end =
        std::max(i + 1, std::size_t(std::lower_bound(ns.begin(), ns.end(), t1) - ns.begin()));
    std::uint64_t lo = value[i], hi = value[i];
    while (i < end) {
        if (i % kBlock == 0 && i + kBlock <= end) {
            lo = std::min(lo, blockMin[i / kBlock]);
            hi = std::max(hi, blockMax[i / kBlock]);
            i += kBlock;
            continue;
        }
        lo = std::min(lo, value[i]);
        hi = std::max(hi, value[i]);
        ++i;
    }
    return {lo, hi};
}

bool VarSeriesBuilder::charted(unsigned var) {
    switch (var) {
    case LTT_VAR_FREEMEM:
    case LTT_VAR_TOTALMEM:
    case LTT_VAR_PGFAULT:
    case LTT_VAR_PGPGIN:
    case LTT_VAR_PGPGOUT:
    case LTT_VAR_PSWPIN:
    case LTT_VAR_PSWPOUT:
    case LTT_VAR_LOADAVG:
        return true;
    default:
        return false;
    }
}

namespace {
bool perCpuCounter(unsigned var) {
    return var >= LTT_VAR_PGFAULT && var <= LTT_VAR_PSWPOUT;
}
} // namespace

void VarSeriesBuilder::add(unsigned var, std::uint64_t ns, std::uint64_t value) {
    VarSeries& s = series_m[var];
    if (!s.value.empty() && s.value.back() == value)
        return;
    if (!s.ns.empty() && s.ns.back() == ns) {
        // Two records at one time: the later holds from then on.
        s.value.back() = value;
        if (s.value.size() > 1 && s.value[s.value.size() - 2] == value) {
            s.ns.pop_back();
            s.value.pop_back();
        }
        return;
    }
    s.ns.push_back(ns);
    s.value.push_back(value);
}

void VarSeriesBuilder::feed(const Event& e, std::uint64_t ns) {
    if (e.id != LTT_EV_VARS)
        return;
    const auto v = decodeVars(e);
    if (!v)
        return;
    if (e.cpu >= cpus_m.size())
        cpus_m.resize(std::size_t(e.cpu) + 1);
    CpuCounters& cpu = cpus_m[e.cpu];
    for (unsigned var = 0; var < LTT_VAR_COUNT; ++var) {
        if (!(v->changed & LTT_VAR_BIT(var)) || !charted(var))
            continue;
        const std::uint64_t x = v->values[var];
        if (!perCpuCounter(var)) {
            add(var, ns, x);
            continue;
        }
        if ((cpu.known & LTT_VAR_BIT(var)) && x >= cpu.last[var])
            total_m[var] += x - cpu.last[var];
        cpu.known |= LTT_VAR_BIT(var);
        cpu.last[var] = x;
        add(var, ns, total_m[var]);
    }
}

std::vector<VarSeries> VarSeriesBuilder::finish() {
    std::vector<VarSeries> out;
    for (unsigned var = 0; var < LTT_VAR_COUNT; ++var) {
        VarSeries& s = series_m[var];
        if (s.ns.empty())
            continue;
        s.var = var;
        s.counter = perCpuCounter(var);
        for (std::size_t b = 0; b < s.value.size(); b += VarSeries::kBlock) {
            const auto first = s.value.begin() + std::ptrdiff_t(b);
            const auto last =
                s.value.begin() + std::ptrdiff_t(std::min(s.value.size(), b + VarSeries::kBlock));
            const auto [lo, hi] = std::minmax_element(first, last);
            s.blockMin.push_back(*lo);
            s.blockMax.push_back(*hi);
        }
        out.push_back(std::move(s));
        s = VarSeries{};
    }
    return out;
}

} // namespace ltt
