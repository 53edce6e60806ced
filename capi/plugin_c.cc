// Plugins: shared objects whose entry point returns a casefile_plugin_info
// and whose init registers analyzers (casefile.h, "Plugins"). A plugin whose
// init ran is never unloaded: its function pointers are in the registry, and
// a failing init may have left anything behind in its own state.
#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

#include "analyze/registry.h"
#include "capi_internal.h"
#include "external_analyzer.h"

using casefile::Error;
using casefile::ErrorCode;
using casefile::capi::Guard;

namespace {

struct Loaded {
  // Real paths of the plugins loaded, and the message of those whose init
  // failed (a second load gives the same refusal without running init
  // again). Guarded by mutex; recursive so that an init may itself load a
  // plugin.
  std::recursive_mutex mutex;
  std::set<std::string> ok;
  std::map<std::string, std::string> failed;
  // Plugins whose init is running now (on the thread holding the mutex):
  // an init that loads its own file again, directly or through another
  // plugin, would otherwise recurse until the stack runs out.
  std::set<std::string> loading;
};

Loaded& State() {
  static auto* state = new Loaded();
  return *state;
}

std::string RealPath(const std::string& path) {
  char* resolved = ::realpath(path.c_str(), nullptr);
  if (resolved == nullptr) {
    const int e = errno;
    if (e == ENOENT || e == ENOTDIR) {
      throw Error(ErrorCode::kNotFound, "plugin '" + path + "' does not exist");
    }
    throw Error(ErrorCode::kPlugin,
                "plugin '" + path + "' cannot be resolved: " + std::strerror(e));
  }
  std::string out(resolved);
  std::free(resolved);
  return out;
}

// dlerror() of the last dl call, or `fallback`.
std::string DlError(const char* fallback) {
  const char* e = dlerror();
  return e != nullptr ? e : fallback;
}

// Checks the info a plugin's entry point returned; throws Error(kPlugin).
void CheckInfo(const std::string& path, const casefile_plugin_info* info) {
  if (info == nullptr) {
    throw Error(ErrorCode::kPlugin, "plugin " + path + ": its entry point returned NULL");
  }
  if (info->version < 1 || info->version > CASEFILE_PLUGIN_INFO_VERSION) {
    throw Error(ErrorCode::kPlugin,
                "plugin " + path + " has casefile_plugin_info version " +
                    std::to_string(info->version) + "; this library reads versions 1 to " +
                    std::to_string(CASEFILE_PLUGIN_INFO_VERSION) + ": rebuild the plugin");
  }
  if (info->abi_major != CASEFILE_VERSION_MAJOR) {
    const std::string theirs = std::to_string(info->abi_major);
    throw Error(ErrorCode::kPlugin, "plugin " + path + " was built against casefile ABI " + theirs +
                                        " (casefile.h " + theirs + ".x); this library is ABI " +
                                        std::to_string(CASEFILE_VERSION_MAJOR) +
                                        ": rebuild the plugin");
  }
  if (info->init == nullptr) {
    throw Error(ErrorCode::kPlugin, "plugin " + path + " has no init function");
  }
}

// Loads one plugin; true when it was loaded by this call, false when it
// already was. Throws Error(kNotFound / kPlugin).
bool LoadPlugin(const std::string& path) {
  Loaded& state = State();
  std::lock_guard<std::recursive_mutex> lock(state.mutex);
  const std::string real = RealPath(path);
  if (state.ok.count(real)) return false;
  if (auto it = state.failed.find(real); it != state.failed.end()) {
    throw Error(ErrorCode::kPlugin, it->second);
  }
  if (state.loading.count(real)) {
    throw Error(ErrorCode::kPlugin,
                "plugin " + path + " is already being loaded (its init loads it again)");
  }
  struct stat st {};
  if (::stat(real.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    throw Error(ErrorCode::kPlugin, "plugin " + path + " is a directory, not a shared object");
  }

  dlerror();
  // RTLD_LOCAL: two plugins may define the same helper names; RTLD_NOW: a
  // missing symbol is refused here, not when an analysis calls into it.
  void* handle = dlopen(real.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    throw Error(ErrorCode::kPlugin,
                "plugin " + path + " cannot be loaded: " + DlError("not a shared object"));
  }
  const casefile_plugin_info* info = nullptr;
  try {
    dlerror();
    void* symbol = dlsym(handle, CASEFILE_PLUGIN_ENTRY_SYMBOL);
    if (symbol == nullptr) {
      throw Error(ErrorCode::kPlugin, "plugin " + path + " has no entry point '" +
                                          CASEFILE_PLUGIN_ENTRY_SYMBOL +
                                          "' (is it a casefile plugin?)");
    }
    casefile_plugin_entry_fn entry;
    static_assert(sizeof entry == sizeof symbol, "function and object pointers differ in size");
    std::memcpy(&entry, &symbol, sizeof entry);
    info = entry();
    CheckInfo(path, info);
  } catch (...) {
    // Nothing of it ran but its entry point: unloading is safe.
    dlclose(handle);
    throw;
  }

  // Names the init registers on this thread, to undo them if it fails.
  std::vector<std::string> registered;
  std::vector<std::string>*& recorder = casefile::capi::PluginRegistrations();
  state.loading.insert(real);  // may throw: before anything needs undoing
  std::vector<std::string>* outer = recorder;
  recorder = &registered;
  int rc = 0;
  bool threw = false;
  try {
    rc = info->init(info->payload);
  } catch (...) {
    threw = true;
  }
  state.loading.erase(real);
  recorder = outer;
  if (rc == 0 && !threw) {
    state.ok.insert(real);
    return true;
  }
  for (const auto& name : registered) casefile::UnregisterAnalyzer(name);
  const std::string label = info->name != nullptr ? std::string(" (") + info->name + ")" : "";
  std::string message =
      "plugin " + path + label +
      (threw ? ": its init threw an exception" : ": its init returned " + std::to_string(rc));
  if (!registered.empty()) {
    message += "; unregistered what it had registered:";
    for (const auto& name : registered) message += " " + name;
  }
  state.failed[real] = message;
  throw Error(ErrorCode::kPlugin, message);
}

// The plugins one entry of a plugin path names: itself, or a directory's
// *.so files in name order.
std::vector<std::string> EntryPlugins(const std::string& entry) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(entry, ec);
  if (ec || !fs::exists(st)) {
    throw Error(ErrorCode::kNotFound, "plugin path entry '" + entry + "' does not exist");
  }
  if (!fs::is_directory(st)) return {entry};
  std::vector<std::string> out;
  for (fs::directory_iterator it(entry, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    std::error_code file_ec;
    if (p.extension() == ".so" && it->is_regular_file(file_ec)) out.push_back(p.string());
  }
  if (ec) {
    throw Error(ErrorCode::kIo, "plugin directory '" + entry + "' cannot be read: " + ec.message());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

extern "C" {

casefile_status casefile_plugin_load(const char* path, casefile_error** err) {
  static constexpr const char* kFn = "casefile_plugin_load";
  CASEFILE_CLEAR_ERR(err);
  CASEFILE_CHECK_ARG(kFn, nullptr, err, path);
  return Guard(kFn, nullptr, err, [&]() -> casefile_status {
    if (*path == '\0') throw Error(ErrorCode::kArgument, "the plugin path is empty");
    LoadPlugin(path);
    return CASEFILE_OK;
  });
}

casefile_status casefile_plugin_load_path(size_t* loaded_out, const char* path_list,
                                          casefile_error** err) {
  static constexpr const char* kFn = "casefile_plugin_load_path";
  CASEFILE_CLEAR_ERR(err);
  if (loaded_out != nullptr) *loaded_out = 0;
  return Guard(kFn, nullptr, err, [&]() -> casefile_status {
    std::string list;
    if (path_list != nullptr) {
      list = path_list;
    } else if (const char* env = std::getenv("CASEFILE_PLUGIN_PATH")) {
      list = env;
    }
    size_t start = 0;
    while (start <= list.size()) {
      size_t colon = list.find(':', start);
      if (colon == std::string::npos) colon = list.size();
      const std::string entry = list.substr(start, colon - start);
      start = colon + 1;
      if (entry.empty()) continue;
      for (const auto& plugin : EntryPlugins(entry)) {
        if (LoadPlugin(plugin) && loaded_out != nullptr) ++*loaded_out;
      }
    }
    return CASEFILE_OK;
  });
}

}  // extern "C"
