#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for trying and testing xgpu-sweep's Slurm
# backend (docs/sweeps.md). Needs root (or sudo) to install the Debian packages and to
# start the daemons.
#
#   scripts/slurm-local.sh start   install slurm-wlm and munge if missing, write a
#                                  minimal slurm.conf under $XGPU_SLURM_DIR (default
#                                  /tmp/xgpu-slurm), start munged, slurmctld and slurmd,
#                                  and wait until the node takes jobs; prints the line
#                                  `export SLURM_CONF=...` for the client commands
#   scripts/slurm-local.sh stop    stop the daemons it started
#
# Nothing outside $XGPU_SLURM_DIR is written except munge's runtime directory; an
# existing /etc/slurm/slurm.conf is left alone (the clients use $SLURM_CONF).
set -euo pipefail

dir=${XGPU_SLURM_DIR:-/tmp/xgpu-slurm}
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

stop() {
  for d in slurmd slurmctld; do
    if [ -f "$dir/$d.pid" ]; then
      $sudo kill "$(cat "$dir/$d.pid")" 2>/dev/null || true
      rm -f "$dir/$d.pid"
    fi
  done
}

if [ "${1:-}" = "stop" ]; then
  stop
  exit 0
fi
if [ "${1:-}" != "start" ]; then
  echo "usage: $0 start|stop" >&2
  exit 2
fi

missing=()
for p in slurm-wlm munge; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -ne 0 ]; then
  echo "slurm-local: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q >&2
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi

# munge: the package made a key; its daemon runs as the munge user
if ! munge -n >/dev/null 2>&1; then
  $sudo mkdir -p /run/munge
  $sudo chown munge:munge /run/munge
  $sudo runuser -u munge -- /usr/sbin/munged
  for _ in $(seq 50); do munge -n >/dev/null 2>&1 && break; sleep 0.1; done
fi

stop
host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)
mkdir -p "$dir/state" "$dir/spool"
cat > "$dir/slurm.conf" <<EOF
# written by scripts/slurm-local.sh: one node, everything as root, no accounting
ClusterName=xgpu-local
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$dir/slurm.conf"
$sudo env SLURM_CONF="$SLURM_CONF" /usr/sbin/slurmctld -c -f "$SLURM_CONF"
$sudo env SLURM_CONF="$SLURM_CONF" /usr/sbin/slurmd -f "$SLURM_CONF"
for _ in $(seq 100); do
  if sinfo -h -o %t 2>/dev/null | grep -Eq '^(idle|mix|alloc)'; then
    echo "export SLURM_CONF=$SLURM_CONF"
    exit 0
  fi
  sleep 0.2
done
echo "slurm-local: the node did not come up; see $dir/slurmctld.log and $dir/slurmd.log" >&2
exit 1
