// The detectors one by one: for each secret family, every form it takes in
// configs, logs and command lines is found with exactly the secret's bytes,
// and the look-alikes that fill real ML logs (token counts, tokenizer
// settings, version numbers, clock times, C++ scopes) are not. The secrets
// are made up for these tests in the documented shapes.
#include "collect/secret_patterns.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "collect/host_patterns.h"
#include "collect/named_secrets.h"
#include "collect/redactor.h"

namespace casefile::collect {
namespace {

using Hits = std::vector<std::pair<std::string, std::string>>;  // kind, bytes

template <typename Fn>
Hits Scan(std::string_view text, Fn fn) {
  SecretMatches matches;
  fn(text, matches);
  Hits hits;
  for (const SecretMatch& m : matches) {
    EXPECT_LE(m.context, m.begin);
    EXPECT_LE(m.end, text.size());
    if (m.kind != nullptr) {
      hits.emplace_back(m.kind, std::string(text.substr(m.begin, m.end - m.begin)));
    }
  }
  return hits;
}

Hits Named(std::string_view text) {
  return Scan(text, [](std::string_view t, SecretMatches& m) { FindNamedSecrets(t, true, m); });
}

Hits One(const char* kind, const std::string& bytes) { return {{kind, bytes}}; }

// 34 characters after the prefix, as HF issues them today.
const std::string kHfBody = "QxTrvWpLmZnBdKcYfHgJsAeUiOoPaSdFgH";
const std::string kHf = "hf_" + kHfBody;
const std::string kGithubBody = "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";  // 36
const std::string kAwsKeyId = "AKIA" + std::string("Q3XZ7PLM2W9RTB4K");
const std::string kAwsSessionKeyId = "ASIA" + std::string("J8D2KQ5ZP0XW7M3N");
const std::string kAwsSecret = "wT9x/Kp3+Lm7Qz2Rb8Nc5Vd1Fg6Hj4Ks0Ax9Ey3Z";  // 40
const std::string kGoogle = "AIza" + std::string("SyB4d-8kQ_x7Lm2Nq9Pr3St6Uv1Wx5Yz0Ab");

TEST(SecretPatterns, TestSecretsHaveTheDocumentedLengths) {
  EXPECT_EQ(kHfBody.size(), 34u);
  EXPECT_EQ(kGithubBody.size(), 36u);
  EXPECT_EQ(kAwsKeyId.size(), 20u);
  EXPECT_EQ(kAwsSecret.size(), 40u);
  EXPECT_EQ(kGoogle.size(), 39u);
}

TEST(HfTokens, FoundInEveryContext) {
  EXPECT_EQ(Scan("export HF_TOKEN=" + kHf, FindHfTokens), One(kRedactHfToken, kHf));
  EXPECT_EQ(Scan("huggingface-cli login --token " + kHf + "\r", FindHfTokens),
            One(kRedactHfToken, kHf));
  EXPECT_EQ(Scan("{\"token\":\"" + kHf + "\"}", FindHfTokens), One(kRedactHfToken, kHf));
  EXPECT_EQ(Scan("login(token='" + kHf + "')", FindHfTokens), One(kRedactHfToken, kHf));
  const std::string org = "api_org_" + kHfBody;
  EXPECT_EQ(Scan("HUGGING_FACE_HUB_TOKEN=" + org, FindHfTokens), One(kRedactHfToken, org));
}

TEST(HfTokens, LengthsFromThirtyToForty) {
  const std::string base = "hf_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN";  // 40 after prefix
  for (size_t body : {30u, 35u, 40u}) {
    std::string t = base.substr(0, 3 + body);
    EXPECT_EQ(Scan("x " + t + " y", FindHfTokens), One(kRedactHfToken, t)) << body;
  }
  EXPECT_TRUE(Scan("x " + base.substr(0, 3 + 29) + " y", FindHfTokens).empty());
  EXPECT_TRUE(Scan("x " + base + "Z y", FindHfTokens).empty());
}

TEST(HfTokens, IdentifiersAreNotTokens) {
  EXPECT_TRUE(Scan("from huggingface_hub import hf_hub_download", FindHfTokens).empty());
  EXPECT_TRUE(Scan("HF_HUB_ENABLE_HF_TRANSFER=1 hf_transfer", FindHfTokens).empty());
  EXPECT_TRUE(Scan("my" + kHf, FindHfTokens).empty());       // inside a word
  EXPECT_TRUE(Scan(kHf + "_suffix", FindHfTokens).empty());  // runs on as a name
}

TEST(GithubTokens, EveryPrefixAndTheFineGrainedForm) {
  for (const char* prefix : {"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}) {
    std::string t = prefix + kGithubBody;
    EXPECT_EQ(Scan("GITHUB_TOKEN=" + t, FindGithubTokens), One(kRedactGithubToken, t)) << prefix;
  }
  const std::string pat =
      "github_pat_11ABCDEFG0abcdefghijkl_" +
      std::string("mnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghi");
  EXPECT_EQ(Scan("git clone https://" + pat + "@github.com/o/r.git", FindGithubTokens),
            One(kRedactGithubToken, pat));
  // Longer classic tokens are allowed for; the server may lengthen them.
  std::string longer = "ghs_" + kGithubBody + "XYZ123";
  EXPECT_EQ(Scan(longer, FindGithubTokens), One(kRedactGithubToken, longer));
}

TEST(GithubTokens, LookAlikesAreNot) {
  EXPECT_TRUE(Scan("ghx_" + kGithubBody, FindGithubTokens).empty());
  EXPECT_TRUE(Scan("ghp_" + kGithubBody.substr(0, 35), FindGithubTokens).empty());
  EXPECT_TRUE(Scan("highp_" + kGithubBody, FindGithubTokens).empty());
  EXPECT_TRUE(Scan("github_pat_short", FindGithubTokens).empty());
  EXPECT_TRUE(Scan("through the night; gh_pages", FindGithubTokens).empty());
}

TEST(AwsAccessKeyIds, LongTermAndSessionIds) {
  EXPECT_EQ(Scan("aws_access_key_id = " + kAwsKeyId, FindAwsAccessKeyIds),
            One(kRedactAwsKeyId, kAwsKeyId));
  EXPECT_EQ(Scan("\"AccessKeyId\": \"" + kAwsSessionKeyId + "\",", FindAwsAccessKeyIds),
            One(kRedactAwsKeyId, kAwsSessionKeyId));
  EXPECT_TRUE(Scan(kAwsKeyId.substr(0, 19), FindAwsAccessKeyIds).empty());
  EXPECT_TRUE(Scan(kAwsKeyId + "X", FindAwsAccessKeyIds).empty());
  EXPECT_TRUE(Scan("AKIAq3xz7plm2w9rtb4k", FindAwsAccessKeyIds).empty());
  EXPECT_TRUE(Scan("ASIA_PACIFIC_SOUTHEAST", FindAwsAccessKeyIds).empty());
  // Role and user ids have other prefixes and are not credentials.
  EXPECT_TRUE(Scan("AROAQ3XZ7PLM2W9RTB4K", FindAwsAccessKeyIds).empty());
}

TEST(GoogleApiKeys, ThirtyFiveCharactersAfterThePrefix) {
  EXPECT_EQ(Scan("https://maps.example.com/api?key=" + kGoogle + "&x=1", FindGoogleApiKeys),
            One(kRedactGoogleApiKey, kGoogle));
  EXPECT_TRUE(Scan(kGoogle.substr(0, 38), FindGoogleApiKeys).empty());
  EXPECT_TRUE(Scan(kGoogle + "q", FindGoogleApiKeys).empty());
}

TEST(BearerTokens, AuthorizationHeadersInEveryCase) {
  const std::string jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0MiJ9.Zm9vYmFy_-x";
  EXPECT_EQ(Scan("Authorization: Bearer " + jwt, FindBearerTokens).front(),
            std::make_pair(std::string(kRedactBearer), jwt));
  for (const std::string line : {"curl -H 'authorization: bearer 7f3a9c2e5b1d4f60' https://x",
                                 "curl -H \"AUTHORIZATION: BEARER 7f3a9c2e5b1d4f60\" https://x",
                                 "headers={'Authorization': 'Bearer 7f3a9c2e5b1d4f60'}",
                                 "curl -H 'Bearer 7f3a9c2e5b1d4f60' https://x"}) {
    Hits hits = Scan(line, FindBearerTokens);
    ASSERT_FALSE(hits.empty()) << line;
    for (const auto& hit : hits) EXPECT_EQ(hit.second, "7f3a9c2e5b1d4f60") << line;
  }
}

TEST(BearerTokens, OtherAuthorizationSchemes) {
  EXPECT_EQ(Scan("Authorization: Basic dXNlcjpwYXNzd29yZA==", FindBearerTokens),
            One(kRedactBearer, "dXNlcjpwYXNzd29yZA=="));
  EXPECT_EQ(Scan("Authorization: token " + ("ghp_" + kGithubBody), FindBearerTokens),
            One(kRedactBearer, "ghp_" + kGithubBody));
  EXPECT_EQ(Scan("authorization=Zx81kQ2mPwe9", FindBearerTokens),
            One(kRedactBearer, "Zx81kQ2mPwe9"));
}

TEST(BearerTokens, ProseAndReferencesAreNot) {
  EXPECT_TRUE(Scan("Bearer tokens expire after an hour", FindBearerTokens).empty());
  EXPECT_TRUE(Scan("the bearer authentication scheme", FindBearerTokens).empty());
  EXPECT_TRUE(
      Scan("curl -H \"Authorization: Bearer $HF_TOKEN\" https://x", FindBearerTokens).empty());
  EXPECT_TRUE(Scan("Authorization: Bearer ${TOKEN}", FindBearerTokens).empty());
  EXPECT_TRUE(Scan("authorization failed for user", FindBearerTokens).empty());
  EXPECT_TRUE(Scan("Authorization: required", FindBearerTokens).empty());
}

TEST(UrlPasswords, OnlyThePasswordOfTheUserinfo) {
  EXPECT_EQ(Scan("remote: https://alice:s3cr3tPa55@example.com/repo.git", FindUrlPasswords),
            One(kRedactUrlPassword, "s3cr3tPa55"));
  EXPECT_EQ(Scan("pip install git+https://oauth2:glpat-AbCdEf123456@gitlab.example.com/g/p.git",
                 FindUrlPasswords),
            One(kRedactUrlPassword, "glpat-AbCdEf123456"));
  EXPECT_EQ(Scan("REDIS_URL=redis://:hunter2pw@cache:6379/0", FindUrlPasswords),
            One(kRedactUrlPassword, "hunter2pw"));
  EXPECT_EQ(Scan("postgresql://svc:p%40ss%3Aw0rd@db.internal:5432/runs", FindUrlPasswords),
            One(kRedactUrlPassword, "p%40ss%3Aw0rd"));
  EXPECT_EQ(Scan("\"https://bob:pa:ss@host\"", FindUrlPasswords), One(kRedactUrlPassword, "pa:ss"));
  // An unencoded '@' in the password: the last '@' before the host ends it.
  EXPECT_EQ(Scan("http_proxy=http://u:p@ss@proxy.corp:3128", FindUrlPasswords),
            One(kRedactUrlPassword, "p@ss"));
}

TEST(UrlPasswords, NoPasswordNoMatch) {
  EXPECT_TRUE(Scan("listening on http://host:8080/metrics", FindUrlPasswords).empty());
  EXPECT_TRUE(Scan("http://10.0.0.1:29500", FindUrlPasswords).empty());
  EXPECT_TRUE(Scan("ssh://git@github.com/org/repo.git", FindUrlPasswords).empty());
  EXPECT_TRUE(Scan("contact alice@example.com or bob:x@y", FindUrlPasswords).empty());
  EXPECT_TRUE(Scan("https://example.com/login?next=a:b@c", FindUrlPasswords).empty());
  EXPECT_TRUE(Scan("https://user:@host/", FindUrlPasswords).empty());
  EXPECT_TRUE(Scan("https://user:$PASSWORD@host/", FindUrlPasswords).empty());
  EXPECT_TRUE(Scan("file:///tmp/a:b@c", FindUrlPasswords).empty());
  EXPECT_TRUE(Scan("see https://host:8080/p?mail=a@b.com", FindUrlPasswords).empty());
  EXPECT_TRUE(Scan("https://firstname.lastname.of.someone@host/x", FindUrlPasswords).empty());
}

TEST(UrlPasswords, UnencodedBytesAndTokensAsTheUser) {
  // '#', '/' and '?' in a password end the authority early: read on.
  EXPECT_EQ(Scan("DB=postgres://reporter:Q7#ALt9x@db2:5432/runs", FindUrlPasswords),
            One(kRedactUrlPassword, "Q7#ALt9x"));
  EXPECT_EQ(Scan("redis://default:bMEq9P/YXLk+x==@redis:6379", FindUrlPasswords),
            One(kRedactUrlPassword, "bMEq9P/YXLk+x=="));
  // A token as the user, no password.
  const std::string hex40 = "0f3a9c2e5b1d4f6078a9b0c1d2e3f4a5b6c7d8e9";
  EXPECT_EQ(Scan("git clone https://" + hex40 + "@github.com/org/repo.git", FindUrlPasswords),
            One(kRedactUrlPassword, hex40));
  EXPECT_EQ(Scan("git clone https://" + hex40 + "@github.com:443/org/repo.git", FindUrlPasswords),
            One(kRedactUrlPassword, hex40));
  EXPECT_EQ(Scan("SENTRY_DSN=https://9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d@o4501.ingest.sentry.io/12",
                 FindUrlPasswords),
            One(kRedactUrlPassword, "9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d"));
}

struct KeyScan {
  Hits hits;
  std::vector<std::pair<size_t, bool>> events;
};

KeyScan ScanKey(std::string_view text, bool in_block) {
  SecretMatches matches;
  std::vector<KeyBlockEvent> events;
  FindPrivateKeys(text, in_block, matches, events);
  KeyScan out;
  for (const SecretMatch& m : matches) {
    if (m.kind != nullptr) {
      out.hits.emplace_back(m.kind, std::string(text.substr(m.begin, m.end - m.begin)));
    }
  }
  for (const KeyBlockEvent& e : events) out.events.emplace_back(e.pos, e.in_block);
  return out;
}

TEST(PrivateKeys, EveryLabelOpensABlock) {
  for (const char* label :
       {"RSA PRIVATE KEY", "EC PRIVATE KEY", "DSA PRIVATE KEY", "OPENSSH PRIVATE KEY",
        "ENCRYPTED PRIVATE KEY", "PRIVATE KEY", "PGP PRIVATE KEY BLOCK"}) {
    std::string begin = std::string("-----BEGIN ") + label + "-----";
    KeyScan s = ScanKey("  " + begin, false);
    EXPECT_TRUE(s.hits.empty()) << label;
    ASSERT_EQ(s.events.size(), 1u) << label;
    EXPECT_EQ(s.events[0], std::make_pair(size_t{2}, true)) << label;
    std::string end = std::string("-----END ") + label + "-----";
    KeyScan e = ScanKey(end, true);
    EXPECT_TRUE(e.hits.empty()) << label;
    ASSERT_EQ(e.events.size(), 1u);
    EXPECT_EQ(e.events[0], std::make_pair(size_t{0}, false));
  }
}

TEST(PrivateKeys, PublicMaterialIsNoBlock) {
  EXPECT_TRUE(ScanKey("-----BEGIN CERTIFICATE-----", false).events.empty());
  EXPECT_TRUE(ScanKey("-----BEGIN PUBLIC KEY-----", false).events.empty());
  EXPECT_TRUE(ScanKey("-----BEGIN PRIVATE KEY", false).events.empty());  // no closing dashes
}

TEST(PrivateKeys, BodyLinesAreReplacedWithoutTheirIndent) {
  KeyScan s = ScanKey("    MIIEvQIBADANBgkqhkiG9w0BAQEFAASC  ", true);
  EXPECT_EQ(s.hits, One(kRedactPrivateKey, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"));
  EXPECT_TRUE(s.events.empty());
  EXPECT_TRUE(ScanKey("", true).hits.empty());
  EXPECT_TRUE(ScanKey("   ", true).hits.empty());
  KeyScan end = ScanKey("XyZ0==-----END RSA PRIVATE KEY-----", true);
  EXPECT_EQ(end.hits, One(kRedactPrivateKey, "XyZ0=="));
}

TEST(PrivateKeys, AKeyInsideAJsonStringOnOneLine) {
  const std::string body = "\\nMIIEvQIBADANBgkqhkiG9w0B\\nAQEFAASCBKcwggSjAgEAAoIB\\n";
  const std::string line =
      "  \"private_key\": \"-----BEGIN PRIVATE KEY-----" + body + "-----END PRIVATE KEY-----\\n\",";
  KeyScan s = ScanKey(line, false);
  EXPECT_EQ(s.hits, One(kRedactPrivateKey, body));
  ASSERT_EQ(s.events.size(), 2u);
  EXPECT_TRUE(s.events[0].second);
  EXPECT_FALSE(s.events[1].second);
  EXPECT_EQ(s.events[1].first, line.find("-----END"));
}

TEST(Pseudonyms, OnlyTheExactShape) {
  EXPECT_EQ(Scan("a <redacted:hf_token:0a1b2c3d> b", FindPseudonyms).size(), 0u);  // kind is null
  SecretMatches m;
  FindPseudonyms("a <redacted:hf_token:0a1b2c3d> b", m);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].begin, 2u);
  EXPECT_EQ(m[0].end, 30u);
  m.clear();
  FindPseudonyms("<redacted:hf_token:0a1b2c3> <redacted:HF:0a1b2c3d> <redacted::0a1b2c3d>", m);
  EXPECT_TRUE(m.empty());
}

TEST(NamedSecrets, EveryAssignmentForm) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"HF_TOKEN=abc123secret", "abc123secret"},
      {"export WANDB_API_KEY=0123456789abcdef", "0123456789abcdef"},
      {"declare -x DB_PASSWORD=\"p@ss w0rd\"", "p@ss w0rd"},
      {"password: hunter2 is here", "hunter2 is here"},
      {"  password: hunter2   # set by ops", "hunter2"},
      {"  client_secret: 'abcDEF123'", "abcDEF123"},
      {"{\"api_key\": \"k-123-xyz\", \"model\": \"gpt\"}", "k-123-xyz"},
      {"{\"apiKey\":\"k-123-xyz\"}", "k-123-xyz"},
      {"msg=\"{\\\"access_token\\\": \\\"tok123abc\\\", \\\"n\\\": 1}\"", "tok123abc"},
      {"environ({'HUB_TOKEN': 'abc123def', 'HOME': '/root'})", "abc123def"},
      {"TrainingArguments(output_dir=out, hub_token='abc123def', seed=42)", "abc123def"},
      {"torchrun train.py --hf_token=abc123def --bf16", "abc123def"},
      {"python train.py --hub-token abc123def --bf16", "abc123def"},
      {"python x.py --password \"two words\"", "two words"},
      {"GET https://x.io/cb?access_token=tok987zyx&state=1", "tok987zyx"},
      {"X-Api-Key: 7f3a9c0d", "7f3a9c0d"},
      {"os.environ[\"HF_TOKEN\"] = \"abc123def\"", "abc123def"},
      {"2024-05-01 12:00:00 INFO hub_token=abc123 loaded", "abc123"},
      {"PGPASSWORD=1234", "1234"},
      {"secret_key = 'django-insecure-xyz'", "django-insecure-xyz"},
      {"- DOCKER_AUTH_CREDENTIAL=robot$ci+token", "robot$ci+token"},
      {"+ export HF_TOKEN=abc123def", "abc123def"},
      {"accessToken: \"ya29.a0AfH6SMB\"", "ya29.a0AfH6SMB"},
  };
  for (const auto& [line, value] : cases) {
    EXPECT_EQ(Named(line), One(kRedactNamedSecret, value)) << line;
  }
}

TEST(NamedSecrets, ProcEnvironDumpSeparatedByNul) {
  const std::string environ_dump(
      "PATH=/usr/bin\0HF_TOKEN=abc123def\0DB_PASSWORD=two words\0"
      "HOME=/root\0TOKENIZERS_PARALLELISM=false\0",
      95);
  ASSERT_EQ(environ_dump.back(), '\0');
  Hits expected = {{kRedactNamedSecret, "abc123def"}, {kRedactNamedSecret, "two words"}};
  EXPECT_EQ(Named(environ_dump), expected);
  // The dump's first variable has no NUL before it and reads as an
  // environment line.
  EXPECT_EQ(Named(std::string("API_KEY=k1\0PATH=/bin", 20)), One(kRedactNamedSecret, "k1"));
}

TEST(NamedSecrets, AwsSecretAccessKeysByName) {
  EXPECT_EQ(Named("aws_secret_access_key = " + kAwsSecret), One(kRedactAwsSecret, kAwsSecret));
  EXPECT_EQ(Named("AWS_SECRET_ACCESS_KEY=" + kAwsSecret), One(kRedactAwsSecret, kAwsSecret));
  EXPECT_EQ(Named("    \"SecretAccessKey\": \"" + kAwsSecret + "\","),
            One(kRedactAwsSecret, kAwsSecret));
  EXPECT_EQ(Named("aws_secret_access_key: " + kAwsSecret), One(kRedactAwsSecret, kAwsSecret));
  // Another shape under the same name is still a secret, by name.
  EXPECT_EQ(Named("AWS_SECRET_ACCESS_KEY=short"), One(kRedactNamedSecret, "short"));
}

TEST(NamedSecrets, ObviousNonSecretsAreKept) {
  for (const std::string line : {
           "max_tokens=4096",
           "TOKENIZERS_PARALLELISM=false",
           "num_tokens: 128",
           "pad_token_id: 0",
           "  \"pad_token_id\": null,",
           "token_type_ids: tensor([[0, 0, 0]])",
           "tokenizer: meta-llama/Llama-2-7b-hf",
           "\"pad_token\": \"<pad>\",",
           "\"eos_token\": \"</s>\",",
           "pad_token=<unk>, bos_token=<s>",
           "eos_token: eos",
           "TrainingArguments(hub_token=None, push_to_hub_token=<PUSH_TO_HUB_TOKEN>)",
           "use_auth_token=True",
           "HF_TOKEN=",
           "HF_TOKEN=$HF_TOKEN python train.py",
           "password: ${DB_PASSWORD}",
           "HF_TOKEN_PATH=/root/.cache/huggingface/token",
           "GOOGLE_APPLICATION_CREDENTIALS=/home/u/keys/sa.json",
           "token_type: bearer",
           "max_new_tokens=512 total_tokens: 1234",
           "if token == expected_token:",
           "token = tokenizer(text)",
           "password = getpass.getpass()",
           "client = Client(api_key=args.api_key)",
           "HF_HUB_DISABLE_IMPLICIT_TOKEN=1",
           "secret: '********'",
           "special_tokens_map: {\"pad_token\": \"[PAD]\"}",
           "Trainer(tokens_per_second=3100.5)",
           "  File \"x.py\", line 12, in forward: c10::Error",
           "[rank3]: 12:34:56.789 token: ",
       }) {
    EXPECT_TRUE(Named(line).empty()) << line;
  }
}

TEST(NamedSecrets, KeyClassRule) {
  using C = SecretKeyClass;
  const std::vector<std::pair<std::string, C>> cases = {
      {"HF_TOKEN", C::kToken},
      {"hub_token", C::kToken},
      {"accessToken", C::kToken},
      {"HFToken", C::kToken},
      {"authtoken", C::kToken},
      {"GITHUB_TOKEN", C::kToken},
      {"x-auth-token", C::kToken},
      {"id_token", C::kToken},
      {"DB_PASSWORD", C::kSecret},
      {"PGPASSWORD", C::kSecret},
      {"passwd", C::kSecret},
      {"client_secret", C::kSecret},
      {"WANDB_API_KEY", C::kSecret},
      {"APIKey", C::kSecret},
      {"x-api-key", C::kSecret},
      {"aws_access_key_id", C::kSecret},
      {"SecretAccessKey", C::kSecret},
      {"private_key", C::kSecret},
      {"GOOGLE_APPLICATION_CREDENTIALS", C::kCredentials},
      {"TOKENIZERS_PARALLELISM", C::kNone},
      {"max_tokens", C::kNone},
      {"num_tokens", C::kNone},
      {"pad_token_id", C::kNone},
      {"token_type_ids", C::kNone},
      {"tokenizer_name", C::kNone},
      {"pad_token", C::kNone},
      {"max_token", C::kNone},
      {"HF_TOKEN_PATH", C::kNone},
      {"password_file", C::kNone},
      {"token_type", C::kNone},
      {"MAXTOKENS", C::kNone},
      {"KEY", C::kNone},
      {"monkey", C::kNone},
      {"NCCL_SOCKET_IFNAME", C::kNone},
  };
  for (const auto& [key, expected] : cases) {
    EXPECT_EQ(ClassifySecretKey(key), expected) << key;
  }
}

TEST(NamedSecrets, NumbersAreCountsOnlyUnderTokenNames) {
  EXPECT_TRUE(IsNonSecretValue("4096", SecretKeyClass::kToken));
  EXPECT_TRUE(IsNonSecretValue("-1", SecretKeyClass::kToken));
  EXPECT_FALSE(IsNonSecretValue("4096", SecretKeyClass::kSecret));
  EXPECT_FALSE(IsNonSecretValue("4096abc", SecretKeyClass::kToken));
  EXPECT_TRUE(IsNonSecretValue("/etc/gcp/sa.json", SecretKeyClass::kCredentials));
  EXPECT_FALSE(IsNonSecretValue("/etc/gcp/sa.json", SecretKeyClass::kSecret));
  EXPECT_FALSE(IsNonSecretValue("hf_token", SecretKeyClass::kToken));
}

TEST(NamedSecrets, KeyAtLineStartOnlyInTheFirstWindow) {
  SecretMatches m;
  FindNamedSecrets("password: two words", false, m);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].end, std::string_view("password: two").size());
  EXPECT_EQ(m[0].context, 0u);
}

Hits Ipv4(std::string_view t) { return Scan(t, FindIpv4Addresses); }
Hits Ipv6(std::string_view t) { return Scan(t, FindIpv6Addresses); }

TEST(HostPatterns, Ipv4Addresses) {
  EXPECT_EQ(Ipv4("MASTER_ADDR=10.1.2.3"), One(kRedactIp, "10.1.2.3"));
  EXPECT_EQ(Ipv4("connect to 192.168.0.17:29500."), One(kRedactIp, "192.168.0.17"));
  EXPECT_EQ(Ipv4("NET/Socket : Using [0]eth0:10.0.0.5<0>"), One(kRedactIp, "10.0.0.5"));
  EXPECT_EQ(Ipv4("failed at 172.31.255.254."), One(kRedactIp, "172.31.255.254"));
  EXPECT_EQ(Ipv4("8.8.8.8,1.1.1.1").size(), 2u);
}

TEST(HostPatterns, Ipv4LookAlikes) {
  for (const char* t :
       {"nvidia-cudnn-cu12==8.9.2.26", "cuDNN version: 8.9.2.26",
        "ii  libcudnn8  8.9.2.26-1+cuda12.1  amd64", "tensorrt 8.6.1.6+cuda12",
        "VBIOS 96.00.74.00.01", "v1.2.3.4", "1.2.3.4.5", "256.1.1.1", "lib.so.8.9.2.26",
        "127.0.0.1", "0.0.0.0", "255.255.255.0", "1.2.3", "10.0.0.1a", "x10.0.0.1", "1.2.3.4567"}) {
    EXPECT_TRUE(Ipv4(t).empty()) << t;
  }
}

TEST(HostPatterns, Ipv6Addresses) {
  EXPECT_EQ(Ipv6("inet6 fe80::1ff:fe23:4567:890a/64"), One(kRedactIp, "fe80::1ff:fe23:4567:890a"));
  EXPECT_EQ(Ipv6("[2001:db8::8a2e:370:7334]:29500"), One(kRedactIp, "2001:db8::8a2e:370:7334"));
  EXPECT_EQ(Ipv6("addr 2001:0db8:85a3:0000:0000:8a2e:0370:7334 up"),
            One(kRedactIp, "2001:0db8:85a3:0000:0000:8a2e:0370:7334"));
  EXPECT_EQ(Ipv6("from ::ffff:10.0.0.1 port"), One(kRedactIp, "::ffff:10.0.0.1"));
  EXPECT_EQ(Ipv6("bind fd00::"), One(kRedactIp, "fd00::"));
}

TEST(HostPatterns, Ipv6LookAlikes) {
  for (const char* t : {"12:34:56", "2024-05-01T12:34:56.789Z", "aa:bb:cc:dd:ee:ff", "c10::Error",
                        "std::vector<int>", "c10d::ProcessGroupNCCL", "::1", "at::cuda::blas",
                        "a:b:c:d:e:f:1", "deadbeef::"}) {
    EXPECT_TRUE(Ipv6(t).empty()) << t;
  }
}

TEST(HostPatterns, HostNamesAsWholeWords) {
  const std::vector<std::string> names = {"node-1", "gpu-host.example.com"};
  auto hits = [&names](std::string_view t) {
    return Scan(t, [&names](std::string_view s, SecretMatches& m) { FindHostNames(s, names, m); });
  };
  EXPECT_EQ(hits("node-1: NCCL WARN"), One(kRedactHostname, "node-1"));
  EXPECT_EQ(hits("NODE-1 down"), One(kRedactHostname, "NODE-1"));
  EXPECT_EQ(hits("ssh node-1.cluster.local"), One(kRedactHostname, "node-1"));
  EXPECT_EQ(hits("at gpu-host.example.com:22"), One(kRedactHostname, "gpu-host.example.com"));
  EXPECT_TRUE(hits("node-12 node-1-ib mynode-1 node_1").empty());
}

// The redactor runs FindSecrets, one pass for every family; the tests above
// run each family's own Find*. Both must find the same.
TEST(FindSecrets, IsTheUnionOfTheFamilies) {
  const std::vector<std::string> lines = {
      "export HF_TOKEN=" + kHf + " GITHUB_TOKEN=ghp_" + kGithubBody,
      "aws_access_key_id = " + kAwsKeyId + " aws_secret_access_key = " + kAwsSecret,
      "url https://maps.example.com/?key=" + kGoogle + " and https://u:pw1234@host/x",
      "curl -H 'Authorization: Bearer 7f3a9c2e5b1d4f60' --api-key abc123def https://x",
      "{\"password\": \"p@ss\", \"pad_token_id\": 0, \"accessToken\":\"zz9\"}",
      "12:34:56 c10::Error --token=" + kHf + " ASIA" + std::string("J8D2KQ5ZP0XW7M3N"),
  };
  auto sorted = [](SecretMatches m) {
    std::sort(m.begin(), m.end(), [](const SecretMatch& a, const SecretMatch& b) {
      return std::make_tuple(a.begin, a.end, a.context, std::string_view(a.kind)) <
             std::make_tuple(b.begin, b.end, b.context, std::string_view(b.kind));
    });
    return m;
  };
  for (bool starts_line : {true, false}) {
    for (const std::string& line : lines) {
      SecretMatches all, each;
      FindSecrets(line, starts_line, all);
      FindHfTokens(line, each);
      FindGithubTokens(line, each);
      FindAwsAccessKeyIds(line, each);
      FindGoogleApiKeys(line, each);
      FindBearerTokens(line, each);
      FindUrlPasswords(line, each);
      FindNamedSecrets(line, starts_line, each);
      EXPECT_FALSE(each.empty()) << line;
      SecretMatches a = sorted(all), b = sorted(each);
      ASSERT_EQ(a.size(), b.size()) << line;
      for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].begin, b[i].begin) << line;
        EXPECT_EQ(a[i].end, b[i].end) << line;
        EXPECT_EQ(a[i].context, b[i].context) << line;
        EXPECT_EQ(std::string(a[i].kind), std::string(b[i].kind)) << line;
      }
    }
  }
}

Hits All(std::string_view text) {
  return Scan(text, [](std::string_view t, SecretMatches& m) { FindSecrets(t, true, m); });
}

// The made-up vendor tokens below have the documented prefixes and lengths.
TEST(VendorTokens, EveryPrefixAloneInProseAndUnderAnyKey) {
  const std::string openai = "sk-proj-Q7vX2mLp9RtY4wZk8NcB3dFhJ6sG1aE5uI0oP-Tq_Wn";
  const std::string anthropic = "sk-ant-api03-Zp4Lq8Wm2Xv6Nc0Rt5Yb9Kd3Hf7Js1Ga-Pe_Ui2Oo";
  const std::string slack = "xoxb-2719041230-5561234098771-Qm7Xv2Lp9RtY4wZk8NcB";
  const std::string gitlab = "glpat-Xq4Lm8Wp2Zv6Nc0Rt5Yb";
  const std::string ngc = "nvapi-Lm8Wp2Zv6Nc0Rt5Yb9Kd3Hf7Js1Ga4Pe8Ui2Oo6Qx0Tz";
  const std::string pypi = "pypi-AgEIcHlwaS5vcmcCJGQ1ZjM4YTJiLTk0ZTEtNDg3Yy05MGQyLTQzZTc4";
  EXPECT_EQ(All("openai.AuthenticationError: Incorrect API key provided: " + openai + "."),
            One(kRedactVendorToken, openai));
  // Under a key the named-secret detector claims the same bytes too (the
  // Redactor keeps the union and names it by the more specific kind).
  const Hits under_key = All("client = Anthropic(api_key=\"" + anthropic + "\")");
  EXPECT_NE(std::find(under_key.begin(), under_key.end(),
                      std::make_pair(std::string(kRedactVendorToken), anthropic)),
            under_key.end());
  EXPECT_EQ(All("posting to slack with " + slack), One(kRedactVendorToken, slack));
  EXPECT_EQ(All("git clone https://oauth2@gitlab.example.com/x.git # " + gitlab),
            One(kRedactVendorToken, gitlab));
  // On a command line the password flag claims the same bytes too.
  const Hits docker = All("docker login nvcr.io -u '$oauthtoken' -p " + ngc);
  EXPECT_NE(
      std::find(docker.begin(), docker.end(), std::make_pair(std::string(kRedactVendorToken), ngc)),
      docker.end());
  const Hits twine = All("twine upload -u __token__ -p " + pypi + " dist/*");
  EXPECT_NE(
      std::find(twine.begin(), twine.end(), std::make_pair(std::string(kRedactVendorToken), pypi)),
      twine.end());
  EXPECT_EQ(All("export NGC=" + ngc), One(kRedactVendorToken, ngc));
}

TEST(VendorTokens, LookAlikesAreNot) {
  for (const char* line :
       {"pip install scikit-learn sk-learn-compat", "task-0123456789abcdef0123456789abcdef",
        "desk-ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJ", "sk-short1", "--sk-proj-name=llama",
        "xoxb-short", "glpat-", "pypi-simple-index-mirror-of-the-cluster-proxy-server-x",
        "sk-abcdefghijklmnopqrstuvwxyzabcdefghijkl"}) {
    EXPECT_TRUE(All(line).empty()) << line;
  }
}

TEST(VendorTokens, JwtsAndWebhooks) {
  const std::string jwt =
      "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJzeXN0ZW06c2EiLCJleHAiOjE3MDB9."
      "Qm7Xv2Lp9RtY4wZk8NcB3dFhJ6sG1aE5uI0oP";
  EXPECT_EQ(All("k8s token " + jwt + " expires"), One(kRedactVendorToken, jwt));
  // Not a JWT: one part only, or a base64 run that starts with eyJ inside a word.
  EXPECT_TRUE(All("cache key eyJhbGciOiJSUzI1NiJ9 hit").empty());
  EXPECT_TRUE(All("blob AeyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0 end").empty());
  const std::string slack_path = "T0123ABCD/B0456EFGH/Qm7Xv2Lp9RtY4wZk8NcB3dFh";
  EXPECT_EQ(All("SLACK_HOOK=https://hooks.slack.com/services/" + slack_path + " set"),
            One(kRedactVendorToken, slack_path));
  const std::string discord = "112233445566778899/Zp4Lq8Wm2Xv6Nc0Rt5Yb9Kd3Hf7Js1Ga";
  EXPECT_EQ(All("notify https://discord.com/api/webhooks/" + discord),
            One(kRedactVendorToken, discord));
  EXPECT_TRUE(All("see https://hooks.slack.com/services/ for setup").empty());
}

TEST(PrivateKeys, Base64EncodedPemAndQuotedMarkers) {
  const std::string b64 = "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JSUV2UUlCQURBTkJna3Foa2lH";
  EXPECT_EQ(All("    kubectl get secret x -o yaml # " + b64), One(kRedactPrivateKey, b64));
  const Hits yaml = All("    client-key-data: " + b64);
  EXPECT_NE(
      std::find(yaml.begin(), yaml.end(), std::make_pair(std::string(kRedactPrivateKey), b64)),
      yaml.end());
  // A marker quoted in an error message opens no block.
  KeyScan s = ScanKey(
      "ValueError: Could not deserialize key data. Expected '-----BEGIN PRIVATE KEY-----' header",
      false);
  EXPECT_TRUE(s.events.empty());
  EXPECT_TRUE(s.hits.empty());
  EXPECT_EQ(
      ScanKey("key = \"-----BEGIN PRIVATE KEY-----\\nMIIEvQ\\n-----END PRIVATE KEY-----\"", false)
          .events.size(),
      2u);
}

TEST(NamedSecrets, ShortFormsAndKeysNamedForWhatTheyUnlock) {
  for (const char* key :
       {"DB_PASS", "MYSQL_PWD", "DS_SSH_PASS", "ENCRYPTION_KEY", "JWT_SIGNING_KEY", "AccountKey",
        "AZURE_STORAGE_KEY", "client-key-data", "tls.key", "WANDB_KEY", "OPENAI_KEY", "NGC_KEY",
        ".dockerconfigjson", "auth", "_auth"}) {
    EXPECT_EQ(ClassifySecretKey(key), SecretKeyClass::kSecret) << key;
  }
  for (const char* key : {"forward_pass", "num_passes", "bypass", "ENCRYPTION_KEY_PATH", "author",
                          "authors", "PWD_DIR"}) {
    EXPECT_NE(ClassifySecretKey(key), SecretKeyClass::kSecret) << key;
  }
  EXPECT_EQ(Named("{\"auths\": {\"reg.example.com\": {\"auth\": \"dXNlcjpwYXNzMTIz\"}}}"),
            One(kRedactNamedSecret, "dXNlcjpwYXNzMTIz"));
  EXPECT_EQ(Named("AccountName=acct;AccountKey=Zm9vYmFyYmF6cXV4==;EndpointSuffix=core"),
            One(kRedactNamedSecret, "Zm9vYmFyYmF6cXV4=="));
  // Tokenizer settings that name special tokens, and MoE token dropping.
  for (const char* key : {"eot_token", "prefix_token", "middle_token", "suffix_token", "eop_token",
                          "think_token", "moe-token-drop-policy", "moe_token_dispatcher_type"}) {
    EXPECT_EQ(ClassifySecretKey(key), SecretKeyClass::kNone) << key;
  }
  EXPECT_EQ(ClassifySecretKey("X-Amz-Signature"), SecretKeyClass::kSecret);
}

TEST(NamedSecrets, PasswordsOnCommandLines) {
  const std::string key = "e13519bad331045abe82ba53cce8cfd534153dfe";
  EXPECT_EQ(All("+ wandb login " + key), One(kRedactNamedSecret, key));
  EXPECT_EQ(All("wandb login --relogin " + key), One(kRedactNamedSecret, key));
  EXPECT_TRUE(All("wandb login --relogin").empty());
  EXPECT_EQ(All("wandb login --host https://wandb.corp.example.com " + key),
            One(kRedactNamedSecret, key));
  EXPECT_EQ(All("sshpass -pGlu3dPw8 ssh node1"), One(kRedactNamedSecret, "Glu3dPw8"));
  EXPECT_EQ(All("curl --user \"admin:Qu0tedPw\" https://nexus/"),
            One(kRedactNamedSecret, "Qu0tedPw"));
  EXPECT_EQ(All("curl -s -u svc:Adm1nPw9 https://x"), One(kRedactNamedSecret, "Adm1nPw9"));
  EXPECT_EQ(All("curl --user admin:CurlPw4x https://nexus/"), One(kRedactNamedSecret, "CurlPw4x"));
  EXPECT_TRUE(All("useradd --user alice:staff").empty());
  EXPECT_EQ(All("sshpass -p 'Sup3rPw7' ssh node1"), One(kRedactNamedSecret, "Sup3rPw7"));
  EXPECT_EQ(All("docker login registry.example.com -u bot -p Pw9Docker"),
            One(kRedactNamedSecret, "Pw9Docker"));
  // -p and -u of other tools are ports, paths, users.
  EXPECT_TRUE(All("torchrun -p 29500 train.py").empty());
  EXPECT_TRUE(All("ssh -p 2222 node1 && sudo -u ubuntu ls").empty());
  EXPECT_EQ(ClassifySecretKey("REDIS_AUTH"), SecretKeyClass::kSecret);
}

TEST(NamedSecrets, NetrcPasswords) {
  const std::string key = "8265c3a1f0e94b7d2c6a5e8f1b3d7c9e0a4f6b2d";
  EXPECT_EQ(All("machine api.wandb.ai\n  login user\n  password " + key + "\n"),
            One(kRedactNamedSecret, key));
  EXPECT_EQ(All("machine huggingface.co login hf password Pw9xQ2rT"),
            One(kRedactNamedSecret, "Pw9xQ2rT"));
  // Prose keeps its words.
  EXPECT_TRUE(All("Please enter your password below").empty());
  EXPECT_TRUE(All("login failed: wrong password for user x").empty());
}

TEST(FindCaseless, LowerCapitalizedAndUpper) {
  EXPECT_EQ(FindCaseless("x bearer", "bearer", 0), 2u);
  EXPECT_EQ(FindCaseless("x Bearer", "bearer", 0), 2u);
  EXPECT_EQ(FindCaseless("x BEARER", "bearer", 0), 2u);
  EXPECT_EQ(FindCaseless("bearer", "bearer", 0), 0u);
  EXPECT_EQ(FindCaseless("x Bearer y bearer", "bearer", 3), 11u);
  EXPECT_EQ(FindCaseless("x bear", "bearer", 0), std::string_view::npos);
}

}  // namespace
}  // namespace casefile::collect
