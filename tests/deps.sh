#!/bin/sh
# deps.sh: install the Debian packages dlsched's build, or its build and tests, need, when
# missing.
#   sh tests/deps.sh build   tests/deps.d/build.txt: compiler, libraries, scdoc (make demo)
#   sh tests/deps.sh test    all of tests/deps.d/*.txt: the above and what the tests run
#                            (make check, make deps; the default)
# Each part of the project names its own test needs in a file of its own (one package per
# line, '#' comments); a package the build itself needs goes to build.txt. Uses apt-get,
# with sudo when not root; non-interactive, so it works from CI without standard input.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
case ${1:-test} in
build) set -- "$ROOT"/tests/deps.d/build.txt ;;
test) set -- "$ROOT"/tests/deps.d/*.txt ;;
*) echo "usage: tests/deps.sh [build|test]" >&2; exit 2 ;;
esac
want=$(cat "$@" | sed 's/#.*//' | tr -s ' \t' '\n\n' | grep -v '^$' | sort -u)
missing=
for p in $want; do
	s=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case $s in *"install ok installed"*) ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing" >&2
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
# daemons (munge, Slurm, MariaDB) must not start from their maintainer scripts with the
# stock configs: the tests start their own (tests/slurm/slurm.sh)
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d > /dev/null
	$SUDO chmod 755 /usr/sbin/policy-rc.d
	trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
fi
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing > /tmp/dlsched-deps.log 2>&1 || {
	tail -20 /tmp/dlsched-deps.log >&2
	exit 1
}
