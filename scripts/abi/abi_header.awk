# Reads include/casefile.h and prints what the header declares, one fact a
# line, for the ABI dump (scripts/abi/abi_dump.sh) and its coverage check:
#
#   function TIER NAME RETURN(PARAM_TYPE,...)   every CASEFILE_API function
#   declared struct NAME FIELD                  every field of a public struct
#   declared enum NAME CONSTANT                 every enumerator
#   declared macro NAME                         every CASEFILE_*_VERSION macro
#   callback NAME RETURN(PARAM_TYPE,...)        every function-pointer typedef,
#                                               and STRUCT.FIELD for such fields
#
# TIER is "stable", or "experimental" inside #ifdef CASEFILE_EXPERIMENTAL.
# Parameter names are dropped (renaming one changes no ABI) and spaces
# around '*' removed, so a prototype prints the same however it is wrapped.
# The header's own style is assumed (clang-formatted C, one declaration per
# statement, no function-pointer parameters spelled inline: they use
# typedefs); the coverage check fails loudly when that stops being true.

function trim(s) {
  gsub(/^[ \t]+|[ \t]+$/, "", s)
  return s
}

function squeeze(s) {
  gsub(/[ \t]+/, " ", s)
  s = trim(s)
  gsub(/ *\* */, "*", s)
  return s
}

# A parameter without its name: "const char* const* inputs" -> "const char*const*".
function param_type(p) {
  p = trim(p)
  if (p == "void" || p == "...") return p
  sub(/[A-Za-z_][A-Za-z0-9_]*$/, "", p)
  return squeeze(p)
}

function emit_function(decl,    lparen, rparen, head, params, n, parts, i, out, name, ret) {
  sub(/CASEFILE_API/, "", decl)
  decl = squeeze(decl)
  lparen = index(decl, "(")
  rparen = length(decl)
  while (rparen > 0 && substr(decl, rparen, 1) != ")") rparen--
  head = trim(substr(decl, 1, lparen - 1))
  params = substr(decl, lparen + 1, rparen - lparen - 1)
  name = head
  sub(/.*[^A-Za-z0-9_]/, "", name)
  ret = squeeze(substr(head, 1, length(head) - length(name)))
  n = split(params, parts, ",")
  out = ""
  for (i = 1; i <= n; i++) out = out (i > 1 ? "," : "") param_type(parts[i])
  print "function " (experimental ? "experimental" : "stable") " " name " " ret "(" out ")"
}

# "RET (*NAME)(PARAMS)" (a typedef or a field) as a callback line.
function emit_callback(label, stmt,    p, ret, params, n, parts, i, out) {
  stmt = squeeze(stmt)
  sub(/^typedef /, "", stmt)
  p = index(stmt, "(*")
  ret = squeeze(substr(stmt, 1, p - 1))
  params = substr(stmt, p)
  sub(/^\(\*[^)]*\)[ ]*\(/, "", params)
  sub(/\)[ ]*$/, "", params)
  n = split(params, parts, ",")
  out = ""
  for (i = 1; i <= n; i++) out = out (i > 1 ? "," : "") param_type(parts[i])
  print "callback " label " " ret "(" out ")"
}

# A struct field's name: the identifier before ';' or inside "(*name)".
function field_name(stmt,    m) {
  if (match(stmt, /\(\*[ ]*[A-Za-z_][A-Za-z0-9_]*\)/)) {
    m = substr(stmt, RSTART + 2, RLENGTH - 3)
    return trim(m)
  }
  sub(/\[[^]]*\][ ]*$/, "", stmt)
  m = stmt
  sub(/.*[^A-Za-z0-9_]/, "", m)
  return m
}

BEGIN {
  in_comment = 0
  experimental = 0
  depth_if = 0
  exp_depth = -1
  kind = ""
  decl = ""
  tdecl = ""
}

{
  line = $0
  # Comments out, including those over several lines.
  out = ""
  while (length(line) > 0) {
    if (in_comment) {
      p = index(line, "*/")
      if (p == 0) { line = ""; break }
      line = substr(line, p + 2)
      in_comment = 0
    } else {
      p = index(line, "/*")
      if (p == 0) { out = out line; line = ""; break }
      out = out substr(line, 1, p - 1) " "
      line = substr(line, p + 2)
      in_comment = 1
    }
  }
  line = out

  if (line ~ /^[ \t]*#/) {
    # Preprocessor: only the nesting matters, to know the experimental part.
    if (line ~ /^[ \t]*#[ \t]*if/) {
      depth_if++
      if (line ~ /CASEFILE_EXPERIMENTAL/) { experimental = 1; exp_depth = depth_if }
    } else if (line ~ /^[ \t]*#[ \t]*endif/) {
      if (depth_if == exp_depth) { experimental = 0; exp_depth = -1 }
      depth_if--
    } else if (line ~ /^[ \t]*#[ \t]*define[ \t]+CASEFILE_[A-Z0-9_]*_VERSION[ \t]/ && !experimental) {
      split(trim(line), w, /[ \t]+/)
      print "declared macro " w[2]
    }
    next
  }

  # Inside a public struct or enum: fields or enumerators.
  if (kind != "") {
    if (line ~ /^[ \t]*}/) {
      kind = ""
      next
    }
    if (kind == "enum") {
      n = split(line, toks, /[^A-Za-z0-9_]+/)
      for (i = 1; i <= n; i++) if (toks[i] ~ /^CASEFILE_[A-Z0-9_]+$/) print "declared enum " type " " toks[i]
    } else {
      body = body " " line
      while ((p = index(body, ";")) > 0) {
        stmt = trim(substr(body, 1, p - 1))
        body = substr(body, p + 1)
        if (stmt == "") continue
        print "declared struct " type " " field_name(stmt)
        if (index(stmt, "(*") > 0) emit_callback(type "." field_name(stmt), stmt)
      }
    }
    next
  }
  if (!experimental && match(line, /typedef[ \t]+(struct|enum)[ \t]+[A-Za-z_0-9]+[ \t]*\{/)) {
    split(trim(substr(line, RSTART, RLENGTH)), w, /[ \t{]+/)
    kind = w[2]
    type = w[3]
    body = ""
    next
  }

  # Function-pointer typedefs, to their ';'.
  if (tdecl == "" && !experimental && line ~ /^[ \t]*typedef[^;{]*\(\*/) tdecl = " "
  if (tdecl != "") {
    tdecl = tdecl " " line
    if (index(line, ";") > 0) {
      stmt = tdecl
      sub(/;.*/, "", stmt)
      emit_callback(field_name(stmt), stmt)
      tdecl = ""
    }
    next
  }

  # Functions: from CASEFILE_API to the ';' that ends the declaration.
  if (decl == "" && line ~ /CASEFILE_API/) decl = " "
  if (decl != "") {
    decl = decl " " line
    if (index(line, ";") > 0) {
      emit_function(decl)
      decl = ""
    }
  }
}
