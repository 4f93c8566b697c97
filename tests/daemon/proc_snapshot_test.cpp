// The /proc snapshot: parsers on captured text, and a snapshot of the host's
// own /proc checked against what this test process knows about itself.
#include "proc_snapshot.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <gtest/gtest.h>
#include <libltt/proc_file.hpp>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

using namespace ltt;
using namespace ltt::daemon;

TEST(ParseStat, CommWithSpacesAndParens) {
    auto f = parseStat("1234 (my (odd) name) S 1 1234 1234 0 -1 4194560 100 0 0 0");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->comm, "my (odd) name");
    EXPECT_EQ(f->state, 'S');
    EXPECT_EQ(f->ppid, 1);
    EXPECT_EQ(f->pgrp, 1234);
    EXPECT_EQ(f->flags, 4194560u);
}

TEST(ParseStat, KernelThreadFlag) {
    auto f = parseStat("2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0");
    ASSERT_TRUE(f);
    EXPECT_NE(f->flags & 0x00200000, 0u);
}

TEST(ParseStat, Malformed) {
    EXPECT_FALSE(parseStat(""));
    EXPECT_FALSE(parseStat("12 comm S 1 2"));
    EXPECT_FALSE(parseStat("12 (x) S"));
    EXPECT_FALSE(parseStat("12 (x) S a b c d e f"));
}

TEST(ParseStatus, EffectiveIds) {
    auto f = parseStatus("Name:\tbash\nTgid:\t77\nPid:\t78\nUid:\t1000\t0\t0\t0\n"
                         "Gid:\t100\t5\t5\t5\n");
    EXPECT_EQ(f.tgid, 77);
    EXPECT_EQ(f.uid, 0);
    EXPECT_EQ(f.gid, 5);
}

TEST(ParseInterrupts, NumberedAndLabelledRows) {
    const char* text = "           CPU0       CPU1       \n"
                       "  0:         35          0   IO-APIC   2-edge      timer\n"
                       "  1:          9          0   IO-APIC   1-edge      i8042\n"
                       "  4:        120         14   IO-APIC   4-edge      ttyS0\n"
                       " 11:          0          0   IO-APIC  11-fasteoi   virtio0, uhci_hcd:usb1\n"
                       " 24:          0          0  PCI-MSI 65536-edge      nvme0q0\n"
                       " 25:          0          0   IO-APIC   9-fasteoi\n"
                       "NMI:          0          0   Non-maskable interrupts\n"
                       "LOC:      12345      23456   Local timer interrupts\n"
                       "ERR:          0\n"
                       "MIS:          0\n";
    auto irqs = parseInterrupts(text);
    ASSERT_EQ(irqs.size(), 8u);
    EXPECT_EQ(irqs[0].irq, "0");
    EXPECT_EQ(irqs[0].name, "timer");
    EXPECT_EQ(irqs[2].irq, "4");
    EXPECT_EQ(irqs[2].name, "ttyS0");
    EXPECT_EQ(irqs[3].name, "virtio0, uhci_hcd:usb1");
    EXPECT_EQ(irqs[4].irq, "24");
    EXPECT_EQ(irqs[4].name, "nvme0q0");
    EXPECT_EQ(irqs[5].name, "IO-APIC"); // no action: the chip
    EXPECT_EQ(irqs[6].irq, "NMI");
    EXPECT_EQ(irqs[6].name, "Non-maskable interrupts");
    EXPECT_EQ(irqs[7].irq, "LOC");
    EXPECT_EQ(irqs[7].name, "Local timer interrupts");
}

TEST(ParseMaps, ExecutableMappingsOnly) {
    const char* text =
        "55d0c0a00000-55d0c0a4e000 r-xp 00002000 08:01 123 /usr/bin/my prog\n"
        "55d0c0a4e000-55d0c0a50000 r--p 00050000 08:01 123 /usr/bin/my prog\n"
        "7ffd1b3f2000-7ffd1b3f4000 r-xp 00000000 00:00 0                          [vdso]\n"
        "7f0000000000-7f0000001000 rwxp 00000000 00:00 0 \n";
    auto maps = parseMaps(42, text);
    ASSERT_EQ(maps.size(), 3u);
    EXPECT_EQ(maps[0].pid, 42);
    EXPECT_EQ(maps[0].start, 0x55d0c0a00000u);
    EXPECT_EQ(maps[0].end, 0x55d0c0a4e000u);
    EXPECT_EQ(maps[0].perm, "r-xp");
    EXPECT_EQ(maps[0].offset, 0x2000u);
    EXPECT_EQ(maps[0].path, "/usr/bin/my prog");
    EXPECT_EQ(maps[1].path, "[vdso]");
    EXPECT_EQ(maps[2].path, "");
}

TEST(HostProc, SnapshotKnowsThisProcessAndItsThreads) {
    std::atomic<bool> stop{false};
    std::atomic<int> tid{0};
    std::thread t([&] {
        tid = static_cast<int>(::syscall(SYS_gettid));
        while (!stop)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    while (!tid)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));

    ProcSnapshot snap = takeProcSnapshot();
    stop = true;
    t.join();

    int self = ::getpid();
    auto find = [&](int pid) {
        return std::find_if(snap.tasks.begin(), snap.tasks.end(),
                            [&](const ProcTask& x) { return x.pid == pid; });
    };
    auto me = find(self);
    ASSERT_NE(me, snap.tasks.end());
    EXPECT_EQ(me->ppid, ::getppid());
    EXPECT_EQ(me->tgid, self);
    EXPECT_EQ(me->pgrp, ::getpgrp());
    EXPECT_EQ(me->uid, static_cast<std::int64_t>(::geteuid()));
    EXPECT_EQ(me->gid, static_cast<std::int64_t>(::getegid()));
    EXPECT_FALSE(me->kthread);
    EXPECT_EQ(me->name.substr(0, 15), std::string("tracedaemon_test").substr(0, 15));
    EXPECT_EQ(me->state, 'R');

    auto thread = find(tid);
    ASSERT_NE(thread, snap.tasks.end()) << "thread " << tid << " missing";
    EXPECT_EQ(thread->tgid, self);

    // Our own executable's text is among the mappings.
    char exe[4096];
    ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    ASSERT_GT(n, 0);
    exe[n] = 0;
    bool mapped = std::any_of(snap.maps.begin(), snap.maps.end(), [&](const ProcMap& m) {
        return m.pid == self && m.path == exe && m.perm[2] == 'x';
    });
    EXPECT_TRUE(mapped) << exe;

    // Kernel threads, when this PID namespace shows them.
    auto kthreadd = find(2);
    if (kthreadd != snap.tasks.end() && kthreadd->name == "kthreadd") {
        EXPECT_TRUE(kthreadd->kthread);
    }
    // Every task line is complete.
    for (const auto& x : snap.tasks) {
        EXPECT_GT(x.pid, 0);
        EXPECT_GE(x.ppid, 0);
        EXPECT_GT(x.tgid, 0);
    }
}

TEST(HostProc, WrittenFileReadsBack) {
    ProcSnapshot snap = takeProcSnapshot();
    std::string path = ::testing::TempDir() + "/snap.proc";
    writeProcFile(path, snap);
    ProcParseError error;
    auto back = readProcFile(path, &error);
    ASSERT_TRUE(back) << error.str();
    EXPECT_EQ(back->tasks.size(), snap.tasks.size());
    EXPECT_EQ(back->maps.size(), snap.maps.size());
    EXPECT_EQ(back->irqs.size(), snap.irqs.size());
    std::remove(path.c_str());
}

// Writes a file of a fake /proc tree.
static void writeFile(const std::string& path, const std::string& text) {
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_TRUE(f);
    std::fputs(text.c_str(), f);
    std::fclose(f);
}

TEST(FakeProc, VanishedAndOddEntriesAreSkipped) {
    std::string root = ::testing::TempDir() + "/fakeproc";
    std::system(("rm -rf " + root + " && mkdir -p " + root + "/10/task/10 " + root +
                 "/10/task/11 " + root + "/20/task " + root + "/self " + root + "/30/task/30")
                    .c_str());
    writeFile(root + "/10/task/10/stat", "10 (main) S 1 10 10 0 -1 0 0 0");
    writeFile(root + "/10/task/10/status", "Tgid:\t10\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n");
    writeFile(root + "/10/task/11/stat", "11 (worker) R 1 10 10 0 -1 0 0 0");
    writeFile(root + "/10/maps", "00400000-00401000 r-xp 00000000 00:00 1 /bin/main\n");
    writeFile(root + "/30/task/30/stat", "garbage");
    writeFile(root + "/interrupts", "     CPU0\n  1:   5   IO-APIC   1-edge   i8042\n");
    ProcSnapshot s = takeProcSnapshot(root);
    ASSERT_EQ(s.tasks.size(), 2u);
    EXPECT_EQ(s.tasks[0].name, "main");
    EXPECT_EQ(s.tasks[1].name, "worker");
    EXPECT_EQ(s.tasks[1].tgid, 10); // no status file: the process's PID
    EXPECT_EQ(s.tasks[1].uid, -1);
    ASSERT_EQ(s.maps.size(), 1u);
    EXPECT_EQ(s.maps[0].path, "/bin/main");
    ASSERT_EQ(s.irqs.size(), 1u);
    EXPECT_EQ(s.irqs[0].name, "i8042");
}

TEST(FakeProc, RestrictedSnapshotKeepsTheUsersOwnTasks) {
    std::string root = ::testing::TempDir() + "/fakeproc-own";
    std::system(("rm -rf " + root + " && mkdir -p " + root + "/10/task/10 " + root +
                 "/20/task/20 " + root + "/30/task/30")
                    .c_str());
    // 10: root's; 20: uid 1000's; 30: a setuid program uid 1000 runs (real 1000).
    writeFile(root + "/10/task/10/stat", "10 (rootd) S 1 10 10 0 -1 0 0 0");
    writeFile(root + "/10/task/10/status", "Tgid:\t10\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n");
    writeFile(root + "/10/maps", "00400000-00401000 r-xp 00000000 00:00 1 /bin/rootd\n");
    writeFile(root + "/20/task/20/stat", "20 (mine) S 1 20 20 0 -1 0 0 0");
    writeFile(root + "/20/task/20/status",
              "Tgid:\t20\nUid:\t1000\t1000\t1000\t1000\nGid:\t100\t100\t100\t100\n");
    writeFile(root + "/20/maps", "00400000-00401000 r-xp 00000000 00:00 1 /bin/mine\n");
    writeFile(root + "/30/task/30/stat", "30 (passwd) S 20 20 20 0 -1 0 0 0");
    writeFile(root + "/30/task/30/status",
              "Tgid:\t30\nUid:\t1000\t0\t0\t0\nGid:\t100\t100\t100\t100\n");
    ProcSnapshot all = takeProcSnapshot(root);
    EXPECT_EQ(all.tasks.size(), 3u);
    ProcSnapshot own = takeProcSnapshot(root, 1000);
    ASSERT_EQ(own.tasks.size(), 2u);
    EXPECT_EQ(own.tasks[0].name, "mine");
    EXPECT_EQ(own.tasks[1].name, "passwd");
    ASSERT_EQ(own.maps.size(), 1u);
    EXPECT_EQ(own.maps[0].path, "/bin/mine");
    EXPECT_TRUE(takeProcSnapshot(root, 2000).tasks.empty());
}
