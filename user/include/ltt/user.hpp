// C++ wrapper of libltt-user (<ltt/user.h>): event types whose field types
// come from the template arguments, so that a call with the wrong values
// does not compile.
//
//   ltt::user::EventType<std::int64_t, std::string_view, double> step{
//       "step", {"count", "phase", "ratio"}};
//   step.log(n, "warmup", 0.5);
//   ltt::user::mark("checkpoint reached");
//
// log() costs one load and one branch while no daemon records the process.
// A string_view is copied into a NUL-terminated buffer before it is logged
// (only while active).
#pragma once

#include <ltt/user.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace ltt::user
{

template <class T> struct FieldType;
template <> struct FieldType<std::int64_t> {
	static constexpr const char *name = "i64";
	static std::int64_t pass(std::int64_t v, std::string &)
	{
		return v;
	}
};
template <> struct FieldType<std::uint64_t> {
	static constexpr const char *name = "u64";
	static std::uint64_t pass(std::uint64_t v, std::string &)
	{
		return v;
	}
};
template <> struct FieldType<double> {
	static constexpr const char *name = "f64";
	static double pass(double v, std::string &)
	{
		return v;
	}
};
template <> struct FieldType<std::string_view> {
	static constexpr const char *name = "str";
	static const char *pass(std::string_view v, std::string &buf)
	{
		buf.assign(v);
		return buf.c_str();
	}
};

inline bool active()
{
	return __builtin_expect(
		       __atomic_load_n(&ltt_user_active, __ATOMIC_RELAXED),
		       0) != 0;
}

template <class... Fields> class EventType
{
      public:
	// Declares the type; throws std::invalid_argument when
	// ltt_user_declare() refuses it (a bad name or field name, no room
	// for another type: the message has errno).
	EventType(std::string_view name,
		  const std::array<std::string_view, sizeof...(Fields)> &fields)
	{
		static_assert(sizeof...(Fields) <= LTT_USER_FIELDS_MAX,
			      "too many fields");
		std::string decl;
		const std::array<const char *, sizeof...(Fields)> types{
			FieldType<Fields>::name...};
		for (std::size_t i = 0; i < types.size(); ++i)
			decl += std::string(fields[i]) + ":" + types[i] + " ";
		type_m = ltt_user_declare(std::string(name).c_str(),
					  decl.c_str());
		if (!type_m)
			throw std::invalid_argument(
				"ltt_user_declare(\"" + std::string(name) +
				"\") failed: " + std::to_string(errno));
	}

	void log(const Fields &...values) const
	{
		if (active())
			logActive(values...);
	}

	const ltt_user_type *type() const
	{
		return type_m;
	}

      private:
	void logActive(const Fields &...values) const
	{
		logIndexed(std::index_sequence_for<Fields...>{}, values...);
	}

	// bufs[I] holds field I's string, if it is one, for the call.
	template <std::size_t... I>
	void logIndexed(std::index_sequence<I...>,
			const Fields &...values) const
	{
		std::string bufs[sizeof...(Fields) + 1];
		ltt_user_log_event(type_m,
				   FieldType<Fields>::pass(values, bufs[I])...);
	}

	const ltt_user_type *type_m = nullptr;
};

inline int mark(std::string_view text)
{
	return ltt_user_mark(std::string(text).c_str());
}
inline int snapshot()
{
	return ltt_user_snapshot();
}

} // namespace ltt::user
