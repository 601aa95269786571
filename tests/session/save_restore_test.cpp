// agent_session::save / restore (session/saved.hpp): a conversation kept as JSON and resumed in
// another session, here and in another process (resume_main.cpp), with its masker's state.
#include <agentkit/agentkit.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "resume_tools.hpp"

namespace ak = agentkit;
using ak::json;
using ak::provider;
namespace fx = resume_fixture;

namespace {

using session_t = ak::agent_session<std::remove_cvref_t<decltype(fx::box)>, decltype(fx::make_menu())>;

session_t make_session() {
    return ak::agent_session{fx::box, fx::make_menu(), ak::compact_formatter{}, fx::options()};
}

/// Three steps of a conversation, stopped by the step limit before it ends: the menu entered,
/// a key looked up, a long page read (its text cut into an artifact), a hidden tool refused.
ak::run_result drive(session_t& s, provider p) {
    ak::scripted_model m(p, {
        ak::script::call({{"menu_enter", {{"mode", "reading"}}}}),
        ak::script::call({{"lookup", {{"key", "a"}}}, {"read_page", {{"key", "p"}}}}),
        ak::script::call({{"broken", {{"key", "b"}}}}),
        ak::script::say("unused"),
    });
    ak::run_limits lim;
    lim.max_steps = 3;
    return s.run(m, "Look a up and read page p.", lim);
}

std::string temp_file(const std::string& text) {
    const auto path = std::filesystem::temp_directory_path() / ("agentkit-saved-" + std::to_string(::getpid()) + "-" +
                                                                 std::to_string(std::rand()) + ".json");
    std::ofstream(path) << text;
    return path.string();
}

/// Runs the resume program: its exit status and standard output.
std::pair<int, std::string> resume_in_another_process(const std::string& saved_file, const char* p) {
    const std::string cmd = std::string(AGENTKIT_TEST_RESUME) + " " + saved_file + " " + p + " 2>&1";
    FILE* f = ::popen(cmd.c_str(), "r");
    if (f == nullptr) return {-1, ""};
    std::string out;
    char buf[65536];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
    const int status = ::pclose(f);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

class SaveRestore : public ::testing::TestWithParam<provider> {};

}  // namespace

TEST_P(SaveRestore, ARestoredSessionBuildsTheSameNextRequestAndGoesOnTheSame) {
    auto a = make_session();
    ASSERT_EQ(drive(a, GetParam()).reason, ak::stop_reason::step_limit);
    ASSERT_FALSE(a.artifacts().empty());
    const json saved = json::parse(a.save().dump());  // as stored and read back

    auto b = make_session();
    EXPECT_NE(b.session_id(), a.session_id());
    auto ok = b.restore(saved);
    ASSERT_TRUE(ok) << ok.error().to_text();
    EXPECT_EQ(b.session_id(), a.session_id());
    EXPECT_EQ(b.request(GetParam()), a.request(GetParam()));
    EXPECT_EQ(b.visible(), a.visible());  // the menu's mode came back
    EXPECT_EQ(b.history().size(), a.history().size());
    EXPECT_EQ(b.metrics().turns.size(), 3u);
    EXPECT_EQ(b.metrics().usage.input_tokens, a.metrics().usage.input_tokens);
    EXPECT_EQ(b.metrics().tool_errors, a.metrics().tool_errors);
    ASSERT_EQ(b.artifacts().size(), a.artifacts().size());
    EXPECT_EQ(b.artifacts()[0].uri, a.artifacts()[0].uri);
    EXPECT_EQ(b.save(), a.save());
    // the cut page's text came along: the restored session's own store holds it under its id
    ASSERT_NE(b.store(), nullptr);
    const auto text = b.store()->get(a.artifacts()[0].id);
    ASSERT_TRUE(text.has_value());
    EXPECT_EQ(text->data, a.store()->get(a.artifacts()[0].id)->data);
    EXPECT_NE(text->data.find("line 2999 of page p"), std::string::npos);

    // Both go on alike: the same answer, and the same request after it.
    for (auto* s : {&a, &b}) {
        ak::scripted_model m(GetParam(), {ak::script::call({{"read_page", {{"key", "q"}}}}), ak::script::say("a is 1")});
        auto r = s->run(m, "");
        EXPECT_EQ(r.reason, ak::stop_reason::answered);
        EXPECT_EQ(r.final_text, "a is 1");
    }
    EXPECT_EQ(b.request(GetParam()), a.request(GetParam()));
    EXPECT_EQ(b.metrics().turns.size(), a.metrics().turns.size());
    // the second page got an id of its own, after the restored one's
    ASSERT_EQ(b.artifacts().size(), 2u);
    EXPECT_EQ(b.artifacts()[1].id, a.artifacts()[1].id);
    EXPECT_NE(b.artifacts()[1].id, b.artifacts()[0].id);
    EXPECT_NE(b.store()->get(b.artifacts()[0].id)->data, b.store()->get(b.artifacts()[1].id)->data);
}

TEST_P(SaveRestore, AnotherProcessResumesTheConversationWithTheSameNextRequest) {
    auto a = make_session();
    ASSERT_EQ(drive(a, GetParam()).reason, ak::stop_reason::step_limit);
    const std::string file = temp_file(a.save().dump());
    const char* names[] = {"anthropic", "openai_chat", "openai_responses"};
    const auto [status, out] = resume_in_another_process(file, names[static_cast<int>(GetParam())]);
    std::filesystem::remove(file);
    ASSERT_EQ(status, 0) << out;
    EXPECT_EQ(json::parse(out), a.request(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(AllProviders, SaveRestore,
                         ::testing::Values(provider::anthropic, provider::openai_chat, provider::openai_responses));

TEST(SaveRestoreRefusals, RestoringIntoAUsedSessionReplacesItsConversationArtifactsAndCancel) {
    auto a = make_session();
    ASSERT_EQ(drive(a, provider::anthropic).reason, ak::stop_reason::step_limit);
    const json saved = a.save();

    auto c = make_session();  // another user's conversation, with artifacts of its own, cancelled
    {
        ak::scripted_model m(provider::anthropic, {ak::script::call({{"menu_enter", {{"mode", "reading"}}}}),
                                                   ak::script::call({{"read_page", {{"key", "private"}}}, {"read_page", {{"key", "more"}}}}),
                                                   ak::script::say("read")});
        ASSERT_TRUE(c.run(m, "Read my pages.").ok());
    }
    ASSERT_EQ(c.artifacts().size(), 2u);
    c.cancel();
    auto ok = c.restore(saved);
    ASSERT_TRUE(ok) << ok.error().to_text();
    ASSERT_EQ(c.artifacts().size(), a.artifacts().size());  // the other user's are gone
    EXPECT_EQ(c.artifacts()[0].uri, a.artifacts()[0].uri);
    EXPECT_EQ(c.store()->size(), a.artifacts().size());
    EXPECT_EQ(c.store()->get(a.artifacts()[0].id)->data, a.store()->get(a.artifacts()[0].id)->data);
    EXPECT_EQ(c.save(), a.save());
    // the cancel() belonged to the conversation replaced
    ak::scripted_model next(provider::anthropic, {ak::script::say("fine")});
    EXPECT_EQ(c.run(next, "Go on.").reason, ak::stop_reason::answered);
}

TEST(SaveRestoreRefusals, OtherToolsAreNamedAndNothingChanges) {
    const auto extra = ak::tool<"extra">("Another tool.", [](const fx::key_args& a) { return a.key; });
    const auto lookup2 = ak::tool<"lookup">("Look a key up, differently.", [](const fx::key_args& a) { return a.key; }, ak::read_only);
    ak::agent_session a{ak::toolbox{fx::lookup, fx::page}};
    ak::scripted_model m(provider::anthropic, {ak::script::call({{"lookup", {{"key", "a"}}}}), ak::script::say("done")});
    ASSERT_TRUE(a.run(m, "go").ok());
    const json saved = a.save();

    ak::agent_session more{ak::toolbox{fx::lookup, fx::page, extra}};
    more.add_user("kept");
    const std::string id = more.session_id();
    auto r = more.restore(saved);
    ASSERT_FALSE(r);
    EXPECT_TRUE(r.error().is(ak::errc::args_invalid));
    EXPECT_NE(r.error().message.find("this session has new extra"), std::string::npos) << r.error().message;
    EXPECT_FALSE(r.error().hint.empty());
    EXPECT_EQ(more.session_id(), id);
    ASSERT_EQ(more.history().size(), 1u);
    EXPECT_EQ(more.history()[0].text, "kept");

    ak::agent_session fewer{ak::toolbox{fx::lookup}};
    r = fewer.restore(saved);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("this session lacks read_page"), std::string::npos) << r.error().message;

    ak::agent_session changed{ak::toolbox{lookup2, fx::page}};
    r = changed.restore(saved);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("the description or schema changed of lookup"), std::string::npos) << r.error().message;

    // the same tools: taken
    ak::agent_session same{ak::toolbox{fx::lookup, fx::page}};
    r = same.restore(saved);
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_TRUE(same.done());
    EXPECT_EQ(same.final_text(), "done");
}

TEST(SaveRestoreRefusals, AMalformedDocumentIsRefusedWhereItIsWrongAndLosesNothing) {
    auto a = make_session();
    ASSERT_EQ(drive(a, provider::anthropic).reason, ak::stop_reason::step_limit);
    const json good = a.save();

    // b holds a conversation of its own: a refused restore must leave every part of it
    auto b = make_session();
    {
        ak::scripted_model other(provider::openai_chat, {ak::script::call({{"menu_enter", {{"mode", "failing"}}}}),
                                                         ak::script::call({{"broken", {{"key", "x"}}}}), ak::script::say("no")});
        ASSERT_TRUE(b.run(other, "Something else.").ok());
    }
    const json before = b.save();
    ASSERT_NE(before["history"], good["history"]);
    const auto refused = [&](json doc, std::string_view where) {
        auto r = b.restore(doc);
        ASSERT_FALSE(r) << where;
        EXPECT_TRUE(r.error().is(ak::errc::args_invalid)) << r.error().to_text();
        EXPECT_NE(r.error().message.find(where), std::string::npos) << r.error().message;
        EXPECT_EQ(b.save(), before) << "changed by a refused restore: " << where;
    };
    refused(json::array(), "not a saved agentkit session");
    json doc = good;
    doc["format"] = "something.else";
    refused(doc, "not a saved agentkit session");
    doc = good;
    doc["version"] = 2;
    refused(doc, "version 2 is not one this agentkit reads");
    doc = good;
    doc["history"][1]["role"] = "system";
    refused(doc, "history[1].role is \"system\"");
    doc = good;
    doc["history"][2]["results"][0]["output"]["content"][0]["type"] = "video";
    refused(doc, "history[2].results[0].output.content[0].type");
    doc = good;
    doc["history"][1]["calls"][0]["name"] = 7;
    refused(doc, "history[1].calls[0].name has the wrong type");
    doc = good;
    doc["state"]["last_stop"] = "tired";
    refused(doc, "state.last_stop");
    doc = good;
    doc["state"]["nudges"] = "many";
    refused(doc, "state has a value of the wrong type");
    doc = good;
    doc["metrics"] = 5;
    refused(doc, "metrics");
    doc = good;
    doc["masker"] = json{{"masker", "router"}};
    refused(doc, "masker");
    doc = good;
    doc.erase("session_id");
    refused(doc, "session_id is missing");

    // a stateless masker cannot take a saved state
    ak::agent_session plain{ak::toolbox{fx::lookup}};
    json other = plain.save();
    other["masker"] = json{{"masker", "menu"}};
    auto r = plain.restore(other);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("this session's masker keeps none"), std::string::npos) << r.error().message;

    // and the good document is still taken
    auto again = b.restore(good);
    EXPECT_TRUE(again) << again.error().to_text();
}

TEST(SaveRestoreRefusals, AnotherProcessRefusesAMismatchedDocumentWithAClearError) {
    ak::agent_session a{ak::toolbox{fx::lookup}};
    a.add_user("hello");
    const std::string file = temp_file(a.save().dump());
    const auto [status, out] = resume_in_another_process(file, "anthropic");
    std::filesystem::remove(file);
    EXPECT_EQ(status, 1);
    EXPECT_NE(out.find("args.invalid"), std::string::npos) << out;
    EXPECT_NE(out.find("it was made with other tools"), std::string::npos) << out;
}
