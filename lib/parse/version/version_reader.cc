#include "parse/version/version_reader.h"

namespace casefile::version {

void FactOut::Emit(int64_t line_no, std::string_view component, std::string_view version,
                   std::string_view detail, const char* source) const {
  VersionFact f;
  f.component = std::string(component);
  f.version = std::string(version);
  f.detail = std::string(detail);
  f.line_no = line_no;
  f.source = source;
  sink_(f);
}

bool HeldFact::Hold(int64_t line, std::string_view c, std::string_view v, std::string_view d) {
  set = false;
  if (c.size() > kMaxHeldText || v.size() > kMaxHeldText || d.size() > kMaxHeldText) return false;
  line_no = line;
  component.assign(c);
  version.assign(v);
  detail.assign(d);
  set = true;
  return true;
}

void HeldFact::Emit(const FactOut& out, const char* source) {
  if (!set) return;
  set = false;
  out.Emit(line_no, component, version, detail, source);
}

}  // namespace casefile::version
