// The redaction engine end to end, as the collector uses it: bytes fed in
// chunks cut anywhere come out with every planted secret replaced by a
// stable pseudonym, the same lines and line terminators, and the look-alike
// text untouched. The secrets are made up for these tests.
#include "collect/redactor.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/sha256.h"

namespace casefile::collect {
namespace {

RedactionKey Key(uint8_t fill) {
  RedactionKey key;
  key.fill(fill);
  return key;
}

std::string Redact(const Redactor& r, std::string_view input, RedactionCounts& counts,
                   size_t chunk = 0) {
  StreamRedactor stream(r, counts);
  std::string out;
  if (chunk == 0) {
    stream.Feed(input, out);
  } else {
    for (size_t i = 0; i < input.size(); i += chunk) stream.Feed(input.substr(i, chunk), out);
  }
  stream.Finish(out);
  return out;
}

std::string Redact(const Redactor& r, std::string_view input) {
  RedactionCounts counts;
  return Redact(r, input, counts);
}

// The line terminators of `text` in order: "\n", "\r\n" or "\r".
std::vector<std::string> Terminators(std::string_view text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') {
      out.push_back("\n");
    } else if (text[i] == '\r') {
      if (i + 1 < text.size() && text[i + 1] == '\n') {
        out.push_back("\r\n");
        ++i;
      } else {
        out.push_back("\r");
      }
    }
  }
  return out;
}

bool IsPseudonym(std::string_view s, std::string_view kind) {
  std::string head = "<redacted:" + std::string(kind) + ":";
  if (s.size() != head.size() + 9 || s.substr(0, head.size()) != head || s.back() != '>') {
    return false;
  }
  for (char c : s.substr(head.size(), 8)) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// Made-up secrets in the documented shapes.
const std::string kHf = "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";
const std::string kGithub = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
const std::string kGithubPat =
    "github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghi";
const std::string kAwsKeyId = "AKIAQ3XZ7PLM2W9RTB4K";
const std::string kAwsSecret = "wT9x/Kp3+Lm7Qz2Rb8Nc5Vd1Fg6Hj4Ks0Ax9Ey3Z";
const std::string kGoogle = "AIzaSyB4d-8kQ_x7Lm2Nq9Pr3St6Uv1Wx5Yz0Ab";
const std::string kJwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0MiJ9.c2lnbmF0dXJl";
const std::string kUrlPassword = "Pl4nt3dUrlPw";
const std::string kNamed = "n4m3dS3cr3tV4lue";
const std::string kKeyLine1 = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7";
const std::string kKeyLine2 = "Zk9xQ2mR7tY1uI8oP3aS6dF0gH5jK4lZ9xC2vB7nM1qW8eR3tY";

// One file holding every kind in every form, with the counts a reader
// expects per kind.
std::string PlantedFile() {
  return "export HF_TOKEN=" + kHf + "\n" +                                           // hf 1
         "[rank0]: login(token='" + kHf + "')\r\n" +                                 // hf 2
         "GITHUB_TOKEN=" + kGithub + "\n" +                                          // gh 1
         "git clone https://" + kGithubPat + "@github.com/o/r.git\n" +               // gh 2
         "[default]\n" + "aws_access_key_id = " + kAwsKeyId + "\n" +                 // aws id
         "aws_secret_access_key = " + kAwsSecret + "\n" +                            // aws secret
         "maps key=" + kGoogle + " loaded\n" +                                       // google
         "curl -H 'Authorization: Bearer " + kJwt + "' https://api.example.com\n" +  // bearer
         "pip install git+https://oauth2:" + kUrlPassword + "@gitlab.example.com/g/p.git\n" +
         "  db_password: \"" + kNamed + "\"\n" +                       // named 1
         "python train.py --wandb-api-key " + kNamed + "x --bf16\r" +  // named 2
         "-----BEGIN OPENSSH PRIVATE KEY-----\n" + kKeyLine1 + "\n" +  // key 1
         "  " + kKeyLine2 + "\n" +                                     // key 2
         "-----END OPENSSH PRIVATE KEY-----\n" + "done";
}

const std::vector<std::string>& PlantedSecrets() {
  static const std::vector<std::string> secrets = {
      kHf, kGithub, kGithubPat, kAwsKeyId, kAwsSecret, kGoogle, kJwt, kUrlPassword, kNamed,
      kKeyLine1, kKeyLine2,
      // Fragments that would show a partial replacement.
      kHf.substr(3, 20), kAwsSecret.substr(10, 20), kJwt.substr(20, 20)};
  return secrets;
}

TEST(Redactor, EveryPlantedSecretIsReplacedAndCountedByKind) {
  Redactor r(Key(7));
  RedactionCounts counts;
  const std::string in = PlantedFile();
  const std::string out = Redact(r, in, counts);
  for (const std::string& secret : PlantedSecrets()) {
    EXPECT_EQ(out.find(secret), std::string::npos) << secret << "\n" << out;
  }
  RedactionCounts expected = {
      {kRedactHfToken, 2},     {kRedactGithubToken, 2},  {kRedactAwsKeyId, 1},
      {kRedactAwsSecret, 1},   {kRedactGoogleApiKey, 1}, {kRedactBearer, 1},
      {kRedactUrlPassword, 1}, {kRedactNamedSecret, 2},  {kRedactPrivateKey, 2},
  };
  EXPECT_EQ(counts, expected) << out;
  // What is not secret is still there, byte for byte.
  for (const char* kept :
       {"export HF_TOKEN=<redacted:hf_token:", "[rank0]: login(token='", "[default]\n",
        "curl -H 'Authorization: Bearer <redacted:bearer_token:", "' https://api.example.com\n",
        "pip install git+https://oauth2:<redacted:url_password:", "@gitlab.example.com/g/p.git",
        "--bf16\r", "-----BEGIN OPENSSH PRIVATE KEY-----\n<redacted:private_key:",
        "\n  <redacted:private_key:", "-----END OPENSSH PRIVATE KEY-----\ndone"}) {
    EXPECT_NE(out.find(kept), std::string::npos) << kept << "\n" << out;
  }
}

TEST(Redactor, EveryFormOfANamedSecretIsReplaced) {
  Redactor r(Key(7));
  const std::string v = kNamed;
  for (const std::string& line : {
           "HF_TOKEN=" + v,
           "export HF_TOKEN=" + v,
           "declare -x HF_TOKEN=\"" + v + "\"",
           "hub_token: " + v,
           "  \"api_key\": \"" + v + "\",",
           "{'client_secret': '" + v + "'}",
           "run.py --hf_token=" + v + " --bf16",
           "run.py --hf-token " + v + " --bf16",
           "aws_secret_access_key = " + v,
           "https://x.io/cb?access_token=" + v + "&state=1",
           "X-Api-Key: " + v,
           "curl -H 'Authorization: Bearer " + v + "' https://x",
           "curl -H \"Bearer " + v + "\" https://x",
           "git+https://oauth2:" + v + "@gitlab.example.com/g/p.git",
       }) {
    RedactionCounts counts;
    std::string out = Redact(r, line + "\n", counts);
    EXPECT_EQ(out.find(v), std::string::npos) << line << " -> " << out;
    EXPECT_EQ(Terminators(out), std::vector<std::string>{"\n"}) << line;
    uint64_t total = 0;
    for (const auto& [kind, n] : counts) total += n;
    EXPECT_EQ(total, 1u) << line << " -> " << out;
  }
}

TEST(Redactor, LineCountAndTerminatorsArePreserved) {
  Redactor r(Key(7), {.hosts = true, .host_names = {"node-1"}});
  const std::string in = PlantedFile() + "\r\n\r\n\n\rnode-1 10.0.0.1\r" + kHf + "\r\r";
  const std::string out = Redact(r, in);
  EXPECT_EQ(Terminators(out), Terminators(in));
  EXPECT_EQ(Terminators(in).size(), 23u);
}

TEST(Redactor, PseudonymIsTheKeyedHashOfTheSecret) {
  const RedactionKey key = Key(0x42);
  Redactor r(key);
  const std::string expected_hex =
      HexEncode(
          HmacSha256::Mac(std::string_view(reinterpret_cast<const char*>(key.data()), 32), kHf))
          .substr(0, 8);
  EXPECT_EQ(r.Pseudonym(kRedactHfToken, kHf), "<redacted:hf_token:" + expected_hex + ">");
  EXPECT_EQ(Redact(r, "HF_TOKEN=" + kHf), "HF_TOKEN=<redacted:hf_token:" + expected_hex + ">");
}

TEST(Redactor, PseudonymsAreStablePerKeyAndDifferAcrossKeys) {
  Redactor a(Key(1)), a_again(Key(1)), b(Key(2));
  const std::string in = "x " + kHf + " y " + kHf + " z hf_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
  const std::string out = Redact(a, in);
  std::string first = out.substr(2, 28);
  ASSERT_TRUE(IsPseudonym(first, kRedactHfToken)) << out;
  EXPECT_EQ(out.substr(33, 28), first) << out;  // the same secret twice: one pseudonym
  std::string third = out.substr(64, 28);
  ASSERT_TRUE(IsPseudonym(third, kRedactHfToken)) << out;
  EXPECT_NE(third, first);  // another secret: another pseudonym
  EXPECT_EQ(Redact(a_again, in), out);
  std::string other = Redact(b, in);
  EXPECT_NE(other.substr(2, 28), first);
  EXPECT_TRUE(IsPseudonym(other.substr(2, 28), kRedactHfToken));
}

TEST(Redactor, TheSameSecretUnderTwoKindsKeepsItsHash) {
  // Correlation across forms: the token in an env line and in a URL.
  Redactor r(Key(9));
  std::string out = Redact(r, "TOKEN=" + kNamed + "\nhttps://u:" + kNamed + "@h/\n");
  std::string named = r.Pseudonym(kRedactNamedSecret, kNamed);
  std::string url = r.Pseudonym(kRedactUrlPassword, kNamed);
  EXPECT_EQ(out, "TOKEN=" + named + "\nhttps://u:" + url + "@h/\n");
  EXPECT_EQ(named.substr(named.size() - 9), url.substr(url.size() - 9));
}

TEST(Redactor, ChunksCutAnywhereGiveTheSameBytes) {
  Redactor r(Key(3), {.hosts = true, .host_names = {"node-1"}});
  const std::string in = PlantedFile() + "\r\nnode-1 at 10.0.0.1 and fe80::1:2\r\n";
  RedactionCounts whole_counts;
  const std::string whole = Redact(r, in, whole_counts);
  RedactionCounts bytewise_counts;
  EXPECT_EQ(Redact(r, in, bytewise_counts, 1), whole);
  EXPECT_EQ(bytewise_counts, whole_counts);
  for (size_t cut = 0; cut <= in.size(); ++cut) {
    RedactionCounts counts;
    StreamRedactor stream(r, counts);
    std::string out;
    stream.Feed(std::string_view(in).substr(0, cut), out);
    stream.Feed(std::string_view(in).substr(cut), out);
    stream.Finish(out);
    ASSERT_EQ(out, whole) << "cut at " << cut;
    ASSERT_EQ(counts, whole_counts) << "cut at " << cut;
  }
}

TEST(Redactor, RedactingTwiceChangesNothingMore) {
  Redactor r(Key(5), {.hosts = true, .host_names = {"node-1", "gpu-7.example.com"}});
  const std::string in = PlantedFile() +
                         "\nnode-1 gpu-7.example.com 10.0.0.1 [2001:db8::7]:29500\n"
                         "password=<redacted:named_secret:00000000>\n";
  const std::string once = Redact(r, in);
  RedactionCounts second_counts;
  const std::string twice = Redact(r, once, second_counts);
  EXPECT_EQ(twice, once);
  EXPECT_TRUE(second_counts.empty());
  // And with every kind's name and pseudonym shape in a line.
  for (const char* kind : {kRedactHfToken, kRedactGithubToken, kRedactAwsKeyId, kRedactAwsSecret,
                           kRedactGoogleApiKey, kRedactBearer, kRedactUrlPassword,
                           kRedactPrivateKey, kRedactNamedSecret, kRedactHostname, kRedactIp}) {
    std::string p = r.Pseudonym(kind, "x");
    std::string line = "token: " + p + " Bearer " + p + " https://u:" + p + "@h " + p;
    RedactionCounts counts;
    EXPECT_EQ(Redact(r, line, counts), line) << kind;
    EXPECT_TRUE(counts.empty()) << kind;
  }
}

TEST(Redactor, LookAlikesAreUntouched) {
  Redactor r(Key(7));
  const std::string log =
      "2024-05-01 12:34:56,789 - INFO - max_tokens=4096 num_tokens: 128\n"
      "TOKENIZERS_PARALLELISM=false\n"
      "  \"pad_token_id\": 0,\n"
      "  \"eos_token\": \"</s>\",\n"
      "token_type_ids: tensor([[0, 0, 0]])\n"
      "tokenizer: meta-llama/Llama-2-7b-hf\n"
      "TrainingArguments(hub_token=None, push_to_hub_token=<PUSH_TO_HUB_TOKEN>, seed=42)\n"
      "HF_TOKEN=\n"
      "curl -H \"Authorization: Bearer $HF_TOKEN\" https://x\n"
      "listening on http://host:8080/metrics ssh://git@github.com/o/r.git\n"
      "mail alice@example.com\n"
      "[rank1]: c10::Error: CUDA error at 10.0.0.1:29500\n"
      "-----BEGIN CERTIFICATE-----\n"
      "MIIBszCCAVmgAwIBAgIUUm\n"
      "-----END CERTIFICATE-----\n"
      "hf_hub_download ghp_short AKIA1234 AIzaShort\n"
      "use_auth_token=True GOOGLE_APPLICATION_CREDENTIALS=/etc/gcp/sa.json\n"
      "train 100%|##########| 500/500 [01:02<00:00,  8.01it/s]\r";
  RedactionCounts counts;
  EXPECT_EQ(Redact(r, log, counts), log);
  EXPECT_TRUE(counts.empty());
}

TEST(Redactor, HostsOnlyWhenAsked) {
  const std::string in =
      "node-1: connect 10.1.2.3:29500 [fe80::1ff:fe23:4567:890a] ok\n"
      "nvidia-cudnn-cu12==8.9.2.26 at 12:34:56 127.0.0.1\n";
  Redactor plain(Key(7), {.hosts = false, .host_names = {"node-1"}});
  EXPECT_EQ(Redact(plain, in), in);
  Redactor hosts(Key(7), {.hosts = true, .host_names = {"NODE-1"}});
  RedactionCounts counts;
  std::string out = Redact(hosts, in, counts);
  EXPECT_EQ(out.find("node-1"), std::string::npos) << out;
  EXPECT_EQ(out.find("10.1.2.3"), std::string::npos) << out;
  EXPECT_EQ(out.find("fe80"), std::string::npos) << out;
  EXPECT_NE(out.find(":29500 ["), std::string::npos) << out;
  EXPECT_NE(out.find("\nnvidia-cudnn-cu12==8.9.2.26 at 12:34:56 127.0.0.1\n"), std::string::npos);
  RedactionCounts expected = {{kRedactHostname, 1}, {kRedactIp, 2}};
  EXPECT_EQ(counts, expected);
  // A host name in another case is the same host.
  EXPECT_EQ(hosts.Pseudonym(kRedactHostname, "node-1"), out.substr(0, 28));
  EXPECT_EQ(Redact(hosts, "NODE-1"), out.substr(0, 28));
}

TEST(Redactor, PrivateKeyBlockLineByLine) {
  Redactor r(Key(7));
  const std::string in =
      "key:\n"
      "  -----BEGIN RSA PRIVATE KEY-----\n"
      "  Proc-Type: 4,ENCRYPTED\n"
      "  DEK-Info: AES-128-CBC,0A1B2C3D\n"
      "\n"
      "  " +
      kKeyLine1 +
      "\n"
      "  " +
      kKeyLine2 +
      "\n"
      "  -----END RSA PRIVATE KEY-----\n"
      "after: " +
      kKeyLine1.substr(0, 4) + "\n";
  RedactionCounts counts;
  std::string out = Redact(r, in, counts);
  EXPECT_EQ(Terminators(out), Terminators(in));
  EXPECT_EQ(out.find(kKeyLine1), std::string::npos);
  EXPECT_EQ(out.find(kKeyLine2), std::string::npos);
  EXPECT_EQ(out.find("AES-128-CBC"), std::string::npos);
  const std::string expected =
      "key:\n"
      "  -----BEGIN RSA PRIVATE KEY-----\n"
      "  " +
      r.Pseudonym(kRedactPrivateKey, "Proc-Type: 4,ENCRYPTED") +
      "\n"
      "  " +
      r.Pseudonym(kRedactPrivateKey, "DEK-Info: AES-128-CBC,0A1B2C3D") +
      "\n"
      "\n"
      "  " +
      r.Pseudonym(kRedactPrivateKey, kKeyLine1) +
      "\n"
      "  " +
      r.Pseudonym(kRedactPrivateKey, kKeyLine2) +
      "\n"
      "  -----END RSA PRIVATE KEY-----\n"
      "after: MIIE\n";
  EXPECT_EQ(out, expected);
  EXPECT_EQ(counts, (RedactionCounts{{kRedactPrivateKey, 4}}));
}

TEST(Redactor, AServiceAccountKeyFileOnItsLines) {
  // A GCP service-account key file: the key is one JSON string with "\n"
  // escapes between its lines.
  Redactor r(Key(7));
  const std::string key_id = "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567";
  const std::string in = "{\n  \"type\": \"service_account\",\n  \"private_key_id\": \"" + key_id +
                         "\",\n  \"private_key\": \"-----BEGIN PRIVATE KEY-----\\n" + kKeyLine1 +
                         "\\n" + kKeyLine2 +
                         "\\n-----END PRIVATE KEY-----\\n\",\n"
                         "  \"client_email\": \"svc@proj.iam.gserviceaccount.com\"\n}\n";
  RedactionCounts counts;
  std::string out = Redact(r, in, counts);
  EXPECT_EQ(Terminators(out), Terminators(in));
  for (const std::string& secret : {key_id, kKeyLine1, kKeyLine2}) {
    EXPECT_EQ(out.find(secret), std::string::npos) << out;
  }
  EXPECT_NE(out.find("\"private_key\": \"-----BEGIN PRIVATE KEY-----<redacted:private_key:"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find(">-----END PRIVATE KEY-----"), std::string::npos) << out;
  EXPECT_NE(out.find("\"type\": \"service_account\""), std::string::npos);
  EXPECT_NE(out.find("svc@proj.iam.gserviceaccount.com"), std::string::npos);
  EXPECT_NE(out.find("-----END PRIVATE KEY-----\\n\",\n"), std::string::npos) << out;
  // The key id by its name; the key once.
  EXPECT_EQ(counts, (RedactionCounts{{kRedactNamedSecret, 1}, {kRedactPrivateKey, 1}}));
}

TEST(Redactor, AKeyBlockWithoutEndStopsAfterItsLineLimit) {
  Redactor r(Key(7));
  std::string in = "-----BEGIN PRIVATE KEY-----\n";
  for (uint32_t i = 1; i <= kMaxPrivateKeyLines + 50; ++i) in += "line " + std::to_string(i) + "\n";
  RedactionCounts counts;
  std::string out = Redact(r, in, counts);
  EXPECT_EQ(Terminators(out), Terminators(in));
  EXPECT_EQ(counts[kRedactPrivateKey], kMaxPrivateKeyLines);
  EXPECT_EQ(out.find("\nline 200\n"), std::string::npos);
  EXPECT_NE(out.find("\nline 201\n"), std::string::npos);
  EXPECT_NE(out.find("\nline 250\n"), std::string::npos);
}

TEST(Redactor, RedactLineCarriesTheBlockAcrossCalls) {
  Redactor r(Key(7));
  RedactLineState state;
  RedactionCounts counts;
  std::string out;
  EXPECT_EQ(r.RedactLine("-----BEGIN EC PRIVATE KEY-----", out, state, counts), 0u);
  EXPECT_TRUE(state.in_private_key);
  EXPECT_EQ(r.RedactLine(kKeyLine1, out, state, counts), 1u);
  EXPECT_EQ(out, r.Pseudonym(kRedactPrivateKey, kKeyLine1));
  EXPECT_EQ(r.RedactLine("-----END EC PRIVATE KEY----- tail", out, state, counts), 0u);
  EXPECT_EQ(out, "-----END EC PRIVATE KEY----- tail");
  EXPECT_FALSE(state.in_private_key);
  EXPECT_EQ(r.RedactLine(kKeyLine1, out, state, counts), 0u);
  EXPECT_EQ(out, kKeyLine1);
}

TEST(Redactor, EnvironmentValues) {
  Redactor r(Key(7));
  RedactionCounts counts;
  EXPECT_EQ(r.RedactEnvValue("HF_TOKEN", kHf, counts), r.Pseudonym(kRedactHfToken, kHf));
  EXPECT_EQ(r.RedactEnvValue("MY_SERVICE_PASSWORD", "two words!", counts),
            r.Pseudonym(kRedactNamedSecret, "two words!"));
  EXPECT_EQ(r.RedactEnvValue("AWS_SECRET_ACCESS_KEY", kAwsSecret, counts),
            r.Pseudonym(kRedactAwsSecret, kAwsSecret));
  EXPECT_EQ(r.RedactEnvValue("HTTPS_PROXY", "http://u:" + kUrlPassword + "@proxy:3128", counts),
            "http://u:" + r.Pseudonym(kRedactUrlPassword, kUrlPassword) + "@proxy:3128");
  EXPECT_EQ(r.RedactEnvValue("EXTRA", "--token=" + kNamed, counts),
            "--token=" + r.Pseudonym(kRedactNamedSecret, kNamed));
  // A key in a variable: the whole value, newlines and all.
  EXPECT_EQ(
      r.RedactEnvValue("SSH_PRIVATE_KEY", "-----BEGIN OPENSSH PRIVATE KEY-----\nAAA\n", counts),
      r.Pseudonym(kRedactNamedSecret, "-----BEGIN OPENSSH PRIVATE KEY-----\nAAA\n"));
  RedactionCounts expected = {
      {kRedactHfToken, 1}, {kRedactNamedSecret, 3}, {kRedactAwsSecret, 1}, {kRedactUrlPassword, 1}};
  EXPECT_EQ(counts, expected);

  RedactionCounts none;
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"PATH", "/usr/local/cuda/bin:/usr/bin"},
           {"NCCL_SOCKET_IFNAME", "eth0"},
           {"TOKENIZERS_PARALLELISM", "false"},
           {"HF_TOKEN", ""},
           {"HF_HUB_DISABLE_IMPLICIT_TOKEN", "1"},
           {"HF_TOKEN_PATH", "/root/.cache/huggingface/token"},
           {"XLA_FLAGS", "--xla_dump_to=/tmp/hlo --xla_dump_hlo_as_text"},
           {"CUDA_VISIBLE_DEVICES", "0,1,2,3"},
           {"MASTER_ADDR", "10.0.0.1"},
       }) {
    EXPECT_EQ(r.RedactEnvValue(name, value, none), value) << name;
  }
  EXPECT_TRUE(none.empty());
}

// A line longer than kMaxRedactLineBytes is redacted in windows. A secret
// planted across each place a window is cut (the first cut, the first
// window's end, and the same for the second window) comes out exactly as
// when the whole line is redacted at once.
TEST(Redactor, LongLinesAreCutWithoutLosingASecret) {
  Redactor r(Key(7));
  const size_t window = kMaxRedactLineBytes;
  const size_t first_cut = window - 64 * 1024;  // a full window keeps 64 KiB for the next
  const std::vector<std::pair<std::string, std::string>> planted = {
      {"api_key=" + kNamed, kNamed},
      {kHf, kHf},
      {"Authorization: Bearer " + kJwt, kJwt},
      {kAwsKeyId, kAwsKeyId},
      {"https://u:" + kUrlPassword + "@h/", kUrlPassword},
  };
  for (size_t anchor : {first_cut, window, 2 * first_cut, first_cut + window}) {
    for (const auto& [text, secret] : planted) {
      for (size_t back : {size_t{0}, size_t{1}, text.size() / 2, text.size() - 1}) {
        std::string line(anchor + window / 2, '.');
        line.replace(anchor - back - 1, text.size() + 2, " " + text + " ");
        RedactLineState state;
        RedactionCounts whole_counts;
        std::string whole;
        r.RedactLine(line, whole, state, whole_counts);
        ASSERT_EQ(whole.find(secret), std::string::npos);

        RedactionCounts counts;
        StreamRedactor stream(r, counts);
        std::string out;
        for (size_t i = 0; i < line.size(); i += 100000) {
          stream.Feed(std::string_view(line).substr(i, 100000), out);
        }
        // Memory stays bounded: the first window is out before the line ends.
        EXPECT_GT(out.size(), window / 2);
        stream.Feed("\n", out);
        stream.Finish(out);
        ASSERT_EQ(out, whole + "\n") << text << " anchor " << anchor << " back " << back;
        EXPECT_EQ(counts, whole_counts);
        EXPECT_EQ(whole_counts.size(), 1u);
      }
    }
  }
}

TEST(Redactor, ASecretLongerThanAWindowIsReplacedWhole) {
  Redactor r(Key(7));
  std::string value(kMaxRedactLineBytes * 5 / 2, 'x');
  std::string in = "a b password=" + value + " tail\n";
  RedactionCounts counts;
  std::string out = Redact(r, in, counts, 65536);
  EXPECT_EQ(out.find("xxxxxxxx"), std::string::npos);
  EXPECT_EQ(out.substr(0, 13), "a b password=");
  EXPECT_EQ(out.substr(out.size() - 6), " tail\n");
  EXPECT_EQ(counts, (RedactionCounts{{kRedactNamedSecret, 1}}));
}

TEST(Redactor, ALongKeyBodyLineIsReplacedAcrossWindows) {
  Redactor r(Key(7));
  std::string body(kMaxRedactLineBytes * 2, 'Q');
  std::string in = "-----BEGIN PRIVATE KEY-----\n" + body + "\n-----END PRIVATE KEY-----\nok\n";
  std::string out = Redact(r, in);
  EXPECT_EQ(out.find("QQQQ"), std::string::npos);
  EXPECT_EQ(Terminators(out), Terminators(in));
  EXPECT_EQ(out.substr(out.size() - 29), "-----END PRIVATE KEY-----\nok\n");
}

// Documents stitched at random from the pieces secrets and their
// look-alikes are made of: whatever the mix, chunking does not matter,
// terminators survive, and a second pass changes nothing.
TEST(Redactor, RandomMixturesKeepTheInvariants) {
  const std::vector<std::string> pieces = {kHf,
                                           kGithub,
                                           kAwsKeyId,
                                           kAwsSecret,
                                           kGoogle,
                                           kJwt,
                                           kNamed,
                                           "token",
                                           "TOKEN",
                                           "password",
                                           "api_key",
                                           "max_tokens",
                                           "=",
                                           ":",
                                           ": ",
                                           " = ",
                                           "==",
                                           "::",
                                           "--",
                                           "--token ",
                                           " ",
                                           "\t",
                                           "\n",
                                           "\r\n",
                                           "\r",
                                           "'",
                                           "\"",
                                           "\\\"",
                                           "{",
                                           "}",
                                           "[",
                                           "]",
                                           ",",
                                           "Bearer ",
                                           "Authorization: ",
                                           "basic ",
                                           "https://",
                                           "u:",
                                           "@",
                                           "/",
                                           "-----BEGIN PRIVATE KEY-----",
                                           "-----END PRIVATE KEY-----",
                                           "10.0.0.1",
                                           "fe80::1",
                                           "::",
                                           ".",
                                           "node-1",
                                           "NODE-1",
                                           "<redacted:hf_token:0123abcd>",
                                           "<",
                                           ">",
                                           "$",
                                           "export ",
                                           "  - ",
                                           "#",
                                           "x",
                                           "42",
                                           "\xff",
                                           std::string(1, '\0')};
  Redactor r(Key(11), {.hosts = true, .host_names = {"node-1"}});
  uint32_t seed = 12345;
  auto next = [&seed] {
    seed = seed * 1103515245u + 12345u;
    return seed >> 8;
  };
  for (int doc = 0; doc < 3000; ++doc) {
    std::string in;
    size_t count = 1 + next() % 60;
    for (size_t i = 0; i < count; ++i) in += pieces[next() % pieces.size()];
    RedactionCounts whole_counts, byte_counts, again_counts;
    std::string whole = Redact(r, in, whole_counts);
    ASSERT_EQ(Redact(r, in, byte_counts, 1), whole) << in;
    ASSERT_EQ(byte_counts, whole_counts) << in;
    ASSERT_EQ(Terminators(whole), Terminators(in)) << in;
    ASSERT_EQ(Redact(r, whole, again_counts), whole) << in;
    ASSERT_TRUE(again_counts.empty()) << in;
  }
}

TEST(Redactor, RandomKeysDiffer) {
  RedactionKey a = RandomRedactionKey(), b = RandomRedactionKey();
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace casefile::collect

namespace casefile::collect {
namespace {

// A stream cut inside a token (a log read while it is written, an output
// capped at its limit): the cut piece is shorter than the token's pattern
// and is still replaced when it ends the stream.
TEST(Redactor, ATokenCutAtTheEndOfTheStreamIsReplaced) {
  const Redactor r(Key(7));
  for (const char* cut : {"hf_Zq8XbT4mWn2RkP6y", "ghp_Zq8XbT4mWn2", "AKIAZQ8XBT4M",
                          "github_pat_11ABCDEF", "AIzaSyZq8XbT4m"}) {
    RedactionCounts counts;
    const std::string input = std::string("line one\ntoken ") + cut;
    const std::string out = Redact(r, input, counts, 5);
    EXPECT_EQ(out.find(cut), std::string::npos) << out;
    EXPECT_EQ(out.rfind("line one\ntoken <redacted:", 0), 0u) << out;
    EXPECT_EQ(counts.size(), 1u) << cut;
  }
}

TEST(Redactor, ShortOrTerminatedWordsAtTheEndAreKept) {
  const Redactor r(Key(7));
  // Too short to be a cut token, or a whole line: nothing to do.
  EXPECT_EQ(Redact(r, "loading hf_model"), "loading hf_model");
  EXPECT_EQ(Redact(r, "see AKIA"), "see AKIA");
  EXPECT_EQ(Redact(r, "x_ghp_abcdefgh"), "x_ghp_abcdefgh");
  EXPECT_EQ(Redact(r, "hf_abcdefgh\n"), "hf_abcdefgh\n");
}

}  // namespace
}  // namespace casefile::collect
