#include "collect/size_budget.h"

#include <algorithm>

namespace casefile::collect {
namespace {

// The largest cap C with sum(min(size_i, C)) <= budget, over `sizes`; the
// largest size when they all fit.
uint64_t WaterLevel(std::vector<uint64_t> sizes, uint64_t budget) {
  std::sort(sizes.begin(), sizes.end());
  uint64_t below = 0;  // the sizes under the level, kept whole
  for (size_t i = 0; i < sizes.size(); ++i) {
    uint64_t rest = sizes.size() - i;
    if (sizes[i] <= (budget - below) / rest) {
      below += sizes[i];
      continue;
    }
    return (budget - below) / rest;
  }
  return sizes.empty() ? 0 : sizes.back();
}

}  // namespace

std::vector<uint64_t> PlanBudget(const std::vector<BudgetItem>& items, uint64_t max_bytes) {
  std::vector<uint64_t> keep(items.size());
  std::vector<uint64_t> sizes;
  uint64_t total = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    keep[i] = items[i].size;
    total += items[i].size;
    sizes.push_back(items[i].size);
  }
  if (total <= max_bytes) return keep;

  const uint64_t first = WaterLevel(sizes, max_bytes);
  sizes.clear();
  for (size_t i = 0; i < items.size(); ++i) {
    if (!items[i].tailable && items[i].size > first) {
      keep[i] = 0;
    } else {
      sizes.push_back(items[i].size);
    }
  }
  const uint64_t level = WaterLevel(sizes, max_bytes);
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].tailable) keep[i] = std::min(items[i].size, level);
  }
  return keep;
}

}  // namespace casefile::collect
