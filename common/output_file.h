// Output files written without following links that someone else planted: every file toporr
// writes (libtoporr's report and traffic profile, toporrctl's plan and export outputs, the
// daemon's metrics textfile) goes through these, whoever runs the program (root included) and
// whatever fs.protected_symlinks says.
//
// Replacing a file (ReplacingFile, WriteFileReplacing): the content goes to a new temporary
// file created exclusively in the target's directory (mkstemp: "NAME.tmp.XXXXXX", never an
// existing file, link or FIFO), which is renamed onto the target when complete. Readers see
// the old or the new file whole; two writers of one target each rename a whole file of their
// own (the last wins); a link at the target is replaced, never followed.
//
// Appending (AppendToFile): the file is created exclusively when absent. An existing target
// is used when it is a regular file; a symbolic link is followed only where the kernel's
// protected_symlinks rule would follow it (the link is the caller's, or its directory is not
// sticky and world-writable, or the link's owner owns that directory); anything else (a link
// planted by another user in /tmp, a FIFO, a device, a directory) is refused with an error
// naming the path and the reason. Opening never blocks (O_NONBLOCK).
//
// Errors are absl::Status (kFailedPrecondition for a refused target, kUnavailable for an I/O
// failure) whose message names the path. Thread-compatible: one object per writer.
#ifndef TOPORR_COMMON_OUTPUT_FILE_H_
#define TOPORR_COMMON_OUTPUT_FILE_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace toporr {

class ReplacingFile {
 public:
  ReplacingFile() = default;
  ~ReplacingFile();  // abandons an uncommitted temporary file
  ReplacingFile(const ReplacingFile&) = delete;
  ReplacingFile& operator=(const ReplacingFile&) = delete;

  // Creates the temporary file for `path`.
  absl::Status Open(const std::string& path);
  // Appends to the temporary file; after the first failure every call returns it.
  absl::Status Write(std::string_view data);
  // Flushes, closes and renames the temporary file onto the target. On failure the
  // temporary file is removed and the target is left as it was.
  absl::Status Commit();
  // Removes the temporary file; the target is untouched.
  void Abandon();

  const std::string& temporary_path() const { return tmp_; }

 private:
  std::string path_, tmp_;
  int fd_ = -1;
  absl::Status status_;
};

// The whole of `content` as the new `path` (ReplacingFile in one call).
absl::Status WriteFileReplacing(const std::string& path, std::string_view content);

// Appends `data` in one write(2) to `path` under the rule above, creating it (mode 0644)
// when absent.
absl::Status AppendToFile(const std::string& path, std::string_view data);

}  // namespace toporr

#endif  // TOPORR_COMMON_OUTPUT_FILE_H_
