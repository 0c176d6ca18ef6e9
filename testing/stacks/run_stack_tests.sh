#!/usr/bin/env bash
# Runs toporr's tests on a second software stack: inside the Debian root of STACK
# (stack_root.sh; created on first use, reused after), toporr is built by that root's own
# Bazel, compilers and libraries, and the test targets listed in testing/stacks/STACK.tests
# run there against that root's MPI libraries and Slurm.
#
#   run_stack_tests.sh STACK [BAZEL TEST ARGS...]
#
# Prints the in-root `bazel test` output and a last line "stack STACK: N passed, N failed".
# Where the root cannot be made here (not root, no debootstrap) it prints "SKIPPED: <why>"
# and exits 0. The root's Bazel output lives inside the root (/root/.cache/bazel), so a
# second run on the same machine rebuilds only what changed. Exit status: 0 every test
# passed (or skipped), 1 otherwise.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
STACK=${1:?usage: run_stack_tests.sh STACK [BAZEL TEST ARGS...]}
shift
LIST="$HERE/$STACK.tests"
[[ -f $LIST ]] || { echo "run_stack_tests: no test list $LIST" >&2; exit 1; }
mapfile -t TARGETS < <(sed 's/#.*//' "$LIST" | tr -s ' \t' '\n\n' | sed '/^$/d')

start=$SECONDS
err=$(mktemp)
trap 'rm -f "$err"' EXIT
"$HERE/stack_root.sh" ensure "$STACK" >/dev/null 2> >(tee "$err" >&2)
rc=$?
wait
if ((rc == 3)); then
  echo "SKIPPED: the $STACK root cannot be made here: $(sed -n 's/.*cannot run here: //p' "$err")"
  exit 0
elif ((rc != 0)); then
  exit 1
fi
echo "run_stack_tests: the $STACK root is ready ($((SECONDS - start)) s); building and testing in it"

LOG=$(mktemp /tmp/toporr-stack-"$STACK".XXXXXX.log)
"$HERE/stack_root.sh" run "$STACK" -- /bin/bash -c '
  cd /toporr &&
  exec bazel test --symlink_prefix=/ --test_env=TOPORR_SHARED_DIR="${TOPORR_SHARED_DIR:-}" \
    --test_output=errors "$@"' bash "${TARGETS[@]}" "$@" 2>&1 | tee "$LOG"
rc=${PIPESTATUS[0]}
passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$LOG")
failed=$(grep -cE '^//[^ ]+ +(FAILED|TIMEOUT|NO STATUS|FAILED TO BUILD|INCOMPLETE)' "$LOG")
# A test that could not run inside the root passed by saying SKIPPED: name it, and do not
# count it as passed.
root=$("$HERE/stack_root.sh" path "$STACK")
skipped=0
for target in "${TARGETS[@]}"; do
  rel=${target#//}
  for log in "$root"/root/.cache/bazel/_bazel_root/*/execroot/toporr/bazel-out/*/testlogs/"${rel/://}"/test.log; do
    [[ -f $log ]] || continue
    if line=$(grep -m1 '^SKIPPED:' "$log"); then
      echo "stack $STACK: $target $line"
      skipped=$((skipped + 1))
    fi
    # Cases a passing target skipped (unittest's "... skipped 'why'"): named, not hidden.
    sed -n "s/^\([a-z_0-9]*\) .*\.\.\. skipped \(.*\)/\1: \2/p" "$log" |
      while read -r case; do echo "stack $STACK: $target skipped a case: $case"; done
  done
done

# From outside: the machine's own vcluster tool runs a cluster whose hosts and head node live
# in the root (--root): each host sees the root's release, and a job of the root's Open MPI
# and MPICH spans two hosts.
root_cluster() {
  local vc="$HERE/../vcluster/vcluster.py" name="stk$$" out
  out=$(cd /tmp && timeout 300 python3 "$vc" run --name "$name" --hosts 2 --hosts-per-leaf 1 \
    --no-fabric --root "$root" -- /bin/sh -c "
      python3 '$vc' exec --name $name node02 -- /bin/sh -c '. /etc/os-release; echo RELEASE \$VERSION_CODENAME' &&
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 HOME=/root \
        python3 '$vc' mpirun --name $name openmpi -np 2 --host node01,node02 hostname &&
      python3 '$vc' mpirun --name $name mpich -np 2 -hosts node01,node02 hostname" 2>&1)
  local codename
  codename=$(sed -n '1s/^suite[[:space:]]*=[[:space:]]*//p' "$HERE/$STACK.packages")
  if grep -qx "RELEASE $codename" <<<"$out" && (($(grep -cx 'node0[12]' <<<"$out") == 4)); then
    echo "stack $STACK: vcluster --root (hosts on the root's files, jobs of both MPIs) PASSED"
    return 0
  fi
  echo "stack $STACK: vcluster --root FAILED:"
  echo "$out"
  return 1
}
if root_cluster; then passed=$((passed + 1)); else failed=$((failed + 1)); fi

echo "stack $STACK: $((passed - skipped)) passed, $failed failed, $skipped skipped" \
  "($((SECONDS - start)) s; log $LOG)"
((rc == 0 && failed == 0 && passed > 0))
