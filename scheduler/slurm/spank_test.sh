#!/bin/bash
# spank_toporr.so loaded by Slurm's own SPANK loader in real daemons on this machine:
# slurmctld and a slurmd whose NodeName is this host (auth/none, cred/none, their own ports,
# state in a temporary directory, proctrack/linuxproc, task/none), with
# PlugStackConfig naming a plugstack.conf this test rewrites between jobs (srun and
# slurmstepd read it at each job). Checked:
#   - `srun --help` lists --toporr;
#   - --toporr=report=FILE, --toporr=off and --toporr alone set TOPORR_* and Open MPI's
#     OMPI_MCA_coll_toporr_* and OMPI_MCA_topo_toporr_* on every task (two tasks), and
#     sbatch --toporr in the batch script;
#   - where users type mpirun: the command salloc runs and a batch script of
#     sbatch --export=NONE get them too (salloc's report FILE keeps %j for libtoporr), and so
#     do that script's srun steps, where a step's own --toporr wins; a real Open MPI job
#     started by mpirun in salloc's command runs no toporr under off and reports to FILE
#     with %j expanded under report=FILE;
#   - the plugstack.conf default applies without --toporr and never replaces the user's own
#     variables (any of a setting's three names keeps it out); coll_priority=N sets
#     OMPI_MCA_coll_toporr_priority;
#   - a bad --toporr value and a bad plugstack.conf argument fail srun with toporr's message;
#   - `toporrctl plan --slurm-hostfile` makes a SLURM_HOSTFILE that srun
#     --distribution=arbitrary runs (one node here, so every line names this host).
# Every daemon the test starts is stopped on exit. Where slurmd cannot run, the test says
# SKIPPED and why, after checking what srun alone can (the option and its errors).
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"

RUNFILES="${TEST_SRCDIR:?}/${TEST_WORKSPACE:?}"
PLUGIN="$RUNFILES/scheduler/slurm/spank_toporr.so"
CTL="$RUNFILES/client/ctl/toporrctl"
FABRIC="$RUNFILES/deploy/demo/fattree-2l-16h.ibnet"
for tool in slurmctld slurmd srun scontrol; do
  command -v "$tool" >/dev/null || { echo "SKIPPED: $tool is not installed (deploy/install-deps.sh)"; exit 0; }
done
WORK="$(mktemp -d /tmp/toporr-spank.XXXXXX)"
chmod 755 "$WORK"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
  [[ -n "${KEEP_WORK:-}" ]] || rm -rf "$WORK"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  for log in "$WORK"/slurmctld.log "$WORK"/slurmd.log; do
    [[ -f $log ]] && { echo "--- $log"; tail -20 "$log"; }
  done
  exit 1
}

HOST="$(hostname -s)"
read -r CTLD_PORT SLURMD_PORT < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')
mkdir -p "$WORK/state" "$WORK/spool"
# The plugin by name, found in PluginDir as where the package installs it.
plugstack() { echo "optional spank_toporr.so $*" > "$WORK/plugstack.conf"; }
plugstack
cat > "$WORK/slurm.conf" <<CONF
ClusterName=toporrspank
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
SlurmctldLogFile=$WORK/slurmctld.log
SlurmdLogFile=$WORK/slurmd.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
SelectType=select/linear
MpiDefault=none
ReturnToService=2
PlugStackConfig=$WORK/plugstack.conf
PluginDir=/usr/lib/x86_64-linux-gnu/slurm-wlm:$(dirname "$PLUGIN")
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=all Nodes=ALL Default=YES MaxTime=5
CONF
export SLURM_CONF="$WORK/slurm.conf"
# The user's environment must not leak toporr settings into the checks.
unset $(env | sed -n 's/^\(TOPORR_[A-Z_]*\|OMPI_MCA_\(coll\|topo\)_toporr_[a-z_]*\)=.*/\1/p') 2>/dev/null || true

# --- srun alone: the option is listed and its values checked before any daemon ------------
srun --help > "$WORK/help" 2>&1 || true
grep -qF -- "--toporr=[auto|off|report=FILE]" "$WORK/help" ||
  { cat "$WORK/help"; fail "srun --help does not list --toporr"; }
grep -A3 -- "--toporr" "$WORK/help"
out=$(srun --toporr=sometimes true 2>&1) && fail "srun accepted --toporr=sometimes"
[[ $out == *"toporr: --toporr='sometimes': expected auto, off or report=FILE"* ]] ||
  fail "bad value: $out"
echo "$out" | head -3
out=$(srun --toporr=report=x%d true 2>&1) && fail "srun accepted report=x%d"
[[ $out == *"'%' is followed by j (the job id) or %"* ]] || fail "bad report file: $out"
out=$(srun --toporr= true 2>&1) && fail "srun accepted an empty --toporr="
[[ $out == *"an empty value"* ]] || fail "empty value: $out"
out=$(srun "--toporr=report=$(printf 'a\033b')" true 2>&1) && fail "srun accepted a control byte"
[[ $out == *"control character"* ]] || fail "control byte: $out"
out=$(srun "--toporr=report=/$(head -c 4100 /dev/zero | tr '\0' x)" true 2>&1) &&
  fail "srun accepted a 4,101-byte path"
[[ $out == *"more than 4096"* ]] || fail "long path: ${out:0:300}"
echo "ok   srun lists --toporr and refuses bad values with toporr's message"

# --- the daemons ------------------------------------------------------------------------
slurmctld -D -i -f "$SLURM_CONF" >>"$WORK/slurmctld.out" 2>&1 &
PIDS+=($!)
slurmd -D -f "$SLURM_CONF" >>"$WORK/slurmd.out" 2>&1 &
PIDS+=($!)
ready=""
for _ in $(seq 150); do
  state=$(sinfo -h -n "$HOST" -o %t 2>/dev/null || true)
  [[ $state == idle* ]] && { ready=1; break; }
  kill -0 "${PIDS[0]}" 2>/dev/null || fail "slurmctld exited"
  if ! kill -0 "${PIDS[1]}" 2>/dev/null; then
    echo "SKIPPED: slurmd cannot run here: $(tail -3 "$WORK/slurmd.log" "$WORK/slurmd.out" 2>/dev/null | tr '\n' ' ')"
    exit 0
  fi
  sleep 0.2
done
[[ -n $ready ]] || fail "node $HOST never became idle (state '$state')"
echo "ok   slurmctld and slurmd run; $HOST is idle"

# The toporr variables of each of two tasks, as "task: NAME=VALUE" lines sorted, with the
# job id in place of %JOB% (srun's stderr in $WORK/srun.err).
job_env() {
  srun -n 2 -l "$@" env 2>"$WORK/srun.err" > "$WORK/env" || { cat "$WORK/srun.err"; fail "srun $* failed"; }
  local job
  job=$(sed -n 's/^0: SLURM_JOB_ID=//p' "$WORK/env")
  sed -n 's/^\([0-9]*\): \(TOPORR_[A-Z_]*=.*\|OMPI_MCA_\(coll\|topo\)_toporr_[a-z_]*=.*\)$/\1: \2/p' "$WORK/env" |
    sed "s/-$job\./-%JOB%./g" | sort
}
expect_env() {  # expect_env WANT-LINES-OF-ONE-TASK SRUN-ARGS...
  local want="$1"
  shift
  diff <(for t in 0 1; do [[ -z $want ]] || sed "s/^/$t: /" <<<"$want"; done | sort) \
    <(job_env "$@") || fail "srun $*: the tasks' toporr variables differ (< wanted, > got)"
}

# --- --toporr on every task ---------------------------------------------------------------
expect_env "TOPORR_DISABLE=0
OMPI_MCA_coll_toporr_disable=0
OMPI_MCA_topo_toporr_disable=0
TOPORR_REPORT=$WORK/report-%JOB%.jsonl
OMPI_MCA_coll_toporr_report=$WORK/report-%JOB%.jsonl
OMPI_MCA_topo_toporr_report=$WORK/report-%JOB%.jsonl" --toporr=report=$WORK/report-%j.jsonl
cat "$WORK/env" | grep -E '^0: (TOPORR|OMPI_MCA_(coll|topo)_toporr|SLURM_JOB_ID)'
expect_env "TOPORR_DISABLE=1
OMPI_MCA_coll_toporr_disable=1
OMPI_MCA_topo_toporr_disable=1" --toporr=off
expect_env "TOPORR_DISABLE=0
OMPI_MCA_coll_toporr_disable=0
OMPI_MCA_topo_toporr_disable=0" --toporr
# The option wins over the user's environment.
TOPORR_DISABLE=1 expect_env "TOPORR_DISABLE=0
OMPI_MCA_coll_toporr_disable=0
OMPI_MCA_topo_toporr_disable=0" --toporr=auto
expect_env "" true  # no option, no default: the job is left alone
# sbatch takes the option too: the batch script's environment has it.
sbatch -W -Q --toporr=off -o "$WORK/batch.out" --wrap env >/dev/null || fail "sbatch --toporr=off"
grep -qx "TOPORR_DISABLE=1" "$WORK/batch.out" && grep -qx "OMPI_MCA_coll_toporr_disable=1" "$WORK/batch.out" &&
  grep -qx "OMPI_MCA_topo_toporr_disable=1" "$WORK/batch.out" ||
  { grep -E "TOPORR|toporr" "$WORK/batch.out"; fail "sbatch --toporr=off: the batch script lacks the variables"; }
echo "ok   --toporr=report=FILE, off and auto set TOPORR_* and OMPI_MCA_(coll|topo)_toporr_* on every task (srun, sbatch)"

# --- where users type mpirun: salloc's command and a batch script that exports nothing -----
# The toporr variables of `env` run by salloc or as a batch script (one per line, sorted).
toporr_vars() { grep -E '^(TOPORR_[A-Z_]*|OMPI_MCA_(coll|topo)_toporr_[a-z_]*)=' "$1" | sort; }
OFF="OMPI_MCA_coll_toporr_disable=1
OMPI_MCA_topo_toporr_disable=1
TOPORR_DISABLE=1"
salloc -Q --toporr=off env > "$WORK/salloc.env" 2>"$WORK/salloc.err" ||
  { cat "$WORK/salloc.err"; fail "salloc --toporr=off env"; }
diff <(echo "$OFF") <(toporr_vars "$WORK/salloc.env") ||
  fail "salloc --toporr=off: the command's toporr variables differ (< wanted, > got)"
# TOPORR_DISABLE=0 of the user's shell does not override an explicit --toporr=off.
TOPORR_DISABLE=0 salloc -Q --toporr=off env > "$WORK/salloc.env" 2>"$WORK/salloc.err" ||
  fail "salloc --toporr=off over TOPORR_DISABLE=0"
diff <(echo "$OFF") <(toporr_vars "$WORK/salloc.env") || fail "salloc: the option lost to the user's variable"
# The job has no id when salloc sets the report: FILE keeps %j for libtoporr (SLURM_JOB_ID).
salloc -Q "--toporr=report=$WORK/alloc-%j.jsonl" env > "$WORK/salloc.env" 2>"$WORK/salloc.err" ||
  fail "salloc --toporr=report=FILE"
grep -qx "TOPORR_REPORT=$WORK/alloc-%j.jsonl" "$WORK/salloc.env" &&
  grep -qx "OMPI_MCA_coll_toporr_report=$WORK/alloc-%j.jsonl" "$WORK/salloc.env" &&
  grep -q "^SLURM_JOB_ID=[0-9]" "$WORK/salloc.env" ||
  { toporr_vars "$WORK/salloc.env"; fail "salloc --toporr=report=FILE: no report variables"; }
# sbatch --export=NONE keeps only SLURM_* variables: the option still reaches the script.
sbatch -W -Q --export=NONE --toporr=off -o "$WORK/batch-none.out" --wrap /usr/bin/env >/dev/null ||
  fail "sbatch --export=NONE --toporr=off"
diff <(echo "$OFF") <(toporr_vars "$WORK/batch-none.out") ||
  fail "sbatch --export=NONE --toporr=off: the script's toporr variables differ (< wanted, > got)"
sbatch -W -Q --export=NONE "--toporr=report=$WORK/b-%j.jsonl" -o "$WORK/batch-none.out" \
  --wrap /usr/bin/env >/dev/null || fail "sbatch --export=NONE --toporr=report=FILE"
job=$(sed -n 's/^SLURM_JOB_ID=//p' "$WORK/batch-none.out")
grep -qx "TOPORR_REPORT=$WORK/b-$job.jsonl" "$WORK/batch-none.out" ||
  { toporr_vars "$WORK/batch-none.out"; fail "sbatch --export=NONE: no expanded report file"; }
# A step of that job keeps the option, and a step's own --toporr wins.
sbatch -W -Q --export=NONE --toporr=off -o "$WORK/batch-step.out" \
  --wrap "/usr/bin/srun -n 1 /usr/bin/env; /usr/bin/srun -n 1 --toporr=auto /usr/bin/env" >/dev/null ||
  fail "sbatch --export=NONE with srun steps"
[[ $(grep -x "TOPORR_DISABLE=[01]" "$WORK/batch-step.out" | tr '\n' ' ') == "TOPORR_DISABLE=1 TOPORR_DISABLE=0 " ]] ||
  { grep TOPORR_DISABLE "$WORK/batch-step.out"; fail "steps of an --export=NONE job: the plain step off, the --toporr=auto step on"; }
echo "ok   salloc's command and an sbatch --export=NONE script (and its steps) get --toporr's variables"

# An Open MPI job started by mpirun in salloc's command: --toporr=off keeps toporr out of it
# (no report line although the user's environment asks for one), report=FILE gets the
# decisions in FILE with %j the job id (libtoporr expands it from SLURM_JOB_ID).
if command -v mpicc >/dev/null && command -v mpirun >/dev/null; then
  cat > "$WORK/allreduce.c" <<'PROGRAM'
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int n = 1 << 17;
  double* b = calloc(n, sizeof(double));
  MPI_Allreduce(MPI_IN_PLACE, b, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
PROGRAM
  mpicc -o "$WORK/allreduce" "$WORK/allreduce.c" || fail "mpicc"
  PMPI_LIB="$RUNFILES/client/mpi/openmpi/libtoporr_pmpi.so"
  # mpirun on this node alone (no srun-launched daemons), root allowed, the preload passed on.
  job_mpirun() {
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated \
      OMPI_MCA_ras=^slurm timeout 120 salloc -Q "$@" \
      mpirun -np 2 --oversubscribe -x "LD_PRELOAD=$PMPI_LIB" "$WORK/allreduce"
  }
  TOPORR_REPORT="$WORK/user.jsonl" job_mpirun --toporr=off >"$WORK/mpirun.out" 2>&1 ||
    { cat "$WORK/mpirun.out"; fail "salloc --toporr=off mpirun"; }
  [[ ! -e "$WORK/user.jsonl" ]] || fail "salloc --toporr=off: toporr acted in mpirun's job ($(head -c 200 "$WORK/user.jsonl"))"
  job_mpirun "--toporr=report=$WORK/mpirun-%j.jsonl" >"$WORK/mpirun.out" 2>&1 ||
    { cat "$WORK/mpirun.out"; fail "salloc --toporr=report=FILE mpirun"; }
  reports=("$WORK"/mpirun-[0-9]*.jsonl)
  [[ -f ${reports[0]} ]] && grep -q '"event":"decision","collective":"allreduce"' "${reports[0]}" ||
    { ls "$WORK"; cat "$WORK/mpirun.out"; fail "salloc --toporr=report=FILE: no decision in FILE with the job id"; }
  echo "ok   mpirun in salloc's command: off runs no toporr, report=FILE-%j gets ${reports[0]##*/}"
else
  echo "SKIPPED: mpirun in salloc (mpicc or mpirun not installed)"
fi

# --- the site default of plugstack.conf ---------------------------------------------------
plugstack default=off coll_priority=45
expect_env "TOPORR_DISABLE=1
OMPI_MCA_coll_toporr_disable=1
OMPI_MCA_topo_toporr_disable=1"
expect_env "TOPORR_DISABLE=0
OMPI_MCA_coll_toporr_disable=0
OMPI_MCA_topo_toporr_disable=0
OMPI_MCA_coll_toporr_priority=45" --toporr
# The default never replaces the user's own setting (nor sets its MCA twins against it),
# whichever of its three names the user set.
TOPORR_DISABLE=0 expect_env "TOPORR_DISABLE=0"
OMPI_MCA_topo_toporr_disable=0 expect_env "OMPI_MCA_topo_toporr_disable=0"
OMPI_MCA_coll_toporr_priority=10 expect_env "TOPORR_DISABLE=0
OMPI_MCA_coll_toporr_disable=0
OMPI_MCA_topo_toporr_disable=0
OMPI_MCA_coll_toporr_priority=10" --toporr
plugstack "default=report=$WORK/site-%j.jsonl"
expect_env "TOPORR_DISABLE=0
OMPI_MCA_coll_toporr_disable=0
OMPI_MCA_topo_toporr_disable=0
TOPORR_REPORT=$WORK/site-%JOB%.jsonl
OMPI_MCA_coll_toporr_report=$WORK/site-%JOB%.jsonl
OMPI_MCA_topo_toporr_report=$WORK/site-%JOB%.jsonl"
salloc -Q env > "$WORK/salloc.env" 2>"$WORK/salloc.err" || fail "salloc env (site default)"
grep -qx "TOPORR_DISABLE=0" "$WORK/salloc.env" && grep -qx "TOPORR_REPORT=$WORK/site-%j.jsonl" "$WORK/salloc.env" ||
  { toporr_vars "$WORK/salloc.env"; fail "salloc: the site default did not reach the command"; }
echo "ok   the plugstack.conf default applies without --toporr (srun, salloc) and never replaces the user's variables"

# --- a bad plugstack.conf argument ----------------------------------------------------------
plugstack default=sometimes
expect_env "" true  # optional: srun says why and runs the job without the plugin
grep -q "toporr: plugin argument default=sometimes: 'sometimes': expected auto, off or report=FILE" \
  "$WORK/srun.err" || { cat "$WORK/srun.err"; fail "bad default: no message"; }
echo "required spank_toporr.so coll_priority=high" > "$WORK/plugstack.conf"
out=$(srun -n 1 true 2>&1) && fail "a required plugin with a bad argument ran the job"
[[ $out == *"toporr: plugin argument coll_priority=high: expected coll_priority=N with N in 0..100"* ]] ||
  fail "bad coll_priority: $out"
plugstack
echo "ok   a bad plugstack.conf argument is named (and fails srun when the plugin is required)"

# --- SLURM_HOSTFILE from toporrctl plan ---------------------------------------------------
printf 'node01 slots=2\nnode05 slots=2\nnode09 slots=2\nnode13 slots=2\n' > "$WORK/job.hosts"
"$CTL" plan --hostfile "$WORK/job.hosts" --map-by node --collective allreduce --algorithm ring \
  --size 1M --fabric "$FABRIC" --slurm-hostfile "$WORK/plan.hosts" | grep -q "SLURM_HOSTFILE=" ||
  fail "plan --slurm-hostfile"
cat "$WORK/plan.hosts"
[[ $(grep -vc '^#' "$WORK/plan.hosts") -eq 8 ]] || fail "the hostfile has no line per rank"
# One node here: the plan's hosts become this host, the lines and the comment stay.
sed "/^#/!s/.*/$HOST/" "$WORK/plan.hosts" > "$WORK/local.hosts"
SLURM_HOSTFILE="$WORK/local.hosts" srun -n 8 -O --distribution=arbitrary -l hostname > "$WORK/ran" ||
  fail "srun --distribution=arbitrary refused the hostfile"
[[ $(grep -c ": $HOST\$" "$WORK/ran") -eq 8 ]] || { cat "$WORK/ran"; fail "8 tasks on $HOST"; }
out=$(SLURM_HOSTFILE="$WORK/local.hosts" srun -n 9 -O --distribution=arbitrary true 2>&1) &&
  fail "srun ran 9 tasks from an 8-line hostfile"
[[ $out == *"Too few NodeNames in Slurm Hostfile"* ]] || fail "9 tasks: $out"
echo "ok   srun --distribution=arbitrary runs the plan's SLURM_HOSTFILE (one task per line)"
echo PASS
