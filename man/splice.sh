#!/bin/sh
# splice.sh: put the option lists generated from the binary's tables into a man page source.
#   sh man/splice.sh BINARY man/dlsched-CMD.1.scd > build/man/dlsched-CMD.1.scd
#
# Markers in the page (each on a line of its own):
#   @options [SUB]            every option of "dlsched CMD [SUB]" (its own, then the common ones)
#   @options-own SUB          only the subcommand's own options
#   @options-common SUB...    only the common options, the same for every SUB listed
# Each option becomes its header (*-c, --cluster* _SPEC_), its help line, and a sentence with
# its values or range and its default, all from `dlsched CMD [SUB] --man-options`. A prose block
#   @--NAME
#   <TAB>text...
# after a marker (up to the next marker) replaces the help line of --NAME in that list: the
# page keeps its own words for what an option means, the tables say what it takes. Prose for
# an option the list does not have is an error, so the page cannot drift from the tables.
# Where two groups of a list (simulate's policies) each have an option of one name,
#   @--NAME (GROUP)
# is the prose of the one listed under "GROUP options"; a plain @--NAME serves the others.
# Every list starts with an scdoc comment "; options: dlsched CMD [SUB]" naming what it lists
# and ends with "; end of options" (tests/cli/t_docs.sh compares each list with --help and
# --list-options).
set -eu
BIN=$1 PAGE=$2
base=$(basename "$PAGE" .scd)
case $base in
dlsched-*.1) CMD=${base#dlsched-}; CMD=${CMD%.1} ;;
*) CMD= ;;
esac
awk -v bin="$BIN" -v cmd="$CMD" -v page="$PAGE" '
function fail(msg) { printf "%s: %s\n", page, msg > "/dev/stderr"; bad = 1; exit 1 }
function is_marker(l) { return l ~ /^@options(-own|-common)?( |$)/ }
# the generated entries of one target ("" = the common options of dlsched itself)
function generate(target, want, tag,    c, line, group, out, n) {
	c = bin " " target " --man-options"
	out = ""
	group = ""
	n = 0
	while ((c | getline line) > 0) {
		if (line ~ /^@group /) {
			group = substr(line, 8)
			if (group ~ /^own ./ && want != "common")
				out = out "## " substr(group, 5) " options\n\n"
			continue
		}
		if (want == "own" && group !~ /^own/) continue
		if (want == "common" && group != "common") continue
		out = out line "\n"
		n++
	}
	if (close(c)) fail("cannot run " c)
	if (!n && want != "common") fail("no options from " c)
	return out
}
# replace the help lines ("@--NAME<TAB>sentence") by the prose of this marker, if any
function fill(text, m,    lines, k, i, name, res, grp) {
	k = split(text, lines, "\n")
	res = ""
	grp = ""
	for (i = 1; i < k; i++) {
		if (lines[i] ~ /^## .* options$/)
			grp = substr(lines[i], 4, length(lines[i]) - 11)
		if (lines[i] ~ /^@--/) {
			name = substr(lines[i], 2)
			sub(/\t.*/, "", name)
			if (grp != "" && (m, name " (" grp ")") in prose) {
				res = res prose[m, name " (" grp ")"]
				used[m, name " (" grp ")"] = 1
			} else if ((m, name) in prose) {
				res = res prose[m, name]
				used[m, name] = 1
			} else {
				res = res "\t" substr(lines[i], index(lines[i], "\t") + 1) "\n"
			}
		} else {
			res = res lines[i] "\n"
		}
	}
	return res
}
{ src[++nsrc] = $0 }
END {
	if (bad) exit 1
	# pass 1: prose blocks, each belonging to the marker before it
	m = 0
	for (i = 1; i <= nsrc; i++) {
		if (is_marker(src[i])) { m++; marker[m] = src[i]; continue }
		if (src[i] ~ /^@--[a-z]/) {
			if (!m) fail("prose before any @options marker: " src[i])
			name = substr(src[i], 2)
			text = ""
			while (i + 1 <= nsrc && (src[i + 1] ~ /^\t/ || (src[i + 1] == "" && src[i + 2] ~ /^\t/)))
				text = text src[++i] "\n"
			if (text == "") fail("empty prose for " name)
			prose[m, name] = text
			owner[m, name] = 1
			continue
		}
	}
	# pass 2: the page with the lists in place of the markers and without the prose blocks
	m = 0
	skip = 0
	for (i = 1; i <= nsrc; i++) {
		l = src[i]
		if (is_marker(l)) {
			m++
			n = split(l, w, " ")
			kind = w[1]
			if (kind == "@options") {
				target = cmd (n > 1 ? " " w[2] : "")
				printf "; options: dlsched %s\n", target
				printf "%s", fill(generate(target, "all"), m)
			} else if (kind == "@options-own") {
				target = cmd " " w[2]
				printf "; options: dlsched %s\n", target
				printf "%s", fill(generate(target, "own"), m)
			} else {
				# dlsched(1): the options every command shares
				first = generate(cmd (n > 1 ? " " w[2] : ""), "common")
				tags = "dlsched" (cmd ? " " cmd : "") (n > 1 ? " " w[2] : "")
				for (k = 3; k <= n; k++) {
					if (generate(cmd " " w[k], "common") != first)
						fail("common options of " w[2] " and " w[k] " differ")
					tags = tags ", dlsched " cmd " " w[k]
				}
				printf "; options: %s\n", tags
				printf "%s", fill(first, m)
			}
			print "; end of options"
			# the list ends with a blank line already
			if (src[i + 1] == "") i++
			continue
		}
		if (l ~ /^@--[a-z]/) {
			# skip the block read in pass 1
			while (i + 1 <= nsrc && (src[i + 1] ~ /^\t/ || (src[i + 1] == "" && src[i + 2] ~ /^\t/)))
				i++
			# and the blank line after it
			if (src[i + 1] == "") i++
			continue
		}
		print l
	}
	for (key in owner)
		if (!(key in used)) {
			split(key, part, SUBSEP)
			fail("prose for " part[2] " which the list of " marker[part[1]] " does not have")
		}
}' "$PAGE"
