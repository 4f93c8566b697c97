// The copy of /proc/kallsyms beside the trace: private, whole, and only
// when it shows addresses.
#include "kallsyms_copy.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <sys/stat.h>
#include <unistd.h>

using namespace ltt::daemon;

namespace {

std::string dirFor(const std::string& name) {
    std::string d = ::testing::TempDir() + "/kallsyms-" + name + "-" + std::to_string(getpid());
    std::filesystem::remove_all(d);
    std::filesystem::create_directories(d);
    return d;
}

std::string slurp(const std::string& p) {
    std::ifstream in(p);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

TEST(KallsymsCopy, SavesAPrivateCopyBesideTheTrace) {
    const std::string d = dirFor("ok");
    const std::string text = "0000000000000000 A fixed_percpu_data\n"
                             "ffffffff81000000 T _stext\n"
                             "ffffffffc0001000 t ltt_callback\t[ltt_tracer]\n";
    std::ofstream(d + "/kallsyms") << text;
    umask(022);
    std::string why;
    ASSERT_TRUE(saveKallsyms(d + "/kallsyms", d + "/out.trace", why)) << why;
    EXPECT_EQ(slurp(d + "/out.kallsyms"), text);
    struct stat st {};
    ASSERT_EQ(stat((d + "/out.kallsyms").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0600u);
    std::filesystem::remove_all(d);
}

TEST(KallsymsCopy, WritesNothingWhenAddressesAreHidden) {
    const std::string d = dirFor("hidden");
    std::ofstream(d + "/kallsyms") << "0000000000000000 T _stext\n0000000000000000 t f\n";
    std::string why;
    EXPECT_FALSE(saveKallsyms(d + "/kallsyms", d + "/out.trace", why));
    EXPECT_EQ(why, d + "/kallsyms shows no kernel address to this process (kptr_restrict)");
    EXPECT_FALSE(std::filesystem::exists(d + "/out.kallsyms"));
    EXPECT_FALSE(saveKallsyms(d + "/missing", d + "/out.trace", why));
    EXPECT_EQ(why, "cannot read " + d + "/missing: No such file or directory");
    std::filesystem::remove_all(d);
}

TEST(KallsymsCopy, RefusesASymbolicLinkAtTheTarget) {
    const std::string d = dirFor("link");
    std::ofstream(d + "/kallsyms") << "ffffffff81000000 T _stext\n";
    std::ofstream(d + "/victim") << "keep";
    std::filesystem::create_symlink(d + "/victim", d + "/out.kallsyms");
    std::string why;
    EXPECT_FALSE(saveKallsyms(d + "/kallsyms", d + "/out.trace", why));
    EXPECT_NE(why.find(d + "/out.kallsyms"), std::string::npos) << why;
    EXPECT_EQ(slurp(d + "/victim"), "keep");
    std::filesystem::remove_all(d);
}
