#!/bin/sh
# slurm.sh: a real single-host Slurm for the test suite, in a directory of its own.
#
#   sh tests/slurm/slurm.sh start DIR   start munge, MariaDB, slurmdbd, slurmctld, slurmd
#   sh tests/slurm/slurm.sh stop DIR    stop exactly the daemons it started, remove DIR
#   sh tests/slurm/slurm.sh env DIR     print 'SLURM_CONF=DIR/slurm.conf; export SLURM_CONF'
#   sh tests/slurm/slurm.sh check       exit 0 if a cluster can start here, else print why
#
# Everything lives in DIR (created by start; must not exist or be empty): configs,
# munge key and socket, MariaDB datadir and socket, state, spool, logs, pid files.
# Ports are free ones picked at start, so two clusters on one machine never clash, and
# the system's /etc/slurm, /run/munge and MariaDB are left alone. With SLURM_CONF from
# `env`, sbatch, squeue, scancel, sacct, scontrol and sinfo talk to this cluster.
#
# The cluster (after start, as `sinfo -N` and `scontrol show node` show it):
#   ClusterName=dltest, one node "dlnode1" (the local slurmd), partition "debug"
#   (default), CPUs = 4 (advertised, config_overrides), GPUs: Gres=gpu:v100:4,gpu:k80:2
#   (fake devices: character nodes cloned from /dev/null, or regular files where mknod
#   is not allowed); accounting through slurmdbd and MariaDB, so sacct works and
#   AllocTRES lists gres/gpu, gres/gpu:v100 and gres/gpu:k80.
# Needs root (daemons, mknod) and the packages of tests/deps.d/slurm.txt; `check`
# says what is missing. start waits until the node is idle (about 10-20 s). Once it runs,
# any user who can reach DIR submits to it (munge's socket is open to all, as the system
# munge's is), and it starts where no host name resolves (a minimal container or chroot).
set -u
SLURM_NODE=dlnode1
SLURM_CPUS=${SLURM_TEST_CPUS:-4}

die() { echo "slurm.sh: $*" >&2; exit 1; }

check() {
	[ "$(id -u)" -eq 0 ] || { echo "not root: the Slurm daemons need root"; return 1; }
	for b in /usr/sbin/munged /usr/sbin/slurmctld /usr/sbin/slurmd /usr/sbin/slurmdbd \
		/usr/sbin/mariadbd /usr/bin/mariadb-install-db /usr/bin/sbatch /usr/bin/sacct python3; do
		command -v "$b" > /dev/null 2>&1 || { echo "$b is not installed (make deps)"; return 1; }
	done
	return 0
}

# N free TCP ports on 127.0.0.1 (bound together, then released)
free_ports() {
	python3 -c '
import socket, sys
ss = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); ss.append(s)
print(" ".join(str(s.getsockname()[1]) for s in ss))' "$1"
}

wait_for() { # SECONDS WHAT CMD...
	_t=$1 _what=$2; shift 2
	_i=0
	while [ $_i -lt $((_t * 5)) ]; do
		timeout 10 "$@" > /dev/null 2>&1 && return 0
		sleep 0.2; _i=$((_i + 1))
	done
	echo "slurm.sh: timed out waiting for $_what" >&2
	return 1
}

# remember a daemon's pid (from its pid file) for stop
keep_pid() { # NAME PIDFILE
	wait_for 20 "$1 pid file" test -s "$2" || return 1
	cat "$2" > "$D/pids/$1"
}

start() {
	why=$(check) || { echo "slurm.sh: cannot start: $why" >&2; return 77; }
	D=$1
	mkdir -p "$D" || die "cannot create '$D'"
	D=$(cd "$D" && pwd)
	# MariaDB runs as mysql and needs to reach its datadir; munge wants no group/other write
	chmod 755 "$D"
	mkdir -p "$D/pids" "$D/log" "$D/state" "$D/munge" "$D/dev"
	# MariaDB runs as mysql, which may not reach DIR (a 0700 mktemp parent): its datadir and
	# socket are in a directory of their own, DIR/db links to it and stop removes it
	DB=$(mktemp -d "${TMPDIR:-/tmp}/dlsched-slurm-db.XXXXXX") || die "cannot make the database directory"
	chmod 755 "$DB"
	ln -s "$DB" "$D/db"
	# a job of a user other than root reads its batch script from the spool, which it
	# could not reach under such a parent either: the spool is a directory of its own too
	# (DIR/spool links to it, stop removes it)
	SPOOL=$(mktemp -d "${TMPDIR:-/tmp}/dlsched-slurm-spool.XXXXXX") || die "cannot make the spool directory"
	chmod 755 "$SPOOL"
	ln -s "$SPOOL" "$D/spool"
	# every user who submits reaches munged's socket (munged wants its directory writable by
	# its owner only; the key inside stays 0400)
	chmod 755 "$D/munge"
	set -- $(free_ports 4)
	ctld_port=$1 slurmd_port=$2 dbd_port=$3 db_port=$4

	# munge: its own key and socket
	dd if=/dev/urandom of="$D/munge/munge.key" bs=1024 count=1 2> /dev/null
	chmod 400 "$D/munge/munge.key"
	/usr/sbin/munged --force --socket="$D/munge/munge.sock" --key-file="$D/munge/munge.key" \
		--pid-file="$D/munge/munged.pid" --log-file="$D/log/munged.log" \
		--seed-file="$D/munge/munged.seed" 2>> "$D/log/munged.log" || die "munged failed (log: $D/log/munged.log)"
	keep_pid munged "$D/munge/munged.pid" || return 1

	# MariaDB: its own datadir, socket and port (loopback only). No host name is looked up:
	# in a container or chroot neither this host's name nor localhost may resolve, and
	# mariadb-install-db then stops unless --force (its grants use IP addresses instead;
	# the server is told the same with --skip-name-resolve)
	chown mysql:mysql "$DB"
	mariadb-install-db --no-defaults --user=mysql --datadir="$DB/data" --auth-root-authentication-method=socket \
		--skip-test-db --skip-name-resolve --force > "$D/log/mariadb-install.log" 2>&1 ||
		die "mariadb-install-db failed (log: $D/log/mariadb-install.log)"
	setsid /usr/sbin/mariadbd --no-defaults --user=mysql --datadir="$DB/data" --skip-name-resolve \
		--socket="$DB/mysqld.sock" --port="$db_port" --bind-address=127.0.0.1 \
		--pid-file="$DB/mysqld.pid" --log-error="$D/log/mariadb.log" \
		--skip-log-bin --innodb-buffer-pool-size=64M --innodb-log-file-size=16M \
		> /dev/null 2>&1 < /dev/null &
	keep_pid mariadbd "$DB/mysqld.pid" || return 1
	wait_for 30 "MariaDB" mariadb --no-defaults --socket="$DB/mysqld.sock" -e 'select 1' || return 1
	mariadb --no-defaults --socket="$DB/mysqld.sock" -e "
		CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'dltest';
		CREATE USER 'slurm'@'localhost' IDENTIFIED BY 'dltest';
		GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
		GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost'; FLUSH PRIVILEGES;" || die "cannot create the slurm database user"

	# fake GPUs: 4 v100 and 2 k80 device files
	gpu_file() { # N
		if mknod -m 666 "$D/dev/fakegpu$1" c 1 3 2> /dev/null; then :; else
			: > "$D/dev/fakegpu$1"; echo "slurm.sh: mknod not permitted; fake GPU $1 is a regular file" >&2
		fi
	}
	for i in 0 1 2 3 4 5; do gpu_file $i; done

	cat > "$D/slurm.conf" << CONF
# written by tests/slurm/slurm.sh
ClusterName=dltest
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$D/munge/munge.sock
StateSaveLocation=$D/state
SlurmdSpoolDir=$SPOOL
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
DefMemPerCPU=100
ReturnToService=2
MpiDefault=none
SwitchType=switch/none
MailProg=/bin/true
MinJobAge=300
GresTypes=gpu
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$dbd_port
# the munge socket for connections to slurmdbd (AuthInfo covers the others)
AccountingStoragePass=$D/munge/munge.sock
AccountingStorageTRES=gres/gpu,gres/gpu:v100,gres/gpu:k80
JobCompType=jobcomp/none
NodeName=$SLURM_NODE NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=$SLURM_CPUS RealMemory=4000 Gres=gpu:v100:4,gpu:k80:2 State=UNKNOWN
PartitionName=debug Nodes=$SLURM_NODE Default=YES MaxTime=INFINITE State=UP
CONF
	cat > "$D/gres.conf" << CONF
NodeName=$SLURM_NODE Name=gpu Type=v100 File=$D/dev/fakegpu[0-3]
NodeName=$SLURM_NODE Name=gpu Type=k80 File=$D/dev/fakegpu[4-5]
CONF
	cat > "$D/slurmdbd.conf" << CONF
AuthType=auth/munge
AuthInfo=socket=$D/munge/munge.sock
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$dbd_port
SlurmUser=root
DebugLevel=info
LogFile=$D/log/slurmdbd.log
PidFile=$D/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db_port
StorageUser=slurm
StoragePass=dltest
StorageLoc=slurm_acct_db
CONF
	chmod 600 "$D/slurmdbd.conf"
	SLURM_CONF=$D/slurm.conf
	export SLURM_CONF

	/usr/sbin/slurmdbd || die "slurmdbd failed (log: $D/log/slurmdbd.log)"
	keep_pid slurmdbd "$D/slurmdbd.pid" || return 1
	wait_for 30 "slurmdbd" sacctmgr -i -n list cluster || return 1
	/usr/sbin/slurmctld || die "slurmctld failed (log: $D/log/slurmctld.log)"
	keep_pid slurmctld "$D/slurmctld.pid" || return 1
	wait_for 30 "slurmctld" scontrol ping || return 1
	/usr/sbin/slurmd -N "$SLURM_NODE" || die "slurmd failed (log: $D/log/slurmd.log)"
	keep_pid slurmd "$D/slurmd.pid" || return 1
	wait_for 60 "node $SLURM_NODE idle" sh -c "sinfo -h -N -n $SLURM_NODE -o %t | grep -qx idle" || { sinfo -N -l >&2; tail -5 "$D/log/slurmd.log" >&2; return 1; }
	echo "$D" > "$D/cluster"
	return 0
}

# stop exactly the daemons start recorded (their pids, still the same program), newest first
stop() {
	D=$1
	[ -d "$D/pids" ] || { rm -rf "$D"; return 0; }
	for n in slurmd slurmctld slurmdbd mariadbd munged; do
		f=$D/pids/$n
		[ -s "$f" ] || continue
		p=$(cat "$f")
		case $(cat "/proc/$p/comm" 2> /dev/null) in "$n"*) ;; *) continue ;; esac
		kill "$p" 2> /dev/null
		i=0
		while [ $i -lt 100 ] && [ -d "/proc/$p" ] && ! grep -q '^State:.*Z' "/proc/$p/status" 2> /dev/null; do
			sleep 0.1; i=$((i + 1))
		done
		[ -d "/proc/$p" ] && ! grep -q '^State:.*Z' "/proc/$p/status" 2> /dev/null && kill -9 "$p" 2> /dev/null
	done
	[ -L "$D/db" ] && rm -rf "$(readlink "$D/db")"
	[ -L "$D/spool" ] && rm -rf "$(readlink "$D/spool")"
	rm -rf "$D"
}

case ${1:-} in
start) [ $# -eq 2 ] || die "usage: slurm.sh start DIR"
	if [ -e "$2" ] && [ -n "$(ls -A "$2" 2> /dev/null)" ]; then die "'$2' is not empty"; fi
	(start "$2"); rc=$?; [ $rc -eq 0 ] || [ $rc -eq 77 ] || [ -n "${SLURM_TEST_KEEP:-}" ] || stop "$2" > /dev/null 2>&1; exit $rc ;;
stop) [ $# -eq 2 ] || die "usage: slurm.sh stop DIR"; stop "$2" ;;
env) [ $# -eq 2 ] || die "usage: slurm.sh env DIR"; D=$(cd "$2" && pwd) || exit 1; echo "SLURM_CONF=$D/slurm.conf; export SLURM_CONF" ;;
check) check ;;
*) die "usage: slurm.sh start|stop|env DIR, or slurm.sh check" ;;
esac
