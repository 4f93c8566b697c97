// UserEvents: see user_events.hpp. Every length and index read from a
// record is checked against the record's bytes before it is used.
#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <libltt/text_escape.hpp>
#include <libltt/user_events.hpp>
#include <ltt/module_events.h>
#include <tuple>

namespace ltt {

namespace {

// The details of a USER record: the bytes after its 8-byte header.
std::span<const std::byte> detailsOf(const Event& e) {
    return e.details();
}

template <class T> T load(const std::byte* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// A decoded DECLARE, or why it is none.
bool parseDeclare(std::span<const std::byte> d, UserEvents::Type& t, std::string& why) {
    if (d.size() < LTT_EV_USER_DECL_FIXED) {
        why = "user type declaration of " + std::to_string(d.size()) + " bytes, fewer than " +
              std::to_string(LTT_EV_USER_DECL_FIXED);
        return false;
    }
    ltt_ev_user_decl h;
    std::memcpy(&h, d.data(), LTT_EV_USER_DECL_FIXED);
    t.id = h.type;
    t.tgid = h.tgid;
    if (h.nfields > LTT_USER_FIELDS_MAX) {
        why = "user type " + std::to_string(h.type) + " declares " + std::to_string(h.nfields) +
              " fields (at most " + std::to_string(LTT_USER_FIELDS_MAX) + ")";
        return false;
    }
    // The names: the event's, then one per field, each NUL-terminated.
    const char* p = reinterpret_cast<const char*>(d.data() + LTT_EV_USER_DECL_FIXED);
    std::size_t left = d.size() - LTT_EV_USER_DECL_FIXED;
    auto name = [&](std::string& out) {
        const std::size_t n = strnlen(p, std::min<std::size_t>(left, LTT_USER_NAME_MAX));
        if (n == left || n == LTT_USER_NAME_MAX)
            return false; // no NUL within the record, or a name too long
        out.assign(p, n);
        p += n + 1;
        left -= n + 1;
        return true;
    };
    if (!name(t.name) || t.name.empty()) {
        why = "user type " + std::to_string(h.type) + " has no valid name";
        return false;
    }
    t.fields.resize(h.nfields);
    for (unsigned i = 0; i < h.nfields; ++i) {
        t.fields[i].type = h.field[i];
        if (h.field[i] < LTT_USER_I64 || h.field[i] > LTT_USER_STR) {
            why = "user type " + std::to_string(h.type) + " field " + std::to_string(i) +
                  " has unknown type " + std::to_string(h.field[i]);
            return false;
        }
        if (!name(t.fields[i].name) || t.fields[i].name.empty()) {
            why = "user type " + std::to_string(h.type) + " field " + std::to_string(i) +
                  " has no valid name";
            return false;
        }
    }
    return true;
}

bool sameType(const UserEvents::Type& a, const UserEvents::Type& b) {
    if (a.name != b.name || a.fields.size() != b.fields.size())
        return false;
    for (std::size_t i = 0; i < a.fields.size(); ++i)
        if (a.fields[i].name != b.fields[i].name || a.fields[i].type != b.fields[i].type)
            return false;
    return true;
}

// One value of an EVENT.
struct Value {
    std::uint8_t type = 0;
    std::int64_t i = 0;
    std::uint64_t u = 0;
    double f = 0;
    std::string_view s;
};

// A string in text output: quoted, with '"' escaped besides what
// appendEscaped() escapes.
void appendQuoted(std::string& out, std::string_view s) {
    out.push_back('"');
    for (std::size_t at = 0;;) {
        const std::size_t q = s.find('"', at);
        appendEscaped(out, s.substr(at, q == std::string_view::npos ? q : q - at));
        if (q == std::string_view::npos)
            break;
        out.append("\\\"");
        at = q + 1;
    }
    out.push_back('"');
}

// The shortest decimal form that reads back to the same double.
void appendDouble(std::string& out, double v, bool json) {
    if (!std::isfinite(v)) {
        // JSON has no literal for these: a string that says which.
        const char* s = std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
        if (json)
            out.append("\"").append(s).append("\"");
        else
            out.append(s);
        return;
    }
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

// One value: a number, or a string quoted (text: escaped as appendQuoted()
// does; JSON: as a JSON string).
void appendValue(std::string& out, const Value& v, bool json) {
    char buf[32];
    switch (v.type) {
    case LTT_USER_I64:
        std::snprintf(buf, sizeof buf, "%" PRId64, v.i);
        out.append(buf);
        break;
    case LTT_USER_U64:
        std::snprintf(buf, sizeof buf, "%" PRIu64, v.u);
        out.append(buf);
        break;
    case LTT_USER_F64:
        appendDouble(out, v.f, json);
        break;
    default:
        if (!json)
            return appendQuoted(out, v.s);
        out.push_back('"');
        appendJsonEscaped(out, v.s);
        out.push_back('"');
        break;
    }
}

} // namespace

std::string_view UserEvents::fieldTypeName(std::uint8_t type) {
    switch (type) {
    case LTT_USER_I64:
        return "i64";
    case LTT_USER_U64:
        return "u64";
    case LTT_USER_F64:
        return "f64";
    case LTT_USER_STR:
        return "str";
    default:
        return "?";
    }
}

UserEvents::UserEvents(const TraceReader& reader) : path_m(reader.path()) {
    const auto bytes = reader.bytes();
    for (const TraceReader::UserStream& u : reader.userStreams()) {
        for (std::uint32_t bi : u.blocks) {
            const BlockInfo& b = reader.blocks()[bi];
            const auto block = bytes.subspan(b.offset, b.length);
            // A fault in the block's records is the cursor's to report (it
            // stops there); the declarations before it still count.
            walkBlock(block, b, [&](const BlockRecord& r) {
                if (r.header.event != LTT_EV_USER || r.header.subtype != LTT_USER_DECLARE)
                    return;
                Type t;
                std::string why;
                const std::uint64_t at = b.offset + r.offset;
                if (!parseDeclare(r.details(), t, why)) {
                    problems_m.push_back({path_m, at, why});
                    return;
                }
                const auto key = std::make_pair(t.tgid, t.id);
                auto it = types_m.find(key);
                if (it == types_m.end()) {
                    it = types_m.emplace(key, std::move(t)).first;
                } else if (!sameType(it->second, t)) {
                    problems_m.push_back({path_m, at,
                                          "user type " + std::to_string(t.id) + " of process " +
                                              std::to_string(t.tgid) +
                                              " declared again differently (\"" + t.name +
                                              "\", was \"" + it->second.name + "\")"});
                    return;
                }
                declared_m.try_emplace({u.number, key.first, key.second}, at);
            });
        }
    }
}

const UserEvents::Type* UserEvents::type(std::uint32_t tgid, std::uint32_t id) const {
    auto it = types_m.find({tgid, id});
    return it == types_m.end() ? nullptr : &it->second;
}

template <class F>
bool UserEvents::eachValue(const Type& t, std::span<const std::byte> data, std::string* why,
                           F&& f) {
    std::size_t at = 0;
    for (const Field& field : t.fields) {
        Value v;
        v.type = field.type;
        const std::size_t need = field.type == LTT_USER_STR ? sizeof(std::uint16_t) : 8;
        std::size_t len = 0;
        if (data.size() - at >= need && field.type == LTT_USER_STR)
            len = load<std::uint16_t>(data.data() + at);
        if (data.size() - at < need + len) {
            if (why)
                *why = "user event \"" + escaped(t.name) + "\": field \"" + escaped(field.name) +
                       "\" runs past the record (" + std::to_string(data.size()) +
                       " bytes of values)";
            return false;
        }
        const std::byte* p = data.data() + at;
        switch (field.type) {
        case LTT_USER_I64:
            v.i = load<std::int64_t>(p);
            break;
        case LTT_USER_U64:
            v.u = load<std::uint64_t>(p);
            break;
        case LTT_USER_F64:
            v.f = load<double>(p);
            break;
        default:
            v.s = std::string_view(reinterpret_cast<const char*>(p) + 2, len);
            break;
        }
        at += need + len;
        f(field, v);
    }
    // What is left is the padding to the record alignment.
    if (data.size() - at >= LTT_V2_RECORD_ALIGN) {
        if (why)
            *why = "user event \"" + escaped(t.name) + "\": " + std::to_string(data.size() - at) +
                   " bytes after its last field";
        return false;
    }
    return true;
}

bool UserEvents::check(const Event& e, const Type** type, std::string* why) const {
    if (type)
        *type = nullptr;
    if (why)
        why->clear();
    switch (e.id) {
    case LTT_EV_BLOCK_START:
    case LTT_EV_BLOCK_END:
    case LTT_EV_HEARTBEAT:
    case LTT_EV_LOST:
        return false;
    case LTT_EV_USER:
        break;
    default:
        if (why)
            *why = "record of event " + std::to_string(e.id) + " in a user stream";
        return false;
    }
    const auto d = detailsOf(e);
    if (e.subtype == LTT_USER_DECLARE) {
        Type t;
        std::string problem;
        if (!parseDeclare(d, t, problem) && why)
            *why = problem;
        return false;
    }
    if (e.subtype != LTT_USER_EVENT) {
        if (why)
            *why = "user record of unknown subtype " + std::to_string(e.subtype);
        return false;
    }
    if (d.size() < LTT_EV_USER_FIXED) {
        if (why)
            *why = "user event of " + std::to_string(d.size()) + " bytes, fewer than " +
                   std::to_string(LTT_EV_USER_FIXED);
        return false;
    }
    ltt_ev_user h;
    std::memcpy(&h, d.data(), LTT_EV_USER_FIXED);
    const Type* t = this->type(h.tgid, h.type);
    auto decl = declared_m.find({e.stream, h.tgid, h.type});
    if (!t || decl == declared_m.end() || decl->second >= e.offset) {
        if (why)
            *why = "user event of type " + std::to_string(h.type) + " of process " +
                   std::to_string(h.tgid) + " not declared before in its stream";
        return false;
    }
    if (!eachValue(*t, d.subspan(LTT_EV_USER_FIXED), why, [](const Field&, const Value&) {}))
        return false;
    if (type)
        *type = t;
    return true;
}

bool UserEvents::appendText(const Event& e, std::string& out) const {
    const Type* t = nullptr;
    std::string why;
    if (check(e, &t, &why)) {
        appendEscaped(out, t->name);
        eachValue(*t, detailsOf(e).subspan(LTT_EV_USER_FIXED), nullptr,
                  [&](const Field& f, const Value& v) {
                      out.push_back(' ');
                      appendEscaped(out, f.name);
                      out.push_back('=');
                      appendValue(out, v, false);
                  });
        return true;
    }
    if (!why.empty())
        return false;
    if (e.id == LTT_EV_USER && e.subtype == LTT_USER_DECLARE) {
        Type d;
        std::string problem;
        parseDeclare(detailsOf(e), d, problem);
        out.append("DECLARE ");
        appendEscaped(out, d.name);
        out.push_back('(');
        for (std::size_t i = 0; i < d.fields.size(); ++i) {
            out.append(i ? ", " : "");
            appendEscaped(out, d.fields[i].name);
            out.push_back(':');
            out.append(fieldTypeName(d.fields[i].type));
        }
        out.push_back(')');
    }
    return true;
}

bool UserEvents::appendJson(const Event& e, std::string& out) const {
    const Type* t = nullptr;
    if (!check(e, &t, nullptr))
        return false;
    out.append("\"name\": \"");
    appendJsonEscaped(out, t->name);
    out.append("\", \"fields\": {");
    bool first = true;
    eachValue(*t, detailsOf(e).subspan(LTT_EV_USER_FIXED), nullptr,
              [&](const Field& f, const Value& v) {
                  out.append(first ? "\"" : ", \"");
                  first = false;
                  appendJsonEscaped(out, f.name);
                  out.append("\": ");
                  appendValue(out, v, true);
              });
    out.push_back('}');
    return true;
}

std::vector<std::byte> userDeclareDetails(std::uint32_t id, std::uint32_t tgid,
                                          std::string_view name,
                                          const std::vector<UserEvents::Field>& fields) {
    ltt_ev_user_decl h{};
    h.type = id;
    h.tgid = tgid;
    h.nfields = static_cast<std::uint8_t>(fields.size());
    for (std::size_t i = 0; i < fields.size() && i < LTT_USER_FIELDS_MAX; ++i)
        h.field[i] = fields[i].type;
    std::vector<std::byte> out(LTT_EV_USER_DECL_FIXED);
    std::memcpy(out.data(), &h, LTT_EV_USER_DECL_FIXED);
    auto put = [&](std::string_view s) {
        const auto* p = reinterpret_cast<const std::byte*>(s.data());
        out.insert(out.end(), p, p + s.size());
        out.push_back(std::byte{0});
    };
    put(name);
    for (const auto& f : fields)
        put(f.name);
    return out;
}

std::vector<std::byte> userEventDetails(std::uint32_t id, std::uint32_t tgid,
                                        const std::vector<UserValue>& values) {
    std::vector<std::byte> out(LTT_EV_USER_FIXED);
    std::memcpy(out.data(), &id, sizeof id);
    std::memcpy(out.data() + 4, &tgid, sizeof tgid);
    auto put = [&](const void* p, std::size_t n) {
        const auto* b = static_cast<const std::byte*>(p);
        out.insert(out.end(), b, b + n);
    };
    for (const UserValue& v : values) {
        switch (v.type) {
        case LTT_USER_I64:
            put(&v.i, 8);
            break;
        case LTT_USER_U64:
            put(&v.u, 8);
            break;
        case LTT_USER_F64:
            put(&v.f, 8);
            break;
        default: {
            const auto n = static_cast<std::uint16_t>(std::min<std::size_t>(v.s.size(), 0xffff));
            put(&n, 2);
            put(v.s.data(), n);
            break;
        }
        }
    }
    return out;
}

} // namespace ltt
