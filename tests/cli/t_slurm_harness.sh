# t_slurm_harness.sh: the test Slurm (tests/slurm/slurm.sh) serves users other than root,
# and starts where no host name resolves (a minimal container or chroot).
# A user who is not root (nobody) talks to the shared test Slurm through its munge socket:
# sinfo answers, and a job sbatch submits runs as that user and is in the accounting.
# Then a second cluster starts in a namespace whose host name resolves nowhere and whose
# /etc/hosts is empty (so not even localhost resolves), and runs a job.
# needs: slurm
heavy || return 0
if need_slurm slurm_harness_other_user; then
	if id nobody > /dev/null 2>&1 && command -v setpriv > /dev/null; then
		mkdir -m 1777 shared
		as_nobody="setpriv --reuid=nobody --regid=$(id -g nobody) --clear-groups env SLURM_CONF='$SLURM_CONF'"
		run slurm_harness_other_user_sinfo 0 "$as_nobody sinfo -h -N -o %N"
		expect_eq slurm_harness_other_user_node dlnode1 "$(cat out)"
		run slurm_harness_other_user_sbatch 0 "cd shared && $as_nobody sbatch --wait --parsable -J asnobody -o '$SCRATCH/shared/job.out' --wrap 'id -un'"
		job=$(tail -n 1 out)
		expect_eq slurm_harness_other_user_job_ran_as nobody "$(cat shared/job.out 2> /dev/null)"
		i=0
		while [ $i -lt 150 ] && ! sacct -a -X -n -P -j "$job" -o User,State | grep -qx 'nobody|COMPLETED'; do
			sleep 0.2
			i=$((i + 1))
		done
		expect slurm_harness_other_user_accounted "sacct -a -X -n -P -j '$job' -o User,State | grep -qx 'nobody|COMPLETED'"
	else
		skip slurm_harness_other_user "no user nobody or no setpriv (util-linux)"
	fi
fi

# a cluster of its own where no name resolves (root: namespaces, daemons)
if ! why=$(sh "$SRCROOT/tests/slurm/slurm.sh" check); then
	skip slurm_harness_no_names "$why"
	return 0
fi
: > empty.hosts
if ! unshare -u -m sh -c "hostname dlsched-unresolvable && mount --bind '$SCRATCH/empty.hosts' /etc/hosts" 2> /dev/null; then
	skip slurm_harness_no_names "no UTS and mount namespace here"
	return 0
fi
cat > no_names.sh << EOF2
hostname dlsched-unresolvable-\$\$ && mount --bind '$SCRATCH/empty.hosts' /etc/hosts || exit 97
getent hosts localhost "\$(hostname)" && { echo "a name still resolves" >&2; exit 98; }
sh '$SRCROOT/tests/slurm/slurm.sh' start '$SCRATCH/c' || exit
eval "\$(sh '$SRCROOT/tests/slurm/slurm.sh' env '$SCRATCH/c')"
sbatch --wait --parsable -o /dev/null --wrap true && sinfo -h -N -o %N
rc=\$?
sh '$SRCROOT/tests/slurm/slurm.sh' stop '$SCRATCH/c'
exit \$rc
EOF2
run slurm_harness_no_names 0 "unshare -u -m sh '$SCRATCH/no_names.sh'"
expect_eq slurm_harness_no_names_node dlnode1 "$(tail -n 1 out)"
expect slurm_harness_no_names_stopped "test ! -e '$SCRATCH/c'"
