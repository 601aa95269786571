// The origin policy's decisions without a browser (browser/policy.hpp): every spelling of a host
// reaches the same rule, model-given documents need evaluation, redaction reaches keys, marks and
// collapsed text, and secrets stay on the origins they belong to. The browser-side proofs are in
// security_e2e_test.cpp.
#include <agentkit/browser/detail/page_data.hpp>
#include <agentkit/browser/policy.hpp>
#include <agentkit/browser/routes.hpp>
#include <agentkit/browser/storage.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace br = agentkit::browser;
using agentkit::json;

namespace {

br::browser_policy blocking(std::vector<std::string> blocked) {
    br::browser_policy p;
    p.blocked_origins = std::move(blocked);
    return p;
}

}  // namespace

TEST(PolicyHosts, EverySpellingOfThisMachineMeetsARuleAboutAnyOfThem) {
    const auto p = blocking({"http://127.0.0.1:9000"});
    for (const char* url : {"http://127.0.0.1:9000/", "http://localhost:9000/", "http://LOCALHOST.:9000/", "http://app.localhost:9000/",
                            "http://[::1]:9000/", "http://[::ffff:127.0.0.1]:9000/", "http://[::ffff:7f00:1]:9000/",
                            "http://0.0.0.0:9000/", "http://[::]:9000/", "http://127.1:9000/", "http://2130706433:9000/",
                            "http://0x7f.0.0.1:9000/", "http://017700000001:9000/", "http://127.0.0.%31:9000/",
                            "http://\xEF\xBC\x91\xEF\xBC\x92\xEF\xBC\x97\xEF\xBC\x8E\xEF\xBC\x90\xEF\xBC\x8E\xEF\xBC\x90\xEF\xBC\x8E\xEF\xBC\x91:9000/",  // full width
                            "http://127\xE3\x80\x82" "0\xE3\x80\x82" "0\xE3\x80\x82" "1:9000/",  // ideographic full stops
                            "ws://localhost:9000/socket"}) {
        auto v = p.check(url);
        ASSERT_TRUE(v.has_value()) << url;
        EXPECT_EQ(v->rule, "blocked_origins: http://127.0.0.1:9000") << url;
    }
    // another port is another origin; another machine is another host
    EXPECT_FALSE(p.check("http://localhost:9001/").has_value());
    EXPECT_FALSE(p.check("http://10.0.0.1:9000/").has_value());
    EXPECT_FALSE(p.check("http://localhost.example:9000/").has_value());

    // the second variant: the rule names localhost, the URL an address
    const auto q = blocking({"localhost"});
    for (const char* url : {"http://127.0.0.1/", "https://[::1]:8443/", "http://0.0.0.0:3000/", "http://127.0.0.2/"})
        EXPECT_TRUE(q.check(url).has_value()) << url;

    // allowed lists read spellings the same way (fail closed for everything else)
    br::browser_policy a;
    a.allowed_origins = {"http://localhost:8080"};
    EXPECT_FALSE(a.check("http://127.0.0.1:8080/x").has_value());
    EXPECT_FALSE(a.check("http://[::1]:8080/x").has_value());
    EXPECT_TRUE(a.check("http://127.0.0.1:8081/x").has_value());
    EXPECT_TRUE(a.check("http://example.com:8080/x").has_value());
}

TEST(PolicyHosts, NamesAreComparedInTheFormTheBrowserResolves) {
    // IDNA: a Unicode name and its xn-- form are one host, whichever side writes which
    const auto p = blocking({"b\xC3\xBC" "cher.example"});  // bücher.example
    EXPECT_TRUE(p.check("http://xn--bcher-kva.example/").has_value());
    EXPECT_TRUE(p.check("http://b%C3%BCcher.example/").has_value());
    const auto q = blocking({"xn--mnchen-3ya.test"});  // münchen.test
    EXPECT_TRUE(q.check("https://m\xC3\xBCnchen.test/").has_value());
    EXPECT_EQ(br::policy_detail::canonical_address("m\xC3\xBCnchen.test"), "xn--mnchen-3ya.test");
    EXPECT_EQ(br::policy_detail::canonical_address("\xE4\xBE\x8B\xE5\xAD\x90.test"), "xn--fsqu00a.test");  // 例子
    // full-width letters are their ASCII letters
    const auto r = blocking({"*.ads.example"});
    EXPECT_TRUE(r.check("http://x.\xEF\xBD\x81\xEF\xBD\x84\xEF\xBD\x93.example/").has_value());  // ａｄｓ
    EXPECT_TRUE(r.check("http://ADS.EXAMPLE./").has_value());
    EXPECT_FALSE(r.check("http://notads.example/").has_value());
}

TEST(PolicyHosts, UrlsAreReadAsTheBrowserReadsThem) {
    const auto p = blocking({"evil.test"});
    // a backslash is a slash in http(s): the host is evil.test, whatever follows
    EXPECT_TRUE(p.check("http://evil.test\\@good.test/").has_value());
    EXPECT_TRUE(p.check("http:\\\\evil.test/").has_value());
    // any number of slashes, or none, after a special scheme
    EXPECT_TRUE(p.check("http:evil.test/").has_value());
    EXPECT_TRUE(p.check("https:///evil.test/").has_value());
    // tabs and newlines are dropped, leading spaces ignored
    EXPECT_TRUE(p.check(" http://ev\til\n.test/").has_value());
    // the userinfo is not the host
    EXPECT_TRUE(p.check("http://good.test@evil.test/").has_value());
    EXPECT_FALSE(p.check("http://evil.test@good.test/").has_value());
    // a backslash in the query is just a character
    EXPECT_FALSE(p.check("http://good.test/?next=\\\\evil.test").has_value());
}

TEST(PolicyNavigation, ModelGivenDocumentsNeedEvaluation) {
    br::browser_policy p;
    for (const char* url : {"data:text/html,<script>fetch('/x')</script>", "DATA:text/html;base64,PHNjcmlwdD4=", " data:image/svg+xml,<svg/>",
                            "javascript:alert(1)"}) {
        auto v = p.check_navigation(url);
        ASSERT_TRUE(v.has_value()) << url;
        EXPECT_EQ(v->rule.rfind("allow_evaluate:", 0), 0u) << v->rule;
        EXPECT_FALSE(p.check_navigation(url, /*evaluate_enabled=*/true).has_value()) << url;
    }
    // what a page opens itself (interception) is judged by check(): data: stays a page's own
    EXPECT_FALSE(p.check("data:text/html,<p>x</p>").has_value());
    EXPECT_FALSE(p.check_navigation("https://example.com/data:x").has_value());
}

TEST(PolicyRedaction, KeysMarksAndRenderedWhiteSpace) {
    br::browser_policy p;
    p.secrets = {{"PASS", "AB  CD  EF99"}, {"ANGLE", "x<<y<<z-123"}};
    // a key (a table header that echoed a field) is redacted like a value
    json rows = json::array({json{{"AB  CD  EF99", "1"}, {"other", json::array({"AB  CD  EF99"})}}});
    const std::string out = p.redact(rows).dump();
    EXPECT_EQ(out.find("EF99"), std::string::npos) << out;
    EXPECT_NE(out.find("<secret>PASS</secret>"), std::string::npos) << out;
    // rendered text collapses the runs of spaces: still the secret
    EXPECT_EQ(p.redact(std::string("textbox \"AB CD EF99\"")), "textbox \"<secret>PASS</secret>\"");
    EXPECT_EQ(p.redact(std::string("AB\nCD EF99.")).find("EF99"), std::string::npos);
    // "<<" inside marks is written "< <": redacted before and after the marks alike
    const std::string marked = br::detail::page_data("value: x<<y<<z-123", "nonce");
    EXPECT_EQ(p.redact(marked).find("z-123"), std::string::npos) << p.redact(marked);
    EXPECT_EQ(br::detail::page_data(p.redact(std::string("value: x<<y<<z-123")), "nonce").find("z-123"), std::string::npos);
}

TEST(PolicyRedaction, AValueThatIsPartOfAMarkLeavesTheMarksWhole) {
    br::browser_policy p;
    // one value is a word of every mark, another is a third secret's name
    p.secrets = {{"S", "secret"}, {"TOKEN", "tok-9"}, {"PASSWORD", "TOKEN"}};
    EXPECT_EQ(p.redact(std::string("a secret, tok-9 and TOKEN")),
              "a <secret>S</secret>, <secret>TOKEN</secret> and <secret>PASSWORD</secret>");
    EXPECT_EQ(p.redact(std::string("tok-9")), "<secret>TOKEN</secret>");
    // values overlapping in the text: no byte of either shows
    p.secrets = {{"A", "abcd-1"}, {"B", "d-1xyz"}};
    EXPECT_EQ(p.redact(std::string("[abcd-1xyz]")), "[<secret>A</secret><secret>B</secret>]");
    // the longest value found at a place wins there; a value inside it is not marked again
    p.secrets = {{"LONG", "abc-123-def"}, {"SHORT", "123"}};
    EXPECT_EQ(p.redact(std::string("abc-123-def 123")), "<secret>LONG</secret> <secret>SHORT</secret>");
}

TEST(PolicyRedaction, EveryFormHtmlWritesASecretIn) {
    // a secret with every character HTML escapes, and "<<" that the marks escape
    const std::string secret = "pa<<ss\"wo&rd'>";
    br::browser_policy p;
    p.secrets = {{"PW", secret}};
    const std::vector<std::string> echoed = {
        "<li>pa&lt;&lt;ss\"wo&amp;rd'&gt;</li>",                 // innerHTML of a text node
        "<input value=\"pa<<ss&quot;wo&amp;rd'>\">",              // an attribute as the DOM serialised it
        "<input value=\"pa&lt;&lt;ss&quot;wo&amp;rd'&gt;\">",     // ... and does since 2025 (< > too)
        "<code>pa&amp;lt;&amp;lt;ss&amp;quot;wo&amp;amp;rd&amp;#39;&amp;gt;</code>",  // escaped text, serialised
        "pa&lt;&lt;ss&quot;wo&amp;rd&#39;&gt;",                  // a template's escaping, three apostrophes
        "pa&lt;&lt;ss&quot;wo&amp;rd&#x27;&gt;",
        "pa&lt;&lt;ss&quot;wo&amp;rd&apos;&gt;",
        json("<li>pa&lt;&lt;ss\"wo&amp;rd'&gt;</li>").dump(),   // a script's result: markup in a JSON string
    };
    for (const auto& e : echoed) {
        for (const std::string& shown : {e, br::detail::page_data(e, "nonce")}) {
            const std::string out = p.redact(shown);
            EXPECT_NE(out.find("<secret>PW</secret>"), std::string::npos) << shown << "\n" << out;
            for (const char* piece : {"wo&amp;rd", "ss&quot;", "&lt;&lt;ss", "< <ss", "<<ss", "rd&#"})
                EXPECT_EQ(out.find(piece), std::string::npos) << piece << " in " << out;
        }
    }
    // a no-break space as the serialiser writes it
    p.secrets = {{"NB", "key\xC2\xA0with&nbsp"}};
    EXPECT_EQ(p.redact(std::string("<b>key&nbsp;with&amp;nbsp</b>")), "<b><secret>NB</secret></b>");
    // a secret with nothing HTML escapes is unchanged by any of this
    p.secrets = {{"PLAIN", "plain-value-1"}};
    EXPECT_EQ(p.redact(std::string("x plain-value-1 y")), "x <secret>PLAIN</secret> y");
}

TEST(PolicyMarks, StructuredPageDataCannotWriteAMark) {
    const json in = {{"<<end abc>>", json::array({"a<<b", 3, json{{"k<<", "<<v"}}})}};
    const std::string out = br::detail::escape_marks_json(in).dump();
    EXPECT_EQ(out.find("<<"), std::string::npos) << out;
    EXPECT_NE(out.find("< <end abc>>"), std::string::npos) << out;
    EXPECT_EQ(br::detail::page_quote("say \"hi\" <<end x>>"), "\"say \\\"hi\\\" < <end x>>\"");
}

TEST(PolicySecrets, TiedToTheirOriginsAndOnlyByPlaceholder) {
    auto p = br::browser_policy::from_json(json::parse(R"({
        "allowedOrigins": ["http://127.0.0.1:*", "*.example.com"],
        "secrets": {"PASS": {"value": "pw-1", "origins": ["https://login.example.com"]}, "TOKEN": "t-2"}})"));
    // ":*" is any port (Playwright MCP's spelling); "x*" is no port: refused with a clear error
    EXPECT_TRUE(p.has_value());
    EXPECT_FALSE(br::browser_policy::from_json(json::parse(R"({"allowedOrigins": ["http://127.0.0.1:8*"]})")).has_value());
    p = br::browser_policy::from_json(json::parse(R"({
        "allowedOrigins": ["http://127.0.0.1", "*.example.com"],
        "secrets": {"PASS": {"value": "pw-1", "origins": ["https://login.example.com"]}, "TOKEN": "t-2"}})"));
    ASSERT_TRUE(p.has_value()) << p.error().message;
    EXPECT_EQ(p->secrets.at("PASS"), "pw-1");
    EXPECT_FALSE(p->check_secret_origin("PASS", "https://login.example.com").has_value());
    auto v = p->check_secret_origin("PASS", "https://evil.example.com");
    ASSERT_TRUE(v.has_value());
    EXPECT_NE(v->rule.find("only typed into pages of https://login.example.com"), std::string::npos) << v->rule;
    EXPECT_TRUE(p->check_secret_origin("PASS", "http://login.example.com").has_value());  // another scheme
    EXPECT_TRUE(p->check_secret_origin("PASS", "null").has_value());                     // opaque
    // undeclared: where the origin lists allow
    EXPECT_FALSE(p->check_secret_origin("TOKEN", "http://127.0.0.1:4000").has_value());
    EXPECT_TRUE(p->check_secret_origin("TOKEN", "https://other.test").has_value());
    EXPECT_TRUE(p->check_secret_origin("TOKEN", "null").has_value());
    // the names a text used
    std::vector<std::string> used;
    auto s = p->substitute("u {{secret:PASS}} and <secret>TOKEN</secret>", &used);
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(*s, "u pw-1 and t-2");
    EXPECT_EQ(used, (std::vector<std::string>{"PASS", "TOKEN"}));
    // a bare name is a word, not a placeholder
    used.clear();
    EXPECT_EQ(*p->substitute("PASS", &used), "PASS");
    EXPECT_TRUE(used.empty());
    // bad declarations are errors that say what is wrong
    for (const char* bad : {R"({"secrets": {"A": {"value": "x", "origins": []}}})", R"({"secrets": {"A": {"value": "x", "origin": ["a"]}}})",
                            R"({"secrets": {"A": {"origins": ["a"]}}})", R"({"secrets": {"A": {"value": "x", "origins": ["http://a/b"]}}})"}) {
        auto e = br::browser_policy::from_json(json::parse(bad));
        EXPECT_FALSE(e.has_value()) << bad;
        if (!e) {
            EXPECT_NE(e.error().message.find("A"), std::string::npos) << e.error().message;
        }
    }
    br::browser_policy q;
    q.secret_origins["NOPE"] = {"https://x.test"};
    EXPECT_FALSE(q.validate().has_value());
    // the policy as JSON names origins, never values
    const std::string j = p->to_json().dump();
    EXPECT_EQ(j.find("pw-1"), std::string::npos);
    EXPECT_NE(j.find("login.example.com"), std::string::npos);
}

TEST(PolicyHosts, APortWildcardIsAnyPort) {
    br::browser_policy p;
    p.allowed_origins = {"http://localhost:*", "https://*.example.com:*"};
    ASSERT_TRUE(p.validate().has_value());
    EXPECT_FALSE(p.check("http://localhost:4000/x").has_value());
    EXPECT_FALSE(p.check("http://127.0.0.1:1/").has_value());  // the same machine
    EXPECT_FALSE(p.check("https://a.example.com:8443/").has_value());
    EXPECT_TRUE(p.check("https://evil.test:4000/").has_value());
    EXPECT_TRUE(p.check("http://a.example.com/").has_value());  // the scheme still counts
    br::browser_policy bad;
    bad.allowed_origins = {"http://localhost:x*"};
    EXPECT_FALSE(bad.validate().has_value());
}

TEST(PolicyHosts, AHostIsRefusedWhenEveryRequestToItWouldBe) {
    br::browser_policy open;
    EXPECT_FALSE(open.check_host("anything.test").has_value());
    br::browser_policy p;
    p.allowed_origins = {"http://127.0.0.1:8080", "*.example.com"};
    p.blocked_origins = {"ads.example.com", "https://pay.example.com"};
    EXPECT_FALSE(p.check_host("localhost").has_value());    // 127.0.0.1:8080 is allowed: a cookie for it may be set
    EXPECT_FALSE(p.check_host(".example.com").has_value());  // a domain cookie's leading dot
    EXPECT_FALSE(p.check_host("www.example.com").has_value());
    EXPECT_FALSE(p.check_host("pay.example.com").has_value());  // blocked over https only: http://pay.example.com is allowed
    auto ads = p.check_host("ads.example.com");
    ASSERT_TRUE(ads.has_value());
    EXPECT_EQ(ads->rule, "blocked_origins: ads.example.com");
    auto evil = p.check_host("evil.test");
    ASSERT_TRUE(evil.has_value());
    EXPECT_EQ(evil->rule, "allowed_origins: not in the allowed list");
    EXPECT_TRUE(p.check_host("").has_value());
}

TEST(Routes, UrlGlobsMatchAsPlaywrightsDo) {
    struct row {
        const char* pattern;
        const char* url;
        bool match;
    };
    for (const auto& r : std::vector<row>{
             {"**/api/users", "http://127.0.0.1:4000/api/users", true},
             {"**/api/users", "http://127.0.0.1:4000/api/users/1", false},
             {"**/api/*", "http://h.test/api/users", true},
             {"**/api/*", "http://h.test/api/users/1", false},  // * stops at /
             {"**/api/**", "http://h.test/api/users/1", true},
             {"**/*.{png,jpg}", "http://h.test/a/b.jpg", true},
             {"**/*.{png,jpg}", "http://h.test/a/b.gif", false},
             {"http://h.test/search?q=*", "http://h.test/search?q=x", true},  // ? is itself
             {"http://h.test/search?q=*", "http://h.test/searchXq=x", false},
             {"http://127.0.0.1:*/x", "http://127.0.0.1:9/x", true},
             {"**/a\\*b", "http://h.test/a*b", true},  // an escaped star is a star
             {"**/a\\*b", "http://h.test/axb", false},
             {"**/{v1,v2}/**/{a,b{c,d}}", "http://h.test/v2/x/y/bd", true},
             {"**/{v1,v2}/**/{a,b{c,d}}", "http://h.test/v3/x/y/bd", false},
             {"**", "anything", true},
             {"", "", true},
             {"http://h.test/", "http://h.test/x", false},
             {"**/{unclosed", "http://h.test/{unclosed", true},  // an unclosed brace is a character
         })
        EXPECT_EQ(br::url_glob_match(r.pattern, r.url), r.match) << r.pattern << " ~ " << r.url;
    // a long run of stars against a long URL ends (bounded backtracking per star)
    EXPECT_FALSE(br::url_glob_match("*a*a*a*a*a*a*a*b", std::string(60, 'a')));
}

TEST(StorageState, ReadsPlaywrightsFormatAndSaysWhatIsWrongInIt) {
    const json j = json::parse(R"({"cookies": [{"name": "sid", "value": "v", "domain": "localhost", "path": "/", "expires": -1,
                                                 "httpOnly": true, "secure": false, "sameSite": "Lax"},
                                                {"name": "b", "value": "", "domain": ".example.com"}],
                                    "origins": [{"origin": "http://localhost:4000", "localStorage": [{"name": "k", "value": "1"}]}],
                                    "extra": 1})");
    auto s = br::parse_storage_state(j);
    ASSERT_TRUE(s.has_value()) << s.error().message;
    ASSERT_EQ(s->cookies.size(), 2U);
    EXPECT_TRUE(s->cookies[0].http_only);
    EXPECT_EQ(s->cookies[1].path, "/");
    EXPECT_EQ(s->cookies[1].expires, -1);
    ASSERT_EQ(s->origins.size(), 1U);
    EXPECT_EQ(s->origins[0].local_storage[0].value, "1");
    // back to JSON and read again: the same
    auto again = br::parse_storage_state(br::to_json(*s));
    ASSERT_TRUE(again.has_value());
    EXPECT_EQ(br::to_json(*again), br::to_json(*s));
    struct bad_case {
        const char* text;
        const char* says;
    };
    for (const auto& b : std::vector<bad_case>{{R"([])", "a JSON object"},
                                                {R"({"cookies": {}})", "\"cookies\" is not an array"},
                                                {R"({"cookies": [{"value": "v", "domain": "d"}]})", "cookie 1 has no \"name\""},
                                                {R"({"cookies": [{"name": "a", "value": "v", "domain": "d", "sameSite": "lax"}]})", "sameSite"},
                                                {R"({"cookies": [{"name": "a", "value": "v", "domain": "d", "expires": "soon"}]})", "\"expires\""},
                                                {R"({"cookies": [{"name": "a", "value": 1, "domain": "d"}]})", "cookie 1's \"value\""},
                                                {R"({"origins": [{"localStorage": []}]})", "origin 1 has no \"origin\""},
                                                {R"({"origins": [{"origin": "http://a", "localStorage": [{"name": "k"}]}]})", "origin 1's item 1"}}) {
        auto e = br::parse_storage_state(json::parse(b.text));
        ASSERT_FALSE(e.has_value()) << b.text;
        EXPECT_NE(e.error().message.find(b.says), std::string::npos) << b.text << " -> " << e.error().message;
    }
}
