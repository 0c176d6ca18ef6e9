// The TOPORR_COSTS source: rows out of a TOPORRC1 file (cost_file.h), reading the header and
// one row only, so a leader needs O(n) memory whatever the file's size.
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "client/costs/cost_file.h"
#include "client/costs/row_source.h"
#include "common/status_macros.h"

namespace toporr::client {
namespace {

class FileRowSource final : public RowSource {
 public:
  explicit FileRowSource(std::string path) : path_(std::move(path)) {}

  std::string_view kind() const override { return "file"; }

  absl::StatusOr<HostListTicket> Prepare(const std::vector<std::string>& hosts) override {
    ASSIGN_OR_RETURN(CostFileHeader file, ReadCostFileHeader(path_));
    RETURN_IF_ERROR(Columns(file, hosts).status());
    return HostListTicket{file.snapshot_id, ""};
  }

  absl::StatusOr<CostRow> Row(const HostListTicket&, const std::vector<std::string>& hosts,
                              int host_index, bool with_routes) override {
    ASSIGN_OR_RETURN(CostFileHeader file, ReadCostFileHeader(path_));
    ASSIGN_OR_RETURN(std::vector<int> columns, Columns(file, hosts));
    std::vector<float> gbps, latency;
    RETURN_IF_ERROR(ReadCostFileRow(path_, file, columns[host_index], &gbps, &latency));
    const size_t n = hosts.size();
    CostRow out;
    out.snapshot_id = file.snapshot_id;
    out.values.resize(2 * n);
    for (size_t j = 0; j < n; ++j) {
      out.values[j] = latency[columns[j]];
      out.values[n + j] = gbps[columns[j]];
    }
    if (with_routes && file.routes_offset != 0) {
      RETURN_IF_ERROR(ReadCostFileRouteRow(path_, file, columns[host_index], columns, &out.routes));
    }
    return out;
  }

 private:
  // File index of each job host; kNotFound naming the first host the file lacks.
  absl::StatusOr<std::vector<int>> Columns(const CostFileHeader& file,
                                           const std::vector<std::string>& hosts) const {
    std::unordered_map<std::string, int> index;
    for (size_t i = 0; i < file.hosts.size(); ++i) index[file.hosts[i]] = static_cast<int>(i);
    std::vector<int> columns;
    columns.reserve(hosts.size());
    for (const std::string& h : hosts) {
      auto it = index.find(h);
      if (it == index.end()) {
        return absl::NotFoundError(
            absl::StrCat(path_, ": host ", h, " of the job is not in the cost file (",
                         file.hosts.size(), " hosts, snapshot ", file.snapshot_id, ")"));
      }
      columns.push_back(it->second);
    }
    return columns;
  }

  std::string path_;
};

}  // namespace

std::unique_ptr<RowSource> NewFileRowSource(std::string path) {
  return std::make_unique<FileRowSource>(std::move(path));
}

}  // namespace toporr::client
