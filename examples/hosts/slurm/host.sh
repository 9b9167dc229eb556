#!/bin/bash
# Slurm agent host for `tunectl run-next` / `tunectl run`: the phase worker
# runs as a Slurm job, so a whole session can be driven from a login node.
#
# tunectl runs: host.sh [SRUN-OPTION ...] -- HOST-ARGV... --task <abs> --result <abs>
# HOST-ARGV is another host's argv (e.g. examples/hosts/claude/host.sh); srun
# starts it on the allocated node with the same --task/--result.  Options
# before "--" go to srun (e.g. --partition=debug --gres=gpu:1 --time=120);
# TUNECTL_SLURM_SRUN_ARGS adds more (split on spaces).  The job is named
# "tunectl:<step_id>", so `tunectl lease status --via slurm` and squeue show
# which phase holds what.  The artifact root, the task and result paths and
# the working directory must be on a filesystem the nodes share.
#
# srun forwards SIGTERM to the job, so run-next's timeout (SIGTERM to this
# process group, SIGKILL after the grace period) ends the job; srun's exit
# status is the worker's.
set -eu
srun_opts=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	case $1 in
	--task|--result)
		echo "slurm host: srun options go before '--', the wrapped host after it" >&2
		exit 2 ;;
	esac
	srun_opts+=("$1")
	shift
done
if [ $# -lt 2 ]; then
	echo "slurm host: usage: host.sh [SRUN-OPTION ...] -- HOST-ARGV... --task T --result R" >&2
	exit 2
fi
shift
# The wrapped argv ends with tunectl's "--task T --result R".
task="" result="" prev=""
for a in "$@"; do
	case $prev in
	--task) task=$a ;;
	--result) result=$a ;;
	esac
	prev=$a
done
[ -n "$task" ] && [ -n "$result" ] || { echo "slurm host: --task and --result are required" >&2; exit 2; }
command -v srun >/dev/null 2>&1 || { echo "slurm host: srun is not on PATH" >&2; exit 127; }
TUNECTL=${TUNECTL:-tunectl}
step=$("$TUNECTL" json get "$task" /step/step_id 2>/dev/null) || step=phase-worker
# shellcheck disable=SC2206
extra=(${TUNECTL_SLURM_SRUN_ARGS:-})
exec srun --job-name="tunectl:$step" --comment="tunectl phase worker: $task" \
    --nodes=1 --ntasks=1 --kill-on-bad-exit=1 "${srun_opts[@]}" "${extra[@]}" \
    /bin/sh -c 'echo "slurm host: job $SLURM_JOB_ID on $SLURMD_NODENAME" >&2; exec "$@"' sh "$@"
