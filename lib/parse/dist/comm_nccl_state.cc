#include "parse/dist/comm_nccl_state.h"

#include <algorithm>

#include "parse/dist/comm_text.h"
#include "parse/line/scan.h"

namespace casefile::dist {
namespace {

constexpr size_t npos = std::string_view::npos;
constexpr size_t kMaxNetDevicesBytes = 256;
constexpr size_t kMaxEnvValueBytes = 128;

// The transports of channel lines that get a bit (the rest are kept as
// text): NCCL's own networks, its intra-node paths, and the collective
// network / NVLink SHARP.
constexpr std::string_view kKnownTransports[] = {
    "NET/IB",       "NET/IBext", "NET/Socket", "P2P/IPC", "P2P/CUMEM", "P2P/direct",
    "P2P/indirect", "P2P/MNNVL", "SHM",        "COLLNET", "NVLS",
};

std::optional<int64_t> NumberAfter(std::string_view s, std::string_view key) {
  const size_t at = s.find(key);
  if (at == npos) return std::nullopt;
  uint64_t v = 0;
  if (scan::ReadUint(s, at + key.size(), 12, &v) == 0) return std::nullopt;
  return static_cast<int64_t>(v);
}

std::string_view WordAfter(std::string_view s, std::string_view key) {
  const size_t at = s.find(key);
  if (at == npos) return {};
  const size_t start = at + key.size();
  size_t end = s.find(' ', start);
  if (end == npos) end = s.size();
  return ClipText(s.substr(start, end - start), 64);
}

uint32_t KnownTransportBit(std::string_view name) {
  for (size_t i = 0; i < std::size(kKnownTransports); ++i) {
    if (name == kKnownTransports[i]) return 1u << i;
  }
  return 0;
}

}  // namespace

void ConnFacts::AddTransport(std::string_view name) {
  if (name.empty()) return;
  if (const uint32_t bit = KnownTransportBit(name)) {
    transport_bits |= bit;
    return;
  }
  if (std::find(other_transports.begin(), other_transports.end(), name) != other_transports.end() ||
      other_transports.size() >= NcclProcesses::kMaxOtherTransports) {
    return;
  }
  other_transports.emplace_back(name);
}

void ConnFacts::Merge(const ConnFacts& o) {
  channel_lines += o.channel_lines;
  transport_bits |= o.transport_bits;
  for (const std::string& t : o.other_transports) AddTransport(t);
}

std::string ConnFacts::Render() const {
  std::vector<std::string_view> names;
  for (size_t i = 0; i < std::size(kKnownTransports); ++i) {
    if (transport_bits & (1u << i)) names.push_back(kKnownTransports[i]);
  }
  for (const std::string& t : other_transports) names.push_back(t);
  std::sort(names.begin(), names.end());
  std::string out;
  for (std::string_view n : names) {
    if (!out.empty()) out.push_back(',');
    out.append(n);
  }
  return out;
}

void NcclProcesses::Process::SetVersion(std::string_view v, std::string_view cuda, int64_t line_no,
                                        bool own) {
  if (version_own || (!own && !version.empty())) return;
  version.assign(v);
  cuda_runtime.assign(cuda);
  version_line = line_no;
  version_own = own;
}

void NcclProcesses::Process::AddChannel(std::string_view rest) {
  ConnFacts* target = &parked;
  if (current == kOverflow) return;
  if (current >= 0) {
    CommState& c = comms[static_cast<size_t>(current)];
    if (c.started || !c.complete_line) target = &c.conn;
  }
  ++target->channel_lines;
  // " via " by its 'v' (rare in a channel line): a search for the blank
  // would stop at each of the line's many blanks.
  for (size_t v = rest.find('v'); v != npos; v = rest.find('v', v + 1)) {
    if (v > 0 && rest[v - 1] == ' ' && rest.substr(v, 4) == "via ") {
      AddVia(*target, rest.substr(v + 4));
      break;
    }
  }
}

void NcclProcesses::Process::AddVia(ConnFacts& target, std::string_view via) {
  const std::string_view last(last_via, last_via_len);
  if (!last.empty() && via.starts_with(last) &&
      (via.size() == last.size() || via[last.size()] == '/' || via[last.size()] == ' ' ||
       via[last.size()] == '(' || via[last.size()] == '[')) {
    target.transport_bits |= last_via_bit;
    return;
  }
  const std::string_view name = TransportOf(via);
  target.AddTransport(name);
  const uint32_t bit = KnownTransportBit(name);
  last_via_len = 0;
  if (bit != 0 && name.size() <= sizeof(last_via)) {
    std::copy(name.begin(), name.end(), last_via);
    last_via_len = static_cast<uint8_t>(name.size());
    last_via_bit = bit;
  }
}

void NcclProcesses::Process::AddNetDevices(std::string_view rest) {
  size_t i = 0;
  while (i < rest.size() && rest[i] != ' ' && rest[i] != ':') ++i;
  const std::string_view name = rest.substr(0, i);
  if (name.empty() || name == "Plugin") return;
  const size_t using_at = rest.find("Using ", i);
  if (using_at == npos) return;
  std::string_view list = rest.substr(using_at + 6);
  list = list.substr(0, list.find(';'));
  std::string entry(name);
  entry.push_back(':');
  const size_t head = entry.size();
  for (size_t open = list.find('['); open != npos; open = list.find('[', open + 1)) {
    size_t j = open + 1;
    while (j < list.size() && scan::IsDigit(list[j])) ++j;
    if (j == open + 1 || !scan::At(list, j, ']')) continue;
    const size_t start = j + 1;
    size_t end = start;
    while (end < list.size() && list[end] != ':' && list[end] != '/' && list[end] != ' ' &&
           list[end] != '[' && end - start < 32) {
      ++end;
    }
    if (end == start) continue;
    if (entry.size() > head) entry.push_back(',');
    entry.append(list.substr(start, end - start));
  }
  if (entry.size() == head) return;
  // One entry per network; a repeat of the same list adds nothing.
  for (size_t at = net_devices.find(entry); at != npos; at = net_devices.find(entry, at + 1)) {
    const size_t end = at + entry.size();
    if ((at == 0 || net_devices[at - 1] == ';') &&
        (end == net_devices.size() || net_devices[end] == ';')) {
      return;
    }
  }
  if (net_devices.size() + entry.size() + 1 > kMaxNetDevicesBytes) return;
  if (!net_devices.empty()) net_devices.push_back(';');
  net_devices.append(entry);
}

void NcclProcesses::Process::AddEnv(std::string_view info) {
  const size_t sp = info.find(' ');
  if (sp == npos) return;
  constexpr std::string_view kSet = " set by environment to ";
  if (info.substr(sp, kSet.size()) != kSet) return;
  std::string_view value = info.substr(sp + kSet.size());
  while (!value.empty() && (value.back() == '.' || value.back() == ' ')) value.remove_suffix(1);
  std::string entry(info.substr(0, sp));
  entry.push_back('=');
  entry.append(ClipText(value, kMaxEnvValueBytes));
  if (std::find(env.begin(), env.end(), entry) != env.end() || env.size() >= kMaxEnv) return;
  env.push_back(std::move(entry));
}

void NcclProcesses::Process::AddCommLine(std::string_view text, int64_t line_no) {
  // Teardown lines name the communicator too; they start nothing.
  if (text.find("Destroy COMPLETE") != npos || text.find("Abort COMPLETE") != npos) return;
  const std::string_view ptr = WordAfter(text, "comm ");
  if (ptr.empty()) return;
  const bool start = text.find("Init START") != npos;
  const bool complete = text.find("Init COMPLETE") != npos;
  const bool nodes = text.find(" nNodes ") != npos;
  size_t idx = 0;
  while (idx < comms.size() && comms[idx].comm != ptr) ++idx;
  if (idx == comms.size()) {
    if (comms.size() >= kMaxComms) {
      ++dropped_comms;
      current = kOverflow;
      return;
    }
    CommState c;
    c.comm.assign(ptr);
    c.first_line = line_no;
    // Channel lines parked since the last communicator are its own (the
    // old form names a communicator only at its Init COMPLETE).
    c.conn = std::move(parked);
    parked = ConnFacts{};
    comms.push_back(std::move(c));
  }
  CommState& c = comms[idx];
  current = static_cast<int>(idx);
  if (auto v = NumberAfter(text, " rank ")) c.rank = v;
  if (auto v = NumberAfter(text, " nranks ")) c.nranks = v;
  if (auto v = NumberAfter(text, " nRanks ")) c.nranks = v;
  if (auto v = NumberAfter(text, " cudaDev ")) c.cuda_dev = v;
  if (auto v = NumberAfter(text, " nNodes ")) c.nnodes = v;
  if (auto w = WordAfter(text, " commId "); !w.empty()) c.comm_id.assign(w);
  if (auto w = WordAfter(text, " parent "); !w.empty()) c.parent.assign(w);
  if (auto w = WordAfter(text, " busId "); !w.empty()) c.bus_id.assign(w);
  c.started |= start || nodes;
  if (start && (!c.init_line || !c.started_by_start)) {
    c.init_line = line_no;
    c.started_by_start = true;
  } else if (!c.init_line) {
    c.init_line = line_no;
  }
  if (complete) c.complete_line = line_no;
  if (c.parent.empty() && c.rank && c.nranks && *c.nranks >= world_nranks) {
    world_rank = *c.rank;
    world_nranks = *c.nranks;
  }
}

void NcclProcesses::Process::EmitRows(const DistEmitter& out) {
  if (!comms.empty() && !parked.empty()) {
    const size_t last = current >= 0 ? static_cast<size_t>(current) : comms.size() - 1;
    comms[last].conn.Merge(parked);
  }
  NcclRankRow base;
  if (!host.empty()) base.host = host;
  base.pid = pid;
  if (!version.empty()) base.nccl_version = version;
  base.version_line = version_line;
  if (!cuda_runtime.empty()) base.cuda_runtime = cuda_runtime;
  if (!cuda_driver.empty()) base.cuda_driver = cuda_driver;
  if (!net.empty()) base.net = net;
  base.net_devices = net_devices;
  std::vector<std::string> sorted = env;
  std::sort(sorted.begin(), sorted.end());
  for (const std::string& e : sorted) {
    if (!base.env.empty()) base.env.push_back(',');
    base.env.append(e);
  }
  base.warn_count = warn_count;
  base.first_warn_line = first_warn_line;
  base.last_line = last_line;
  if (comms.empty()) {
    NcclRankRow row = base;
    row.line_no = first_line;
    row.transports = parked.Render();
    row.channel_lines = parked.channel_lines;
    out.EmitNcclRank(std::move(row));
    return;
  }
  for (size_t i = 0; i < comms.size(); ++i) {
    const CommState& c = comms[i];
    NcclRankRow row = base;
    row.line_no = i == 0 ? std::min(first_line, c.first_line) : c.first_line;
    row.rank = c.rank;
    row.nranks = c.nranks;
    row.cuda_dev = c.cuda_dev;
    row.nnodes = c.nnodes;
    row.comm = c.comm;
    if (!c.comm_id.empty()) row.comm_id = c.comm_id;
    if (!c.parent.empty()) row.parent = c.parent;
    if (!c.bus_id.empty()) row.bus_id = c.bus_id;
    row.transports = c.conn.Render();
    row.channel_lines = c.conn.channel_lines;
    row.init_line = c.init_line;
    row.complete_line = c.complete_line;
    out.EmitNcclRank(std::move(row));
  }
}

}  // namespace casefile::dist
