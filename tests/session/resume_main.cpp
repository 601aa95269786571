// Resumes a conversation saved by another process (tests/session/save_restore_test.cpp):
//   agentkit_test_resume SAVED.json PROVIDER    prints the next request for PROVIDER
//                                               (anthropic, openai_chat, openai_responses)
// Exit 0 when restored; 1 with the error on stderr when the restore was refused; 2 on bad usage.
#include "resume_tools.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

int main(int argc, char** argv) {
    namespace ak = agentkit;
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s SAVED.json PROVIDER\n", argv[0]);
        return 2;
    }
    std::ifstream in(argv[1]);
    std::stringstream text;
    text << in.rdbuf();
    const ak::json saved = ak::json::parse(text.str(), nullptr, false);
    const std::string p = argv[2];
    const ak::provider provider = p == "openai_chat" ? ak::provider::openai_chat
                                  : p == "openai_responses" ? ak::provider::openai_responses
                                                            : ak::provider::anthropic;
    ak::agent_session session{resume_fixture::box, resume_fixture::make_menu(), ak::compact_formatter{}, resume_fixture::options()};
    if (auto ok = session.restore(saved); !ok) {
        std::fprintf(stderr, "%s\n", ok.error().to_text().c_str());
        return 1;
    }
    std::printf("%s\n", session.request(provider).dump().c_str());
    return 0;
}
