#include "row_convert.h"

namespace casefile::capi {

bool RowToC::operator()(const QueryRow& row) {
  if (callback_ == nullptr) return true;
  if (row.columns != columns_) {
    columns_ = row.columns;
    names_.clear();
    if (columns_ != nullptr) {
      for (const auto& c : *columns_) names_.push_back(c.c_str());
    }
  }
  values_.clear();
  for (const auto& v : row.values) values_.push_back(v ? v->c_str() : nullptr);
  // A callback indexes names by the value count, so never hand it fewer.
  names_.resize(values_.size(), "");
  if (callback_(values_.size(), names_.data(), values_.data(), payload_) != 0) {
    aborted_ = true;
    return false;
  }
  return true;
}

}  // namespace casefile::capi
