// TraceWriter and makeFileHeader: what they write is what TraceReader reads.
#include "sibling_program.hpp"
#include "trace_builder.hpp"

#include <csignal>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <libltt/private_file.hpp>
#include <libltt/proc_file.hpp>
#include <libltt/trace_reader.hpp>
#include <libltt/trace_writer.hpp>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

TEST(TraceWriter, WritesHeaderAndWholeBlocks) {
    ltt_trace_info info{};
    info.abi_version = LTT_ABI_VERSION;
    info.ncpus = 2;
    info.tsc_khz = 2000000;
    info.anchor_tsc = 500;
    info.anchor_realtime_ns = 123456789;
    info.config.event_mask = LTT_EV_MASK_CORE;
    const ltt_file_header h = ltt::makeFileHeader(info, "unit 1.0", ltt::test::defaultFormat());
    EXPECT_EQ(std::string(h.producer), "unit 1.0");
    EXPECT_EQ(std::string(h.sysname), "Linux");
    EXPECT_EQ(h.header_size, sizeof(ltt_file_header));
    EXPECT_EQ(h.version, ltt::test::defaultFormat());
    EXPECT_EQ(ltt::makeFileHeader(info, "unit").version, LTT_FILE_VERSION);
    EXPECT_EQ(h.config.event_mask, LTT_EV_MASK_CORE);

    ltt::test::TraceBuilder b(2);
    b.block(1, 600, 7).ev(700, LTT_EV_KERNEL_TIMER).end(800);
    const auto built = b.bytes();
    const std::span<const std::byte> block(built.data() + sizeof(ltt_file_header),
                                           built.size() - sizeof(ltt_file_header));
    const std::string path = ::testing::TempDir() + "/w.trace";
    {
        ltt::TraceWriter w(path, h);
        w.append(block);
        w.sync();
        EXPECT_EQ(w.bytesWritten(), sizeof(ltt_file_header) + block.size());
        w.close();
        w.close(); // idempotent
        EXPECT_THROW(w.append(block), std::system_error);
    }
    ltt::TraceError e;
    auto r = ltt::TraceReader::open(path, &e);
    ASSERT_TRUE(r) << e.str();
    EXPECT_EQ(r->header().tsc_khz, 2000000u);
    EXPECT_EQ(r->eventCount(), 3u);
    EXPECT_EQ(r->nsFromAnchor(700), 100u);
}

TEST(TraceWriter, CreateFailureNamesThePath) {
    ltt_file_header h{};
    try {
        ltt::TraceWriter w("/nonexistent/dir/x.trace", h);
        FAIL() << "no exception";
    } catch (const std::system_error& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/x.trace"), std::string::npos);
    }
}

// Output files hold kernel addresses and every user's file names: they are
// created 0600, and a path planted in a shared directory (a symbolic link, a
// FIFO, a hard link, another user's file) is refused, never written through.
namespace {

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void spit(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

mode_t modeOf(const std::string& path) {
    struct stat st {};
    EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
    return st.st_mode & 07777;
}

// The message of the exception `f` throws, or "" when it throws none.
template <class F> std::string thrown(F f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

struct PrivateDir {
    std::string dir = ::testing::TempDir() + "/private-" + std::to_string(::getpid());
    PrivateDir() {
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
    }
    ~PrivateDir() { std::filesystem::remove_all(dir); }
};

} // namespace

TEST(TraceWriter, CreatesTheFileMode0600WhateverTheUmask) {
    PrivateDir d;
    const std::string fresh = d.dir + "/fresh.trace", old = d.dir + "/old.trace";
    spit(old, "an older, longer trace of another run");
    ::chmod(old.c_str(), 0644);
    mode_t mask = ::umask(0);
    {
        ltt::TraceWriter a(fresh, ltt_file_header{});
        ltt::TraceWriter b(old, ltt_file_header{});
    }
    ::umask(mask);
    EXPECT_EQ(modeOf(fresh), 0600u);
    EXPECT_EQ(modeOf(old), 0600u);
    EXPECT_EQ(slurp(old).size(), sizeof(ltt_file_header)) << "the old content is truncated";
}

TEST(TraceWriter, RefusesASymbolicLinkAndLeavesItsTargetAlone) {
    PrivateDir d;
    const std::string victim = d.dir + "/passwd", link = d.dir + "/x.trace";
    spit(victim, "root:x:0:0\n");
    ::chmod(victim.c_str(), 0644);
    ASSERT_EQ(::symlink(victim.c_str(), link.c_str()), 0);
    std::string m = thrown([&] { ltt::TraceWriter w(link, ltt_file_header{}); });
    EXPECT_NE(m.find("refusing to write " + link + ": it is a symbolic link"), std::string::npos)
        << m;
    EXPECT_EQ(slurp(victim), "root:x:0:0\n");
    EXPECT_EQ(modeOf(victim), 0644u);
}

TEST(TraceWriter, RefusesAFifoWithoutBlocking) {
    PrivateDir d;
    const std::string fifo = d.dir + "/x.trace";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::string m = thrown([&] { ltt::TraceWriter w(fifo, ltt_file_header{}); });
    EXPECT_NE(m.find("refusing to write " + fifo + ": not a regular file"), std::string::npos) << m;
}

TEST(TraceWriter, RefusesAFileWithASecondHardLink) {
    PrivateDir d;
    const std::string other = d.dir + "/elsewhere", link = d.dir + "/x.trace";
    spit(other, "keep me");
    ASSERT_EQ(::link(other.c_str(), link.c_str()), 0);
    std::string m = thrown([&] { ltt::TraceWriter w(link, ltt_file_header{}); });
    EXPECT_NE(m.find("refusing to overwrite " + link + ": it has 2 hard links"), std::string::npos)
        << m;
    EXPECT_EQ(slurp(other), "keep me");
}

TEST(TraceWriter, RefusesToOverwriteAnotherUsersFile) {
    if (::geteuid() != 0)
        GTEST_SKIP() << "needs root to give a file to another user";
    PrivateDir d;
    const std::string theirs = d.dir + "/x.trace";
    spit(theirs, "their trace");
    ASSERT_EQ(::chown(theirs.c_str(), 65534, 65534), 0);
    std::string m = thrown([&] { ltt::TraceWriter w(theirs, ltt_file_header{}); });
    EXPECT_NE(m.find("refusing to overwrite " + theirs + ": owned by uid 65534, not by uid 0"),
              std::string::npos)
        << m;
    EXPECT_EQ(slurp(theirs), "their trace");
}

// The .proc is written whole: a temporary file in the same directory, then
// renamed over the target; the target's checks are those of the trace.
TEST(ReplacementFile, WritesATemporaryFileAndRenamesItIntoPlace) {
    PrivateDir d;
    const std::string path = d.dir + "/x.proc";
    spit(path, "old");
    ::chmod(path.c_str(), 0644);
    {
        ltt::ReplacementFile f(path);
        EXPECT_EQ(std::filesystem::path(f.tempPath()).parent_path(),
                  std::filesystem::path(path).parent_path());
        EXPECT_EQ(modeOf(f.tempPath()), 0600u);
        spit(f.tempPath(), "new");
        EXPECT_EQ(slurp(path), "old") << "the target is untouched until commit()";
        f.commit();
        EXPECT_FALSE(std::filesystem::exists(f.tempPath()));
    }
    EXPECT_EQ(slurp(path), "new");
    EXPECT_EQ(modeOf(path), 0600u);
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(d.dir),
                            std::filesystem::directory_iterator{}),
              1);
}

TEST(ReplacementFile, LeavesNothingBehindWithoutCommit) {
    PrivateDir d;
    {
        ltt::ReplacementFile f(d.dir + "/x.proc");
        spit(f.tempPath(), "half");
    }
    EXPECT_TRUE(std::filesystem::is_empty(d.dir));
}

TEST(ReplacementFile, RefusesASymbolicLinkAtTheTarget) {
    PrivateDir d;
    const std::string victim = d.dir + "/shadow", link = d.dir + "/x.proc";
    spit(victim, "secret");
    ASSERT_EQ(::symlink(victim.c_str(), link.c_str()), 0);
    std::string m = thrown([&] { ltt::ReplacementFile f(link, "proc file"); });
    EXPECT_NE(m.find("refusing to write proc file " + link + ": it is a symbolic link"),
              std::string::npos)
        << m;
    EXPECT_EQ(slurp(victim), "secret");
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(d.dir),
                            std::filesystem::directory_iterator{}),
              2);
}

TEST(ReplacementFile, RefusesAFileTheTemporaryWasSwappedFor) {
    PrivateDir d;
    const std::string path = d.dir + "/x.proc";
    ltt::ReplacementFile f(path);
    std::filesystem::remove(f.tempPath());
    spit(f.tempPath(), "someone else's");
    std::string m = thrown([&] { f.commit(); });
    EXPECT_NE(m.find("was replaced while being written"), std::string::npos) << m;
    EXPECT_FALSE(std::filesystem::exists(path));
}

// ltt-synth writes its .trace and .proc by the same rules.
TEST(LttSynth, OutputFilesArePrivateAndPlantedLinksRefused) {
    const auto synth = ltt::test::siblingProgram("ltt-synth");
    if (!std::filesystem::exists(synth))
        GTEST_SKIP() << synth << " not built";
    PrivateDir d;
    const std::string prefix = d.dir + "/s";
    const std::string run = "umask 022; " + synth.string() +
                            " --events 2000 --cpus 1 --processes 3 -o " + prefix + " 2>" + d.dir +
                            "/err";
    ASSERT_EQ(std::system(run.c_str()), 0);
    EXPECT_EQ(modeOf(prefix + ".trace"), 0600u);
    EXPECT_EQ(modeOf(prefix + ".proc"), 0600u);

    const std::string victim = d.dir + "/victim";
    spit(victim, "keep");
    for (const char* ext : {".trace", ".proc"}) {
        std::filesystem::remove(prefix + ".trace");
        std::filesystem::remove(prefix + ".proc");
        ASSERT_EQ(::symlink(victim.c_str(), (prefix + ext).c_str()), 0);
        int st = std::system(run.c_str());
        EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 1) << ext << ": status " << st;
        std::string err = slurp(d.dir + "/err");
        EXPECT_NE(
            err.find("ltt-synth: refusing to write " + prefix + ext + ": it is a symbolic link"),
            std::string::npos)
            << err;
        EXPECT_EQ(slurp(victim), "keep");
    }
}

// A full disk: the file keeps the header and whole appends only, never the
// part of an append that fit.
namespace {

// The blocks of a one-CPU trace, `n` of them back to back.
std::vector<std::byte> blocks(unsigned n, std::size_t* blockSize) {
    ltt::test::TraceBuilder b(1);
    for (unsigned i = 0; i < n; ++i) {
        b.block(0, 1000 + 100 * i, 1);
        for (unsigned k = 0; k < 40; ++k)
            b.ev(1001 + 100 * i + k, LTT_EV_KERNEL_TIMER);
        b.end(1099 + 100 * i);
    }
    auto all = b.bytes();
    all.erase(all.begin(), all.begin() + sizeof(ltt_file_header));
    *blockSize = all.size() / n;
    return all;
}

// Appends 3 blocks at a time until the writer fails; returns its message.
std::string fillUp(const std::string& path, std::size_t* blockSize) {
    const auto data = blocks(3, blockSize);
    ltt::TraceWriter w(path, ltt_file_header{});
    try {
        for (int i = 0; i < 100000; ++i)
            w.append(data);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST(TraceWriter, FullFileSystemLeavesWholeAppendsOnly) {
    if (::geteuid() != 0)
        GTEST_SKIP() << "needs root to mount a small tmpfs (the RLIMIT_FSIZE test covers this)";
    PrivateDir d;
    if (::mount("tmpfs", d.dir.c_str(), "tmpfs", 0, "size=64k") != 0)
        GTEST_SKIP() << "cannot mount a tmpfs here: " << std::strerror(errno);
    struct Unmount {
        std::string dir;
        ~Unmount() { ::umount2(dir.c_str(), MNT_DETACH); }
    } unmount{d.dir};
    const std::string path = d.dir + "/full.trace";
    std::size_t blockSize = 0;
    std::string m = fillUp(path, &blockSize);
    EXPECT_NE(m.find("cannot write " + path + ": No space left on device"), std::string::npos) << m;
    auto size = std::filesystem::file_size(path);
    EXPECT_GT(size, sizeof(ltt_file_header));
    EXPECT_EQ((size - sizeof(ltt_file_header)) % blockSize, 0u)
        << "size " << size << ", blocks of " << blockSize;
}

TEST(TraceWriter, FileSizeLimitLeavesWholeAppendsOnly) {
    // RLIMIT_FSIZE makes write(2) short and then fail (EFBIG), as a full
    // disk does, without root. In a child, since the limit is per process.
    PrivateDir d;
    const std::string path = d.dir + "/limit.trace";
    std::size_t blockSize = 0;
    blocks(1, &blockSize);
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        ::signal(SIGXFSZ, SIG_IGN);
        rlimit rl{40000, 40000};
        ::setrlimit(RLIMIT_FSIZE, &rl);
        std::size_t unused;
        std::string m = fillUp(path, &unused);
        ::_exit(m.find("cannot write " + path + ": File too large") != std::string::npos ? 0 : 3);
    }
    int st = 0;
    ::waitpid(pid, &st, 0);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "status " << st;
    auto size = std::filesystem::file_size(path);
    EXPECT_GT(size, sizeof(ltt_file_header));
    EXPECT_EQ((size - sizeof(ltt_file_header)) % blockSize, 0u)
        << "size " << size << ", blocks of " << blockSize;
}

TEST(TraceWriter, AFailedAppendKeepsEveryBlockThatFitWhole) {
    // One append larger than what the file may still take: the blocks that
    // reached the file whole stay, the cut one goes. A daemon commits many
    // blocks per append, so cutting back to the append's start would lose
    // every block of it.
    PrivateDir d;
    const std::string path = d.dir + "/partial.trace";
    std::size_t blockSize = 0;
    const auto data = blocks(40, &blockSize);
    const std::size_t limit = sizeof(ltt_file_header) + 7 * blockSize + blockSize / 2;
    ASSERT_LT(limit, sizeof(ltt_file_header) + data.size());
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        ::signal(SIGXFSZ, SIG_IGN);
        rlimit rl{limit, limit};
        ::setrlimit(RLIMIT_FSIZE, &rl);
        try {
            ltt::TraceWriter w(path, ltt_file_header{});
            w.append(data);
        } catch (const std::exception& e) {
            ::_exit(std::string(e.what()).find("File too large") != std::string::npos ? 0 : 3);
        }
        ::_exit(4);
    }
    int st = 0;
    ::waitpid(pid, &st, 0);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "status " << st;
    EXPECT_EQ(std::filesystem::file_size(path), sizeof(ltt_file_header) + 7 * blockSize)
        << "blocks of " << blockSize;
}
