# t_deb.sh: `make deb` builds a Debian package that lintian accepts without an error or a
# warning, with Depends computed from the binary's shared libraries and the files in
# Debian's places. Installed on this machine with dpkg -i, it runs from cron's PATH, man
# finds its pages and bash completes its commands, and dpkg -r removes every file it
# brought. Installing needs root and a machine without dlsched in /usr/bin: the test skips
# that part otherwise (and everything under the sanitizer build).
heavy || return 0
for t in dpkg-deb dpkg-shlibdeps lintian; do
	command -v $t > /dev/null || { skip deb "$t not installed (tests/deps.d/package.txt)"; return 0; }
done
# without a maintainer to name, make deb says so and stops before building anything
run deb_no_maintainer 2 "make -s -C '$SRCROOT' deb O='$BUILD/nodeb' DEB_MAINTAINER="
expect deb_no_maintainer_says "grep -q '^make deb: no maintainer: set DEBFULLNAME and DEBEMAIL' err && test ! -e '$BUILD/nodeb'"
# the maintainer is the last commit's author; a tree without git history (an unpacked
# archive) has none, so the test names one the Debian way
maint=
git -C "$SRCROOT" log -1 > /dev/null 2>&1 || [ -n "$DEBEMAIL" ] ||
	maint="DEBFULLNAME='dlsched test suite' DEBEMAIL=tests@dlsched.invalid"
run deb_build 0 "$maint make -s -C '$SRCROOT' deb O='$BUILD'"
deb=$(tail -n 1 out)
[ -f "$deb" ] || return 0
version=$(dpkg-deb -f "$deb" Version)
expect_eq deb_name "dlsched_${version}_$(dpkg --print-architecture).deb" "${deb##*/}"
run deb_lintian 0 "lintian --fail-on error,warning '$deb'"
expect deb_lintian_clean "! grep -q '^[EW]: ' out"

# the files, in Debian's places (zsh's vendor path, not site-functions)
dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's#^\./##; s#/$##' | grep . > paths
for p in usr/bin/dlsched usr/share/man/man1/dlsched-simulate.1.gz usr/share/man/man5/dlsched-formats.5.gz \
	usr/share/bash-completion/completions/dlsched usr/share/zsh/vendor-completions/_dlsched \
	usr/share/fish/vendor_completions.d/dlsched.fish usr/share/doc/dlsched/copyright \
	usr/share/doc/dlsched/changelog.gz usr/share/doc/dlsched/examples/dlsched-nightly.crontab \
	usr/share/doc/dlsched/examples/dlsched-nightly.service usr/share/doc/dlsched/examples/dlsched-nightly.timer; do
	expect "deb_has_$p" "grep -qx '$p' paths"
done
for c in $(dl --list-commands | grep -vx help); do
	expect "deb_has_link_$c" "grep -qx 'usr/bin/dlsched-$c' paths && grep -qx 'usr/share/man/man1/dlsched-$c.1.gz' paths"
done
# Depends names the package of every shared library the packaged binary links to, as dpkg
# knows it
depends=$(dpkg-deb -f "$deb" Depends)
dpkg-deb -x "$deb" x
bin=$SCRATCH/x/usr/bin/dlsched
for so in $(objdump -p "$bin" | awk '$1 == "NEEDED" { print $2 }'); do
	lib=$(ldd "$bin" | awk -v so="$so" '$1 == so { print $3 }')
	pkg=$(dpkg -S "$(readlink -f "$lib")" 2> /dev/null | sed -n '1s/:.*//p')
	[ -n "$pkg" ] || pkg=$(dpkg -S "$lib" 2> /dev/null | sed -n '1s/:.*//p')
	expect "deb_depends_${lib##*/}" "test -n '$pkg' && printf '%s\n' '$depends' | tr ',' '\n' | grep -q '^ *$pkg ('"
done

# installed on this machine, then removed
if [ "$(id -u)" -ne 0 ]; then
	skip deb_install "dpkg -i needs root"
	return 0
fi
# one test run at a time installs it (two suites on one machine, as on a shared CI host)
exec 9> /tmp/dlsched-t_deb.lock
if ! flock -w 900 9; then
	skip deb_install "another test run held /tmp/dlsched-t_deb.lock for 15 minutes"
	return 0
fi
if [ -e /usr/bin/dlsched ] || dpkg-query -W -f='${Status}' dlsched 2> /dev/null | grep -q ' installed'; then
	skip deb_install "dlsched is already installed here; not replacing it"
	return 0
fi
: > before
while read -r p; do
	if [ -e "/$p" ] || [ -L "/$p" ]; then echo "$p" >> before; fi
done < paths
run deb_install 0 "dpkg -i '$deb'"
run deb_version 0 "env -i PATH=/usr/bin:/bin dlsched --version"
expect_eq deb_version_is_package "dlsched $version" "$(head -1 out | tr - .)"
run deb_link_runs 0 "env -i PATH=/usr/bin:/bin dlsched-simulate --help"
if ! dpkg-query -L dlsched | grep -qx /usr/share/man/man1/dlsched-simulate.1.gz; then
	skip deb_man "dpkg excludes /usr/share/man here (path-exclude in /etc/dpkg/dpkg.cfg.d)"
elif command -v man > /dev/null; then
	run deb_man 0 "man -w dlsched-simulate"
	expect_eq deb_man_path /usr/share/man/man1/dlsched-simulate.1.gz "$(cat out)"
else
	skip deb_man "man not installed (man-db)"
fi
if [ -f /usr/share/bash-completion/bash_completion ]; then
	# as an interactive shell does it: the completion is loaded on first use, from the file
	# named after the command, here the dlsched-simulate link's
	got=$(bash -c '. /usr/share/bash-completion/bash_completion
		_completion_loader dlsched-simulate
		COMP_WORDS=(dlsched-simulate --place con); COMP_CWORD=2
		COMP_LINE="dlsched-simulate --place con"; COMP_POINT=${#COMP_LINE}
		$(complete -p dlsched-simulate | sed -n "s/.* -F \([^ ]*\) .*/\1/p") dlsched-simulate con --place
		echo "${COMPREPLY[*]}"' 2>&1)
	expect_eq deb_bash_completion consolidate "$got"
else
	skip deb_bash_completion "bash-completion not installed"
fi
run deb_remove 0 "dpkg -r dlsched"
expect deb_removed_status "! dpkg-query -W -f='\${Status}' dlsched 2> /dev/null | grep -q 'installed\|config-files'"
left=
while read -r p; do
	grep -qx "$p" before && continue
	if [ -e "/$p" ] || [ -L "/$p" ]; then left="$left /$p"; fi
done < paths
expect_eq deb_nothing_left "" "$left"
exec 9>&-
