#include "collect/collect.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include "collect/argv_redaction.h"
#include "collect/bundle_plan.h"
#include "collect/bundle_writer.h"
#include "collect/command_collection.h"
#include "collect/command_table.h"
#include "collect/discovery.h"
#include "collect/env_capture.h"
#include "collect/manifest_writer.h"
#include "collect/redactor.h"
#include "collect/scan.h"
#include "collect/segment_hash.h"
#include "collect/size_budget.h"
#include "common/error.h"
#include "common/sha256.h"
#include "common/shell_quote.h"
#include "parse/classify/manifest.h"

namespace casefile::collect {
namespace {

namespace fs = std::filesystem;

int64_t Now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string HostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

std::string AbsolutePath(const std::string& path) {
  std::error_code ec;
  fs::path abs = fs::absolute(path, ec);
  return (ec ? fs::path(path) : abs).lexically_normal().generic_string();
}

std::string JoinQuoted(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& a : args) {
    if (!out.empty()) out += ' ';
    out += ShellQuote(a);
  }
  return out;
}

RedactionKey MakeKey(const CollectOptions& o) {
  if (!o.redact_key) return RandomRedactionKey();
  if (o.redact_key->size() < 16) {
    throw Error(ErrorCode::kArgument, "the shared redaction key must be at least 16 bytes");
  }
  Sha256Digest d = Sha256::Hash(*o.redact_key);
  RedactionKey key;
  std::copy(d.begin(), d.end(), key.begin());
  return key;
}

void Validate(const CollectOptions& o) {
  if (!o.dry_run && o.output.empty()) {
    throw Error(ErrorCode::kArgument, "no output path given (-o FILE, or '-' for stdout)");
  }
  if (o.zstd_level < 1 || o.zstd_level > 22) {
    throw Error(ErrorCode::kArgument,
                "zstd level " + std::to_string(o.zstd_level) + " is outside 1..22");
  }
  for (const auto& [key, value] : o.labels) {
    if (key.empty()) throw Error(ErrorCode::kArgument, "a label has an empty key");
  }
  if (o.command_timeout_ms == 0) {
    throw Error(ErrorCode::kArgument, "the command timeout must be at least 1 ms");
  }
}

// The output file: a temporary name beside it until the bundle is whole,
// then renamed, so a crash never leaves a bundle that looks complete. "-"
// is standard output, written as a stream.
class Output {
 public:
  explicit Output(const std::string& path) {
    if (path == "-") {
      fd_ = STDOUT_FILENO;
      to_stdout_ = true;
      return;
    }
    final_ = AbsolutePath(path);
    std::random_device rd;
    temp_ = final_ + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(rd() % 1000000);
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      throw Error(ErrorCode::kIo, "cannot create " + temp_ + ": " + std::strerror(errno));
    }
  }
  ~Output() {
    if (!to_stdout_ && fd_ >= 0) ::close(fd_);
    if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
  }
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  int fd() const { return fd_; }
  const std::string& final_path() const { return final_; }

  void Commit() {
    if (to_stdout_) return;
    int fd = fd_;
    fd_ = -1;
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
      throw Error(ErrorCode::kIo, "cannot write " + temp_ + ": " + std::strerror(errno));
    }
    if (::rename(temp_.c_str(), final_.c_str()) != 0) {
      throw Error(ErrorCode::kIo,
                  "cannot rename " + temp_ + " to " + final_ + ": " + std::strerror(errno));
    }
    committed_ = true;
  }

 private:
  int fd_ = -1;
  bool to_stdout_ = false;
  bool committed_ = false;
  std::string final_;
  std::string temp_;
};

// The files the bundle is written to, by (st_dev, st_ino): the temporary
// file (or standard output, when it is a regular file) and an existing file
// at the final path, which the rename will replace.
std::vector<std::pair<uint64_t, uint64_t>> OutputIdentities(const Output& output) {
  std::vector<std::pair<uint64_t, uint64_t>> ids;
  struct stat st;
  if (::fstat(output.fd(), &st) == 0 && S_ISREG(st.st_mode)) {
    ids.emplace_back(static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino));
  }
  if (!output.final_path().empty() && ::stat(output.final_path().c_str(), &st) == 0 &&
      S_ISREG(st.st_mode)) {
    ids.emplace_back(static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino));
  }
  return ids;
}

std::optional<std::string> ReadSmallFile(const std::string& path, size_t cap, std::string& error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    error = std::strerror(errno);
    return std::nullopt;
  }
  std::string text;
  char buf[65536];
  while (text.size() < cap) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = std::strerror(errno);
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    text.append(buf,
                static_cast<size_t>(std::min<size_t>(static_cast<size_t>(n), cap - text.size())));
  }
  ::close(fd);
  return text;
}

// /proc/PID/cmdline names its process: relative paths in it are relative
// to /proc/PID/cwd.
std::string JobWorkingDirectory(const std::string& cmdline_path) {
  const std::string kProc = "/proc/";
  const std::string kSuffix = "/cmdline";
  if (cmdline_path.compare(0, kProc.size(), kProc) == 0 && cmdline_path.size() > kSuffix.size() &&
      cmdline_path.compare(cmdline_path.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0) {
    std::error_code ec;
    fs::path cwd =
        fs::read_symlink(cmdline_path.substr(0, cmdline_path.size() - kSuffix.size()) + "/cwd", ec);
    if (!ec) return cwd.string();
  }
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  return ec ? std::string() : cwd.string();
}

uint64_t Total(const RedactionCounts& counts) {
  uint64_t n = 0;
  for (const auto& [kind, c] : counts) n += c;
  return n;
}

std::string HumanSize(uint64_t bytes) { return std::to_string(bytes) + " bytes"; }

class Collection {
 public:
  Collection(const CollectOptions& o, const CollectProgressFn& progress)
      : o_(o), progress_(progress) {}

  CollectResult Run() {
    Validate(o_);
    env_ = o_.environment ? *o_.environment : ProcessEnvironment();
    const std::string host = o_.host.empty() ? HostName() : o_.host;
    if (o_.redact) {
      RedactorOptions ro;
      ro.hosts = o_.redact_hosts;
      if (o_.redact_hosts) {
        ro.host_names.push_back(host);
        if (size_t dot = host.find('.'); dot != std::string::npos && dot > 0) {
          ro.host_names.push_back(host.substr(0, dot));
        }
      }
      redactor_.emplace(MakeKey(o_), ro);
    }
    host_dir_ = redactor_ && o_.redact_hosts ? redactor_->Pseudonym(kRedactHostname, host)
                                             : SanitizeComponent(host);
    // The manifest's "host" is the folder name every path holds, which
    // BundlePath redacts: the same text, redacted once here.
    host_dir_ = SanitizeComponent(RedactText(host_dir_));
    if (!o_.dry_run) output_.emplace(o_.output);
    start_time_ = Now();

    BundlePlanner::Settings settings;
    settings.host_dir = host_dir_;
    settings.redactor = redactor();
    if (o_.since_seconds > 0)
      settings.since_cutoff = start_time_ - static_cast<int64_t>(o_.since_seconds);
    if (output_ && !output_->final_path().empty())
      settings.excluded.push_back(output_->final_path());
    if (output_) settings.excluded_ids = OutputIdentities(*output_);
    BundlePlanner planner(settings);
    PlanInputs(planner);
    PlanCommands(planner);
    std::shared_ptr<std::string> env_file =
        std::make_shared<std::string>(EnvironmentFile(env_, redactor(), env_counts_));
    planner.AddMemoryFile("env", "env.txt", "environment", env_file, "config", true);
    for (const auto& [kind, n] : env_counts_) planner.files().back().extra_redactions[kind] += n;

    files_ = std::move(planner.files());
    errors_ = std::move(planner.errors());
    skipped_ = std::move(planner.skipped());
    std::stable_sort(files_.begin(), files_.end(),
                     [](const PlannedFile& a, const PlannedFile& b) { return a.path < b.path; });
    for (auto& f : files_) {
      if (f.content.memory != nullptr) {
        f.meta = {start_time_, 0644, static_cast<uint32_t>(::getuid()),
                  static_cast<uint32_t>(::getgid())};
      }
    }
    Scan();
    if (o_.max_bytes > 0) ApplyBudget();
    std::string manifest = Manifest();
    CollectResult result = Result();
    if (o_.dry_run) return result;
    Write(manifest, result);
    return result;
  }

 private:
  const Redactor* redactor() const { return redactor_ ? &*redactor_ : nullptr; }

  std::string RedactText(const std::string& text) const {
    if (!redactor_) return text;
    std::string out;
    RedactLineState state;
    RedactionCounts scratch;
    redactor_->RedactLine(text, out, state, scratch);
    return out;
  }

  void PlanInputs(BundlePlanner& planner) {
    for (const auto& a : o_.logs) planner.AddPathInput("logs", a, false, false);
    for (const auto& a : o_.hlo_dumps) planner.AddPathInput("hlo", a, false, false);
    for (const auto& a : o_.traces) planner.AddPathInput("traces", a, false, false);
    for (const auto& a : o_.configs) planner.AddPathInput("configs", a, false, false);
    if (!o_.tensorboard_dir.empty()) {
      std::string dir = AbsolutePath(o_.tensorboard_dir);
      std::string profile = dir + "/plugins/profile";
      struct stat st;
      if (::stat(profile.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        planner.errors().push_back(
            {dir, "no plugins/profile/ directory under this TensorBoard log directory"});
      } else {
        std::string name = fs::path(dir).filename().string();
        planner.AddPathInput(
            "traces", profile, false, false,
            SanitizeComponent(name.empty() ? "tensorboard" : name) + "/plugins/profile");
      }
    }
    std::vector<std::string> job_args;
    std::string job_cwd;
    if (!o_.job_cmdline_file.empty()) {
      std::string error;
      std::optional<std::string> text =
          ReadSmallFile(o_.job_cmdline_file, kMaxJobCmdlineBytes, error);
      if (!text) {
        planner.errors().push_back(
            {o_.job_cmdline_file, "cannot read the job command line: " + error});
      } else {
        job_args = SplitCommandLine(*text);
        job_cwd = JobWorkingDirectory(o_.job_cmdline_file);
        RedactionCounts counts;
        const std::string line =
            JoinQuoted(redactor_ ? RedactArgv(job_args, *redactor_, counts) : job_args);
        planner.AddMemoryFile("job", "job_cmdline.txt", AbsolutePath(o_.job_cmdline_file),
                              std::make_shared<std::string>(line + "\n"), "log", false);
        for (const auto& [kind, n] : counts) planner.files().back().extra_redactions[kind] += n;
      }
    }
    Discovery d = Discover(env_, o_.discover, !o_.hlo_dumps.empty(), job_args, job_cwd);
    for (const auto& in : d.inputs) planner.AddPathInput(in.folder, in.path, true, in.named);
    for (auto& n : d.notes) planner.skipped().push_back(std::move(n));
  }

  void PlanCommands(BundlePlanner& planner) {
    if (!o_.versions) return;
    const std::vector<CommandSpec>& table = o_.commands ? *o_.commands : DefaultCommands();
    if (o_.dry_run) {
      for (const auto& spec : table) {
        dry_commands_.push_back({"run", "hosts/" + host_dir_ + "/" + spec.folder + "/" + spec.file,
                                 "command:" + spec.name, spec.kind, 0, 0, JoinQuoted(spec.argv)});
      }
      return;
    }
    CommandRun run = RunCommandTable(
        table, o_.command_timeout_ms, [&](size_t done, size_t total, const std::string& name) {
          return !progress_ || progress_(CollectPhase::kCommands, done, total, "command:" + name);
        });
    commands_ = std::move(run.records);
    for (auto& e : run.errors) planner.errors().push_back(std::move(e));
    for (auto& out : run.outputs) {
      const CommandSpec& spec = table[out.spec_index];
      CommandRecord& record = commands_[out.record_index];
      planner.AddMemoryFile(spec.folder, spec.file, "command:" + spec.name,
                            std::make_shared<std::string>(std::move(out.out)), spec.kind, false);
      record.stdout_path = planner.files().back().path;
      if (!out.err.empty()) {
        std::string stem = spec.file.substr(0, spec.file.rfind('.'));
        planner.AddMemoryFile(spec.folder, stem + ".stderr.txt",
                              "command:" + spec.name + " (stderr)",
                              std::make_shared<std::string>(std::move(out.err)), "log", false);
        record.stderr_path = planner.files().back().path;
      }
    }
  }

  bool Progress(CollectPhase phase, uint64_t done, uint64_t total, const std::string& current) {
    return !progress_ || progress_(phase, done, total, current);
  }

  unsigned Threads() const {
    unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
    return o_.threads != 0 ? o_.threads : std::min(cpus, 4u);
  }

  // Pass 1 over the files on Threads() workers (each file is independent;
  // the Redactor's const members are thread-safe). Progress is reported
  // from this thread only, as the C API promises.
  void Scan() {
    uint64_t total = 0;
    for (const auto& f : files_) total += f.planned_bytes;
    std::atomic<uint64_t> done{0};
    std::atomic<size_t> next{0};
    std::atomic<size_t> current{0};
    std::atomic<size_t> finished{0};
    std::atomic<bool> stop{false};
    std::vector<std::string> failures(files_.size());
    std::mutex fatal_mutex;
    std::exception_ptr fatal;
    auto worker = [&]() {
      while (!stop.load()) {
        size_t i = next.fetch_add(1);
        if (i >= files_.size()) break;
        current = i;
        try {
          ScanFile(files_[i], redactor(), [&](uint64_t n) {
            done += n;
            return !stop.load();
          });
        } catch (const Error& e) {
          if (e.code() != ErrorCode::kAborted) failures[i] = std::string("not read: ") + e.what();
        } catch (...) {
          std::lock_guard<std::mutex> lock(fatal_mutex);
          if (!fatal) fatal = std::current_exception();
          stop = true;
        }
      }
      finished.fetch_add(1);
    };
    const unsigned workers =
        std::max(1u, std::min<unsigned>(Threads(), static_cast<unsigned>(files_.size())));
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < workers; ++t) threads.emplace_back(worker);
    bool aborted = false;
    while (finished.load() < workers) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (aborted || files_.empty()) continue;
      uint64_t d = done.load();
      if (!Progress(CollectPhase::kScan, d, std::max(total, d), files_[current.load()].path)) {
        aborted = true;
        stop = true;
      }
    }
    for (auto& t : threads) t.join();
    if (fatal) std::rethrow_exception(fatal);
    if (aborted) throw Error(ErrorCode::kAborted, "the progress callback asked to stop");
    if (!files_.empty() && !Progress(CollectPhase::kScan, done.load(), std::max(total, done.load()),
                                     files_.back().path)) {
      throw Error(ErrorCode::kAborted, "the progress callback asked to stop");
    }

    for (size_t i = 0; i < files_.size(); ++i) {
      PlannedFile& f = files_[i];
      if (!failures[i].empty()) {
        f.note = failures[i];
        errors_.push_back({f.source, f.note});
        continue;
      }
      if (redactor_ && IsBinaryContent(f) && Total(f.redactions) > 0) {
        f.note = "binary content with " + std::to_string(Total(f.redactions)) +
                 " secret-like strings, which redaction would corrupt; not packed "
                 "(--no-redact packs it as it is)";
        errors_.push_back({f.source, f.note});
        continue;
      }
      if (redactor_ && f.nested_archive) {
        f.note =
            "holds archived or compressed data (a zip or 7z archive, or a tar with such "
            "members), which cannot be checked for secrets; not packed (--no-redact packs it "
            "as it is)";
        errors_.push_back({f.source, f.note});
        continue;
      }
      f.content_redactions = Total(f.redactions);
      for (const auto& [kind, n] : f.extra_redactions) f.redactions[kind] += n;
      if (!f.cut.empty()) {
        f.note = f.cut;
        errors_.push_back({f.source, f.cut});
      }
      f.packed = true;
    }
  }

  void ApplyBudget() {
    std::vector<size_t> index;
    std::vector<BudgetItem> items;
    for (size_t i = 0; i < files_.size(); ++i) {
      if (!files_[i].packed) continue;
      index.push_back(i);
      bool tailable = files_[i].kind == "log" || files_[i].kind == "sysinfo";
      items.push_back({files_[i].size, tailable});
    }
    std::vector<uint64_t> keep = PlanBudget(items, o_.max_bytes);
    const std::string limit = "--max-bytes " + std::to_string(o_.max_bytes);
    // Cut files are read once more; progress counts those bytes anew.
    uint64_t tail_total = 0;
    uint64_t tail_done = 0;
    for (size_t k = 0; k < index.size(); ++k) {
      if (keep[k] > 0 && keep[k] < files_[index[k]].size) tail_total += files_[index[k]].size;
    }
    for (size_t k = 0; k < index.size(); ++k) {
      PlannedFile& f = files_[index[k]];
      if (keep[k] >= f.size) continue;
      if (keep[k] > 0) {
        try {
          ScanTail(f, keep[k], redactor(), [&](uint64_t n) {
            tail_done += n;
            return Progress(CollectPhase::kScan, tail_done, std::max(tail_total, tail_done),
                            f.path);
          });
        } catch (const Error& e) {
          if (e.code() == ErrorCode::kAborted) throw;
          f.packed = false;
          f.note = std::string("not packed: ") + e.what();
          errors_.push_back({f.source, f.note});
          continue;
        }
        if (f.packed_size() > 0) {
          f.note = "cut for " + limit + ": kept the last " + HumanSize(f.packed_size()) + " of " +
                   HumanSize(f.size) + ", from line " + std::to_string(f.tail->first_line);
          continue;
        }
      }
      f.packed = false;
      f.tail.reset();
      f.note = "left out for " + limit + " (" + HumanSize(f.size) + ")";
      errors_.push_back({f.source, f.note});
    }
  }

  std::string Manifest() {
    ManifestData m;
    m.created_at = UtcTimestamp(o_.deterministic ? 0 : start_time_);
    m.host = host_dir_;
    for (const auto& [k, v] : o_.labels) {
      m.labels.emplace_back(RedactText(k),
                            redactor_ ? redactor_->RedactEnvValue(k, v, side_counts_) : v);
    }
    if (redactor_) {
      RedactLineState state;
      redactor_->RedactLine(JoinQuoted(RedactArgv(o_.command_line, *redactor_, side_counts_)),
                            m.command_line, state, side_counts_);
    } else {
      m.command_line = JoinQuoted(o_.command_line);
    }
    m.redaction_enabled = o_.redact;
    m.redact_hosts = o_.redact_hosts;
    m.shared_key = o_.redact_key.has_value();
    m.files = &files_;
    m.commands = &commands_;
    m.errors = errors_;
    m.skipped = skipped_;
    for (const auto& f : files_) {
      if (!f.packed) continue;
      for (const auto& [kind, n] : f.redactions) totals_[kind] += n;
    }
    for (const auto& [kind, n] : side_counts_) totals_[kind] += n;
    m.redactions = totals_;
    if (redactor_) m.redact_text = [this](const std::string& s) { return RedactText(s); };
    std::string json = ManifestJson(m);
    if (json.size() > kMaxManifestBytes) {
      throw Error(ErrorCode::kLimit, "the manifest would be " + std::to_string(json.size()) +
                                         " bytes, more than casefile reads (" +
                                         std::to_string(kMaxManifestBytes) +
                                         "); collect fewer files");
    }
    return json;
  }

  CollectResult Result() {
    CollectResult r;
    for (const auto& f : files_) {
      CollectEntry e;
      e.action = !f.packed ? "skip" : f.tail ? "tail" : "pack";
      e.path = f.path;
      e.source = RedactText(f.source);
      e.kind = f.kind;
      e.size = f.packed ? f.packed_size() : 0;
      e.redactions = f.scanned ? Total(f.redactions) : 0;
      e.note = RedactText(f.note);
      if (f.packed) {
        ++r.files;
        r.bytes += f.packed_size();
      }
      r.entries.push_back(std::move(e));
    }
    for (const auto& s : skipped_)
      r.entries.push_back({"skip", "", RedactText(s.source), "", 0, 0, RedactText(s.reason)});
    for (auto& c : dry_commands_) r.entries.push_back(c);
    std::stable_sort(r.entries.begin(), r.entries.end(),
                     [](const CollectEntry& a, const CollectEntry& b) {
                       return a.path != b.path ? a.path < b.path : a.source < b.source;
                     });
    for (const auto& e : errors_) r.errors.push_back({RedactText(e.source), RedactText(e.message)});
    r.redactions = totals_;
    return r;
  }

  // Pass 2 needs no redactor for a file in which pass 1 found nothing to
  // redact (or with --no-redact): its content is its source bytes. Those
  // are copied, but only after each kSegmentBytes of them is checked against
  // the hash pass 1 took, so a file changed in between never puts
  // unredacted new bytes in the bundle (see Packer::CopyVerified); it also
  // spares the SHA-256 that would otherwise detect the change.
  bool CanCopyVerified(const PlannedFile& f) const {
    return !f.tail && !f.content.file_path.empty() && !f.content.decompress &&
           (!redactor_ || f.content_redactions == 0) && f.size == f.source_bytes && f.size > 0 &&
           f.segment_hashes.size() == (f.size + kSegmentBytes - 1) / kSegmentBytes;
  }

  // Streams one planned file into the open entry. Each way returns "" or
  // why the bytes differ from pass 1's; a failing output or an abort throws.
  struct Packer {
    Collection& c;
    BundleWriter& writer;
    const PlannedFile& f;
    uint64_t& done;
    uint64_t total;
    std::exception_ptr failure{};
    bool aborted = false;
    uint64_t written = 0;

    // False to stop reading (output failed, aborted, or the entry is full).
    bool Put(std::string_view bytes) {
      size_t n = 0;
      try {
        n = writer.Write(bytes);
      } catch (...) {
        failure = std::current_exception();
        return false;
      }
      written += n;
      done += n;
      if (!c.Progress(CollectPhase::kWrite, done, total, f.path)) aborted = true;
      return !aborted && written < f.packed_size();
    }

    void Rethrow() {
      if (failure) std::rethrow_exception(failure);
      if (aborted) throw Error(ErrorCode::kAborted, "the progress callback asked to stop");
    }

    std::string Redacted() {
      const uint64_t skip = f.tail ? f.tail->kept_from : 0;
      Sha256 sha;
      uint64_t offset = 0;
      std::string problem;
      RedactionCounts scratch;
      try {
        StreamContent(f.content, f.source_bytes, c.redactor(), scratch,
                      [&](std::string_view chunk) {
                        uint64_t start = offset;
                        offset += chunk.size();
                        if (offset <= skip) return true;
                        if (start < skip) chunk = chunk.substr(static_cast<size_t>(skip - start));
                        uint64_t before = written;
                        bool more = Put(chunk);
                        sha.Update(chunk.substr(0, static_cast<size_t>(written - before)));
                        return more;
                      });
      } catch (const Error& e) {
        if (e.code() != ErrorCode::kIo && e.code() != ErrorCode::kUnsupported) throw;
        problem = std::string("could not be read again: ") + e.what();
      }
      Rethrow();
      if (problem.empty() && written == f.packed_size() && HexEncode(sha.Final()) != f.sha256) {
        problem = "different bytes on the second read";
      }
      return problem;
    }

    // A verified segment is written up to its last line end; the partial
    // line after it (at most kMaxHeldBytes of it) waits for the next segment
    // to verify, so a line that changed bytes would complete is never
    // written in part. Every byte written is one pass 1 read, and redacted
    // nothing in, in the same context.
    static constexpr size_t kMaxHeldBytes = 64 * 1024;

    std::string CopyVerified() {
      std::string segment;
      std::string held;
      size_t next = 0;
      bool mismatch = false;
      auto take = [&](std::string_view bytes) {
        if (next >= f.segment_hashes.size() || SegmentHash::Hash(bytes) != f.segment_hashes[next]) {
          mismatch = true;
          return false;
        }
        ++next;
        held.append(bytes);
        size_t nl = held.rfind('\n');
        size_t keep =
            std::min(nl == std::string::npos ? held.size() : held.size() - nl - 1, kMaxHeldBytes);
        Put(std::string_view(held).substr(0, held.size() - keep));
        held.erase(0, held.size() - keep);
        return !failure && !aborted;
      };
      std::string problem;
      RedactionCounts scratch;
      try {
        StreamContent(f.content, f.source_bytes, nullptr, scratch, [&](std::string_view chunk) {
          segment.append(chunk);
          while (segment.size() >= kSegmentBytes) {
            if (!take(std::string_view(segment).substr(0, kSegmentBytes))) return false;
            segment.erase(0, kSegmentBytes);
          }
          return true;
        });
      } catch (const Error& e) {
        if (e.code() != ErrorCode::kIo && e.code() != ErrorCode::kUnsupported) throw;
        problem = std::string("could not be read again: ") + e.what();
      }
      Rethrow();
      if (problem.empty() && !mismatch && !segment.empty()) take(segment);
      Rethrow();
      if (!problem.empty()) return problem;
      if (mismatch) return "different bytes on the second read; the rest was not packed";
      if (next < f.segment_hashes.size()) return "";  // shorter: EndFile pads and reports it
      Put(held);
      Rethrow();
      return "";
    }
  };

  void Write(const std::string& manifest, CollectResult& result) {
    BundleWriterOptions wo;
    wo.zstd_level = o_.zstd_level;
    wo.threads = Threads();
    BundleWriter writer(output_->fd(), wo);
    EntryMeta manifest_meta = {start_time_, 0644, static_cast<uint32_t>(::getuid()),
                               static_cast<uint32_t>(::getgid())};
    writer.BeginFile(std::string(kManifestPath), manifest.size(),
                     o_.deterministic ? EntryMeta::Fixed() : manifest_meta);
    writer.Write(manifest);
    writer.EndFile();

    uint64_t total = result.bytes;
    uint64_t done = 0;
    for (const PlannedFile& f : files_) {
      if (!f.packed) continue;
      writer.BeginFile(f.path, f.packed_size(), o_.deterministic ? EntryMeta::Fixed() : f.meta);
      Packer packer{*this, writer, f, done, total};
      std::string problem = CanCopyVerified(f) ? packer.CopyVerified() : packer.Redacted();
      uint64_t missing = writer.EndFile();
      if (!problem.empty() || missing > 0) {
        if (problem.empty()) {
          problem =
              "shorter on the second read (" + std::to_string(missing) + " bytes written as NUL)";
        }
        result.errors.push_back(
            {RedactText(f.source),
             "changed while being collected: " + problem +
                 "; the manifest lists the first read, so 'casefile verify' reports " + f.path});
      }
    }
    result.archive_bytes = writer.Close();
    output_->Commit();
  }

  const CollectOptions& o_;
  const CollectProgressFn& progress_;
  std::vector<std::string> env_;
  std::optional<Redactor> redactor_;
  std::string host_dir_;
  std::optional<Output> output_;
  int64_t start_time_ = 0;
  std::vector<PlannedFile> files_;
  std::vector<CollectError> errors_;
  std::vector<Skip> skipped_;
  std::vector<CommandRecord> commands_;
  std::vector<CollectEntry> dry_commands_;
  RedactionCounts env_counts_;
  RedactionCounts side_counts_;  // labels and the command line
  std::map<std::string, uint64_t> totals_;
};

}  // namespace

CollectResult Collect(const CollectOptions& options, const CollectProgressFn& progress) {
  return Collection(options, progress).Run();
}

}  // namespace casefile::collect
