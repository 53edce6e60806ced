#!/bin/sh
# Compares the ABI dump of the library just built with the committed
# baseline (docs/API.md, "ABI check"); exits 1 on an incompatible change made
# without an ABI major bump.
#
#   abi_check.sh BASELINE CURRENT
#
# Incompatible: an exported symbol removed or moved to another version node;
# a stable function's prototype or a callback type changed; a struct that
# shrank, changed alignment (but by growing), lost a field or moved one; a struct that grew
# without a `version` first field and a higher *_VERSION macro; a field
# added inside the old size; an enum's size or an enumerator's value
# changed, or an enumerator removed; a *_VERSION macro lowered; the plugin
# entry symbol renamed. Compatible (reported, the check passes; refresh the
# baseline): anything added, a versioned struct grown at its end.
# Experimental functions (CASEFILE_EXPERIMENTAL) may change or go.
# When CURRENT's abi_major is above BASELINE's, everything is allowed: the
# baseline belongs to the old major and is to be refreshed. Always checked on
# CURRENT alone: the SONAME and every symbol's version node carry its major.
set -eu
if [ $# -ne 2 ]; then
  echo "usage: abi_check.sh BASELINE CURRENT"
  exit 2
fi
exec awk '
# Lines are "KIND NAME VALUE...", except "field STRUCT NAME ...", "enum TYPE
# NAME VALUE" and "function TIER NAME PROTOTYPE" (keyed by name, the tier
# kept first in the value).
function key() {
  if ($1 == "abi_major" || $1 == "soname") return $1
  if ($1 == "field" || $1 == "enum") return $1 " " $2 " " $3
  if ($1 == "function") return $1 " " $3
  return $1 " " $2
}
function value(    v, i) {
  if ($1 == "abi_major" || $1 == "soname") return $2
  if ($1 == "function") { v = $2; i = 4 } else { v = ""; i = ($1 == "field" || $1 == "enum") ? 4 : 3 }
  for (; i <= NF; i++) v = v (v == "" ? "" : " ") $i
  return v
}
function bad(msg) { print "INCOMPATIBLE: " msg; nbad++ }
function ok(msg) { print "compatible: " msg; nok++ }
function word(s, n,    w) { split(s, w, " "); return w[n] }
# "size 56 align 8" -> 56; "offset 8 size 8" -> 8
function num(s, name,    w, n, i) {
  n = split(s, w, " ")
  for (i = 1; i < n; i++) if (w[i] == name) return w[i + 1] + 0
  return -1
}
/^#/ || NF == 0 { next }
FNR == NR { base[key()] = value(); next }
{ cur[key()] = value() }
END {
  nbad = 0; nok = 0
  bmajor = base["abi_major"] + 0; cmajor = cur["abi_major"] + 0
  if (!("abi_major" in base) || !("abi_major" in cur)) { print "INCOMPATIBLE: no abi_major line"; exit 1 }

  # The library itself: SONAME and version nodes carry the major.
  if (cur["soname"] != "libcasefile.so." cmajor)
    bad("the SONAME is " cur["soname"] ", not libcasefile.so." cmajor)
  for (k in cur) if (k ~ /^symbol / && cur[k] != "CASEFILE_" cmajor)
    bad(substr(k, 8) " has version node " cur[k] ", not CASEFILE_" cmajor)

  if (cmajor < bmajor) bad("abi_major " cmajor " is below the baseline'"'"'s " bmajor)
  if (cmajor > bmajor) {
    print "ABI major bumped from " bmajor " to " cmajor ": the baseline belongs to the old major;"
    print "refresh it (scripts/abi/abi_refresh.sh) and commit it with the bump."
    exit nbad > 0
  }

  for (k in base) {
    kind = word(k, 1); name = substr(k, length(kind) + 2)
    if (kind == "abi_major" || kind == "soname") continue
    has = (k in cur)
    if (kind == "symbol") {
      is_exp = (("function " name) in base) && word(base["function " name], 1) == "experimental"
      if (!has) { if (is_exp) ok("experimental " name " removed"); else bad("symbol " name " removed") }
      else if (cur[k] != base[k]) bad(name " moved from version node " base[k] " to " cur[k])
    } else if (kind == "function") {
      is_exp = word(base[k], 1) == "experimental"
      if (!has) { if (is_exp) ok("experimental " name " no longer declared"); else bad(name " no longer declared in casefile.h") }
      else if (cur[k] != base[k]) {
        if (is_exp) ok("experimental " name " changed: " cur[k])
        else bad(name " changed: was \"" base[k] "\", now \"" cur[k] "\"")
      }
    } else if (kind == "callback") {
      if (!has) bad("callback type " name " removed")
      else if (cur[k] != base[k]) bad("callback type " name " changed: was " base[k] ", now " cur[k])
    } else if (kind == "struct") {
      if (!has) { bad("struct " name " removed"); continue }
      bsize = num(base[k], "size"); csize = num(cur[k], "size")
      if (csize < bsize) bad("struct " name " shrank from " bsize " to " csize " bytes")
      # A stricter alignment comes with an appended wider field; it is part
      # of that growth, judged below. Otherwise it is a change of layout.
      if (num(base[k], "align") != num(cur[k], "align") && csize <= bsize)
        bad("struct " name " alignment changed")
      if (csize > bsize) {
        macro = "macro " toupper(name) "_VERSION"
        versioned = (("field " name " version") in cur) && num(cur["field " name " version"], "offset") == 0
        if (!versioned) bad("struct " name " grew from " bsize " to " csize " bytes and has no version field")
        else if (!(macro in base) || !(macro in cur) || cur[macro] + 0 <= base[macro] + 0)
          bad("struct " name " grew from " bsize " to " csize " bytes without raising " substr(macro, 7))
        else ok("struct " name " grew from " bsize " to " csize " bytes, " substr(macro, 7) " " cur[macro])
      }
    } else if (kind == "field") {
      if (!has) bad("field " name " removed or renamed")
      else if (cur[k] != base[k]) bad("field " name " moved: was " base[k] ", now " cur[k])
    } else if (kind == "enumtype") {
      if (!has) bad("enum " name " removed")
      else if (cur[k] != base[k]) bad("enum " name " changed size: was " base[k] ", now " cur[k])
    } else if (kind == "enum") {
      if (!has) bad("enumerator " name " removed")
      else if (cur[k] != base[k]) bad("enumerator " name " renumbered from " base[k] " to " cur[k])
    } else if (kind == "macro") {
      if (!has) bad("macro " name " removed")
      else if (cur[k] + 0 < base[k] + 0) bad("macro " name " lowered from " base[k] " to " cur[k])
      else if (cur[k] != base[k]) ok("macro " name " raised to " cur[k])
    } else if (kind == "string") {
      if (!has || cur[k] != base[k]) bad(name " changed from " base[k])
    }
  }
  for (k in cur) {
    if (k in base) continue
    kind = word(k, 1); name = substr(k, length(kind) + 2)
    if (kind == "field") {
      split(name, sf, " ")
      if (("struct " sf[1]) in base && num(cur[k], "offset") < num(base["struct " sf[1]], "size"))
        bad("field " name " added inside the old size of " sf[1])
      else ok("field " name " added")
    } else ok(kind " " name " added")
  }
  if (nbad > 0) {
    print nbad " incompatible change(s) without an ABI major bump (docs/API.md, \"Stability\")."
    exit 1
  }
  if (nok > 0) print nok " compatible change(s); refresh the baseline: scripts/abi/abi_refresh.sh"
  else print "ABI identical to the baseline (major " cmajor ")"
  exit 0
}' "$1" "$2"
