#include "collect/discovery.h"

#include <glob.h>
#include <sys/stat.h>

#include <cstring>

#include "collect/env_capture.h"

namespace casefile::collect {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::string Join(const std::string& cwd, const std::string& path) {
  if (path.empty() || path[0] == '/' || cwd.empty()) return path;
  return cwd.back() == '/' ? cwd + path : cwd + "/" + path;
}

bool HasMatch(const std::string& pattern) {
  glob_t g;
  std::memset(&g, 0, sizeof g);
  bool any = ::glob(pattern.c_str(), 0, nullptr, &g) == 0 && g.gl_pathc > 0;
  ::globfree(&g);
  return any;
}

void DiscoverFromEnvironment(const std::vector<std::string>& env, bool have_hlo_flag, Discovery& d);

// Flags whose value names a config file.
constexpr std::string_view kConfigFlags[] = {"--deepspeed_config", "--deepspeed-config",
                                             "--config_file", "--config-file", "--config"};

}  // namespace

std::optional<std::string> XlaDumpDirectory(std::string_view xla_flags) {
  std::optional<std::string> dir;
  for (const std::string& arg : SplitCommandLine(xla_flags)) {
    constexpr std::string_view kFlag = "--xla_dump_to=";
    if (arg.size() >= kFlag.size() && std::string_view(arg).substr(0, kFlag.size()) == kFlag) {
      dir = arg.substr(kFlag.size());
    }
  }
  return dir;
}

std::vector<std::string> SplitCommandLine(std::string_view text) {
  std::vector<std::string> args;
  if (text.find('\0') != std::string_view::npos) {
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\0', start);
      if (end == std::string_view::npos) end = text.size();
      if (end > start) args.emplace_back(text.substr(start, end - start));
      start = end + 1;
    }
    return args;
  }
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote == '\'') {
      if (c == '\'') {
        quote = 0;
      } else {
        word += c;
      }
    } else if (quote == '"') {
      if (c == '"') {
        quote = 0;
      } else if (c == '\\' && i + 1 < text.size() &&
                 std::strchr("\"\\$`\n", text[i + 1]) != nullptr) {
        word += text[++i];
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < text.size()) {
      // A backslash-newline joins lines, as in a shell script.
      if (text[i + 1] != '\n') word += text[i + 1];
      ++i;
      in_word = in_word || text[i] != '\n';
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) args.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) args.push_back(std::move(word));
  return args;
}

std::vector<std::string> JobConfigPaths(const std::vector<std::string>& args,
                                        const std::string& cwd) {
  std::vector<std::string> paths;
  auto add = [&](const std::string& p) {
    std::string full = Join(cwd, p);
    for (const auto& known : paths) {
      if (known == full) return;
    }
    paths.push_back(full);
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    std::string_view view = arg;
    std::string name = arg;
    std::optional<std::string> value;
    if (size_t eq = arg.find('='); view.substr(0, 2) == "--" && eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    }
    bool config_flag = false;
    for (std::string_view f : kConfigFlags) config_flag = config_flag || name == f;
    // HF Trainer's --deepspeed takes a JSON path; DeepSpeed's own launcher
    // uses it as a bare switch, so only a .json value counts.
    bool deepspeed = name == "--deepspeed";
    if (config_flag || deepspeed) {
      if (!value && i + 1 < args.size() && args[i + 1].compare(0, 1, "-") != 0) {
        value = args[i + 1];
      }
      if (value && !value->empty() && (config_flag || EndsWith(*value, ".json"))) add(*value);
      continue;
    }
    std::string_view candidate = value ? std::string_view(*value) : view;
    if (EndsWith(candidate, ".json") || EndsWith(candidate, ".yaml") ||
        EndsWith(candidate, ".yml")) {
      std::string path(candidate);
      if (IsRegularFile(Join(cwd, path))) add(path);
    }
  }
  return paths;
}

Discovery Discover(const std::vector<std::string>& env, bool from_environment, bool have_hlo_flag,
                   const std::vector<std::string>& job_args, const std::string& job_cwd) {
  Discovery d;
  if (from_environment) DiscoverFromEnvironment(env, have_hlo_flag, d);
  for (const std::string& path : JobConfigPaths(job_args, job_cwd)) {
    if (IsRegularFile(path)) {
      d.inputs.push_back({"configs", path, "the job command line", true});
    } else {
      d.notes.push_back({path, "named on the job command line, not a readable file"});
    }
  }
  return d;
}

namespace {

void DiscoverFromEnvironment(const std::vector<std::string>& env, bool have_hlo_flag,
                             Discovery& d) {
  if (!have_hlo_flag) {
    if (std::optional<std::string> flags = EnvironmentValue(env, "XLA_FLAGS")) {
      if (std::optional<std::string> dir = XlaDumpDirectory(*flags)) {
        const std::string origin = "XLA_FLAGS --xla_dump_to";
        if (dir->empty() || *dir == "-" || *dir == "sponge") {
          d.notes.push_back({"XLA_FLAGS", "--xla_dump_to=" + *dir + " is not a directory"});
        } else if (!Exists(*dir)) {
          d.notes.push_back({*dir, "named by " + origin + ", does not exist"});
        } else {
          d.inputs.push_back({"hlo", *dir, origin, false});
        }
      }
    }
  }

  std::string prefix(kDefaultFlightRecorderPrefix);
  std::string origin = "the default flight-recorder prefix";
  // torch reads the newer name first, so it wins when both are set.
  for (const char* name : {"TORCH_NCCL_DEBUG_INFO_TEMP_FILE", "TORCH_FR_DUMP_TEMP_FILE"}) {
    if (std::optional<std::string> v = EnvironmentValue(env, name); v && !v->empty()) {
      prefix = *v;
      origin = name;
    }
  }
  if (HasMatch(prefix + "*")) {
    d.inputs.push_back({"flight_recorder", prefix + "*", origin, false});
  } else {
    d.notes.push_back({prefix + "*", "no flight-recorder dump (" + origin + ")"});
  }
}

}  // namespace

}  // namespace casefile::collect
