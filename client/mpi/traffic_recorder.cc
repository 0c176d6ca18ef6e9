#include "client/mpi/traffic_recorder.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <numeric>
#include <type_traits>
#include <utility>

#include "client/config/client_options.h"
#include "client/mpi/pmpi_abi.h"
#include "client/mpi/profile_file.h"

extern "C" {
struct toporr_profile_state toporr_profile = {};
}

namespace toporr::client::mpi {
namespace {

static_assert(TOPORR_PROFILE_NUM_COLLECTIVES == kNumProfiledCollectives,
              "pmpi_abi.h and traffic_profile.h number the collectives alike");
static_assert(offsetof(PeerTraffic, bytes) == 0 && offsetof(PeerTraffic, messages) == 8 &&
                  std::is_same_v<decltype(PeerTraffic::bytes), uint64_t>,
              "toporr_profile.recent[].counters points at {bytes, messages}");

// Whether the CPU's time-stamp counter runs at one rate on every core and in every power
// state (CPUID leaf 0x80000007, EDX bit 8), so that it can time the profile's calls.
bool InvariantTsc() {
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx) != 0 && (edx & (1u << 8)) != 0;
#else
  return false;
#endif
}

void ClearRecent() {
  for (auto& r : toporr_profile.recent) {
    r.dest = -1;
    r.counters = nullptr;
  }
}

TrafficRecorder* recorder = nullptr;  // set once, by toporr_profile_begin
bool begun = false;                   // toporr_profile_begin or _init_unseen ran

// A mutex held only when `on` (MPI_THREAD_MULTIPLE).
class MaybeLock {
 public:
  MaybeLock(std::mutex& mu, bool on) : mu_(on ? &mu : nullptr) {
    if (mu_ != nullptr) mu_->lock();
  }
  ~MaybeLock() {
    if (mu_ != nullptr) mu_->unlock();
  }
  MaybeLock(const MaybeLock&) = delete;
  MaybeLock& operator=(const MaybeLock&) = delete;

 private:
  std::mutex* mu_;
};

// count elements of `type` in bytes; 0 for no data or a type MPI cannot size.
uint64_t Bytes(long long count, MPI_Datatype type) {
  if (count <= 0 || type == MPI_DATATYPE_NULL) return 0;
  int size = 0;
  if (PMPI_Type_size(type, &size) == MPI_SUCCESS && size >= 0) {
    return static_cast<uint64_t>(count) * static_cast<uint64_t>(size);
  }
  MPI_Count large = 0;  // a type of more than INT_MAX bytes
  if (PMPI_Type_size_x(type, &large) == MPI_SUCCESS && large > 0) {
    return static_cast<uint64_t>(count) * static_cast<uint64_t>(large);
  }
  return 0;
}

int DeleteCommTranslation(MPI_Comm, int, void* value, void* extra) {
  static_cast<TrafficRecorder*>(extra)->Forget(static_cast<TrafficRecorder::Translation*>(value));
  return MPI_SUCCESS;
}

int DeleteWinTranslation(MPI_Win, int, void* value, void* extra) {
  static_cast<TrafficRecorder*>(extra)->Forget(static_cast<TrafficRecorder::Translation*>(value));
  return MPI_SUCCESS;
}

void Warn(const std::string& path, const std::string& why) {
  std::fprintf(stderr, "toporr: warning: traffic profile not written: %s: %s\n", path.c_str(),
               why.c_str());
}

constexpr int kGoTag = 1;
constexpr int kRowTag = 2;
constexpr int kRowsInFlight = 16;  // rows rank 0 has asked for and not yet written

}  // namespace

template <typename Handle>
int TrafficRecorder::RecentHandles<Handle>::Slot(Handle h) {
  if constexpr (std::is_pointer_v<Handle>) {  // Open MPI: objects of a few hundred bytes
    return static_cast<int>((reinterpret_cast<uintptr_t>(h) >> 6) % kSlots);
  } else {  // MPICH: integers whose low bits index the object
    return static_cast<int>(static_cast<unsigned>(h) % kSlots);
  }
}

template <typename Handle>
TrafficRecorder::Translation* TrafficRecorder::RecentHandles<Handle>::Find(Handle h) const {
  const int s = Slot(h);
  return handle[s] == h ? translation[s] : nullptr;
}

TrafficRecorder::TrafficRecorder(std::string path, int world_rank, int world_size, bool threads)
    : path_(std::move(path)),
      world_rank_(world_rank),
      world_size_(world_size),
      threads_(threads),
      start_ns_(toporr_profile_monotonic_ns()),
      start_ticks_(toporr_profile_clock()) {
  for (int s = 0; s < RecentHandles<MPI_Comm>::kSlots; ++s) comms_.handle[s] = MPI_COMM_NULL;
  for (int s = 0; s < RecentHandles<MPI_Win>::kSlots; ++s) wins_.handle[s] = MPI_WIN_NULL;
}

TrafficRecorder* TrafficRecorder::Start(const std::string& path) {
  if (path.empty()) return nullptr;
  int rank = 0, size = 1, provided = MPI_THREAD_SINGLE;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  PMPI_Query_thread(&provided);
  auto* r = new TrafficRecorder(path, rank, size, provided == MPI_THREAD_MULTIPLE);
  if (PMPI_Comm_group(MPI_COMM_WORLD, &r->world_group_) != MPI_SUCCESS ||
      PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, DeleteCommTranslation, &r->comm_keyval_, r) !=
          MPI_SUCCESS ||
      PMPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, DeleteWinTranslation, &r->win_keyval_, r) !=
          MPI_SUCCESS) {
    if (rank == 0) Warn(path, "MPI refused the profile's group or attribute keys");
    return nullptr;  // r is leaked on purpose: a keyval may already point at it
  }
  if (rank == 0) {
    std::vector<int> world(size);
    std::iota(world.begin(), world.end(), 0);
    r->world_collectives_ = r->counters_.Collectives(world, {});
  }
  return r;
}

std::vector<int> TrafficRecorder::ToWorld(MPI_Group group) const {
  int n = 0;
  PMPI_Group_size(group, &n);
  std::vector<int> ranks(n), world(n, -1);
  std::iota(ranks.begin(), ranks.end(), 0);
  if (n > 0 && PMPI_Group_translate_ranks(group, n, ranks.data(), world_group_, world.data()) !=
                   MPI_SUCCESS) {
    std::fill(world.begin(), world.end(), -1);
  }
  for (int& w : world) {
    if (w < 0 || w >= world_size_) w = -1;  // MPI_UNDEFINED: outside MPI_COMM_WORLD
  }
  return world;
}

int TrafficRecorder::WorldRank(const Translation& t, int rank) const {
  if (rank >= t.peers) return -1;
  return t.world.empty() ? rank : t.world[rank];
}

TrafficRecorder::Translation* TrafficRecorder::NewCommTranslation(MPI_Comm comm) {
  auto t = std::make_unique<Translation>();
  int inter = 0, rank = -1;
  PMPI_Comm_test_inter(comm, &inter);
  PMPI_Comm_rank(comm, &rank);
  t->inter = inter != 0;
  MPI_Group local = MPI_GROUP_NULL, remote = MPI_GROUP_NULL;
  PMPI_Comm_group(comm, &local);
  if (t->inter) PMPI_Comm_remote_group(comm, &remote);
  t->world = ToWorld(t->inter ? remote : local);
  t->peers = static_cast<int>(t->world.size());
  if (rank == 0) {
    std::vector<int> members = t->inter ? ToWorld(local) : t->world;
    std::vector<int> peers = t->inter ? t->world : std::vector<int>();
    auto outside = [](const std::vector<int>& v) {
      return std::find(v.begin(), v.end(), -1) != v.end();
    };
    if (!outside(members) && !outside(peers)) {  // processes of other jobs: not in the file
      MaybeLock lock(mu_, threads_);
      t->collectives = counters_.Collectives(members, peers);
    }
  }
  if (!t->inter && t->peers == world_size_) {
    bool identity = true;
    for (int i = 0; i < t->peers && identity; ++i) identity = t->world[i] == i;
    if (identity) t->world.clear();
  }
  PMPI_Group_free(&local);
  if (remote != MPI_GROUP_NULL) PMPI_Group_free(&remote);
  if (PMPI_Comm_set_attr(comm, comm_keyval_, t.get()) != MPI_SUCCESS) return nullptr;
  return t.release();
}

TrafficRecorder::Translation* TrafficRecorder::NewWinTranslation(MPI_Win win) {
  auto t = std::make_unique<Translation>();
  MPI_Group group = MPI_GROUP_NULL;
  if (PMPI_Win_get_group(win, &group) != MPI_SUCCESS) return nullptr;
  t->world = ToWorld(group);
  t->peers = static_cast<int>(t->world.size());
  PMPI_Group_free(&group);
  if (PMPI_Win_set_attr(win, win_keyval_, t.get()) != MPI_SUCCESS) return nullptr;
  return t.release();
}

template <typename Handle, typename GetAttr, typename Create>
TrafficRecorder::Translation* TrafficRecorder::CachedTranslation(Handle h,
                                                                 RecentHandles<Handle>* recent,
                                                                 GetAttr get_attr, Create create) {
  {
    MaybeLock lock(mu_, threads_);
    if (Translation* t = recent->Find(h)) return t;
  }
  Translation* t = nullptr;
  {
    MaybeLock setup(setup_mu_, threads_);
    void* value = nullptr;
    int found = 0;
    if (get_attr(h, &value, &found) != MPI_SUCCESS) return nullptr;
    t = found ? static_cast<Translation*>(value) : create(h);
  }
  if (t == nullptr) return nullptr;
  MaybeLock lock(mu_, threads_);
  const int s = recent->Slot(h);
  recent->handle[s] = h;
  recent->translation[s] = t;
  return t;
}

TrafficRecorder::Translation* TrafficRecorder::CommTranslation(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return nullptr;
  return CachedTranslation(
      comm, &comms_,
      [&](MPI_Comm c, void* value, int* found) {
        return PMPI_Comm_get_attr(c, comm_keyval_, value, found);
      },
      [&](MPI_Comm c) { return NewCommTranslation(c); });
}

TrafficRecorder::Translation* TrafficRecorder::WinTranslation(MPI_Win win) {
  if (win == MPI_WIN_NULL) return nullptr;
  return CachedTranslation(
      win, &wins_,
      [&](MPI_Win w, void* value, int* found) {
        return PMPI_Win_get_attr(w, win_keyval_, value, found);
      },
      [&](MPI_Win w) { return NewWinTranslation(w); });
}

void TrafficRecorder::Forget(const Translation* t) {
  {
    MaybeLock lock(mu_, threads_);
    if (t == inline_translation_) {  // its handle may name another communicator from now on
      toporr_profile.comm = MPI_COMM_NULL;
      toporr_profile.world = nullptr;
      toporr_profile.comm_size = 0;
      inline_translation_ = nullptr;
    }
    for (Translation*& slot : comms_.translation) {
      if (slot == t) slot = nullptr;
    }
    for (Translation*& slot : wins_.translation) {
      if (slot == t) slot = nullptr;
    }
  }
  delete t;
}

uint64_t TrafficRecorder::MessageBytes(int count, MPI_Datatype type) {
  if (threads_) return Bytes(count, type);
  if (type != toporr_profile.type || type == MPI_DATATYPE_NULL) {
    toporr_profile.type_size = Bytes(1, type);
    toporr_profile.type = type;
  }
  return count > 0 ? static_cast<uint64_t>(count) * toporr_profile.type_size : 0;
}

void TrafficRecorder::TypeFree(MPI_Datatype type) {
  if (!threads_ && type == toporr_profile.type) {
    toporr_profile.type = MPI_DATATYPE_NULL;
    toporr_profile.type_size = 0;
  }
}

void TrafficRecorder::CountMessageLocked(int world, uint64_t bytes) {
  PeerTraffic* t;
  auto& recent = toporr_profile.recent[world % TOPORR_PROFILE_RECENT];
  if (!threads_ && recent.dest == world) {
    t = reinterpret_cast<PeerTraffic*>(recent.counters);
  } else {
    bool added;
    t = counters_.Peer(world, &added);
    if (!threads_) {
      if (added) ClearRecent();  // the map may have moved its entries
      recent.dest = world;
      recent.counters = &t->bytes;
    }
  }
  t->bytes += bytes;
  ++t->messages;
}

void TrafficRecorder::Send(int dest, int count, MPI_Datatype type, MPI_Comm comm) {
  if (dest < 0) return;  // MPI_PROC_NULL
  int world = dest;
  if (comm != MPI_COMM_WORLD) {
    const Translation* t = CommTranslation(comm);
    if (t == nullptr || (world = WorldRank(*t, dest)) < 0) return;
    if (!threads_ && t != inline_translation_) {  // the interceptors' next sends on it
      inline_translation_ = t;
      toporr_profile.comm = comm;
      toporr_profile.world = t->world.empty() ? nullptr : t->world.data();
      toporr_profile.comm_size = t->peers;
    }
  } else if (dest >= world_size_) {
    return;
  }
  const uint64_t bytes = MessageBytes(count, type);
  MaybeLock lock(mu_, threads_);
  CountMessageLocked(world, bytes);
}

void TrafficRecorder::SendInit(int dest, int count, MPI_Datatype type, MPI_Comm comm,
                               MPI_Request request) {
  if (dest < 0) return;
  int world = dest;
  if (comm != MPI_COMM_WORLD) {
    const Translation* t = CommTranslation(comm);
    if (t == nullptr || (world = WorldRank(*t, dest)) < 0) return;
  } else if (dest >= world_size_) {
    return;
  }
  const uint64_t bytes = MessageBytes(count, type);
  MaybeLock lock(mu_, threads_);
  persistent_[request] = {world, bytes};
}

void TrafficRecorder::StartRequests(int count, const MPI_Request requests[]) {
  MaybeLock lock(mu_, threads_);
  if (persistent_.empty()) return;
  for (int i = 0; i < count; ++i) {
    auto it = persistent_.find(requests[i]);
    if (it != persistent_.end()) CountMessageLocked(it->second.world_dest, it->second.bytes);
  }
}

void TrafficRecorder::RequestFree(MPI_Request request) {
  MaybeLock lock(mu_, threads_);
  if (!persistent_.empty()) persistent_.erase(request);
}

void TrafficRecorder::Rma(MPI_Win win, int target, uint64_t bytes_to_target,
                          uint64_t bytes_from_target) {
  if (target < 0) return;
  const Translation* t = WinTranslation(win);
  int world;
  if (t == nullptr || (world = WorldRank(*t, target)) < 0) return;
  MaybeLock lock(mu_, threads_);
  counters_.AddRma(world, bytes_to_target, bytes_from_target);
}

void TrafficRecorder::AddCollective(int collective, MPI_Comm comm, int root,
                                    absl::FunctionRef<uint64_t(bool, int)> bytes) {
  if (collective < 0 || collective >= kNumProfiledCollectives) return;
  CollectiveTraffic* c = nullptr;
  bool is_root = false;
  int peers = 0;
  if (comm == MPI_COMM_WORLD) {
    c = world_collectives_;
    is_root = root == 0;
    peers = world_size_;
  } else if (const Translation* t = CommTranslation(comm)) {
    c = t->collectives;
    is_root = t->inter ? root == MPI_ROOT : root == 0;
    peers = t->peers;
  }
  if (c == nullptr) return;  // another process records this communicator's collectives
  const uint64_t b = bytes(is_root, peers);
  MaybeLock lock(mu_, threads_);
  ++c[collective].calls;
  c[collective].bytes += b;
}

void TrafficRecorder::Finish() {
  if (finished_) return;
  finished_ = true;
  toporr_profile.enabled = 0;
  toporr_profile.inline_sends = 0;
  std::vector<uint64_t> row;
  {
    MaybeLock lock(mu_, threads_);
    if (toporr_profile.timing) {
      const uint64_t wall_ns = toporr_profile_monotonic_ns() - start_ns_;
      const uint64_t ticks = toporr_profile_clock() - start_ticks_;
      const double ns_per_tick = toporr_profile.tsc && ticks > 0 ? double(wall_ns) / ticks : 1.0;
      const uint64_t mpi_ticks = __atomic_load_n(&toporr_profile.mpi_ticks, __ATOMIC_RELAXED);
      counters_.SetTime({wall_ns / 1000, static_cast<uint64_t>(mpi_ticks * ns_per_tick / 1000)});
    }
    row = counters_.Encode();
  }
  if (row.size() > static_cast<size_t>(INT_MAX)) row = {1};  // rank 0 reports it malformed
  MPI_Comm comm = MPI_COMM_NULL;
  if (PMPI_Comm_dup(MPI_COMM_WORLD, &comm) != MPI_SUCCESS) {
    if (world_rank_ == 0) Warn(path_, "MPI_Comm_dup of MPI_COMM_WORLD failed");
    return;
  }
  PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  ProfileFile file(path_);
  int open = world_rank_ == 0 && file.Open(world_size_);
  PMPI_Bcast(&open, 1, MPI_INT, 0, comm);
  if (open && world_rank_ == 0) {
    file.AddRow(row, 0, world_size_);
    for (int r = 1; r < std::min(world_size_, 1 + kRowsInFlight); ++r) {
      PMPI_Send(nullptr, 0, MPI_BYTE, r, kGoTag, comm);
    }
    std::vector<uint64_t> other;
    for (int r = 1; r < world_size_; ++r) {
      MPI_Status status;
      int words = 0;
      if (PMPI_Probe(r, kRowTag, comm, &status) != MPI_SUCCESS ||
          PMPI_Get_count(&status, MPI_UINT64_T, &words) != MPI_SUCCESS || words < 0) {
        words = 0;
      }
      other.resize(words);
      const int rc =
          PMPI_Recv(other.data(), words, MPI_UINT64_T, r, kRowTag, comm, MPI_STATUS_IGNORE);
      if (r + kRowsInFlight < world_size_) {
        PMPI_Send(nullptr, 0, MPI_BYTE, r + kRowsInFlight, kGoTag, comm);
      }
      if (rc != MPI_SUCCESS) other = {1};  // reported malformed
      file.AddRow(other, r, world_size_);
    }
  } else if (open) {
    PMPI_Recv(nullptr, 0, MPI_BYTE, 0, kGoTag, comm, MPI_STATUS_IGNORE);
    PMPI_Send(row.data(), static_cast<int>(row.size()), MPI_UINT64_T, 0, kRowTag, comm);
  }
  if (world_rank_ == 0) {
    const std::string why = open ? file.Close() : file.error();
    if (!why.empty()) Warn(path_, why);
  }
  PMPI_Comm_free(&comm);
}

}  // namespace toporr::client::mpi

using toporr::client::mpi::begun;
using toporr::client::mpi::Bytes;
using toporr::client::mpi::recorder;
using toporr::client::mpi::TrafficRecorder;

extern "C" {

void toporr_profile_begin(void) {
  if (begun) return;
  begun = true;
  toporr::client::mpi::ClearRecent();
  toporr_profile.type = MPI_DATATYPE_NULL;
  toporr_profile.comm = MPI_COMM_NULL;
  toporr_profile.world = nullptr;
  toporr_profile.comm_size = 0;
  toporr_profile.mpi_ticks = 0;
  toporr_profile.tsc = toporr::client::mpi::InvariantTsc();
  toporr_profile.timing = 0;
  recorder = TrafficRecorder::Start(toporr::client::ProcessClientOptions().options.profile_path);
  toporr_profile.inline_sends = recorder != nullptr && !recorder->threads();
  toporr_profile.timing =
      recorder != nullptr && toporr::client::ProcessClientOptions().options.profile_time;
  toporr_profile.enabled = recorder != nullptr;
}

void toporr_profile_init_unseen(void) {
  if (begun) return;
  begun = true;
  const std::string& path = toporr::client::ProcessClientOptions().options.profile_path;
  int rank = -1;
  if (path.empty() || PMPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS || rank != 0) return;
  toporr::client::mpi::Warn(path,
                            "the program's MPI_Init did not reach the PMPI layer (Open MPI's "
                            "Fortran bindings call PMPI_Init directly): nothing is recorded");
}

void toporr_profile_send(int dest, int count, MPI_Datatype datatype, MPI_Comm comm) {
  if (recorder != nullptr) recorder->Send(dest, count, datatype, comm);
}

void toporr_profile_send_init(int dest, int count, MPI_Datatype datatype, MPI_Comm comm,
                              MPI_Request request) {
  if (recorder != nullptr) recorder->SendInit(dest, count, datatype, comm, request);
}

void toporr_profile_start(int count, const MPI_Request requests[]) {
  if (recorder != nullptr) recorder->StartRequests(count, requests);
}

void toporr_profile_request_free(MPI_Request request) {
  if (recorder != nullptr) recorder->RequestFree(request);
}

void toporr_profile_type_free(MPI_Datatype datatype) {
  if (recorder != nullptr) recorder->TypeFree(datatype);
}

void toporr_profile_rma(MPI_Win win, int target, int to_count, MPI_Datatype to_type, int from_count,
                        MPI_Datatype from_type) {
  if (recorder != nullptr) {
    recorder->Rma(win, target, Bytes(to_count, to_type), Bytes(from_count, from_type));
  }
}

void toporr_profile_collective(int collective, MPI_Comm comm, long long count,
                               MPI_Datatype datatype) {
  if (recorder == nullptr) return;
  recorder->AddCollective(collective, comm, TOPORR_PROFILE_NO_ROOT,
                          [&](bool, int) { return Bytes(count, datatype); });
}

void toporr_profile_collective_sized(int collective, MPI_Comm comm, int root,
                                     toporr_profile_bytes_fn bytes, const void* call) {
  if (recorder == nullptr) return;
  recorder->AddCollective(collective, comm, root, [&](bool is_root, int peers) {
    const long long b = bytes(call, is_root ? 1 : 0, peers);
    return b > 0 ? static_cast<uint64_t>(b) : uint64_t{0};
  });
}

void toporr_profile_finish(void) {
  if (recorder != nullptr) recorder->Finish();
}

}  // extern "C"
