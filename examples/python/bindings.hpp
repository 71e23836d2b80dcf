// The pieces every part of the Python module shares: how a napkin struct
// becomes a Python class (keyword construction, attributes in SI units, a repr
// with units, to_dict), how an enum becomes a string attribute, and where the
// names a Python caller gives live.
//
// Quantities cross the boundary as plain floats in SI base units (bytes,
// seconds, bytes/s, FLOP, FLOP/s, tokens): `Q::from_value` in, `.value()` out,
// so no number is scaled on the way.
#pragma once

#include <napkin/error.hpp>
#include <napkin/units.hpp>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace napkin::python {

namespace py = pybind11;

// Structs hold names as std::string_view (constexpr catalogs); a name given from
// Python is kept here for the life of the process, one copy per distinct name.
inline std::string_view intern(std::string_view text) {
    static std::set<std::string, std::less<>> pool;
    return *pool.emplace(text).first;
}

// How a float attribute prints in a repr.
enum class Kind { plain, bytes, seconds, bytes_per_second, flops, flops_per_second, tokens, tokens_per_second,
                  bytes_per_token, watts, ops_per_second };

inline std::string format_as(Kind kind, double v) {
    switch (kind) {
        case Kind::bytes: return to_string(Bytes::from_value(v));
        case Kind::seconds: return to_string(Seconds::from_value(v));
        case Kind::bytes_per_second: return to_string(BytesPerSecond::from_value(v));
        case Kind::flops: return to_string(Flops::from_value(v));
        case Kind::flops_per_second: return to_string(FlopsPerSecond::from_value(v));
        case Kind::tokens: return to_string(Tokens::from_value(v));
        case Kind::tokens_per_second: return to_string(TokensPerSecond::from_value(v));
        case Kind::bytes_per_token: return format_trimmed(v, 2) + " B/token";
        case Kind::watts: return to_string(Watts::from_value(v));
        case Kind::ops_per_second: {  // the FLOP/s scale with "OP/s": INT8 "624 TOP/s"
            std::string text = to_string(FlopsPerSecond::from_value(v));
            return text.replace(text.find("FLOP/s"), 6, "OP/s");
        }
        case Kind::plain: break;
    }
    return py::cast<std::string>(py::repr(py::float_(v)));
}

inline const char* unit_of(Kind kind) {
    switch (kind) {
        case Kind::bytes: return "bytes";
        case Kind::seconds: return "seconds";
        case Kind::bytes_per_second: return "bytes/s";
        case Kind::flops: return "FLOP";
        case Kind::flops_per_second: return "FLOP/s";
        case Kind::tokens: return "tokens";
        case Kind::tokens_per_second: return "tokens/s";
        case Kind::bytes_per_token: return "bytes/token";
        case Kind::watts: return "W";
        case Kind::ops_per_second: return "op/s";
        case Kind::plain: break;
    }
    return "";
}

// An enum seen from Python: its values by the names napkin's CLI and JSON use.
template <class E>
struct Choices {
    std::vector<std::pair<E, std::string>> items;
    std::vector<std::pair<std::string, E>> aliases{};  // other accepted spellings

    [[nodiscard]] std::string name_of(E e) const {
        for (const auto& [value, name] : items)
            if (value == e) return name;
        return "?";
    }
    [[nodiscard]] std::string listing() const {
        std::string text;
        for (std::size_t i = 0; i < items.size(); ++i)
            text += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i].second;
        return text;
    }
    // A Python str to the enum: ValueError naming `argument` for an unknown name,
    // TypeError for anything but a str.
    [[nodiscard]] E parse(py::handle value, std::string_view argument) const {
        if (!py::isinstance<py::str>(value))
            throw py::type_error(std::string(argument) + ": expected a str (" + listing() + "), got " +
                                 std::string(py::str(value.get_type().attr("__name__"))));
        const auto text = py::cast<std::string>(value);
        for (const auto& [e, name] : items)
            if (name == text) return e;
        for (const auto& [name, e] : aliases)
            if (name == text) return e;
        reject(argument, text, "must be " + listing());
    }
};

// Every enum with a napkin::to_string, listed in `values`.
template <class E, class... Es>
Choices<E> choices_of(E first, Es... rest) {
    Choices<E> c;
    for (E e : {first, rest...}) c.items.emplace_back(e, std::string(to_string(e)));
    return c;
}

struct FieldInfo {
    std::string name;
    Kind kind;
};

// A napkin struct as a Python class. Fields are registered one by one; finish()
// adds keyword construction (start from T{}, set each given field by name, so a
// field added in C++ later needs one more line here and breaks nothing), a
// repr with units and to_dict().
template <class T>
class Struct {
public:
    Struct(py::handle scope, const char* name, const char* doc)
        : cls_(scope, name, doc), name_(name), fields_(std::make_shared<std::vector<FieldInfo>>()) {}

    // A quantity field, read and written as a float in SI units.
    template <class Q>
    Struct& quantity(const char* name, Q T::*member, Kind kind, const std::string& doc) {
        cls_.def_property(
            name, [member](const T& t) { return (t.*member).value(); },
            [member](T& t, double v) { t.*member = Q::from_value(v); },
            (doc + " [" + unit_of(kind) + "]").c_str());
        fields_->push_back({name, kind});
        return *this;
    }
    // A plain field: int, float, bool, str, or another bound struct (by reference,
    // so `cluster.node.gpu.memory = ...` changes the cluster).
    template <class V>
    Struct& value(const char* name, V T::*member, const char* doc) {
        cls_.def_readwrite(name, member, doc);
        fields_->push_back({name, Kind::plain});
        return *this;
    }
    Struct& name(const char* name, std::string_view T::*member, const char* doc) {
        cls_.def_property(
            name, [member](const T& t) { return std::string(t.*member); },
            [member](T& t, const std::string& v) { t.*member = intern(v); }, doc);
        fields_->push_back({name, Kind::plain});
        return *this;
    }
    template <class E>
    Struct& choice(const char* name, E T::*member, Choices<E> choices, const std::string& doc) {
        auto shared = std::make_shared<Choices<E>>(std::move(choices));
        const std::string argument = name_ + "." + name;
        cls_.def_property(
            name, [member, shared](const T& t) { return shared->name_of(t.*member); },
            [member, shared, argument](T& t, py::object v) { t.*member = shared->parse(v, argument); },
            (doc + " (" + shared->listing() + ")").c_str());
        fields_->push_back({name, Kind::plain});
        return *this;
    }
    // A read-only value computed from the struct (a total, a share).
    template <class F>
    Struct& computed(const char* name, F f, Kind kind, const std::string& doc) {
        const std::string text = kind == Kind::plain ? doc : doc + " [" + unit_of(kind) + "]";
        cls_.def_property_readonly(name, std::move(f), text.c_str());
        computed_.push_back({name, kind});
        return *this;
    }
    // Any other attribute, with its own getter and setter.
    template <class Get, class Set>
    Struct& custom(const char* name, Get get, Set set, const char* doc) {
        cls_.def_property(name, std::move(get), std::move(set), doc);
        fields_->push_back({name, Kind::plain});
        return *this;
    }

    // Keyword construction (validated with napkin's own check when `check`), repr, to_dict.
    template <class Check>
    py::class_<T>& finish(Check check) {
        auto fields = fields_;
        auto all = std::make_shared<std::vector<FieldInfo>>(*fields_);
        all->insert(all->end(), computed_.begin(), computed_.end());
        const std::string type_name = name_;
        cls_.def(py::init([fields, type_name, check](const py::kwargs& kwargs) {
                     py::object self = py::cast(T{});
                     for (const auto& [key, value] : kwargs) {
                         const auto field = py::cast<std::string>(key);
                         bool known = false;
                         for (const auto& f : *fields) known = known || f.name == field;
                         if (!known)
                             throw py::type_error(type_name + "() got an unexpected keyword argument '" + field + "'");
                         try {
                             py::setattr(self, key, value);
                         } catch (py::error_already_set& e) {
                             if (!e.matches(PyExc_TypeError)) throw;
                             throw py::type_error(type_name + "." + field + ": wrong type " +
                                                  std::string(py::str(value.get_type().attr("__name__"))) +
                                                  " (see help(napkin." + type_name + "))");
                         }
                     }
                     T t = py::cast<T>(self);
                     check(t);
                     return t;
                 }),
                 ("Keyword construction: " + type_name + "(field=value, ...); fields not given keep their "
                  "defaults (T{} in C++). Floats are SI units (bytes, seconds, bytes/s, FLOP/s).").c_str());
        cls_.def("__repr__", [all, type_name](py::handle self) {
            std::string text = type_name + "(";
            bool first = true;
            for (const FieldInfo& f : *all) {
                const py::object v = self.attr(f.name.c_str());
                text += (first ? "" : ", ") + f.name + "=";
                first = false;
                if (f.kind != Kind::plain && py::isinstance<py::float_>(v))
                    text += format_as(f.kind, py::cast<double>(v));
                else
                    text += py::cast<std::string>(py::repr(v));
            }
            return text + ")";
        });
        cls_.def(
            "to_dict",
            [all](py::handle self) {
                py::dict d;
                for (const FieldInfo& f : *all) {
                    py::object v = self.attr(f.name.c_str());
                    if (py::hasattr(v, "to_dict")) v = v.attr("to_dict")();
                    d[f.name.c_str()] = v;
                }
                return d;
            },
            "Every attribute as a dict (nested structs as dicts), floats in SI units.");
        cls_.def("copy", [](const T& t) { return T(t); }, "A copy.");
        cls_.def("__copy__", [](const T& t) { return T(t); });
        cls_.def("__deepcopy__", [](const T& t, py::handle) { return T(t); });
        return cls_;
    }
    py::class_<T>& finish() {
        return finish([](const T&) {});
    }

    py::class_<T>& cls() { return cls_; }

private:
    py::class_<T> cls_;
    std::string name_;
    std::shared_ptr<std::vector<FieldInfo>> fields_;
    std::vector<FieldInfo> computed_;
};

// The parts of the module, one per translation unit.
void bind_shapes(py::module_& m);
void bind_collectives(py::module_& m);
void bind_inference(py::module_& m);
void bind_pipeline(py::module_& m);
void bind_training(py::module_& m);
void bind_serving(py::module_& m);
void bind_cost(py::module_& m);
void bind_io(py::module_& m);

}  // namespace napkin::python
