#include "daemon/host_lists.h"

#include <openssl/evp.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/printable.h"
#include "common/status_macros.h"

namespace toporr::daemon {

std::string HostLists::Token(const Names& names) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
  for (const std::string& name : names) {
    unsigned char size[8];
    for (int i = 0; i < 8; ++i)
      size[i] = static_cast<unsigned char>(uint64_t{name.size()} >> 8 * i);
    EVP_DigestUpdate(ctx, size, sizeof(size));
    EVP_DigestUpdate(ctx, name.data(), name.size());
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_size = 0;
  EVP_DigestFinal_ex(ctx, digest, &digest_size);
  EVP_MD_CTX_free(ctx);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  for (int i = 0; i < 16; ++i) {
    token += kHex[digest[i] >> 4];
    token += kHex[digest[i] & 15];
  }
  return token;
}

std::shared_ptr<const ResolvedHostList> HostLists::Resolve(const std::vector<std::string>& names,
                                                           const Serving& s) {
  auto out = std::make_shared<ResolvedHostList>();
  out->snapshot_id = s.info.id;
  out->hosts.reserve(names.size());
  out->column_of.assign(s.fabric.hosts.size(), -1);
  size_t unknown = 0, first_unknown = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    const int h = s.fabric.FindHost(names[i]);
    out->hosts.push_back(h);
    if (h < 0) {
      if (unknown++ == 0) first_unknown = i;
      continue;
    }
    int32_t& column = out->column_of[h];
    if (column >= 0 && out->status.ok()) {
      out->status = absl::InvalidArgumentError(absl::StrCat(
          "host ", Quoted(names[i]), " is listed twice (columns ", column, " and ", i, ")"));
    }
    if (column < 0) column = static_cast<int32_t>(i);
  }
  if (unknown > 0) {
    out->status = absl::NotFoundError(absl::StrCat(
        "host ", Quoted(names[first_unknown]), " is not in snapshot ", s.info.id, " (", unknown,
        " of the ", names.size(), " hosts are unknown; see `toporrctl hosts`)"));
  }
  if (!out->status.ok()) {
    out->hosts = {};
    out->column_of = {};
  }
  return out;
}

absl::StatusOr<std::string> HostLists::Register(const Names& names, const Serving& s,
                                                const std::string& peer) {
  if (names.empty()) return absl::InvalidArgumentError("hosts must not be empty");
  auto entry = std::make_shared<Entry>();
  entry->names.assign(names.begin(), names.end());
  std::shared_ptr<const ResolvedHostList> list = Resolve(entry->names, s);
  if (!list->status.ok()) return list->status;
  entry->token = Token(names);
  const absl::Time now = Now();
  std::lock_guard<std::mutex> l(mu_);
  auto it = by_token_.find(entry->token);
  if (it != by_token_.end()) {
    Entry& held = **it->second;
    const bool owner = std::find(held.owners.begin(), held.owners.end(), peer) != held.owners.end();
    if (!owner) {
      RETURN_IF_ERROR(MakeRoomFor(peer, now));
      held.owners.push_back(peer);
      ++held_by_peer_[peer];
    }
    Touch(it->second, now);
    Store(held, std::move(list), nullptr);
    return entry->token;
  }
  RETURN_IF_ERROR(MakeRoomFor(peer, now));
  entry->list = std::move(list);
  entry->owners.push_back(peer);
  entry->last_used = now;
  ++held_by_peer_[peer];
  lru_.push_front(entry);
  by_token_.emplace(entry->token, lru_.begin());
  EnforceMaxLists(entry.get());
  return entry->token;
}

void HostLists::Touch(Lru::iterator it, absl::Time now) {
  lru_.splice(lru_.begin(), lru_, it);
  (*it)->last_used = now;
}

absl::Status HostLists::MakeRoomFor(const std::string& peer, absl::Time now) {
  auto held = held_by_peer_.find(peer);
  if (held == held_by_peer_.end() || held->second < options_.max_lists_per_peer) {
    return absl::OkStatus();
  }
  const size_t count = held->second;
  auto coldest = std::find_if(lru_.rbegin(), lru_.rend(), [&](const std::shared_ptr<Entry>& e) {
    return std::find(e->owners.begin(), e->owners.end(), peer) != e->owners.end();
  });
  if (coldest != lru_.rend() && now - (*coldest)->last_used >= options_.min_hold) {
    Disown(*coldest, peer);
    return absl::OkStatus();
  }
  ++refused_peer_quota_;
  return absl::ResourceExhaustedError(
      absl::StrCat(Printable(peer, 64), " already holds ", count,
                   " host lists (max_host_lists_per_peer = ", options_.max_lists_per_peer,
                   "), each used within the last ", absl::FormatDuration(options_.min_hold),
                   "; register again once one of them has been idle that long"));
}

void HostLists::Disown(std::shared_ptr<Entry> entry, const std::string& peer) {
  std::vector<std::string>& owners = entry->owners;
  owners.erase(std::remove(owners.begin(), owners.end(), peer), owners.end());
  auto held = held_by_peer_.find(peer);
  if (held != held_by_peer_.end() && --held->second == 0) held_by_peer_.erase(held);
  if (!owners.empty()) return;
  DropRows(*entry);
  entry->held = false;
  auto it = by_token_.find(entry->token);
  lru_.erase(it->second);
  by_token_.erase(it);
}

void HostLists::EnforceMaxLists(const Entry* keep) {
  while (by_token_.size() > options_.max_lists) {
    size_t most = 0;
    for (const auto& [peer, n] : held_by_peer_) most = std::max(most, n);
    // The least recently used list that one of the largest holders holds.
    std::shared_ptr<Entry> victim;
    std::string owner;
    for (auto it = lru_.rbegin(); it != lru_.rend() && victim == nullptr; ++it) {
      if (it->get() == keep) continue;
      for (const std::string& peer : (*it)->owners) {
        if (held_by_peer_.at(peer) == most) {
          victim = *it;
          owner = peer;
          break;
        }
      }
    }
    if (victim == nullptr) return;
    Disown(std::move(victim), owner);
  }
}

absl::StatusOr<HostLists::View> HostLists::Find(const std::string& token, const Serving& s,
                                                bool want_rows) {
  const auto fresh = [&](const View& v) {
    return v.list != nullptr && v.list->snapshot_id == s.info.id &&
           (!want_rows || !v.list->status.ok() ||
            (v.rows != nullptr && v.rows->snapshot_id == s.info.id));
  };
  const auto answer = [&](View v) -> absl::StatusOr<View> {
    if (!want_rows) v.rows = nullptr;
    if (v.list->status.ok()) return v;
    return absl::Status(v.list->status.code(),
                        absl::StrCat("host list ", token, ": ", v.list->status.message(),
                                     "; the fabric changed since it was registered"));
  };
  std::shared_ptr<Entry> entry;
  View v;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = by_token_.find(token);
    if (it == by_token_.end()) {
      return absl::FailedPreconditionError(absl::StrCat("unknown host list ", Printable(token, 64),
                                                        " (toporrd restarted? register it again)"));
    }
    Touch(it->second, Now());
    entry = *it->second;
    v = {entry->list, entry->rows};
    if (fresh(v)) return answer(std::move(v));
  }
  // Built once for everyone asking: whoever comes next finds it fresh.
  std::lock_guard<std::mutex> build(entry->build_mu);
  {
    std::lock_guard<std::mutex> l(mu_);
    v = {entry->list, entry->rows};
  }
  if (fresh(v)) return answer(std::move(v));
  if (v.list == nullptr || v.list->snapshot_id != s.info.id) v.list = Resolve(entry->names, s);
  if (want_rows && v.list->status.ok() && (v.rows == nullptr || v.rows->snapshot_id != s.info.id)) {
    auto rows = std::make_shared<CompactHostListRows>();
    rows->snapshot_id = s.info.id;
    rows->status = s.costs->MatrixCompactRows(v.list->hosts, &rows->rows);
    if (!rows->status.ok()) rows->rows = {};
    v.rows = std::move(rows);
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    Store(*entry, v.list, v.rows);
  }
  return answer(std::move(v));
}

void HostLists::Store(Entry& entry, std::shared_ptr<const ResolvedHostList> list,
                      std::shared_ptr<const CompactHostListRows> rows) {
  // A request still serving an older snapshot never replaces a newer one's.
  if (entry.list != nullptr && entry.list->snapshot_id > list->snapshot_id) return;
  if (rows != nullptr && rows != entry.rows) {
    DropRows(entry);
    entry.rows = std::move(rows);
    if (entry.held) row_bytes_ += entry.rows->rows.bytes();
  }
  entry.list = std::move(list);
  if (entry.rows != nullptr && entry.rows->snapshot_id != entry.list->snapshot_id) {
    DropRows(entry);
  }
  // Beyond the budget, the coldest lists' rows go (never those just built).
  for (auto it = lru_.rbegin(); row_bytes_ > options_.max_row_bytes && it != lru_.rend(); ++it) {
    if (it->get() != &entry) DropRows(**it);
  }
}

void HostLists::DropRows(Entry& entry) {
  if (entry.rows == nullptr) return;
  if (entry.held) row_bytes_ -= entry.rows->rows.bytes();
  entry.rows = nullptr;
}

size_t HostLists::size() const {
  std::lock_guard<std::mutex> l(mu_);
  return by_token_.size();
}

size_t HostLists::held_by(const std::string& peer) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = held_by_peer_.find(peer);
  return it == held_by_peer_.end() ? 0 : it->second;
}

int64_t HostLists::refused_peer_quota() const {
  std::lock_guard<std::mutex> l(mu_);
  return refused_peer_quota_;
}

}  // namespace toporr::daemon
