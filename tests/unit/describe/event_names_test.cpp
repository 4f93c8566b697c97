// The event-name vocabulary (libltt/event_names.hpp) that tracedaemon -e/-D,
// traceanalyze -o/-t and traceview's event menus share.
#include <gtest/gtest.h>
#include <libltt/event_names.hpp>
#include <ltt/module_events.h>
#include <string>

namespace {

std::uint64_t bit(int ev) {
    return LTT_EV_BIT(ev);
}

TEST(EventNames, LttAbiAndDisplayNamesAreOneVocabulary) {
    std::string bad;
    EXPECT_EQ(ltt::parseEventList("FS", &bad), bit(LTT_EV_FILE_SYSTEM));
    EXPECT_EQ(ltt::parseEventList("file_system", &bad), bit(LTT_EV_FILE_SYSTEM));
    EXPECT_EQ(ltt::parseEventList("File system", &bad), bit(LTT_EV_FILE_SYSTEM));
    EXPECT_EQ(ltt::parseEventList("sched", &bad), bit(LTT_EV_SCHEDCHANGE));
    EXPECT_EQ(ltt::parseEventList("SCHEDCHANGE", &bad), bit(LTT_EV_SCHEDCHANGE));
    EXPECT_EQ(ltt::parseEventList("Sched change", &bad), bit(LTT_EV_SCHEDCHANGE));
    EXPECT_EQ(ltt::parseEventList("lost,heartbeat", &bad),
              bit(LTT_EV_LOST) | bit(LTT_EV_HEARTBEAT));
    EXPECT_EQ(ltt::parseEventList("7", &bad), bit(LTT_EV_SCHEDCHANGE));
}

TEST(EventNames, Groups) {
    std::string bad;
    EXPECT_EQ(ltt::parseEventList("CORE", &bad), std::uint64_t{LTT_EV_MASK_CORE});
    EXPECT_EQ(ltt::parseEventList("FS,CORE", &bad),
              std::uint64_t{LTT_EV_MASK_CORE} | bit(LTT_EV_FILE_SYSTEM));
    EXPECT_EQ(ltt::parseEventList("syscall", &bad),
              bit(LTT_EV_SYSCALL_ENTRY) | bit(LTT_EV_SYSCALL_EXIT));
    EXPECT_EQ(ltt::parseEventList("all", &bad), std::uint64_t{LTT_EV_MASK_ALL});
    EXPECT_EQ(ltt::parseEventList("NONE", &bad), 0u);
}

TEST(EventNames, UnknownNameIsNamedInOneMessage) {
    std::string bad;
    EXPECT_FALSE(ltt::parseEventList("FS,FSX", &bad));
    EXPECT_EQ(bad, "FSX");
    EXPECT_FALSE(ltt::parseEventList(",", &bad));
    EXPECT_EQ(bad, "");
    EXPECT_FALSE(ltt::parseEventList("30", &bad)); // reserved, no event yet
    EXPECT_EQ(bad, "30");
    EXPECT_EQ(ltt::parseEventList("29", &bad), LTT_EV_BIT(LTT_EV_STACK));
    EXPECT_EQ(ltt::parseEventList("stack", &bad), LTT_EV_BIT(LTT_EV_STACK));
    EXPECT_FALSE(ltt::parseEventList("32", &bad)); // LTT_EV_COUNT is no event
    EXPECT_EQ(bad, "32");
    EXPECT_EQ(ltt::parseEventList("22", &bad), LTT_EV_BIT(LTT_EV_VARS));
    EXPECT_EQ(ltt::unknownEventMessage("FSX", "-t")
                  .rfind("unknown event 'FSX' for -t; known events: START,SYS_ENTRY,", 0),
              0u);
}

TEST(EventNames, EveryListedNameParses) {
    for (const auto& e : ltt::eventNames()) {
        std::string bad;
        EXPECT_EQ(ltt::parseEventList(e.name, &bad), e.mask) << e.name;
    }
    EXPECT_NE(ltt::eventNameHelp().find(",FS,"), std::string::npos);
}

} // namespace
