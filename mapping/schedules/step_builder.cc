#include "mapping/schedules/step_builder.h"

#include <cstddef>

namespace toporr::mapping::schedules_internal {

// COLL_BASE_COMPUTED_SEGCOUNT with SEGCOUNT starting at `count`.
int64_t SegmentCount(int64_t segment_bytes, int64_t type_size, int64_t count) {
  int64_t segcount = count;
  if (segment_bytes >= type_size && segment_bytes < type_size * count) {
    segcount = segment_bytes / type_size;
    const int64_t residual = segment_bytes - segcount * type_size;
    if (residual > (type_size >> 1)) ++segcount;
  }
  return segcount;
}

void Sink::Flush(int64_t repeat) {
  if (current_.transfers.empty()) return;
  current_.repeat = repeat;
  if (!explicit_totals_ && repeat > 1) {
    for (Transfer& t : current_.transfers) t.total_bytes = t.bytes * repeat;
  }
  explicit_totals_ = false;
  if (exact_) {
    visit_(current_);
    current_.transfers.clear();
    return;
  }
  if (has_pending_ && SameShape(pending_, current_)) {
    pending_.repeat += current_.repeat;
    for (size_t i = 0; i < pending_.transfers.size(); ++i)
      pending_.transfers[i].total_bytes += current_.transfers[i].total_bytes;
    current_.transfers.clear();
    return;
  }
  if (has_pending_) visit_(pending_);
  std::swap(pending_, current_);
  has_pending_ = true;
  current_.transfers.clear();
}

void Sink::Finish() {
  Flush();
  if (has_pending_) visit_(pending_);
  has_pending_ = false;
}

bool Sink::SameShape(const Step& a, const Step& b) {
  if (a.transfers.size() != b.transfers.size()) return false;
  for (size_t i = 0; i < a.transfers.size(); ++i) {
    const Transfer& x = a.transfers[i];
    const Transfer& y = b.transfers[i];
    if (x.src != y.src || x.dst != y.dst || x.bytes != y.bytes) return false;
  }
  return true;
}

}  // namespace toporr::mapping::schedules_internal
