// x86_64 system call names (event_names.hpp), from the generated table
// syscall_table_x86_64.inc (gen-syscalls.sh).
#include <array>
#include <cstdint>
#include <libltt/event_names.hpp>

namespace ltt {

namespace {

struct SyscallEntry {
    std::uint32_t nr;
    const char* name;
};
constexpr SyscallEntry kSyscallList[] = {
#include "syscall_table_x86_64.inc"
};

constexpr std::uint32_t maxSyscall() {
    std::uint32_t m = 0;
    for (const auto& e : kSyscallList)
        m = e.nr > m ? e.nr : m;
    return m;
}
constexpr std::uint32_t kSyscallTableSize = maxSyscall() + 1;

constexpr std::array<const char*, kSyscallTableSize> makeSyscallTable() {
    std::array<const char*, kSyscallTableSize> t{};
    for (const auto& e : kSyscallList)
        t[e.nr] = e.name;
    return t;
}
constexpr auto kSyscallTable = makeSyscallTable();

} // namespace

std::string_view syscallName(std::uint32_t nr) {
    if (nr < kSyscallTableSize && kSyscallTable[nr])
        return kSyscallTable[nr];
    return {};
}

std::uint32_t syscallTableSize() {
    return kSyscallTableSize;
}

} // namespace ltt
