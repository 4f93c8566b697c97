// Symbolizer, AddressSpace and the call-site walk, on the wl_callsites
// programs built on this host (tests/workloads): static and dynamic, PIE
// and not, and a stripped copy whose addresses must match what `nm` gives
// for its unstripped twin.
#include "trace_builder.hpp"

#include <cinttypes>
#include <cstdio>
#include <elf.h>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <libltt/callsites.hpp>
#include <libltt/event_format.hpp>
#include <libltt/symbolize.hpp>
#include <ltt/module_events.h>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ltt;

namespace {

const std::string kDir = LTT_WORKLOAD_DIR;

std::vector<char> slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// `nm`'s value of `symbol` in `path`.
std::uint64_t nmValue(const std::string& path, const std::string& symbol) {
    std::string cmd = "nm " + path;
    std::FILE* p = popen(cmd.c_str(), "r");
    EXPECT_NE(p, nullptr);
    char line[512];
    std::uint64_t v = 0;
    while (p && std::fgets(line, sizeof line, p)) {
        char name[256], type;
        unsigned long long a;
        if (std::sscanf(line, "%llx %c %255s", &a, &type, name) == 3 && symbol == name)
            v = a;
    }
    if (p)
        pclose(p);
    EXPECT_NE(v, 0u) << symbol << " not in nm " << path;
    return v;
}

// The file offset of ELF address `vaddr` (its PT_LOAD segment's mapping).
std::uint64_t fileOffset(const std::vector<char>& elf, std::uint64_t vaddr) {
    Elf64_Ehdr eh;
    std::memcpy(&eh, elf.data(), sizeof eh);
    for (unsigned i = 0; i < eh.e_phnum; ++i) {
        Elf64_Phdr ph;
        std::memcpy(&ph, elf.data() + eh.e_phoff + i * eh.e_phentsize, sizeof ph);
        if (ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz)
            return vaddr - ph.p_vaddr + ph.p_offset;
    }
    ADD_FAILURE() << "no segment maps " << std::hex << vaddr;
    return 0;
}

// The address right after the `syscall` instruction in the function at
// `vaddr`: what a system call entry made there records.
std::uint64_t syscallReturn(const std::vector<char>& elf, std::uint64_t vaddr) {
    const std::uint64_t off = fileOffset(elf, vaddr);
    for (std::uint64_t i = off; i + 1 < elf.size() && i < off + 256; ++i)
        if (elf[i] == 0x0f && elf[i + 1] == 0x05)
            return vaddr + (i - off) + 2;
    ADD_FAILURE() << "no syscall instruction";
    return 0;
}

std::string hex(std::uint64_t v) {
    return Symbolizer::hex(v);
}

} // namespace

class SymbolizeVariant : public ::testing::TestWithParam<const char*> {};

TEST_P(SymbolizeVariant, NamesTheFunctionOfEachSyscallSite) {
    const std::string name = std::string("wl_callsites-") + GetParam();
    const std::string path = kDir + "/" + name;
    const auto elf = slurp(path);
    ASSERT_GT(elf.size(), sizeof(Elf64_Ehdr)) << path;
    Symbolizer sym;
    for (const char* fn : {"make_getpids", "make_more_getpids"}) {
        const std::uint64_t start = nmValue(path, fn);
        const std::uint64_t ip = syscallReturn(elf, start);
        const auto& r = sym.resolveFile(path, fileOffset(elf, ip), 0x7f0000000000 + ip);
        EXPECT_EQ(r.text, name + "!" + fn + "+" + hex(ip - start));
        EXPECT_EQ(r.function, fn);
        EXPECT_EQ(r.elfAddr, ip);
    }
    EXPECT_EQ(sym.filesOpened(), 1u); // both resolved from the one opened file
}

INSTANTIATE_TEST_SUITE_P(Builds, SymbolizeVariant,
                         ::testing::Values("static", "static-pie", "dyn", "dyn-nopie"),
                         [](const auto& info) {
                             std::string n = info.param;
                             for (char& c : n)
                                 if (c == '-')
                                     c = '_';
                             return n;
                         });

TEST(Symbolize, StrippedGivesTheElfAddressNmGivesForTheTwin) {
    const std::string twin = kDir + "/wl_callsites-dyn";
    const std::string path = kDir + "/wl_callsites-stripped";
    const auto elf = slurp(path);
    ASSERT_FALSE(elf.empty());
    Symbolizer sym;
    for (const char* fn : {"make_getpids", "make_more_getpids"}) {
        const std::uint64_t start = nmValue(twin, fn);
        const std::uint64_t ip = syscallReturn(elf, start);
        const auto& r = sym.resolveFile(path, fileOffset(elf, ip), 0x55550000 + ip);
        EXPECT_EQ(r.text, "wl_callsites-stripped+" + hex(ip));
        EXPECT_TRUE(r.function.empty());
        EXPECT_TRUE(r.inFile);
    }
}

TEST(Symbolize, GoneOrNotElfGivesTheAddress) {
    Symbolizer sym;
    EXPECT_EQ(sym.resolveFile("/nonexistent/prog", 0x1139, 0x55d0c0a01139).text, "0x55d0c0a01139");
    EXPECT_EQ(sym.resolveFile(std::string(LTT_SOURCE_DIR) + "/README.md", 0x10, 0x401010).text,
              "0x401010");
    // Asked again: answered from the cache, the file not opened again.
    EXPECT_EQ(sym.resolveFile("/nonexistent/prog", 0x1139, 0x55d0c0a01139).text, "0x55d0c0a01139");
    EXPECT_EQ(sym.filesOpened(), 2u);
}

TEST(Symbolize, KallsymsResolveKernelAddresses) {
    char tmpl[] = "/tmp/ltt-kallsyms-XXXXXX";
    const int fd = mkstemp(tmpl);
    ASSERT_GE(fd, 0);
    const std::string text = "ffffffff81000000 T _stext\n"
                             "ffffffff81001000 t do_syscall_64\n"
                             "ffffffff81002000 D some_data\n"
                             "ffffffffc0001000 t ltt_callback\t[ltt_tracer]\n";
    ASSERT_EQ(write(fd, text.data(), text.size()), ssize_t(text.size()));
    close(fd);
    Symbolizer sym;
    std::string err;
    ASSERT_TRUE(sym.loadKallsyms(tmpl, &err)) << err;
    EXPECT_EQ(sym.resolveKernel(0xffffffff81001010).text, "do_syscall_64+0x10");
    // Data symbols are skipped: still inside do_syscall_64.
    EXPECT_EQ(sym.resolveKernel(0xffffffff81002008).text, "do_syscall_64+0x1008");
    EXPECT_EQ(sym.resolveKernel(0xffffffffc0001004).text, "ltt_tracer!ltt_callback+0x4");
    EXPECT_EQ(sym.resolveKernel(0x1000).text, "0x1000");

    // A copy made without the right to see addresses: all zero.
    std::ofstream(tmpl) << "0000000000000000 T _stext\n0000000000000000 t f\n";
    Symbolizer hidden;
    EXPECT_FALSE(hidden.loadKallsyms(tmpl, &err));
    EXPECT_NE(err.find("holds no kernel address"), std::string::npos) << err;
    EXPECT_EQ(hidden.resolveKernel(0xffffffff81001010).text, "0xffffffff81001010");
    unlink(tmpl);
    EXPECT_FALSE(hidden.loadKallsyms("/nonexistent/kallsyms", &err));
    EXPECT_EQ(err, "cannot read /nonexistent/kallsyms: No such file or directory");
}

TEST(AddressSpace, NewMappingsReplaceWhatTheyOverlap) {
    AddressSpace as;
    auto a = std::make_shared<const std::string>("/a");
    auto b = std::make_shared<const std::string>("/b");
    as.add(0x1000, 0x5000, 0, a);
    as.add(0x2000, 0x3000, 0x100000, b); // splits /a in two
    EXPECT_EQ(as.size(), 3u);
    EXPECT_EQ(as.find(0x1800)->path, "/a");
    EXPECT_EQ(as.find(0x1800)->fileOffset, 0x800u);
    EXPECT_EQ(as.find(0x2010)->path, "/b");
    EXPECT_EQ(as.find(0x2010)->fileOffset, 0x100010u);
    EXPECT_EQ(as.find(0x4000)->path, "/a");
    EXPECT_EQ(as.find(0x4000)->fileOffset, 0x3000u); // the right part keeps its file offsets
    EXPECT_FALSE(as.find(0x5000));
    EXPECT_FALSE(as.find(0xfff));
    as.clear();
    EXPECT_FALSE(as.find(0x1800));
}

namespace {

ltt_ev_map mapRecord(std::uint64_t start, std::uint64_t length, std::uint64_t offset,
                     const std::string& path) {
    ltt_ev_map m{};
    m.start = start;
    m.length = length;
    m.offset = offset;
    std::memcpy(m.path, path.c_str(), path.size() + 1);
    return m;
}

} // namespace

// A process from the snapshot makes calls through its snapshot mapping;
// its child execs another program, mapped by a MAP record: each call is
// named by the mapping current at its time, and counted and timed.
TEST(CallSites, SnapshotMapsThenExecAndMapRecords) {
    const std::string dyn = kDir + "/wl_callsites-dyn";
    const std::string st = kDir + "/wl_callsites-static";
    const auto dynElf = slurp(dyn), stElf = slurp(st);
    const std::uint64_t dynIp = syscallReturn(dynElf, nmValue(dyn, "make_getpids"));
    const std::uint64_t stIp = syscallReturn(stElf, nmValue(st, "make_more_getpids"));
    const std::uint64_t dynOff = fileOffset(dynElf, dynIp);
    const std::uint64_t base = 0x555555554000;

    ProcSnapshot snap;
    snap.tasks.push_back({100, 1, 100, 100, 0, 0, 'S', false, "wl_callsites-dyn"});
    // The whole file mapped from offset 0 at `base` (the text segment's
    // pages are where they are in the file, shifted by base).
    snap.maps.push_back({100, base, base + 0x100000, "r-xp", 0, dyn});

    test::TraceBuilder tb(1);
    tb.header().config.event_mask |= LTT_EV_BIT(LTT_EV_MAP);
    tb.header().config.details_mask |= LTT_EV_BIT(LTT_EV_MAP);
    tb.block(0, 2000, 100);
    std::uint64_t t = 2000;
    for (int i = 0; i < 3; ++i) {
        tb.ev(t += 10, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{base + dynOff, 39, 0});
        tb.ev(t += 100, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{100});
    }
    tb.ev(t += 10, LTT_EV_PROCESS, LTT_PROCESS_FORK, ltt_ev_process{101, 0, 0x11});
    tb.ev(t += 10, LTT_EV_SCHEDCHANGE, 0, ltt_ev_schedchange{101, 100, 1, 0});
    ltt_ev_file_system ex{};
    std::memcpy(ex.name, st.c_str(), st.size() + 1);
    tb.evBytes(t += 10, LTT_EV_FILE_SYSTEM, LTT_FS_EXEC, &ex, LTT_EV_FS_FIXED + st.size() + 1);
    // The static program's text, mapped where the ELF says (not PIE).
    const ltt_ev_map m = mapRecord(0x401000, 0x100000, 0x1000, st);
    tb.evBytes(t += 10, LTT_EV_MAP, LTT_MAP_EXEC, &m, LTT_EV_MAP_FIXED + st.size() + 1);
    for (int i = 0; i < 2; ++i) {
        tb.ev(t += 10, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{stIp, 39, 0});
        tb.ev(t += 50, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{101});
    }
    // The child's old mapping is gone after the exec: the address is raw.
    tb.ev(t += 10, LTT_EV_SYSCALL_ENTRY, 0, ltt_ev_syscall_entry{base + dynOff, 39, 0});
    tb.ev(t += 7, LTT_EV_SYSCALL_EXIT, 0, ltt_ev_syscall_exit{101});
    tb.end(t + 10);
    const auto bytes = tb.bytes();
    TraceError err;
    auto r = TraceReader::openMemory(bytes, "callsites.trace", &err);
    ASSERT_TRUE(r) << err.str();

    Symbolizer sym;
    const CallSiteReport rep = analyzeCallSites(*r, &snap, sym);
    ASSERT_FALSE(rep.error);
    EXPECT_TRUE(rep.mapsRecorded);
    EXPECT_EQ(rep.mapRecords, 1u);
    EXPECT_EQ(rep.unresolved, 1u);
    ASSERT_EQ(rep.processes.size(), 2u);
    const auto& p = rep.processes[0];
    EXPECT_EQ(p.pid, 100);
    ASSERT_EQ(p.sites.size(), 1u);
    EXPECT_EQ(p.sites[0].site.rfind("wl_callsites-dyn!make_getpids+0x", 0), 0u) << p.sites[0].site;
    EXPECT_EQ(p.sites[0].count, 3u);
    EXPECT_EQ(p.sites[0].timed, 3u);
    EXPECT_EQ(p.sites[0].totalNs, 300u);
    const auto& c = rep.processes[1];
    EXPECT_EQ(c.pid, 101);
    EXPECT_EQ(c.name, "wl_callsites-static");
    ASSERT_EQ(c.sites.size(), 2u);
    EXPECT_EQ(c.sites[0].site.rfind("wl_callsites-static!make_more_getpids+0x", 0), 0u)
        << c.sites[0].site;
    EXPECT_EQ(c.sites[0].count, 2u);
    EXPECT_EQ(c.sites[0].totalNs, 100u);
    EXPECT_EQ(c.sites[1].site, hex(base + dynOff));
    EXPECT_EQ(c.sites[1].totalNs, 7u);

    // -p: only that process.
    const CallSiteReport one = analyzeCallSites(*r, &snap, sym, 101);
    ASSERT_EQ(one.processes.size(), 1u);
    EXPECT_EQ(one.processes[0].pid, 101);
}

TEST(CallSites, KallsymsPathBesideTheTrace) {
    EXPECT_EQ(kallsymsPathFor("/t/out.trace"), "/t/out.kallsyms");
    EXPECT_EQ(kallsymsPathFor("out"), "out.kallsyms");
}

TEST(CallSites, DumpDescribesMapRecords) {
    test::TraceBuilder tb(1);
    tb.block(0, 2000, 7);
    const ltt_ev_map m = mapRecord(0x7f0000001000, 0x2000, 0x1000, "/lib/x\n.so");
    tb.evBytes(2010, LTT_EV_MAP, LTT_MAP_MMAP, &m, LTT_EV_MAP_FIXED + 11);
    tb.end(2100);
    const auto bytes = tb.bytes();
    TraceError err;
    auto r = TraceReader::openMemory(bytes, "map.trace", &err);
    ASSERT_TRUE(r) << err.str();
    TraceCursor c = r->begin();
    while (c.valid() && c.event().id != LTT_EV_MAP)
        c.next();
    ASSERT_TRUE(c.valid());
    EXPECT_EQ(describeEvent(c.event()), "MAP : mmap; START : 0x7f0000001000; LENGTH : 0x2000; "
                                        "OFFSET : 0x1000; PATH : /lib/x\\n.so");
}
