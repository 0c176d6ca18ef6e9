#!/usr/bin/env bash
# A second software stack for tests: a Debian root of another release (Debian 13 "trixie":
# Open MPI 5.0, MPICH 4.2, Slurm 24.11, gcc 14, Abseil 2024) made with debootstrap from the
# Debian archive the machine already uses, cached on the machine and entered with chroot.
#
#   stack_root.sh ensure STACK        create the root where it is missing; print its path
#   stack_root.sh path STACK          print its path (exit 1 when it is not there)
#   stack_root.sh run STACK -- CMD... run CMD inside it as root, the repository at /toporr
#                                     ($TOPORR_SHARED_DIR, when set, read-only at /toporr-shared)
#   stack_root.sh remove STACK        delete it
#
# STACK names a package list testing/stacks/STACK.packages (first line: the Debian suite)
# and, where the release needs a repair after installation, a script STACK.fixup run inside
# the root after the packages. The root lives at $TOPORR_STACKS_DIR/STACK-HASH (default
# /var/cache/toporr-stacks), HASH the content hash of the list and the script: a changed
# one makes a new root, an unchanged one is reused.
# Creation (a few minutes and about 3 GB, once per machine) builds in a temporary directory
# and renames it into place only when every package is installed, under a lock, so that an
# interrupted or concurrent creation never leaves a half-made root in use. `run` mounts
# /proc, /sys, /dev, /dev/pts and the repository into the root and unmounts them on exit,
# however CMD ends. Needs root and debootstrap. Exit status: CMD's for run; 0 done, 1 failed
# (the step named), 2 usage, 3 cannot run here (not root, no debootstrap: the reason on
# stderr, for a test to say SKIPPED).
set -euo pipefail

SELF=stack_root
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
STACKS_DIR="${TOPORR_STACKS_DIR:-/var/cache/toporr-stacks}"
log() { echo "$SELF: $*" >&2; }
die() { echo "$SELF: error: $*" >&2; exit 1; }
cannot() { echo "$SELF: cannot run here: $*" >&2; exit 3; }
usage() { sed -n '5,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

(($# >= 2)) || usage
CMD=$1 STACK=$2
shift 2
[[ $STACK =~ ^[a-z0-9-]+$ ]] || die "stack name '$STACK': lower-case letters, digits, '-'"
LIST="$HERE/$STACK.packages"
[[ -f $LIST ]] || die "no package list $LIST"
SUITE=$(sed -n '1s/^suite[[:space:]]*=[[:space:]]*//p' "$LIST")
[[ -n $SUITE ]] || die "$LIST:1: the first line must be 'suite = NAME'"
mapfile -t PACKAGES < <(sed -n '2,$p' "$LIST" | sed 's/#.*//' | tr -s ' \t' '\n\n' | sed '/^$/d')
FIXUP="$HERE/$STACK.fixup"
HASH=$(cat "$LIST" "$FIXUP" 2>/dev/null | sha256sum | cut -c1-12)
ROOT="$STACKS_DIR/$STACK-$HASH"

mirror() {
  if [[ -n ${TOPORR_DEBIAN_MIRROR:-} ]]; then
    echo "$TOPORR_DEBIAN_MIRROR"
    return
  fi
  # The archive this machine's apt already reaches (deb822 or one-line sources).
  local uri
  uri=$(sed -n 's/^URIs:[[:space:]]*\([^ ]*\/debian\)\/*$/\1/p' /etc/apt/sources.list.d/*.sources \
    2>/dev/null | head -1)
  [[ -n $uri ]] || uri=$(sed -n 's/^deb[[:space:]]\+\(http[^ ]*\/debian\)\/*[[:space:]].*/\1/p' \
    /etc/apt/sources.list 2>/dev/null | head -1)
  echo "${uri:-http://deb.debian.org/debian}"
}

MOUNTED=()
unmount_all() {
  local i
  for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do
    umount -l "${MOUNTED[i]}" 2>/dev/null || true
  done
  MOUNTED=()
}
mount_into() {  # mount_into ROOT: the kernel file systems a chroot's tools need
  local r=$1 d
  for d in proc sys dev dev/pts; do
    mkdir -p "$r/$d"
    case $d in
      proc) mount -t proc proc "$r/proc" ;;
      sys) mount --rbind /sys "$r/sys" && mount --make-rslave "$r/sys" ;;
      dev) mount --bind /dev "$r/dev" ;;
      dev/pts) mount --bind /dev/pts "$r/dev/pts" ;;
    esac
    MOUNTED+=("$r/$d")
  done
}

need_root() {
  [[ $(id -u) -eq 0 ]] || cannot "needs root (debootstrap, chroot, mounts)"
}

create() {
  need_root
  command -v debootstrap >/dev/null || cannot "debootstrap is not installed (apt-get install debootstrap)"
  mkdir -p "$STACKS_DIR"
  exec 9>"$STACKS_DIR/.$STACK.lock"
  flock 9
  if [[ -f $ROOT/.toporr-stack ]]; then
    return 0  # made by another process while this one waited
  fi
  local tmp="$STACKS_DIR/.$STACK-$HASH.tmp" m start
  m=$(mirror)
  start=$SECONDS
  rm -rf "$tmp"
  trap 'unmount_all; rm -rf "$tmp"' EXIT
  log "creating the $SUITE root for '$STACK' from $m (once per machine; a few minutes)"
  # The archive unreachable from here is a machine that cannot make the root (exit 3); a
  # failure after the base system is there is toporr's (exit 1).
  debootstrap --variant=minbase "$SUITE" "$tmp" "$m" >"$STACKS_DIR/.$STACK.debootstrap.log" 2>&1 ||
    cannot "debootstrap of $SUITE from $m failed ($(tail -1 "$STACKS_DIR/.$STACK.debootstrap.log"); log: $STACKS_DIR/.$STACK.debootstrap.log)"
  log "base system in $((SECONDS - start)) s; installing ${#PACKAGES[@]} packages"
  echo "deb $m $SUITE main" >"$tmp/etc/apt/sources.list"
  cp /etc/resolv.conf "$tmp/etc/resolv.conf" 2>/dev/null || true
  # Services never start inside the root while packages are installed.
  printf '#!/bin/sh\nexit 101\n' >"$tmp/usr/sbin/policy-rc.d"
  chmod 755 "$tmp/usr/sbin/policy-rc.d"
  mount_into "$tmp"
  chroot "$tmp" env DEBIAN_FRONTEND=noninteractive apt-get update -qq \
    >"$STACKS_DIR/.$STACK.apt.log" 2>&1 || die "apt-get update in the root failed: $STACKS_DIR/.$STACK.apt.log"
  chroot "$tmp" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends "${PACKAGES[@]}" >>"$STACKS_DIR/.$STACK.apt.log" 2>&1 ||
    die "installing the packages in the root failed: $STACKS_DIR/.$STACK.apt.log"
  if [[ -f $FIXUP ]]; then
    cp "$FIXUP" "$tmp/tmp/toporr-stack.fixup"
    chroot "$tmp" /bin/bash /tmp/toporr-stack.fixup >>"$STACKS_DIR/.$STACK.apt.log" 2>&1 ||
      die "$FIXUP failed in the root: $STACKS_DIR/.$STACK.apt.log"
    rm -f "$tmp/tmp/toporr-stack.fixup"
  fi
  chroot "$tmp" apt-get clean
  unmount_all
  { echo "suite = $SUITE"; echo "list = $LIST ($HASH)"; date -u +"made = %F %T UTC"; } \
    >"$tmp/.toporr-stack"
  rm -rf "$ROOT"
  mv "$tmp" "$ROOT"
  trap - EXIT
  log "root ready in $((SECONDS - start)) s: $ROOT"
}

case $CMD in
  ensure)
    [[ -f $ROOT/.toporr-stack ]] || create
    echo "$ROOT"
    ;;
  path)
    [[ -f $ROOT/.toporr-stack ]] || { log "no root for '$STACK' at $ROOT"; exit 1; }
    echo "$ROOT"
    ;;
  run)
    [[ ${1:-} == -- ]] && shift
    (($# >= 1)) || usage
    need_root
    [[ -f $ROOT/.toporr-stack ]] || die "no root for '$STACK' at $ROOT (stack_root.sh ensure $STACK)"
    trap unmount_all EXIT
    # The root a private mount point of its own: tools that change the propagation of / (ip
    # netns exec, for the virtual cluster's hosts) need one, nothing mounted inside reaches
    # the machine's own tree, and every such mount goes with it.
    mount --bind "$ROOT" "$ROOT"
    MOUNTED+=("$ROOT")
    mount --make-private "$ROOT"
    mount_into "$ROOT"
    mkdir -p "$ROOT/toporr"
    mount --bind "$REPO" "$ROOT/toporr"
    MOUNTED+=("$ROOT/toporr")
    shared=()
    if [[ -n ${TOPORR_SHARED_DIR:-} && -d $TOPORR_SHARED_DIR ]]; then
      mkdir -p "$ROOT/toporr-shared"
      mount --bind -o ro "$TOPORR_SHARED_DIR" "$ROOT/toporr-shared"
      MOUNTED+=("$ROOT/toporr-shared")
      shared=(TOPORR_SHARED_DIR=/toporr-shared)
    fi
    set +e
    chroot "$ROOT" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
      "${shared[@]}" "$@"
    rc=$?
    exit $rc
    ;;
  remove)
    need_root
    rm -rf "$ROOT" "$STACKS_DIR/.$STACK-$HASH.tmp"
    ;;
  *) usage ;;
esac
