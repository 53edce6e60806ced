// What a configuration key is worth to the diff (docs/DIFF.md, section
// configs): which keys set numerics, precision or parallelism (a change
// there explains a diverging or crashing run), which only identify a host,
// a rank or an attempt (a new run always differs there: never ranked), and
// how a command line or a flag string (XLA_FLAGS) becomes keys.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace casefile::diff {

enum class KeyWeight {
  kOther,      // changed 35, added/removed 25
  kImportant,  // numerics, precision, parallelism, NCCL_/XLA_/TORCH_/CUDA_ variables: 70 / 55
};

// `key` is a dotted config key ("fp16.enabled"), an environment variable
// ("NCCL_ALGO"), a flag of a flag-list variable ("XLA_FLAGS --xla_foo",
// weighed as the variable) or a command-line flag ("--learning_rate").
KeyWeight WeightOfKey(std::string_view key);

// A key that names a precision (fp16.enabled, bf16, amp, torch_dtype,
// mixed_precision...): a change of its value switches the numerics.
bool IsPrecisionKey(std::string_view key);

// True when `value` switches precision on or names one: true/1/yes, or a
// dtype such as fp16, float16, bf16, bfloat16, fp32, float32, fp8, half.
bool IsPrecisionValue(std::string_view value);

// A key whose value only says which host, rank, port, job or attempt this
// is (MASTER_ADDR, RANK, LOCAL_RANK, MASTER_PORT, SLURM_JOB_ID,
// TORCHELASTIC_RUN_ID, --node_rank, --rdzv_endpoint...): never a difference
// between two runs worth ranking; the configs section drops it.
bool IsIdentityKey(std::string_view key);

// Environment variables whose value is itself a list of flags: the section
// compares them flag by flag.
bool IsFlagListVariable(std::string_view name);

// Splits a command line as a POSIX shell would for plain words: blanks (and
// NUL, as in /proc/PID/cmdline) separate words, single quotes keep text
// as is, double quotes allow \" \\ \$ \`, a backslash outside quotes
// escapes the next character. No expansion.
std::vector<std::string> SplitCommandWords(std::string_view text);

// Command-line words as keys: the program is "argv[0]", "--flag=value" and
// "--flag value" give ("--flag", "value"), a flag followed by another flag
// or by nothing gives ("--flag", "true"), other words are positional
// ("arg[1]", "arg[2]"...). Flags with one dash ("-m") count as flags.
// `has_program` false: the words are a flag list (XLA_FLAGS) with no
// program name.
std::vector<std::pair<std::string, std::string>> WordsToKeys(const std::vector<std::string>& words,
                                                             bool has_program);

}  // namespace casefile::diff
