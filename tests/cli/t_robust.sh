# t_robust.sh: out of memory, bounded memory and no silent guesses (issue 14).
# Every large input is generated here, in $SCRATCH, never committed.

# lim MB: a memory limit for the command that follows it, as each build can enforce one.
# ASan reserves terabytes of address space, so ulimit -v cannot work there: above the
# soft limit its allocator returns NULL (our out-of-memory path, as malloc does under
# ulimit), and above three times that it kills the run, which fails the test as a crash.
if [ "$BUILD_KIND" = asan ]; then
	lim() { printf 'ASAN_OPTIONS=%s:allocator_may_return_null=1:soft_rss_limit_mb=%s:hard_rss_limit_mb=%s ' \
		"$ASAN_OPTIONS" "$1" "$(($1 * 3))"; }
else
	lim() { printf 'ulimit -v %s; ' "$(($1 * 1024))"; }
fi

# one_line NAME ERE: the last run's stderr (less ASan's own notices) is one line matching ERE
one_line() {
	grep -v '^==[0-9]*==' "$SCRATCH/err" > "$SCRATCH/err1"
	if [ "$(wc -l < "$SCRATCH/err1")" -eq 1 ] && grep -Eq -- "$2" "$SCRATCH/err1"; then
		_record PASS "$1"
	else
		_record FAIL "$1" "want one line matching: $2
stderr: $(head -c 800 "$SCRATCH/err")"
	fi
}

# no_output NAME FILE: neither FILE nor a temporary .FILE.tmpXXXXXX is left behind
no_output() {
	expect "$1" "! test -e '$2' && ! ls -a | grep -q '^\\.$2\\.tmp'"
}

# ---- 1. out of memory: one line, exit 1, no file left behind

# a pickle of 5 million objects: more than 150 MB of object graph
python3 -c "
import zipfile
with zipfile.ZipFile('objects.pt', 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('archive/data.pkl', b'\x80\x02' + b'N' * 5000000 + b'.')
    z.writestr('archive/version', b'3\n')
"
run robust_oom_profile 1 "$(lim 150)dl profile -o out.csv objects.pt"
one_line robust_oom_profile_msg '^dlsched profile: out of memory \(allocating [0-9]+ bytes\)$'
no_output robust_oom_profile_no_file out.csv

# trace stats on 100 million rows in a 4 MB gzip (100 gzip members of a million rows)
yes 1,0,1,1 | head -n 1000000 | gzip -1 > million.gz
{
	echo id,submit,gpus,duration | gzip
	i=0
	while [ $i -lt 100 ]; do cat million.gz; i=$((i + 1)); done
} > rows100m.csv.gz
run robust_oom_stats 1 "$(lim 200)dl trace stats -o stats.out rows100m.csv.gz"
one_line robust_oom_stats_msg '^dlsched trace: out of memory \(allocating [0-9]+ bytes\)$'
no_output robust_oom_stats_no_file stats.out

# the zip bomb of the issue: 260 KB whose data.pkl inflates to 256 MB, refused by its size
python3 -c "
import zipfile
with zipfile.ZipFile('bomb.pt', 'w', zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    z.writestr('archive/data.pkl', b'\x80\x02' + b'N' * ((256 << 20) - 3) + b'.')
    z.writestr('archive/version', b'3\n')
"
expect robust_bomb_small '[ "$(wc -c < bomb.pt)" -lt 300000 ]'
run robust_bomb 1 "$(lim 100)dl profile -o out.csv bomb.pt"
one_line robust_bomb_msg "^dlsched profile: bomb.pt: entry 'archive/data.pkl': offset 0: pickle of 268435456 bytes is larger than the limit of 64 MiB for metadata$"
no_output robust_bomb_no_file out.csv

# trace gen without end streams in bounded memory until the pipe closes, then stops quietly:
# killed by SIGPIPE like any filter, or, with SIGPIPE ignored, exit 0 at EPIPE
run robust_gen_endless 0 "{ $(lim 60)timeout 300 dl trace gen --jobs 1000000000000 --rate 10 2> gen.err; echo \$? > gen.rc; } | head -c 5000000 | wc -c"
expect_eq robust_gen_endless_bytes 5000000 "$(tr -d ' ' < "$SCRATCH/out")"
expect robust_gen_endless_sigpipe '[ "$(cat gen.rc)" = 141 ] && ! test -s gen.err'
run robust_gen_endless_ignored 0 "trap '' PIPE; { $(lim 60)timeout 300 dl trace gen --jobs 1000000000000 --rate 10 2> gen.err; echo \$? > gen.rc; } | head -c 1000000 | wc -c"
expect robust_gen_endless_ignored_quiet '[ "$(cat gen.rc)" = 0 ] && ! test -s gen.err'

# ---- 2. memory does not grow with what a command does not need

if heavy; then
	# trace gen: the same peak for 10 thousand and 2 million jobs
	/usr/bin/time -f %M -o small.rss "$DLSCHED" trace gen --jobs 10000 --rate 10 > /dev/null
	/usr/bin/time -f %M -o large.rss "$DLSCHED" trace gen --jobs 2000000 --rate 10 > /dev/null
	expect robust_gen_flat_memory '[ "$(cat large.rss)" -lt "$(( $(cat small.rss) + 2048 ))" ]'
	# trace stats: at most 24 bytes a job (+ the growth slack and the program): 3 million
	# jobs in under 3 MB + 3e6 x 24 x 1.25 bytes = 93 MB (every row in a jobset took 400 MB)
	"$DLSCHED" trace gen --jobs 3000000 --rate 1000 --iid --vcs 5 | gzip -1 > gen3m.csv.gz
	/usr/bin/time -f %M -o stats.rss "$DLSCHED" trace stats gen3m.csv.gz > /dev/null
	expect robust_stats_24_bytes_a_job '[ "$(cat stats.rss)" -lt 93000 ]'
else
	skip robust_gen_flat_memory "peak RSS: normal build only"
fi

# a metadata member larger than it declares: data.pkl says 100 bytes, inflates to 4000
python3 -c "
import zipfile
with zipfile.ZipFile('liar.pt', 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('archive/data.pkl', b'\x80\x02' + b'N' * 3997 + b'.')
b = bytearray(open('liar.pt', 'rb').read())
cd = b.index(b'PK\x01\x02')
b[cd + 24:cd + 28] = (100).to_bytes(4, 'little')
open('liar.pt', 'wb').write(b)
"
run robust_member_outgrows 1 "dl profile liar.pt"
one_line robust_member_outgrows_msg "^dlsched profile: liar.pt: entry 'archive/data.pkl': offset [0-9]+: inflates to more than its declared size of 100 bytes$"

# a shard index JSON over 64 MiB (sparse: nothing is written)
printf '{"weight_map": {' > huge.index.json
truncate -s 70M huge.index.json
run robust_index_json_cap 1 "dl profile huge.index.json"
one_line robust_index_json_cap_msg '^dlsched profile: huge.index.json: JSON of 73400320 bytes is larger than the limit of 64 MiB for metadata$'

# a pickle of more than 4 Mi objects is refused (about 400 MB before it is)
if heavy; then
	python3 -c "
import zipfile
with zipfile.ZipFile('many.pt', 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('archive/data.pkl', b'\x80\x02' + b'N' * 4200000 + b'.')
"
	run robust_pickle_objects 1 "dl profile many.pt"
	one_line robust_pickle_objects_msg "^dlsched profile: many.pt: entry 'archive/data.pkl': offset [0-9]+: pickle with more than 4194304 objects$"
fi

# a CSV field or a JSON line over 64 MiB: an error naming the file and line
{
	echo id,submit,gpus,duration
	echo 1,0,1,5
	printf '"'
	head -c 68000000 /dev/zero | tr '\0' a
	printf '",0,1,5\n'
} > longfield.csv
run robust_row_cap 1 "$(lim 400)timeout 300 dl cat longfield.csv > /dev/null"
one_line robust_row_cap_msg '^dlsched cat: longfield.csv:3: row longer than the limit of 64 MiB$'
{
	printf '{"id":"'
	head -c 68000000 /dev/zero | tr '\0' a
	printf '"}\n'
} > longline.jsonl
run robust_line_cap 1 "$(lim 400)timeout 300 dl cat longline.jsonl > /dev/null"
one_line robust_line_cap_msg '^dlsched cat: longline.jsonl:1: line longer than the limit of 64 MiB$'
# long fields cost linear time: libcsv's 128-byte steps made a 32 MB field quadratic
# (hours); doubling makes it a few seconds even under ASan, well inside the timeout
{
	echo id,submit,gpus,duration
	printf '"'
	head -c 32000000 /dev/zero | tr '\0' b
	printf '",0,1,5\n'
} > field32m.csv
run robust_long_field 0 "timeout 120 dl cat field32m.csv | wc -c"
expect_eq robust_long_field_kept 32000031 "$(tr -d ' ' < "$SCRATCH/out")"
# a header wider than 65536 columns
awk 'BEGIN { for (i = 0; i < 70000; i++) printf "c%d%s", i, (i < 69999 ? "," : "\n") }' > wide.csv
run robust_columns_cap 1 "dl cat wide.csv"
one_line robust_columns_cap_msg '^dlsched cat: wide.csv:1: more than 65536 columns$'

# ---- 3. no silent guesses

run robust_tz_unknown 2 "echo job_id,num_gpu,submit_time,duration | dl trace import --from tiresias --tz Mars/Olympus -"
one_line robust_tz_unknown_msg "^dlsched trace: unknown time zone 'Mars/Olympus' \(not in the tz database at [^)]*, nor a POSIX TZ string such as EST5EDT\); see 'dlsched trace --help'$"
run robust_tz_named 0 "printf 'JobID|JobName|User|Account|Partition|State|Submit|Start|End|Elapsed|AllocTRES\n1|a|u|acct|gpu|COMPLETED|2024-07-01T12:00:00|2024-07-01T12:00:00|2024-07-01T13:00:00|01:00:00|gres/gpu=1\n' | dl trace import --from sacct --keep-epoch --tz Europe/Berlin -"
# noon in Berlin (CEST) is 10:00 UTC: 1719828000
expect robust_tz_named_used "grep -q '^1,1719828000,1,3600' out"
run robust_tz_posix 0 "echo job_id,num_gpu,submit_time,duration | dl trace import --from tiresias --tz 'CET-1CEST,M3.5.0,M10.5.0/3' -"
run robust_tz_path_escape 2 "echo job_id,num_gpu,submit_time,duration | dl trace import --from tiresias --tz ../../../etc/passwd -"

python3 -c "
h = \"{'descr': '<x9', 'fortran_order': False, 'shape': (3,), }\"
h = h + ' ' * (117 - len(h)) + '\n'
open('weird.npy', 'wb').write(b'\x93NUMPY\x01\x00' + len(h).to_bytes(2, 'little') + h.encode() + bytes(27))
"
run robust_npy_dtype 1 "dl profile -o out.csv weird.npy"
one_line robust_npy_dtype_msg "^dlsched profile: weird.npy: offset 10: unknown .npy dtype '<x9'$"
no_output robust_npy_dtype_no_file out.csv

printf 'id,submit,gpus,duration\na,0,1,5\nb,0,1,1e300\n' > huge_duration.csv
run robust_duration_simulate 1 "dl simulate --cluster 1x1x8 -o out.csv huge_duration.csv"
one_line robust_duration_simulate_msg "^dlsched simulate: huge_duration.csv:3: bad duration value '1e\+300': over the maximum of 1e10 seconds \(317 years\)$"
no_output robust_duration_simulate_no_file out.csv
run robust_duration_prioritize 1 "dl prioritize --policy sjf huge_duration.csv"
one_line robust_duration_prioritize_msg "^dlsched prioritize: huge_duration.csv:3: bad duration value '1e300': over the maximum"
run robust_duration_stats 1 "dl trace stats huge_duration.csv"
one_line robust_duration_stats_msg "^dlsched trace: huge_duration.csv:3: bad duration value"
printf 'job_id,num_gpu,submit_time,duration\n1,1,0,5\n2,1,0,1e300\n' > huge_tiresias.csv
run robust_duration_import 1 "dl trace import --from tiresias -o out.csv huge_tiresias.csv"
one_line robust_duration_import_msg "^dlsched trace: huge_tiresias.csv:3: bad duration value '1e\+300': over the maximum"
no_output robust_duration_import_no_file out.csv
# a duration computed by an importer: sacct's end - start over 317 years
printf 'JobID|State|Submit|Start|End|AllocTRES\n1|COMPLETED|1971-01-01T00:00:00|1971-01-01T00:00:00|2299-01-01T00:00:00|gres/gpu=1\n' > long.psv
run robust_duration_import_sacct 1 "dl trace import --from sacct --tz UTC long.psv"
one_line robust_duration_import_sacct_msg "^dlsched trace: long.psv:2: bad (duration|submit) value"

run robust_cluster_zero 2 "dl trace gen --jobs 5 --rate 1 --cluster 0x0x0"
one_line robust_cluster_zero_msg '^dlsched trace: 0x0x0: the cluster has no GPUs$'

printf 'id,submit,gpus,duration\n1,0,1,5\n' | gzip | head -c 30 > cut.csv.gz
printf '\037\213\010\000\000\000\000\000\000\003garbage-data' > corrupt.csv.gz
run robust_gzip_truncated 1 "dl cat cut.csv.gz"
one_line robust_gzip_truncated_msg '^dlsched cat: cut.csv.gz: truncated gzip input$'
run robust_gzip_corrupt 1 "dl trace stats corrupt.csv.gz"
one_line robust_gzip_corrupt_msg '^dlsched trace: corrupt.csv.gz: corrupt gzip data \(.*\)$'
expect robust_gzip_no_fd '! grep -q "<fd:" err'

# ---- -o through names: a descriptor's name is written in place (renaming over
# /dev/stdout once replaced the system's symlink with a file); a symlink stays one
J=$TESTDATA/cat/jobs.csv
run robust_output_fd_name 0 "dl cat -o /proc/self/fd/1 '$J' > via_fd.csv"
expect robust_output_fd_name_written "cmp -s via_fd.csv '$J'"
run robust_output_symlink 0 "echo old > real.csv && ln -s real.csv link.csv && dl cat -o link.csv '$J'"
expect robust_output_symlink_kept "[ -L link.csv ] && cmp -s real.csv '$J' && ! ls -a | grep -q '\\.tmp'"
run robust_output_dangling_symlink 0 "ln -s made.csv dangling.csv && dl cat -o dangling.csv '$J'"
expect robust_output_dangling_symlink_target "[ -L dangling.csv ] && cmp -s made.csv '$J'"

# ---- SIGKILL during a large -o write (issue 31): the old file stays whole and no name is
# left beside it, since the output is an unnamed file (O_TMPFILE) until its commit
mkdir killed && echo old > killed/out.csv
kdir=$(cd killed && pwd -P)
"$DLSCHED" trace gen --jobs 100000000 --rate 100000 -o killed/out.csv 2> /dev/null &
kpid=$!
# poll (a bounded number of times, no clock) until the run has written 4 MB to a file in killed/
big= polls=0
while [ -z "$big" ] && [ $polls -lt 6000 ] && kill -0 $kpid 2> /dev/null; do
	for fd in /proc/$kpid/fd/*; do
		case $(readlink "$fd" 2> /dev/null) in
		"$kdir"/*) [ "$(stat -L -c %s "$fd" 2> /dev/null || echo 0)" -ge 4194304 ] && big=1 ;;
		esac
	done
	[ -n "$big" ] || sleep 0.05
	polls=$((polls + 1))
done
kill -KILL $kpid 2> /dev/null
{ wait $kpid; } 2> /dev/null
expect robust_sigkill_caught_mid_write "[ -n '$big' ]"
expect robust_sigkill_old_output_kept "[ \"\$(cat killed/out.csv)\" = old ]"
expect robust_sigkill_no_name_left "[ \"\$(ls -A killed)\" = out.csv ]"
