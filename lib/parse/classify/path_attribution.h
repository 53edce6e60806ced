// Host, task and rank named by a file's path inside a bundle. Collectors lay
// bundles out by host ("host-017/", "hosts/node03/") and name per-rank files
// ("rank3.log", "rank_3/"); ingest stores what the path says on the file row
// and a manifest, when present, overrides it.
//
// Rules (components are compared case-insensitively; values keep the case
// the path had, except the normalised task and the rank number):
//  host: the first (outermost) directory that is host-like (but a
//    collector's "hosts/<host>/" at the bundle root yields to a deeper
//    host-like directory: a shared file system's per-node folders collected
//    from one host):
//    - "host"/"node" + optional '-'/'_' + digits, and nothing else:
//      "host-017", "host017", "node03", "node_2";
//    - a TPU VM name: starts "t1v-" or "tpu-" and ends "-w-<digits>";
//    - an AWS-style "ip-10-0-1-23";
//    - any directory directly under a "hosts", "nodes" or "machines" folder.
//    When no directory is host-like, the file name may still name the host:
//    "<run>/<host>.xplane.pb" and "<host>.trace.json.gz" under
//    "plugins/profile/" (jax.profiler), "<host>_<pid>.<ns>.pt.trace.json[.gz]"
//    (torch.profiler's default worker name), or a file whose stem itself is
//    host-like by the first two patterns ("node03.log").
//  task: the component closest to the file (the file name first) that is
//    "worker" + optional '-'/'_' + digits (-> "worker_<n>") or "task"+digits
//    (-> "task_<n>", or "slice_<m>/task_<n>" when the directory just above
//    it is "slice_<m>"); failing that, the "-w-<n>" of a TPU VM host name
//    (-> "worker_<n>").
//  rank: the component closest to the file (the file name first) holding the
//    word "rank" (not preceded by a letter, nor by "local"/"local_"),
//    an optional '-', '_' or '.', then 1-9 digits not followed by a letter or
//    digit: "rank3.log", "rank_3/", "rank-3", "log_rank_3.txt",
//    "nccl_trace_rank_0". Numbers without the word ("train_3.log",
//    "attempt_0/3/") are never ranks: torchrun's per-process folders hold
//    the local rank, not the global one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace casefile {

struct PathAttribution {
  std::optional<std::string> host;
  std::optional<std::string> task;
  std::optional<int64_t> rank;
};

// `path` is a normalised bundle path ('/'-separated). Pure, never throws.
PathAttribution AttributeFromPath(std::string_view path);

}  // namespace casefile
