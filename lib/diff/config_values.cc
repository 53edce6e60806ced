#include "diff/config_values.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace casefile::diff {
namespace {

// How many hosts' lines an item cites per side: enough to show the change
// is real, few enough to read.
constexpr size_t kSourcesPerSide = 3;
// How many host names a summary lists before "and N more".
constexpr size_t kHostsNamed = 4;
// How many host names the `hosts` field of an item holds.
constexpr size_t kHostsListed = 32;

using Compared = std::optional<std::string>;

Compared ComparedOf(const KeyValues* kv, const std::string& host) {
  if (kv == nullptr) return std::nullopt;
  auto it = kv->by_host.find(host);
  if (it == kv->by_host.end()) return std::nullopt;
  return it->second.Compared();
}

const HostValue* ValueOf(const KeyValues* kv, const std::string& host) {
  if (kv == nullptr) return nullptr;
  auto it = kv->by_host.find(host);
  return it == kv->by_host.end() ? nullptr : &it->second;
}

// True when every host of `hosts` has the same value (unset counts as one).
bool Uniform(const KeyValues* kv, const std::set<std::string>& hosts) {
  std::optional<Compared> first;
  for (const std::string& h : hosts) {
    Compared c = ComparedOf(kv, h);
    if (!first) {
      first = std::move(c);
    } else if (*first != c) {
      return false;
    }
  }
  return true;
}

// The first few lines of `hosts` (in host order) that showed a value: all
// of the first host's (one per value, then other reports saying the same),
// then the next host's.
void AddSources(const KeyValues* kv, const std::vector<std::string>& hosts,
                std::vector<ValueSource>& out) {
  for (const std::string& h : hosts) {
    if (out.size() >= kSourcesPerSide) return;
    const HostValue* v = ValueOf(kv, h);
    if (v == nullptr) continue;
    for (const ValueSource& s : v->sources) {
      if (out.size() >= kSourcesPerSide) return;
      out.push_back(s);
    }
  }
}

// "2.18.3" when one value, else "2.18.3 (15 hosts), 2.19.3 (1 host)"; unset
// hosts are counted as "unset".
std::optional<std::string> Distribution(const KeyValues* kv, const std::set<std::string>& hosts) {
  std::map<Compared, std::pair<size_t, std::string>> counts;
  for (const std::string& h : hosts) {
    const HostValue* v = ValueOf(kv, h);
    auto& slot = counts[v ? Compared(v->Compared()) : std::nullopt];
    if (slot.first++ == 0 && v != nullptr) slot.second = v->Shown();
  }
  if (counts.size() == 1) {
    if (!counts.begin()->first) return std::nullopt;
    return counts.begin()->second.second;
  }
  std::string out;
  for (const auto& [compared, count_shown] : counts) {
    if (!out.empty()) out += ", ";
    out += compared ? count_shown.second : std::string("unset");
    out +=
        " (" + std::to_string(count_shown.first) + (count_shown.first == 1 ? " host)" : " hosts)");
  }
  return out;
}

std::string KindOf(bool good_set, bool bad_set) {
  if (!good_set) return "added";
  if (!bad_set) return "removed";
  return "changed";
}

// Hosts of a side as a person counts them: files whose host the index does
// not know ("") are one more host only when no host is named at all.
size_t HostCount(const std::set<std::string>& hosts) {
  const size_t named = hosts.size() - hosts.count("");
  return named > 0 ? named : hosts.size();
}

std::vector<std::string> SortedHosts(const std::set<std::string>& hosts) {
  return {hosts.begin(), hosts.end()};
}

// ---- identity masking ------------------------------------------------------

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// Digits at s[i..], at least `min` and at most `max`; returns the count or 0.
size_t Digits(const std::string& s, size_t i, size_t min, size_t max) {
  size_t n = 0;
  while (i + n < s.size() && IsDigit(s[i + n]) && n < max) ++n;
  if (n < min) return 0;
  if (i + n < s.size() && IsDigit(s[i + n])) return 0;  // longer than max
  return n;
}

// An IPv4 address (and :port) at s[i]; its length or 0.
size_t IpAt(const std::string& s, size_t i) {
  size_t p = i;
  for (int part = 0; part < 4; ++part) {
    if (part > 0) {
      if (p >= s.size() || s[p] != '.') return 0;
      ++p;
    }
    const size_t n = Digits(s, p, 1, 3);
    if (n == 0) return 0;
    p += n;
  }
  if (p < s.size() && s[p] == '.' && p + 1 < s.size() && IsDigit(s[p + 1])) return 0;
  if (p + 1 < s.size() && s[p] == ':') {
    const size_t n = Digits(s, p + 1, 1, 5);
    if (n > 0) p += 1 + n;
  }
  return p - i;
}

// hh:mm:ss with optional fraction at s[i]; its length or 0.
size_t ClockAt(const std::string& s, size_t i) {
  size_t p = i;
  for (int part = 0; part < 3; ++part) {
    if (part > 0) {
      if (p >= s.size() || s[p] != ':') return 0;
      ++p;
    }
    if (Digits(s, p, 2, 2) == 0) return 0;
    p += 2;
  }
  if (p + 1 < s.size() && (s[p] == '.' || s[p] == ',') && IsDigit(s[p + 1])) {
    ++p;
    while (p < s.size() && IsDigit(s[p])) ++p;
  }
  return p - i;
}

// A date (2026-11-29, optionally with a time and zone), a compact stamp
// (20261129-101112 / 20261129_101112) or a clock time at s[i]; length or 0.
size_t TimeAt(const std::string& s, size_t i) {
  if (Digits(s, i, 4, 4) == 4 && i + 10 <= s.size() && s[i + 4] == '-' &&
      Digits(s, i + 5, 2, 2) == 2 && s[i + 7] == '-' && Digits(s, i + 8, 2, 2) == 2) {
    size_t p = i + 10;
    if (p + 1 < s.size() && (s[p] == 'T' || s[p] == ' ' || s[p] == '_')) {
      if (const size_t c = ClockAt(s, p + 1)) {
        p += 1 + c;
        if (p < s.size() && s[p] == 'Z') ++p;
      }
    }
    return p - i;
  }
  if (Digits(s, i, 8, 8) == 8 && i + 15 <= s.size() && (s[i + 8] == '-' || s[i + 8] == '_') &&
      Digits(s, i + 9, 6, 6) == 6) {
    return 15;
  }
  return ClockAt(s, i);
}

}  // namespace

void HostValue::Add(const std::string& compared, const std::string& shown, ValueSource source) {
  if (values.emplace(compared, shown).second) sources.push_back(source);
}

void HostValue::Cite(ValueSource source) {
  for (const ValueSource& s : sources) {
    if (s.file_id == source.file_id && s.line_no == source.line_no) return;
  }
  sources.push_back(source);
}

std::string HostValue::Compared() const {
  std::string out;
  for (const auto& [compared, shown] : values) {
    if (!out.empty()) out += ", ";
    out += compared;
  }
  return out;
}

std::string HostValue::Shown() const {
  std::string out;
  for (const auto& [compared, shown] : values) {
    if (!out.empty()) out += ", ";
    out += shown;
  }
  return out;
}

std::vector<ValueDelta> CompareKey(const KeyValues* good, const std::set<std::string>& good_hosts,
                                   const KeyValues* bad, const std::set<std::string>& bad_hosts) {
  std::vector<ValueDelta> out;
  if (good_hosts.empty() || bad_hosts.empty()) return out;
  const std::vector<std::string> all_bad = SortedHosts(bad_hosts);
  const std::vector<std::string> all_good = SortedHosts(good_hosts);

  if (Uniform(good, good_hosts) && Uniform(bad, bad_hosts)) {
    const Compared g = ComparedOf(good, *good_hosts.begin());
    const Compared b = ComparedOf(bad, *bad_hosts.begin());
    if (g == b) return out;
    ValueDelta d;
    d.kind = KindOf(g.has_value(), b.has_value());
    d.good = Distribution(good, good_hosts);
    d.bad = Distribution(bad, bad_hosts);
    d.hosts = all_bad;
    d.hosts_total = HostCount(bad_hosts);
    d.all_hosts = true;
    AddSources(good, all_good, d.good_sources);
    AddSources(bad, all_bad, d.bad_sources);
    out.push_back(std::move(d));
    return out;
  }

  std::vector<std::string> common;
  std::set_intersection(good_hosts.begin(), good_hosts.end(), bad_hosts.begin(), bad_hosts.end(),
                        std::back_inserter(common));
  std::set<Compared> good_values;
  for (const std::string& h : good_hosts) good_values.insert(ComparedOf(good, h));

  if (common.empty()) {
    // New machines: the mix of values is what can be compared.
    std::set<Compared> bad_values;
    for (const std::string& h : bad_hosts) bad_values.insert(ComparedOf(bad, h));
    if (good_values == bad_values) return out;
    ValueDelta d;
    d.good = Distribution(good, good_hosts);
    d.bad = Distribution(bad, bad_hosts);
    d.kind = KindOf(d.good.has_value(), d.bad.has_value());
    for (const std::string& h : all_bad) {
      if (!good_values.count(ComparedOf(bad, h))) d.hosts.push_back(h);
    }
    d.hosts_total = HostCount(bad_hosts);
    d.by_value_set = true;
    AddSources(good, all_good, d.good_sources);
    AddSources(bad, d.hosts.empty() ? all_bad : d.hosts, d.bad_sources);
    out.push_back(std::move(d));
    return out;
  }

  // Hosts matched by name; the same change on several hosts is one delta.
  // A host only bad has is compared with the good side's values as a whole.
  struct Group {
    std::vector<std::string> hosts;
    bool good_side_whole = false;  // good value = the good side's distribution
  };
  std::map<std::pair<Compared, Compared>, Group> groups;
  for (const std::string& h : common) {
    Compared g = ComparedOf(good, h), b = ComparedOf(bad, h);
    if (g != b) groups[{std::move(g), std::move(b)}].hosts.push_back(h);
  }
  const std::optional<std::string> good_whole = Distribution(good, good_hosts);
  for (const std::string& h : all_bad) {
    if (good_hosts.count(h)) continue;
    Compared b = ComparedOf(bad, h);
    if (good_values.count(b)) continue;
    // Keyed by a text no value has, so these never merge with matched hosts.
    Group& g = groups[{std::string("\x01whole"), std::move(b)}];
    g.hosts.push_back(h);
    g.good_side_whole = true;
  }
  for (auto& [values, group] : groups) {
    ValueDelta d;
    const std::string& first = group.hosts.front();
    if (group.good_side_whole) {
      d.good = good_whole;
      AddSources(good, all_good, d.good_sources);
    } else if (const HostValue* v = ValueOf(good, first)) {
      d.good = v->Shown();
      AddSources(good, group.hosts, d.good_sources);
    }
    if (const HostValue* v = ValueOf(bad, first)) d.bad = v->Shown();
    d.kind = KindOf(d.good.has_value(), d.bad.has_value());
    AddSources(bad, group.hosts, d.bad_sources);
    d.hosts = std::move(group.hosts);
    d.hosts_total = HostCount(bad_hosts);
    d.all_hosts = d.hosts.size() == bad_hosts.size();
    // A change on the named hosts only: the unnamed files agree, or say nothing.
    if (!d.all_hosts && d.hosts.size() == d.hosts_total && !d.hosts.empty() &&
        !d.hosts.front().empty() && bad_hosts.count("")) {
      d.all_hosts = true;
    }
    out.push_back(std::move(d));
  }
  return out;
}

std::string WhereText(const ValueDelta& d) {
  auto host_name = [](const std::string& h) { return h.empty() ? std::string("(no host)") : h; };
  if (d.by_value_set) {
    return "across " + std::to_string(d.hosts_total) + (d.hosts_total == 1 ? " host" : " hosts") +
           " (no host name in common with good)";
  }
  if (d.hosts.size() == 1) {
    if (d.hosts.front().empty()) return "";
    return "on host " + d.hosts.front();
  }
  if (d.all_hosts) {
    if (d.hosts_total > 1) return "on all " + std::to_string(d.hosts_total) + " hosts";
    // One named host beside files of no known host: naming it would say
    // the others did not change.
    return "";
  }
  std::string out =
      "on " + std::to_string(d.hosts.size()) + " of " + std::to_string(d.hosts_total) + " hosts (";
  for (size_t i = 0; i < d.hosts.size() && i < kHostsNamed; ++i) {
    if (i > 0) out += ", ";
    out += host_name(d.hosts[i]);
  }
  if (d.hosts.size() > kHostsNamed) {
    out += " and " + std::to_string(d.hosts.size() - kHostsNamed) + " more";
  }
  return out + ")";
}

std::string MaskIdentity(const std::string& value, const std::vector<std::string>& host_names) {
  std::string s = value;
  if (!host_names.empty()) {
    std::vector<const std::string*> names;
    for (const std::string& h : host_names) {
      if (h.size() >= 3) names.push_back(&h);
    }
    std::sort(names.begin(), names.end(), [](const std::string* a, const std::string* b) {
      return a->size() != b->size() ? a->size() > b->size() : *a < *b;
    });
    for (const std::string* name : names) {
      for (size_t at = s.find(*name); at != std::string::npos; at = s.find(*name, at + 6)) {
        s.replace(at, name->size(), "<host>");
      }
    }
  }
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    // A number glued to a letter or a dot ("v12", "1.2.3.4.5") is not one.
    const bool boundary = i == 0 || (!IsAlnum(s[i - 1]) && s[i - 1] != '.');
    if (boundary && IsDigit(s[i])) {
      if (const size_t n = IpAt(s, i)) {
        out += "<ip>";
        i += n;
        continue;
      }
      if (const size_t n = TimeAt(s, i)) {
        out += "<time>";
        i += n;
        continue;
      }
    }
    out.push_back(s[i++]);
  }
  return out;
}

std::vector<Evidence> SourcesEvidence(const DiffSide& side,
                                      const std::vector<ValueSource>& sources) {
  std::vector<Evidence> out;
  for (const ValueSource& s : sources) {
    if (s.line_no > 0) out.push_back(side.LineEvidence(s.file_id, s.line_no));
  }
  return out;
}

void FillFromDelta(const DiffSide& good, const DiffSide& bad, const ValueDelta& d, DiffItem& item) {
  item.kind = d.kind;
  item.good = d.good;
  item.bad = d.bad;
  if (!d.by_value_set && d.hosts.size() == 1 && !d.hosts.front().empty()) {
    item.host = d.hosts.front();
  }
  item.good_evidence = SourcesEvidence(good, d.good_sources);
  item.bad_evidence = SourcesEvidence(bad, d.bad_sources);
  const size_t unnamed = static_cast<size_t>(std::count(d.hosts.begin(), d.hosts.end(), ""));
  const size_t changed = unnamed < d.hosts.size() ? d.hosts.size() - unnamed : d.hosts.size();
  item.fields.push_back({"hosts_changed", static_cast<int64_t>(changed)});
  item.fields.push_back({"hosts_total", static_cast<int64_t>(d.hosts_total)});
  if (!d.all_hosts && !d.hosts.empty()) {
    std::string names;
    for (size_t i = 0; i < d.hosts.size() && i < kHostsListed; ++i) {
      if (i > 0) names += ",";
      names += d.hosts[i];
    }
    if (d.hosts.size() > kHostsListed) names += ",...";
    item.fields.push_back({"hosts", names});
  }
  item.fields.push_back({"compared_by", std::string(d.by_value_set ? "value_set" : "host")});
}

}  // namespace casefile::diff
