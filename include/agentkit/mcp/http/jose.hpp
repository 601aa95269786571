// agentkit/mcp/http/jose.hpp — the signed tokens MCP's authorization needs from a client, through
// OpenSSL's libcrypto (no hand-written cryptography): compact JWS signing (ES256, RS256) for
// private_key_jwt client assertions (RFC 7523), and DPoP keys and proofs (RFC 9449) that bind
// tokens to a key of the client's own. Used by mcp/http/oauth.hpp.
#pragma once

#include <agentkit/core/random.hpp>
#include <agentkit/core/base64.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentkit::mcp::detail {

/// base64url without padding (RFC 4648 §5), as PKCE and state use it.
[[nodiscard]] inline std::string base64url(const void* data, std::size_t n) {
    std::string s = base64_encode(data, n);
    while (!s.empty() && s.back() == '=') s.pop_back();
    for (char& c : s) {
        if (c == '+') c = '-';
        else if (c == '/') c = '_';
    }
    return s;
}

/// An OpenSSL key, freed with it.
using evp_key = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;

/// A compact JWS (RFC 7515) of `claims` with the protected `header` (its `alg` set here),
/// signed with `key` by `alg` (ES256: an EC P-256 key, the signature as R || S; RS256: an RSA
/// key, PKCS #1 v1.5), all through OpenSSL. Nothing when OpenSSL refused (`why` says so).
[[nodiscard]] inline std::optional<std::string> sign_jws(EVP_PKEY* key, const std::string& alg, json header, const json& claims, std::string& why) {
    header["alg"] = alg;
    const std::string head = header.dump();
    const std::string body = claims.dump();
    const std::string input = base64url(head.data(), head.size()) + "." + base64url(body.data(), body.size());
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
    std::size_t len = 0;
    why = "OpenSSL refused to sign";
    if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key) != 1 ||
        EVP_DigestSign(ctx.get(), nullptr, &len, reinterpret_cast<const unsigned char*>(input.data()), input.size()) != 1)
        return std::nullopt;
    std::vector<unsigned char> sig(len);
    if (EVP_DigestSign(ctx.get(), sig.data(), &len, reinterpret_cast<const unsigned char*>(input.data()), input.size()) != 1) return std::nullopt;
    sig.resize(len);
    if (alg == "ES256") {  // DER (SEQUENCE of two INTEGERs) to the fixed-size R || S that JWS asks for
        why = "OpenSSL gave an unreadable signature";
        const unsigned char* p = sig.data();
        std::unique_ptr<ECDSA_SIG, decltype(&ECDSA_SIG_free)> es(d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(sig.size())), &ECDSA_SIG_free);
        if (!es) return std::nullopt;
        const BIGNUM* r = nullptr;
        const BIGNUM* s = nullptr;
        ECDSA_SIG_get0(es.get(), &r, &s);
        std::vector<unsigned char> raw(64);
        if (BN_bn2binpad(r, raw.data(), 32) != 32 || BN_bn2binpad(s, raw.data() + 32, 32) != 32) return std::nullopt;
        sig = std::move(raw);
    }
    why.clear();
    return input + "." + base64url(sig.data(), sig.size());
}

/// A compact JWS (RFC 7515) of `claims`, signed with the PEM private key `pem` by `alg` (ES256
/// or RS256, see sign_jws()). The error never shows the key.
[[nodiscard]] inline result<std::string> sign_jwt(const std::string& pem, const std::string& alg, const json& claims) {
    auto bad = [](const std::string& what) {
        return fail(errc::auth_required, "cannot sign the client assertion: " + what,
                    "Give the client's private key as PEM (PKCS #8 or traditional) and ES256 for an EC P-256 key, RS256 for an RSA key.",
                    json{{"reason", "no_client"}});
    };
    if (alg != "ES256" && alg != "RS256") return bad("the algorithm " + alg + " is not supported");
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
    if (!bio) return bad("out of memory");
    evp_key key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr), &EVP_PKEY_free);
    if (!key) return bad("the private key is not a PEM private key");
    const int type = EVP_PKEY_base_id(key.get());
    if ((alg == "ES256" && (type != EVP_PKEY_EC || EVP_PKEY_bits(key.get()) != 256)) || (alg == "RS256" && type != EVP_PKEY_RSA))
        return bad("the private key does not fit " + alg);
    std::string why;
    auto jws = sign_jws(key.get(), alg, json{{"typ", "JWT"}}, claims, why);
    if (!jws) return bad(why);
    return std::move(*jws);
}

/// A DPoP key (RFC 9449): a new EC P-256 key pair and its public JWK ({kty, crv, x, y}).
struct dpop_key {
    evp_key key{nullptr, &EVP_PKEY_free};  ///< the pair (null when OpenSSL could not make one)
    json jwk;                               ///< the public key as a JWK
};

/// A new DPoP key; its `key` is null when OpenSSL could not make one.
[[nodiscard]] inline dpop_key make_dpop_key() {
    dpop_key k;
    k.key.reset(EVP_EC_gen("P-256"));
    if (!k.key) return k;
    BIGNUM* x = nullptr;
    BIGNUM* y = nullptr;
    std::array<unsigned char, 32> bx{};
    std::array<unsigned char, 32> by{};
    const bool ok = EVP_PKEY_get_bn_param(k.key.get(), OSSL_PKEY_PARAM_EC_PUB_X, &x) == 1 &&
                    EVP_PKEY_get_bn_param(k.key.get(), OSSL_PKEY_PARAM_EC_PUB_Y, &y) == 1 && BN_bn2binpad(x, bx.data(), 32) == 32 &&
                    BN_bn2binpad(y, by.data(), 32) == 32;
    BN_free(x);
    BN_free(y);
    if (!ok) {
        k.key.reset();
        return k;
    }
    k.jwk = json{{"kty", "EC"}, {"crv", "P-256"}, {"x", base64url(bx.data(), bx.size())}, {"y", base64url(by.data(), by.size())}};
    return k;
}

/// A DPoP proof (RFC 9449 §4.2) for a request with `method` to `url` (its query and fragment
/// left out), made with `k`; with the hash of `access_token` (ath) when one is presented and
/// the server's `nonce` when it gave one. Empty when OpenSSL could not sign.
[[nodiscard]] inline std::string dpop_proof(const dpop_key& k, std::string_view method, std::string_view url, const std::string& access_token,
                                            const std::string& nonce) {
    if (!k.key) return {};
    const std::string jti = agentkit::random_base64url(16);
    if (jti.empty()) return {};  // no random source: no proof (a replayable one would be worse)
    std::string htu(url.substr(0, url.find_first_of("?#")));
    json claims{{"jti", jti},
                {"htm", std::string(method)},
                {"htu", std::move(htu)},
                {"iat", std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count()}};
    if (!access_token.empty()) {
        std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
        unsigned int len = 0;
        if (EVP_Digest(access_token.data(), access_token.size(), md.data(), &len, EVP_sha256(), nullptr) != 1) return {};
        claims["ath"] = base64url(md.data(), len);
    }
    if (!nonce.empty()) claims["nonce"] = nonce;
    std::string why;
    auto jws = sign_jws(k.key.get(), "ES256", json{{"typ", "dpop+jwt"}, {"jwk", k.jwk}}, claims, why);
    return jws ? std::move(*jws) : std::string();
}

}  // namespace agentkit::mcp::detail
