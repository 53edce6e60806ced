#!/bin/sh
# Tests the ABI checker itself (ctest capi_abi_checker): each case edits a
# copy of the committed baseline the way a change of the library would, runs
# scripts/abi/abi_check.sh BASELINE EDITED and expects its verdict (exit 0 or
# 1) and a phrase of its message. Needs no build.
#
#   abi_selftest.sh BASELINE WORK_DIR
set -eu
here=$(cd "$(dirname "$0")" && pwd)
base=$1 work=$2
rm -rf "$work"
mkdir -p "$work"
failures=0
cases=0

# expect NAME RC PHRASE SED_SCRIPT [EXTRA_LINE...]
# The edited dump is the baseline run through sed, plus the extra lines.
expect() {
  name=$1 rc=$2 phrase=$3 script=$4
  shift 4
  edited="$work/$name.abi"
  sed "$script" "$base" >"$edited"
  for line in "$@"; do printf '%s\n' "$line" >>"$edited"; done
  if cmp -s "$base" "$edited" && [ "$script" != "" ] && [ $# -eq 0 ]; then
    echo "FAIL $name: the edit changed nothing (the baseline lacks what it edits)"
    failures=$((failures + 1))
    return
  fi
  cases=$((cases + 1))
  set +e
  out=$(sh "$here/abi_check.sh" "$base" "$edited" 2>&1)
  got=$?
  set -e
  if [ "$got" -ne "$rc" ] || ! printf '%s\n' "$out" | grep -q -F -- "$phrase"; then
    echo "FAIL $name: expected exit $rc and \"$phrase\", got exit $got:"
    printf '%s\n' "$out" | sed 's/^/    /'
    failures=$((failures + 1))
  fi
}

expect identical 0 "ABI identical" ""
# Removed from the library's exported set.
expect symbol_removed 1 "symbol casefile_session_open removed" '/^symbol casefile_session_open /d'
expect symbol_node 1 "moved from version node CASEFILE_0 to none" \
  's/^symbol casefile_report_free CASEFILE_0$/symbol casefile_report_free none/'
expect prototype_changed 1 "casefile_report_finding_count changed" \
  's/^\(function stable casefile_report_finding_count \)size_t(/\1int(/'
expect parameter_added 1 "casefile_analyzer_name changed" \
  's/^\(function stable casefile_analyzer_name const char\*(size_t\))/\1,int)/'
expect callback_changed 1 "callback type casefile_row_fn changed" \
  's/^\(callback casefile_row_fn int(\)size_t,/\1int,/'
# A field moved: reindex after a new field inserted before it.
expect field_moved 1 "field casefile_open_options reindex moved" \
  's/^\(field casefile_open_options reindex offset \)16 /\124 /'
expect field_resized 1 "field casefile_collect_options threads moved" \
  's/^\(field casefile_collect_options threads offset [0-9]* size \)4$/\18/'
expect field_removed 1 "field casefile_diff_options no_store removed or renamed" \
  '/^field casefile_diff_options no_store /d'
expect struct_shrank 1 "struct casefile_analyze_options shrank" \
  's/^\(struct casefile_analyze_options size \)40 /\132 /'
expect struct_align 1 "struct casefile_plugin_info alignment changed" \
  's/^\(struct casefile_plugin_info size [0-9]* align \)8$/\116/'
expect enum_renumbered 1 "enumerator casefile_status CASEFILE_E_IO renumbered from 200 to 250" \
  's/^\(enum casefile_status CASEFILE_E_IO \)200$/\1250/'
expect enum_removed 1 "enumerator casefile_format CASEFILE_FORMAT_TEXT_COLOR removed" \
  '/^enum casefile_format CASEFILE_FORMAT_TEXT_COLOR /d'
expect enum_size 1 "enum casefile_severity changed size" \
  's/^\(enumtype casefile_severity size \)4$/\18/'
expect macro_lowered 1 "macro CASEFILE_OPEN_OPTIONS_VERSION lowered" \
  's/^\(macro CASEFILE_OPEN_OPTIONS_VERSION \)2$/\11/'
expect entry_renamed 1 "CASEFILE_PLUGIN_ENTRY_SYMBOL changed" \
  's/^\(string CASEFILE_PLUGIN_ENTRY_SYMBOL \).*/\1casefile_plugin_main/'
expect soname_wrong 1 "the SONAME is libcasefile.so.1, not libcasefile.so.0" \
  's/^soname .*/soname libcasefile.so.1/'

# Compatible changes: the check passes and suggests a refresh.
expect symbol_added 0 "symbol casefile_new_call added" "" \
  "symbol casefile_new_call CASEFILE_0" "function stable casefile_new_call int(void)"
expect enum_added 0 "enum casefile_status CASEFILE_E_NEW added" "" \
  "enum casefile_status CASEFILE_E_NEW 700"
# Appended to a versioned struct with its version raised: compatible.
expect struct_appended 0 "struct casefile_diff_options grew from 8 to 16 bytes" \
  's/^struct casefile_diff_options size 8 align 4$/struct casefile_diff_options size 16 align 8/
s/^\(macro CASEFILE_DIFF_OPTIONS_VERSION \)1$/\12/' \
  "field casefile_diff_options index_dir offset 8 size 8"
# The same without raising the version macro: incompatible.
expect struct_appended_no_bump 1 "without raising CASEFILE_DIFF_OPTIONS_VERSION" \
  's/^\(struct casefile_diff_options size \)8 /\116 /' \
  "field casefile_diff_options index_dir offset 8 size 8"
expect field_in_padding 1 "added inside the old size" "" \
  "field casefile_open_options padding_flag offset 20 size 4"
# An experimental function may change or go.
expect experimental_removed 0 "experimental casefile_rules_describe" \
  '/ casefile_rules_describe /d'
expect experimental_changed 0 "experimental casefile_rules_describe changed" \
  's/^\(function experimental casefile_rules_describe casefile_status(char\*\*,\)/\1int,/'
expect stable_now_experimental 1 "casefile_session_free changed" \
  's/^function stable casefile_session_free /function experimental casefile_session_free /'

# A major bump allows anything, once SONAME and nodes follow it.
expect major_bump 0 "ABI major bumped from 0 to 1" \
  's/^abi_major 0$/abi_major 1/
s/^soname libcasefile.so.0$/soname libcasefile.so.1/
s/ CASEFILE_0$/ CASEFILE_1/
/^symbol casefile_session_open /d'
expect major_bump_nodes_stale 1 "has version node CASEFILE_0, not CASEFILE_1" \
  's/^abi_major 0$/abi_major 1/
s/^soname libcasefile.so.0$/soname libcasefile.so.1/'

if [ "$failures" -ne 0 ]; then
  echo "$failures of $cases checker cases failed"
  exit 1
fi
rm -rf "$work"
echo "$cases checker cases passed"
