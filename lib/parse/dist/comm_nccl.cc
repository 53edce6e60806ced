#include "parse/dist/comm_nccl.h"

#include <algorithm>
#include <charconv>

#include "parse/dist/comm_nccl_state.h"
#include "parse/dist/comm_text.h"
#include "parse/dist/dist_kinds.h"

namespace casefile::dist {
namespace {

constexpr size_t npos = std::string_view::npos;

// "file.cc:123 -> 3": one frame of NCCL's INFO trace of an error unwind.
bool IsUnwindFrame(std::string_view info) {
  if (info.empty() || info.back() < '0' || info.back() > '9') return false;
  const size_t arrow = info.rfind(" -> ");
  if (arrow == npos || arrow + 4 >= info.size() || arrow + 8 < info.size()) return false;
  for (size_t i = arrow + 4; i < info.size(); ++i) {
    if (info[i] < '0' || info[i] > '9') return false;
  }
  const std::string_view frame = info.substr(0, arrow);
  return frame.find(' ') == npos && frame.find(':') != npos;
}

}  // namespace

NcclProcesses::NcclProcesses() = default;
NcclProcesses::~NcclProcesses() = default;

NcclProcesses::Process* NcclProcesses::Lookup(const LineRecord& line) {
  if (last_ && line.pid == last_pid_ && line.host == last_host_) return last_;
  key_.assign(line.host);
  key_.push_back('\x1f');
  char digits[24];
  const auto r = std::to_chars(digits, digits + sizeof(digits), line.pid);
  key_.append(digits, r.ptr);
  Process* p = nullptr;
  if (auto it = index_.find(std::string_view(key_)); it != index_.end()) {
    p = procs_[it->second].get();
  } else if (procs_.size() >= kMaxProcesses) {
    ++dropped_processes_;
    return nullptr;
  } else {
    index_.emplace(key_, procs_.size());
    auto owned = std::make_unique<Process>();
    p = owned.get();
    p->host.assign(line.host);
    p->pid = line.pid;
    p->wrapper_rank = line.rank;
    p->wrapper_local_rank = line.local_rank;
    p->first_line = line.line_no;
    procs_.push_back(std::move(owned));
    // A banner that named this process's wrapper before its first line.
    for (auto b = keyed_banners_.begin(); b != keyed_banners_.end(); ++b) {
      if (b->rank == p->wrapper_rank && b->local_rank == p->wrapper_local_rank) {
        p->SetVersion(b->version, b->cuda, b->line_no, false);
        keyed_banners_.erase(b);
        break;
      }
    }
  }
  last_ = p;
  last_pid_ = line.pid;
  last_host_.assign(line.host);
  return p;
}

void NcclProcesses::AddLine(const LineRecord& line, const DistEmitter& out) {
  const std::string_view msg = line.message();
  if (msg.starts_with("NCCL version")) {
    ReadBanner(line, msg);
    return;
  }
  Process* p = Lookup(line);
  if (!p) return;
  p->last_line = line.line_no;
  if (unkeyed_pending_ && p->version.empty()) {
    p->SetVersion(unkeyed_banner_.version, unkeyed_banner_.cuda, unkeyed_banner_.line_no, false);
    unkeyed_pending_ = false;
  }
  const std::string_view body = msg.substr(5);
  if (p->pending_warn) FlushPendingWarn(*p, body, out);
  if (body.starts_with("INFO ")) {
    ReadInfo(*p, line, body.substr(5), out);
  } else if (body.starts_with("WARN")) {
    std::string_view text = body.substr(4);
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    ReadWarn(*p, line, text, out);
  } else {
    p->after_error = false;  // TRACE, CALL
  }
}

void NcclProcesses::ReadBanner(const LineRecord& line, std::string_view msg) {
  const NcclVersion v = ParseNcclVersion(msg);
  if (v.version.empty()) return;
  Banner b;
  b.version.assign(v.version);
  b.cuda.assign(v.cuda);
  b.line_no = line.line_no;
  b.rank = line.rank;
  b.local_rank = line.local_rank;
  if (banners_++ == 0) {
    first_banner_ = b;
  } else if (b.version != first_banner_.version || b.cuda != first_banner_.cuda) {
    banners_agree_ = false;
  }
  if (b.rank >= 0 || b.local_rank >= 0) {
    for (const auto& p : procs_) {
      if (p->wrapper_rank == b.rank && p->wrapper_local_rank == b.local_rank) {
        p->SetVersion(b.version, b.cuda, b.line_no, false);
        return;
      }
    }
    if (keyed_banners_.size() < kMaxComms) keyed_banners_.push_back(std::move(b));
    return;
  }
  unkeyed_banner_ = std::move(b);
  unkeyed_pending_ = true;
}

void NcclProcesses::ReadInfo(Process& p, const LineRecord& line, std::string_view info,
                             const DistEmitter& out) {
  const bool after_error = p.after_error;
  p.after_error = false;
  if (info.empty()) return;
  switch (info[0]) {
    case 'C':
      if (info.starts_with("Channel ") || info.starts_with("CollNet ")) {
        p.AddChannel(info.substr(8));
        return;
      }
      break;
    case 'R':
      if (info.starts_with("Ring ")) {
        p.AddChannel(info.substr(5));
        return;
      }
      break;
    case 'T':
      if (info.starts_with("Trees ")) {
        p.AddChannel({});
        return;
      }
      break;
    case 'U':
      if (info.starts_with("Using network ")) {
        p.net.assign(ClipText(info.substr(14), 32));
        return;
      }
      break;
    case 'N':
      if (info.starts_with("NET/")) {
        p.AddNetDevices(info.substr(4));
        return;
      }
      if (info.starts_with("NCCL version ")) {
        const NcclVersion v = ParseNcclVersion(info);
        if (!v.version.empty()) p.SetVersion(v.version, v.cuda, line.line_no, true);
        return;
      }
      if (info.starts_with("NCCL_")) {
        p.AddEnv(info);
        return;
      }
      break;
    case 'c':
      if (info.starts_with("comm 0x")) {
        p.AddCommLine(info, line.line_no);
        return;
      }
      if (info.starts_with("cudaDriverVersion ")) {
        p.cuda_driver.assign(ClipText(info.substr(18), 16));
        return;
      }
      break;
    case 'n':
      if (info.starts_with("nccl")) {
        const size_t comm = info.find(" comm 0x");
        if (comm != npos && comm < 40) {
          p.AddCommLine(info.substr(comm + 1), line.line_no);
          return;
        }
        if (info.starts_with("ncclCommInit") && info.find("failed") != npos) {
          EmitError(p, line, info, nullptr, out);
          return;
        }
      }
      break;
    case '[':
      // "[Service thread] Error encountered progressing operation=Connect,
      // res=3, closing connection"
      if (info.find("Error encountered") != npos) {
        EmitError(p, line, info, nullptr, out);
        return;
      }
      break;
    default:
      break;
  }
  // The frames of an error unwind: one row for a chain that no WARN
  // announced (success and ncclInProgress are no errors).
  if (IsUnwindFrame(info)) {
    const char* cls = NcclClassOf(info);
    if (cls) {
      if (!after_error) EmitError(p, line, info, cls, out);
      p.after_error = true;
    }
  }
}

void NcclProcesses::ReadWarn(Process& p, const LineRecord& line, std::string_view text,
                             const DistEmitter& out) {
  EmitError(p, line, text, NcclWarnOp(text), out);
}

void NcclProcesses::EmitError(Process& p, const LineRecord& line, std::string_view text,
                              const char* op, const DistEmitter& out) {
  if (!op) {
    op = NcclClassOf(text);
    if (!op) op = kNcclWarnOther;
  }
  if (std::string_view(op) != kNcclBenign) {
    if (p.warn_count++ == 0) p.first_warn_line = line.line_no;
  }
  DistEventRow row = out.Start(line, kNcclWarn);
  if (!row.rank && p.world_rank >= 0) row.rank = p.world_rank;
  row.op = op;
  row.detail = std::string(ClipText(text, kMaxDetailBytes));
  if (std::string_view(op) == kNcclWarnOther) {
    // The unwind that usually follows gives its class (pending_warn).
    if (p.pending_warn) out.Emit(*p.pending_warn);
    p.pending_warn = std::move(row);
    return;
  }
  // A benign WARN starts no unwind: only errors suppress the frames after.
  if (std::string_view(op) != kNcclBenign) p.after_error = true;
  out.Emit(row);
}

void NcclProcesses::FlushPendingWarn(Process& p, std::string_view body, const DistEmitter& out) {
  DistEventRow row = std::move(*p.pending_warn);
  p.pending_warn.reset();
  if (body.starts_with("INFO ")) {
    const std::string_view info = body.substr(5);
    if (IsUnwindFrame(info)) {
      if (const char* cls = NcclClassOf(info)) {
        row.op = cls;
        p.after_error = true;  // the frame itself is this error, not another
      }
    }
  }
  out.Emit(row);
}

void NcclProcesses::Finish(const DistEmitter& out) {
  for (const auto& p : procs_) {
    if (p->pending_warn) out.Emit(*p->pending_warn);
    if (p->version.empty() && banners_ > 0 && banners_agree_) {
      p->SetVersion(first_banner_.version, first_banner_.cuda, first_banner_.line_no, false);
    }
    p->EmitRows(out);
  }
  procs_.clear();
  index_.clear();
  last_ = nullptr;
}

}  // namespace casefile::dist
