#include "parse/config/config_parser.h"

#include <string>

#include "common/error.h"
#include "parse/config/config_text.h"

namespace casefile {
namespace {

std::string LowerBaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  std::string base(slash == std::string_view::npos ? path : path.substr(slash + 1));
  for (char& c : base) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  if (base.size() > 3 && base.compare(base.size() - 3, 3, ".gz") == 0) base.resize(base.size() - 3);
  return base;
}

}  // namespace

std::optional<ConfigFormat> ConfigFormatForName(std::string_view path) {
  std::string base = LowerBaseName(path);
  if (base == ".env") return ConfigFormat::kEnv;
  size_t dot = base.rfind('.');
  if (dot != std::string::npos && dot > 0) {
    std::string_view ext = std::string_view(base).substr(dot);
    if (ext == ".json") return ConfigFormat::kJson;
    if (ext == ".yaml" || ext == ".yml") return ConfigFormat::kYaml;
    if (ext == ".toml") return ConfigFormat::kToml;
    if (ext == ".ini" || ext == ".cfg" || ext == ".conf") return ConfigFormat::kIni;
    if (ext == ".env") return ConfigFormat::kEnv;
  }
  // `env > env.txt`: an environment dump (conda's environment.yml is YAML
  // and was matched by its extension above).
  std::string_view stem = std::string_view(base).substr(0, dot);
  if (stem == "env" || stem == "environ" || stem == "environment" || stem == "printenv") {
    return ConfigFormat::kEnv;
  }
  return std::nullopt;
}

ConfigFormat ConfigFormatForPath(std::string_view path) {
  return ConfigFormatForName(path).value_or(ConfigFormat::kIni);
}

void ParseConfig(ConfigFormat fmt, std::string_view text, const ConfigEmit& emit) {
  if (text.size() > kMaxConfigBytes) {
    throw Error(ErrorCode::kLimit, "config of " + std::to_string(text.size()) +
                                       " bytes exceeds the limit of " +
                                       std::to_string(kMaxConfigBytes) + " bytes");
  }
  switch (fmt) {
    case ConfigFormat::kJson:
      return config_internal::ParseJsonConfig(text, emit);
    case ConfigFormat::kYaml:
      return config_internal::ParseYamlConfig(text, emit);
    case ConfigFormat::kIni:
      return config_internal::ParseIniConfig(text, emit);
    case ConfigFormat::kEnv:
      return config_internal::ParseEnvConfig(text, emit);
    case ConfigFormat::kToml:
      return config_internal::ParseTomlConfig(text, emit);
  }
  throw Error(ErrorCode::kArgument, "unknown config format");
}

}  // namespace casefile
