// The values one key takes on each host of a side, and how two sides'
// values of a key compare (shared by the versions and configs sections of
// the diff, docs/DIFF.md). A run is many hosts: when every host of a side
// agrees the comparison is one change "on all N hosts"; when hosts disagree
// it is per host (hosts matched by name, grouped by the same change); when
// the two runs share no host name (new machines) the sets of values are
// compared instead, so a run moved to other machines is not a difference.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "diff/diff_types.h"

namespace casefile::diff {

// Where a value was read: a line of the side's index.
struct ValueSource {
  int64_t file_id = 0;
  int64_t line_no = 0;
  bool operator<(const ValueSource& o) const {
    return file_id != o.file_id ? file_id < o.file_id : line_no < o.line_no;
  }
};

// One key's value on one host: every distinct value the host showed (a
// per-GPU or per-process value may repeat), with the first line of each.
struct HostValue {
  // compared text -> displayed text; compared text is the value with its
  // identity parts (host name, IPs, times) masked, see MaskIdentity.
  std::map<std::string, std::string> values;
  // The first line of each value in order seen, then the lines given to Cite.
  std::vector<ValueSource> sources;

  void Add(const std::string& compared, const std::string& shown, ValueSource source);
  // Another line showing one of the values (another report saying the same).
  void Cite(ValueSource source);
  // The values joined by ", " in compared order (what is compared / shown).
  std::string Compared() const;
  std::string Shown() const;
};

// A key on one side: its value per host ("" is a host the index does not
// name). `hosts` are the hosts where the key *could* have been seen (the
// report or file that carries it exists there): a host of `hosts` without a
// value has the key unset.
struct KeyValues {
  std::map<std::string, HostValue> by_host;
};

// One difference of a key between the sides.
struct ValueDelta {
  std::string kind;                 // "added", "removed" or "changed"
  std::optional<std::string> good;  // shown value (or distribution) on each side
  std::optional<std::string> bad;
  std::vector<std::string> hosts;  // hosts it concerns (sorted); all hosts of bad when uniform
  // Hosts of the bad side that could show the key; files of no known host
  // count as one host only when no host is named.
  size_t hosts_total = 0;
  bool all_hosts = false;                 // the whole side changed alike
  bool by_value_set = false;              // no host name in common: value sets compared
  std::vector<ValueSource> good_sources;  // a few lines per side
  std::vector<ValueSource> bad_sources;
};

// Compares a key across the sides. `good_hosts` / `bad_hosts`: the hosts of
// each side that could show the key (see KeyValues); a side with none cannot
// say anything about it and the result is empty. `values` missing on a side
// (nullptr) means the key is unset on every host of it.
std::vector<ValueDelta> CompareKey(const KeyValues* good, const std::set<std::string>& good_hosts,
                                   const KeyValues* bad, const std::set<std::string>& bad_hosts);

// "on all 16 hosts", "on host node-3", "on 3 of 16 hosts (a, b, c)": where a
// delta applies, for a summary sentence.
std::string WhereText(const ValueDelta& d);

// The lines of `sources` as evidence of `side` (sources without a line are
// left out: there is nothing to cite).
std::vector<Evidence> SourcesEvidence(const DiffSide& side,
                                      const std::vector<ValueSource>& sources);

// Sets what every item built from a delta shares: host (when it concerns one
// named host), kind, good/bad values, evidence of both sides, and the fields
// hosts_changed, hosts_total, hosts (names, when not all hosts) and
// compared_by ("host" or "value_set").
void FillFromDelta(const DiffSide& good, const DiffSide& bad, const ValueDelta& d, DiffItem& item);

// The value with what identifies a host or a moment masked: each name of
// `host_names` (longest first; names under 3 characters are ignored) becomes
// <host>, IPv4 addresses (with an optional :port) <ip>, dates and times
// (2026-11-29, 20261129-101112, 10:11:12) <time>. Two runs differing only
// there are the same configuration.
std::string MaskIdentity(const std::string& value, const std::vector<std::string>& host_names);

}  // namespace casefile::diff
