// Application events: the USER (26) records of a trace's user streams
// (include/ltt/module_events.h, docs/trace-format.md §2.4). A DECLARE record
// gives a type id of one process (tgid) a name and typed, named fields; an
// EVENT record holds the values of a declared type, packed. UserEvents reads
// every declaration of a trace once, when it is made (a pass over the user
// blocks only, not the CPUs'), so that any event can be decoded on its own,
// in a walk or at random (the viewer's list), and checked: a type must be
// declared in the same stream before the event, and the values must be
// exactly what its fields say.
//
// Text: `name field=value ...` (strings quoted, with '"' and '\' and
// control characters escaped; doubles in the shortest form that reads back
// to the same value). JSON: {"name": ..., "fields": {...}}. A record that
// does not decode gives a message instead; callers show it as damaged at
// its offset and go on.
#pragma once

#include <cstdint>
#include <libltt/trace_reader.hpp>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace ltt {

class UserEvents {
public:
    struct Field {
        std::string name;
        std::uint8_t type = 0; // enum ltt_user_field
    };
    struct Type {
        std::uint32_t id = 0;
        std::uint32_t tgid = 0;
        std::string name;
        std::vector<Field> fields;
    };

    // Reads the declarations of `reader`'s user streams. A declaration
    // that is malformed, or that gives a type id another definition than
    // the process's first one, is left out and listed in problems().
    explicit UserEvents(const TraceReader& reader);

    // The type `id` of process `tgid`, or nullptr.
    const Type* type(std::uint32_t tgid, std::uint32_t id) const;
    // Problems found in the declarations, by file offset.
    const std::vector<TraceError>& problems() const { return problems_m; }

    // For a record of a user stream (event.isUser()): true when it is a
    // USER EVENT whose values decode, with its type in `*type` (may be
    // null). False with `why` set when it is damaged (an undeclared type,
    // values that do not match the fields, a record that belongs in no user
    // stream); false with `why` empty for the stream's other records
    // (DECLARE, LOST, HEARTBEAT, block frames).
    bool check(const Event& event, const Type** type, std::string* why) const;
    // Appends `name field=value ...` for a USER EVENT that check() accepts;
    // `DECLARE name(field:type, ...)` for a DECLARE; otherwise nothing.
    // False when the record is damaged (nothing appended).
    bool appendText(const Event& event, std::string& out) const;
    // Appends `"name":"...","fields":{...}` (members of an object the
    // caller opens) for a USER EVENT that check() accepts; false otherwise
    // (nothing appended).
    bool appendJson(const Event& event, std::string& out) const;

    // Name of a field type: "i64", "u64", "f64", "str" ("?" otherwise).
    static std::string_view fieldTypeName(std::uint8_t type);

private:
    // Decodes an EVENT's values against `t`, calling f(field, value) per
    // field; false with `why` on a mismatch.
    template <class F>
    static bool eachValue(const Type& t, std::span<const std::byte> data, std::string* why, F&& f);
    // (tgid, id) -> its type; per (stream, tgid, id) the offset of the
    // stream's first DECLARE of it.
    std::map<std::pair<std::uint32_t, std::uint32_t>, Type> types_m;
    std::map<std::tuple<std::uint16_t, std::uint32_t, std::uint32_t>, std::uint64_t> declared_m;
    std::vector<TraceError> problems_m;
    std::string path_m;
};

// The details of USER records as a producer writes them (for BlockBuilder's
// extRecord(..., LTT_EV_USER, subtype, ...)): a DECLARE of type `id` of
// process `tgid`, and an EVENT with the values packed in field order.
struct UserValue {
    std::uint8_t type = 0; // enum ltt_user_field
    std::int64_t i = 0;
    std::uint64_t u = 0;
    double f = 0;
    std::string s;
};
std::vector<std::byte> userDeclareDetails(std::uint32_t id, std::uint32_t tgid,
                                          std::string_view name,
                                          const std::vector<UserEvents::Field>& fields);
std::vector<std::byte> userEventDetails(std::uint32_t id, std::uint32_t tgid,
                                        const std::vector<UserValue>& values);

} // namespace ltt
