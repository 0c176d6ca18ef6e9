# Shared by the deploy/ scripts: repository paths and the Bazel invocation.
TOPORR_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# ../shared beside the repository holds the real fabric samples used by the tests.
: "${TOPORR_SHARED_DIR:=$(cd "$TOPORR_ROOT/.." && pwd)/shared}"
export TOPORR_SHARED_DIR
BAZEL=(bazel)

# Inside a root of testing/stacks the checkout is the machine's: no convenience symlinks from
# it into the root's output base.
LINKS=()
[[ -e /.toporr-stack ]] && LINKS=(--symlink_prefix=/)
toporr_build() {
  (cd "$TOPORR_ROOT" && "${BAZEL[@]}" build "${LINKS[@]}" "$@")
}

# Where built binaries are (the bazel-bin symlink can point elsewhere when several output
# bases share the workspace).
toporr_bazel_bin() {
  (cd "$TOPORR_ROOT" && "${BAZEL[@]}" info bazel-bin 2>/dev/null)
}
