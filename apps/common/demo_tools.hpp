// Shared by agentkit-demo and agentkit-bot: a few non-browser tools over a small in-memory
// "workshop registration" world, and the script the scripted model follows.
//
// The browser lands later; when it does, a browser mode adds its toolbox next to this one
// (see `demo_mode` in demo/main.cpp) and the script enters it through the menu.
#pragma once

#include <agentkit/agentkit.hpp>

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace demo {

namespace ak = agentkit;

struct person_args {
    std::string name;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(person_args, name, "Full name of the person", ak::min_length(1)));
    }
};

struct day_args {
    std::string date;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(day_args, date, "Date as YYYY-MM-DD", ak::min_length(10)));
    }
};

struct form_field {
    std::string label;
    std::string value;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(form_field, label, "Field label", ak::min_length(1)),
                          AGENTKIT_FIELD(form_field, value, "Value to enter"));
    }
};

struct form_args {
    std::string form;
    std::vector<form_field> fields;
    bool submit = true;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(form_args, form, "Form id, e.g. workshop-registration", ak::min_length(1)),
                          AGENTKIT_FIELD(form_args, fields, "Fields to fill, by label", ak::max_items(12)),
                          AGENTKIT_FIELD(form_args, submit, "Submit after filling"));
    }
};

struct section_args {
    std::string section;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(section_args, section, "Section to read: confirmation, agenda or terms", ak::min_length(1)));
    }
};

/// The world the tools act on (thread-safe: parallel-safe tools may run concurrently).
struct world {
    std::mutex mu;
    std::map<std::string, std::string> submitted;
    std::string confirmation;
};

inline world& the_world() {
    static world w;
    return w;
}

inline const auto lookup_contact = ak::tool<"lookup_contact">(
    "Find a person's email and phone in the address book.",
    [](const person_args& a) -> ak::result<std::string> {
        if (a.name == "Ada Lovelace") return std::string("Ada Lovelace <ada@analytical.engine> +44 20 7946 0018");
        if (a.name == "Charles Babbage") return std::string("Charles Babbage <charles@difference.engine> +44 20 7946 0190");
        return ak::fail(ak::errc::not_found, "no contact named \"" + a.name + "\"", "Check the spelling or try the surname.");
    },
    ak::read_only | ak::parallel_safe);

inline const auto check_calendar = ak::tool<"check_calendar">(
    "Events on a day.",
    [](const day_args& a) {
        if (a.date == "2025-12-04") return std::string("2025-12-04: 10:00 Workshop 'Engines of Thought' (room 3, 12 seats left)");
        return a.date + ": no events";
    },
    ak::read_only | ak::parallel_safe);

inline const auto fill_form = ak::tool<"fill_form">(
    "Fill several fields of a form in one call and optionally submit it. Prefer this to one call per field.",
    [](const form_args& a) -> ak::result<std::string> {
        if (a.form != "workshop-registration")
            return ak::fail(ak::errc::not_found, "no form \"" + a.form + "\"", "The form id is workshop-registration.");
        static const std::vector<std::string> known{"Name", "Email", "Phone", "Session", "Dietary needs"};
        std::vector<ak::compact::field_result> res;
        auto& w = the_world();
        std::lock_guard lock(w.mu);
        for (const auto& f : a.fields) {
            bool ok = false;
            for (const auto& k : known) ok = ok || k == f.label;
            res.emplace_back(f.label, ok, ok ? "" : "ref.unknown");
            if (ok) w.submitted[f.label] = f.value;
        }
        std::string s = ak::compact::filled(res);
        if (a.submit) {
            if (w.submitted.count("Name") == 0 || w.submitted.count("Email") == 0) {
                return s + "; submit refused: Name and Email are required";
            }
            w.confirmation = "EOT-" + std::to_string(1000 + w.submitted["Name"].size() * 37);
            s += " submit:ok → Registration received (http://127.0.0.1/workshop/thanks)";
        }
        return s;
    });

inline const auto read_section = ak::tool<"read_section">(
    "Read a section of the current page as text.",
    [](const section_args& a) -> ak::result<std::string> {
        auto& w = the_world();
        std::lock_guard lock(w.mu);
        if (a.section == "confirmation") {
            if (w.confirmation.empty()) return std::string("No registration yet.");
            return "Thank you, " + w.submitted["Name"] + ". Your seat at 'Engines of Thought' on 2025-12-04 10:00, room 3, "
                   "is confirmed. Confirmation number: " + w.confirmation + ". A copy was sent to " + w.submitted["Email"] + ".";
        }
        if (a.section == "agenda") return std::string("10:00 Welcome · 10:15 The Analytical Engine · 11:30 Notes G · 12:30 Lunch");
        return ak::fail(ak::errc::not_found, "no section \"" + a.section + "\"", "Sections: confirmation, agenda, terms.");
    },
    ak::read_only | ak::parallel_safe);

inline auto make_toolbox() { return ak::toolbox{lookup_contact, check_calendar, fill_form, read_section}; }

inline const char* task =
    "Register Ada Lovelace for the 'Engines of Thought' workshop on 2025-12-04 (vegetarian) and tell me her "
    "confirmation number.";

/// What a good model does with these tools: two lookups in parallel, one compound form fill,
/// one read, then complete.
inline std::vector<ak::scripted_reply> script() {
    return {
        ak::script::call({{"lookup_contact", {{"name", "Ada Lovelace"}}}, {"check_calendar", {{"date", "2025-12-04"}}}}),
        ak::script::call({{"fill_form",
                   {{"form", "workshop-registration"},
                    {"fields", ak::json::array({{{"label", "Name"}, {"value", "Ada Lovelace"}},
                                                {{"label", "Email"}, {"value", "ada@analytical.engine"}},
                                                {{"label", "Phone"}, {"value", "+44 20 7946 0018"}},
                                                {{"label", "Session"}, {"value", "2025-12-04 10:00 Engines of Thought"}},
                                                {{"label", "Dietary needs"}, {"value", "vegetarian"}}})},
                    {"submit", true}}}}),
        ak::script::call({{"read_section", {{"section", "confirmation"}}}}),
    };
}

/// The last step reads the confirmation number out of the request it is sent (the tool result
/// of read_section), as a model would, and completes.
inline ak::scripted_model::step_fn final_step() {
    return [](const ak::json& request) {
        const std::string dump = request.dump();
        const std::string key = "Confirmation number: ";
        std::string number = "(not found)";
        if (auto p = dump.find(key); p != std::string::npos) {
            const auto start = p + key.size();
            const auto end = dump.find('.', start);
            number = dump.substr(start, end - start);
        }
        return ak::script::call({{"complete",
                          {{"result", "Ada Lovelace is registered for 'Engines of Thought' (2025-12-04 10:00, room 3). "
                                      "Confirmation number: " + number + "."},
                           {"summary", {"looked up Ada's contact and the workshop in parallel",
                                        "filled and submitted the 5-field registration form in one call",
                                        "read the confirmation page"}}}}});
    };
}

}  // namespace demo
