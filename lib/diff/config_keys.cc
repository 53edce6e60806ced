#include "diff/config_keys.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace casefile::diff {
namespace {

bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
char Lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

std::string LowerText(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = Lower(c);
  return out;
}

// Lowercase words of a key: "zero_optimization.stage" -> zero, optimization,
// stage; "--tensor-model-parallel-size" -> tensor, model, parallel, size.
std::vector<std::string> Tokens(std::string_view key) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : key) {
    if (IsAlnum(c)) {
      cur.push_back(Lower(c));
    } else if (!cur.empty()) {
      out.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

bool Has(const std::vector<std::string>& tokens, std::string_view t) {
  return std::find(tokens.begin(), tokens.end(), t) != tokens.end();
}

// `a` directly followed by `b`.
bool HasPair(const std::vector<std::string>& tokens, std::string_view a, std::string_view b) {
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (tokens[i] == a && tokens[i + 1] == b) return true;
  }
  return false;
}

// The last dotted segment without list indexes or leading dashes:
// "optimizer.params.lr" -> "lr", "--local-rank" -> "local-rank".
std::string_view LastSegment(std::string_view key) {
  while (!key.empty() && key.back() == ']') {
    const size_t open = key.rfind('[');
    if (open == std::string_view::npos) break;
    key = key.substr(0, open);
  }
  const size_t dot = key.rfind('.');
  if (dot != std::string_view::npos) key = key.substr(dot + 1);
  while (!key.empty() && key.front() == '-') key.remove_prefix(1);
  return key;
}

// An environment variable's shape: upper case, digits and '_'.
bool IsEnvName(std::string_view name) {
  bool letter = false;
  for (char c : name) {
    if (c >= 'A' && c <= 'Z') {
      letter = true;
    } else if (!(c >= '0' && c <= '9') && c != '_') {
      return false;
    }
  }
  return letter;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Variables that steer communication, compilation or the CUDA runtime.
bool IsImportantVariable(std::string_view name) {
  if (name == "CUDA_HOME" || name == "CUDA_PATH") return false;  // the versions section's
  return StartsWith(name, "NCCL_") || StartsWith(name, "XLA_") || StartsWith(name, "TORCH_") ||
         StartsWith(name, "CUDA_") || name == "LIBTPU_INIT_ARGS";
}

bool IsPrecisionToken(std::string_view t) {
  return t == "fp16" || t == "bf16" || t == "bfloat16" || t == "fp8" || t == "amp" ||
         t == "precision" || (t.size() >= 5 && t.substr(t.size() - 5) == "dtype");
}

// Words that identify a host, a process, a port or an attempt when they end
// an environment variable's name (MASTER_ADDR, OMPI_COMM_WORLD_RANK,
// SLURM_JOB_ID, TPU_WORKER_HOSTNAMES, NCCL_COMM_ID...).
constexpr std::array<std::string_view, 13> kIdentityLastWords = {
    "addr", "address", "port", "host",     "hostname", "hostnames", "ip",
    "rank", "id",      "pid",  "nodelist", "nodename", "uuid"};

// Names (lowercase, '-' as '_') that are identity wherever they appear:
// launcher flags, accelerate's config, torchrun's variables.
constexpr std::array<std::string_view, 24> kIdentityNames = {"master_addr",
                                                             "master_port",
                                                             "rank",
                                                             "local_rank",
                                                             "node_rank",
                                                             "group_rank",
                                                             "role_rank",
                                                             "global_rank",
                                                             "machine_rank",
                                                             "rdzv_endpoint",
                                                             "rdzv_id",
                                                             "run_id",
                                                             "hostname",
                                                             "host",
                                                             "main_process_ip",
                                                             "main_process_port",
                                                             "coordinator_address",
                                                             "process_id",
                                                             "job_id",
                                                             "nodelist",
                                                             "torchelastic_restart_count",
                                                             "torchelastic_error_file",
                                                             "torchelastic_run_id",
                                                             "node_ip"};

}  // namespace

bool IsPrecisionKey(std::string_view key) {
  const std::vector<std::string> tokens = Tokens(key);
  if (!std::any_of(tokens.begin(), tokens.end(),
                   [](const std::string& t) { return IsPrecisionToken(t); })) {
    return false;
  }
  const std::string last = LowerText(LastSegment(key));
  if (last == "enabled" || last == "use_amp" || last == "mixed_precision") return true;
  const std::vector<std::string> last_tokens = Tokens(last);
  // The precision itself ("fp16", "--bf16", "torch_dtype"), not one of its
  // settings ("fp16.loss_scale", "bf16_master_weights_and_grads").
  return last_tokens.size() <= 2 && !last_tokens.empty() && IsPrecisionToken(last_tokens.back());
}

bool IsPrecisionValue(std::string_view value) {
  std::string v = LowerText(value);
  if (StartsWith(v, "torch.")) v = v.substr(6);
  if (StartsWith(v, "jnp.")) v = v.substr(4);
  static constexpr std::array<std::string_view, 14> kValues = {
      "true", "1",        "yes",  "on",      "fp16", "float16", "half",
      "bf16", "bfloat16", "fp32", "float32", "fp8",  "no",      "tf32"};
  return std::find(kValues.begin(), kValues.end(), v) != kValues.end();
}

KeyWeight WeightOfKey(std::string_view key) {
  // "XLA_FLAGS --xla_foo": a flag of a flag-list variable weighs as it.
  const size_t space = key.find(' ');
  if (space != std::string_view::npos && IsEnvName(key.substr(0, space))) {
    key = key.substr(0, space);
  }
  const std::string_view last = LastSegment(key);
  if (IsEnvName(last) && IsImportantVariable(last)) return KeyWeight::kImportant;
  const std::vector<std::string> t = Tokens(key);
  for (const std::string& w : t) {
    if (IsPrecisionToken(w)) return KeyWeight::kImportant;
  }
  if (Has(t, "lr") || Has(t, "optimizer") || Has(t, "optim") || Has(t, "clip") ||
      Has(t, "clipping") || Has(t, "hysteresis") || Has(t, "parallel") || Has(t, "parallelism") ||
      Has(t, "tp") || Has(t, "pp") || HasPair(t, "loss", "scale") ||
      HasPair(t, "learning", "rate") || (Has(t, "max") && HasPair(t, "grad", "norm")) ||
      (Has(t, "zero") && Has(t, "stage"))) {
    return KeyWeight::kImportant;
  }
  return KeyWeight::kOther;
}

bool IsIdentityKey(std::string_view key) {
  const std::string_view last = LastSegment(key);
  std::string name = LowerText(last);
  std::replace(name.begin(), name.end(), '-', '_');
  if (std::find(kIdentityNames.begin(), kIdentityNames.end(), name) != kIdentityNames.end()) {
    return true;
  }
  if (!IsEnvName(last)) return false;
  if (StartsWith(last, "SLURM_")) {
    // The job's shape is configuration; its ids, node lists and task
    // numbers are not.
    const std::vector<std::string> t = Tokens(last);
    return !(Has(t, "nnodes") || Has(t, "ntasks") || Has(t, "gpus") || Has(t, "cpus"));
  }
  const std::vector<std::string> t = Tokens(last);
  return !t.empty() && std::find(kIdentityLastWords.begin(), kIdentityLastWords.end(), t.back()) !=
                           kIdentityLastWords.end();
}

bool IsFlagListVariable(std::string_view name) {
  return name == "XLA_FLAGS" || name == "LIBTPU_INIT_ARGS";
}

std::vector<std::string> SplitCommandWords(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0') {
      if (in_word) out.push_back(std::move(cur));
      cur.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'') {
      const size_t end = text.find('\'', i + 1);
      const size_t stop = end == std::string_view::npos ? text.size() : end;
      cur.append(text.substr(i + 1, stop - i - 1));
      i = stop;
    } else if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size() &&
            (text[i + 1] == '"' || text[i + 1] == '\\' || text[i + 1] == '$' ||
             text[i + 1] == '`')) {
          ++i;
        }
        cur.push_back(text[i]);
      }
    } else if (c == '\\' && i + 1 < text.size()) {
      cur.push_back(text[++i]);
    } else {
      cur.push_back(c);
    }
  }
  if (in_word) out.push_back(std::move(cur));
  return out;
}

std::vector<std::pair<std::string, std::string>> WordsToKeys(const std::vector<std::string>& words,
                                                             bool has_program) {
  // "-m", "--lr", "-Xfoo" are flags; "-1" and "-" are values.
  auto is_flag = [](const std::string& w) {
    if (w.size() < 2 || w[0] != '-') return false;
    const char c = w[1] == '-' ? (w.size() > 2 ? w[2] : '\0') : w[1];
    return std::isalpha(static_cast<unsigned char>(c)) != 0;
  };
  std::vector<std::pair<std::string, std::string>> out;
  size_t i = 0;
  if (has_program && !words.empty()) out.emplace_back("argv[0]", words[i++]);
  int positional = 0;
  while (i < words.size()) {
    const std::string& w = words[i];
    if (!is_flag(w)) {
      out.emplace_back("arg[" + std::to_string(++positional) + "]", w);
      ++i;
      continue;
    }
    const size_t eq = w.find('=');
    if (eq != std::string::npos) {
      out.emplace_back(w.substr(0, eq), w.substr(eq + 1));
      ++i;
    } else if (i + 1 < words.size() && !is_flag(words[i + 1])) {
      out.emplace_back(w, words[i + 1]);
      i += 2;
    } else {
      out.emplace_back(w, "true");
      ++i;
    }
  }
  return out;
}

}  // namespace casefile::diff
