# t_report.sh: dlsched report on small hand-computed results files (every number in the
# goldens is checked by hand in testdata/report/NOTE), its formats, errors, and the HTML
# page in real headless Chromium.
R=$TESTDATA/report
ALL="$R/fifo.csv $R/las.csv $R/stuck.csv $R/srtf.jsonl"

# ---- metrics (CSV is the exact numbers) ----
run report_csv 0 "dl report --allow-unequal -b fifo --gpus 4 $ALL"
# fifo: JCTs 100 140 330 330 -> avg 225, nearest-rank median 140, p90 330; makespan 360
# first feedback (start - submit) 0 90 130 320 -> avg 135, p95 320; no rho/comm columns: empty
expect_eq report_fifo_row "fifo,4,4,225,140,330,330,330,360,135,320,0.7013888888888888,0,0,0.335828837526265,1,1,0,,135,320,,,,,,," \
	"$(grep '^fifo,' out)"
# las: JCTs 10 50 110 280 -> avg 112.5, speedup 225/112.5 = 2, makespan 360/300 = 1.2
# first feedback 0 0 40 0 -> avg 10 (below the avg wait 12.5: job 1 waited again after its start)
expect_eq report_las_row "las,4,4,112.5,50,280,280,280,300,12.5,40,0.8416666666666667,0.25,0.25,0.9792069632495165,2,1.2,0,,10,40,,,,,,," \
	"$(grep '^las,' out)"
# a label with no finished jobs: counted, empty metrics, no division by zero
expect_eq report_stuck_row "stuck,2,0,,,,,,,,,,0,0,,,,0,,,,,,,,,," "$(grep '^stuck,' out)"
expect report_stuck_warns "grep -q \"label 'stuck' has no finished jobs\" err"
run report_json 0 "dl report --allow-unequal -f json -b fifo --gpus 4 $ALL"
run report_text 0 "dl report --allow-unequal -f text -b fifo --gpus 4 $ALL"
run report_markdown 0 "dl report --allow-unequal -f markdown -b fifo --gpus 4 $ALL"
run report_by_gpus 0 "dl report --by gpus -b fifo $R/fifo.csv $R/las.csv"
run report_by_duration 0 "dl report -f text --by duration $R/fifo.csv $R/las.csv"
# one job in each duration class and each GPU class: rows are the jobs themselves
run report_by_duration4 0 "dl report --by duration $R/gittins.csv"
expect_eq report_by_duration4_classes "all:57940:14485:1260:48260:48460:2370
<10min:60:60:60:60:60:0
10min-1h:1260:1260:1260:1260:1260:60
1h-10h:8360:8360:8360:8360:8360:1160
>=10h:48260:48260:48260:48260:48260:8260" \
	"$(cols class,avg_jct,finished,median_jct,p90_jct,makespan,avg_queue_delay out |
		awk -F, 'NR > 1 {print $1 ":" $2 * $3 ":" $2 ":" $4 ":" $5 ":" $6 ":" $7}')"
run report_by_gpus4 0 "dl report --by gpus $R/gittins.csv | cols class,jobs,preemptions_per_job,migrations_per_job"
expect_eq report_by_gpus4_classes "class,jobs,preemptions_per_job,migrations_per_job
all,4,0.5,0.75
1,1,0,0
2-4,1,0,0
5-8,1,2,0
>8,1,0,3" "$(cat out)"
# fairness, first feedback and communication (placed.csv, by hand in testdata/report/NOTE):
# rho 1 1.25 6 1.65 -> avg 2.475, p95 (rank 4 of 4) = max = 6, Jain 9.9^2 / (4 * 41.285);
# first feedback 0 0 10 80 160 -> avg 50, p95 160; comm 0 12.5 0 50 -> 62.5 total, 15.625
# a job; GPU share (2*12.5 + 4*50) / (100 + 2*62.5 + 10 + 4*250) = 225 / 1235
run report_fairness 0 "dl report --allow-unequal $R/placed.csv $R/fifo.csv | cols label,avg_first_feedback.."
expect_eq report_fairness_rows "label,avg_first_feedback,p95_first_feedback,avg_rho,p95_rho,max_rho,jain_rho,total_comm_overhead,avg_comm_overhead,comm_share
placed,50,160,2.475,6,6,0.5934964272738283,62.5,15.625,0.18218623481781376
fifo,135,320,,,,,,," "$(cat out)"
# per class: 1 GPU (jobs 1, 4): rho 1 6 -> Jain 49 / 74; 2-4 GPUs (2, 3, 5): rho 1.25 1.65
# -> Jain 8.41 / 8.57, comm 62.5 over 2*62.5 + 4*250 GPU-s = 0.2; >8: only a rejected job
run report_fairness_by 0 "dl report --by gpus $R/placed.csv | cols class,avg_first_feedback.."
expect_eq report_fairness_by_rows "class,avg_first_feedback,p95_first_feedback,avg_rho,p95_rho,max_rho,jain_rho,total_comm_overhead,avg_comm_overhead,comm_share
all,50,160,2.475,6,6,0.5934964272738283,62.5,15.625,0.18218623481781376
1,5,10,3.5,6,6,0.6621621621621622,0,0,0
2-4,80,160,1.45,1.65,1.65,0.9813302217036173,62.5,31.25,0.2
>8,,,,,,,,," "$(cat out)"
run report_fairness_json 0 "dl report --allow-unequal -f json $R/placed.csv $R/fifo.csv"
expect report_fairness_json_null "grep -q '\"avg_rho\":2.475,' out && grep -q '\"label\":\"fifo\".*\"avg_rho\":null,\"p95_rho\":null,\"max_rho\":null,\"jain_rho\":null,\"total_comm_overhead\":null,\"avg_comm_overhead\":null,\"comm_share\":null}' out"
# the tables show the columns when a label has them, "-" (not 0) for a label without
run report_fairness_text 0 "dl report --allow-unequal -f text $R/placed.csv $R/fifo.csv"
run report_fairness_markdown 0 "dl report --allow-unequal -f markdown $R/placed.csv $R/fifo.csv"
# straight from simulate (JSON Lines): one 8-GPU job spread over two nodes, alone: rho is
# its slowdown, all of its time beyond 100 s is communication, 50.998817 of 150.998817 s
run report_from_simulate 0 "dl simulate -f json --cluster 1x2x8 --place spread --policy fifo $TESTDATA/simulate/spread.csv | dl report -f json"
expect report_from_simulate_metrics "grep -q '\"avg_first_feedback\":0,\"p95_first_feedback\":0,\"avg_rho\":1.509988,\"p95_rho\":1.509988,\"max_rho\":1.509988,\"jain_rho\":1,\"total_comm_overhead\":50.998817,\"avg_comm_overhead\":50.998817,\"comm_share\":0.3377431559612' out"
# older results alone: no rho or comm column in the table at all
run report_old_text 0 "dl report -f text $R/fifo.csv"
expect report_old_text_no_rho "grep -q 'first feedback' out && ! grep -q 'rho\|comm' out"
run report_timeline 0 "dl report --gpus 8 -t $R/fifo.timeline.csv $R/fifo.csv $R/las.csv"
# utilisation from the timeline: 1010 GPU-s over 360 s on 8 GPUs
expect_eq report_timeline_util "0.3506944444444444" "$(cols label,utilization out | awk -F, '$1 == "fifo" {print $2}')"

# labels: --label in input order, file name without a policy column, stdin
run report_labels 0 "dl report -l A -l B $R/fifo.csv $R/las.csv | cols label..avg_jct"
expect_eq report_labels_out "label,jobs,finished,avg_jct
A,4,4,225
B,4,4,112.5" "$(cat out)"
run report_stdin 0 "dl report < $R/stuck.csv | cols label..finished"
expect_eq report_stdin_label "stdin,2,0" "$(tail -1 out)"
# two inputs under one label: an error unless both are named so on purpose; then a job
# id twice in the label is an error too (the same file twice), disjoint ids pool
run report_same_label 2 "dl report $R/fifo.csv $R/fifo.csv"
expect report_same_label_says "grep -q \"both have label 'fifo': give each a --label\" err"
run report_same_label_dup_ids 1 "dl report -l x -l x $R/fifo.csv $R/fifo.csv"
expect report_dup_id_line "grep -q \"fifo.csv:2: job id '1' appears twice under label 'x' (first at .*fifo.csv:2)\" err"
head -3 $R/fifo.csv > part1.csv
{ head -1 $R/fifo.csv; tail -n +4 $R/fifo.csv; } > part2.csv
run report_pooled 0 "dl report -l fifo -l fifo part1.csv part2.csv | cols label..avg_jct"
expect_eq report_pooled_rows "fifo,4,4,225" "$(tail -1 out)"
# UTF-8 labels line up by characters, not bytes
printf 'id,submit,gpus,duration,start,end,policy\n1,0,1,5,0,5,\303\251t\303\251\n2,0,1,5,0,7,ab\n' > utf8.csv
run report_text_utf8 0 "dl report --allow-unequal -f text utf8.csv"
# the format follows -o's suffix; -o writes atomically
run report_o_md 0 "dl report -o r.md $R/fifo.csv && head -1 r.md"
expect report_o_md_is_md "grep -q '^| label ' r.md"
run report_o_fail 1 "dl report -o bad.html $R/fifo.csv /nonexistent.csv"
expect report_o_fail_no_file "! test -e bad.html"

# ---- bad input and usage ----
: > empty.csv
printf 'id,submit,gpus,duration,start,end\n' > header.csv
printf 'id,submit,gpus,start,end\n1,0,1,0,5\n' > nodur.csv
printf 'id,submit,gpus,duration,start,end\n1,0,1,5,0,5\n2,0,two,5,0,5\n' > badgpus.csv
# a night without jobs: a header only is a label without jobs, not an error, and so is
# 0 bytes (a stream without rows, as JSON Lines writes one; dlsched-formats(5), EMPTY INPUT)
run report_header_only 0 "dl report header.csv | cols label..finished,dropped,dropped_reasons"
expect_eq report_header_only_row "header,0,0,0," "$(tail -1 out)"
run report_empty 0 "dl report empty.csv | cols label..finished,dropped,dropped_reasons"
expect_eq report_empty_row "empty,0,0,0," "$(tail -1 out)"
run report_err_missing 1 "dl report nodur.csv"
run report_err_value 1 "dl report badgpus.csv"
printf '{"id":1,"submit":0,"gpus":1,"duration":5,"start":0,"end":5}\n{"id":2,"gpus":1,"duration":5,"start":0,"end":5}\n' > nosubmit.jsonl
run report_err_row_missing 1 "dl report nosubmit.jsonl"
printf 'id,submit,gpus,duration,start,end\n1,0,1,5,0,5\n2,0,1,5\n' > short.csv
run report_err_short_row 1 "dl report short.csv"
run report_err_baseline 2 "dl report -b nope $R/fifo.csv $R/las.csv"
run report_err_by 2 "dl report --by size $R/fifo.csv"
run report_err_format 2 "dl report -f pdf $R/fifo.csv"
run report_err_labels 2 "dl report -l a -l b $R/fifo.csv"
run report_err_gpus 2 "dl report --gpus 0 $R/fifo.csv"
printf 'time,busy_gpus,running,pending\n0,1,1,0\n9,2,1,0\n3,0,0,0\n' > back.csv
run report_err_timeline 1 "dl report -t back.csv $R/fifo.csv"

run report_err_cluster 2 "dl report --cluster 0x1x4 $R/fifo.csv"
expect report_err_cluster_says "grep -q '0x1x4' err"
# on a terminal the default is the aligned text table (script(1) gives a pty)
if command -v script > /dev/null; then
	run report_tty_text 0 "script -qec 'TERM=dumb $DLSCHED report $R/fifo.csv' /dev/null"
	expect report_tty_is_text "grep -q '^label  jobs  finished' out"
else
	skip report_tty_text "script(1) not installed"
fi
run report_o_json 0 "dl report -o r.jsonl $R/fifo.csv && head -c 18 r.jsonl"
expect_eq report_o_json_is_json '{"label":"fifo","j' "$(cat out)"

# --cluster takes the GPU count of any cluster SPEC (1 rack x 1 node x 4 GPUs = 4)
run report_cluster 0 "dl report --cluster 1x1x4:v100 $R/fifo.csv | cols utilization"
expect_eq report_cluster_util "0.7013888888888888" "$(tail -1 out)"

# ---- HTML ----
run report_html 0 "dl report --allow-unequal -o page.html --title 'Nightly <test> & co' --date 2026-11-21 -b fifo --gpus 4 -t $R/fifo.timeline.csv $ALL"
expect report_html_self_contained "! grep -Eq '<script|https?://[^\" ]*\\.(js|css|woff)|@import|<link ' page.html"
expect report_html_title_escaped "grep -q '<h1>Nightly &lt;test&gt; &amp; co</h1>' page.html"
expect_with xmllint report_html_xml "xmllint --noout page.html" libxml2-utils
# and valid HTML: HTML Tidy finds neither errors nor warnings (exit 0)
expect_with tidy report_html_tidy "tidy -e -q page.html"
# one JCT CDF path per label with finished jobs (fifo, las, srtf; stuck has none)
expect_eq report_html_cdf_paths 3 "$(grep -o 'class="cdf-jct"' page.html | wc -l)"
# the same page on standard output, apart from the command line in the footer
run report_html_same 0 "dl report --allow-unequal -f html --title 'Nightly <test> & co' --date 2026-11-21 -b fifo --gpus 4 -t $R/fifo.timeline.csv $ALL | grep -v 'id=\"command\"' > a.html && grep -v 'id=\"command\"' page.html | cmp - a.html"
expect report_html_same_command "grep -qF '<code id=\"command\">dlsched report --allow-unequal -o page.html --title &#39;Nightly &lt;test&gt; &amp; co&#39; --date 2026-11-21 -b fifo' page.html"
# results without rho (older files): the first-feedback CDF, no rho chart, no rho column
expect report_html_old_results "grep -q 'id=\"feedback-cdf\"' page.html && ! grep -q 'rho-cdf\|max rho' page.html"
run report_html_fairness 0 "dl report --allow-unequal -f html $R/placed.csv $R/fifo.csv > fair.html"
expect report_html_fairness_parts "grep -q 'id=\"rho-cdf\"' fair.html && grep -q '<th>max rho</th>' fair.html && grep -q 'fifo <em>(no rho column)</em>' fair.html && grep -q '<td>18.2%</td>' fair.html"
command -v xmllint > /dev/null && expect report_html_fairness_xml "xmllint --noout fair.html"
# a label that is not valid UTF-8 or holds markup still gives well-formed XML
printf 'id,submit,gpus,duration,start,end,policy\n1,0,1,5,0,5,"a\377<b>&""\001"\n' > weird.csv
run report_html_weird 0 "dl report -f html weird.csv > weird.html"
command -v xmllint > /dev/null && expect report_html_weird_xml "xmllint --noout weird.html"

# Real headless Chromium: screenshot (not blank, the series' colours drawn) and DOM dump.
CHROME=$(command -v chromium || command -v chromium-browser)
if ! heavy; then
	: # the browser check does not depend on the sanitizer build
elif [ -z "$CHROME" ]; then
	skip report_html_chromium "chromium not installed"
else
	chrome() {
		rm -rf "$SCRATCH/profile"
		timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic \
			--no-first-run --disable-background-networking --disable-component-update \
			--disable-sync --user-data-dir="$SCRATCH/profile" --window-size=1280,1600 "$@" \
			2> chrome.err
	}
	chrome --screenshot="$SCRATCH/page.png" "file://$SCRATCH/page.html" > /dev/null
	expect report_html_png "test -s page.png"
	chrome --dump-dom "file://$SCRATCH/page.html" > dom.html
	expect_eq report_html_dom_cdf 3 "$(grep -o 'class="cdf-jct"' dom.html | wc -l)"
	expect report_html_dom_labels "grep -q 'data-label=\"fifo\"' dom.html && grep -q 'data-label=\"las\"' dom.html && grep -q 'data-label=\"srtf\"' dom.html"
	# the PNG: decoded here (zlib + PNG filters) to count pixels of each series colour
	cat > pngstat.py << 'EOF'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        assert depth == 8 and ctype in (2, 6) and interlace == 0, "unexpected PNG kind"
        bpp = 3 if ctype == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw, stride = zlib.decompress(idat), w * bpp
prev, rows, i = bytearray(stride), [], 0
for y in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b, c = prev[x], prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line))
    prev = line
counts = {}
for line in rows:
    for x in range(0, stride, bpp):
        px = line[x:x + 3]
        counts[px] = counts.get(px, 0) + 1
bg = max(counts, key=counts.get)
want = [bytes.fromhex(c) for c in sys.argv[2:]]
print(w, h, len(counts), w * h - counts[bg], *[counts.get(c, 0) for c in want])
EOF
	if [ -s page.png ]; then
		# width height colours non-background-pixels fifo-blue las-pink (colours follow
		# the label's name: las is #cc79a7 on every page)
		expect report_html_color_by_name "grep -q 'data-label=\"las\" stroke=\"#cc79a7\"' page.html && grep -q 'data-label=\"fifo\" stroke=\"#0072b2\"' page.html"
		set -- $(python3 pngstat.py page.png 0072b2 cc79a7)
		expect report_png_size "[ '$1' -ge 800 ] && [ '$2' -ge 600 ]"
		expect report_png_not_blank "[ '$3' -ge 50 ] && [ '$4' -ge 20000 ]"
		expect report_png_series_drawn "[ '$5' -ge 500 ] && [ '$6' -ge 500 ]"
	fi
	# the nightly page's parts, as the browser builds them: Slurm's real schedule, jobs
	# left out, the --by table, the slowdown CDF, tooltips on bars and points, dashed
	# series, human units, and the provenance footer
	dl trace import -q --provenance --from sacct "$TESTDATA/trace/sacct_real_sample.psv" > real.jobs.csv
	dl simulate -q --provenance --cluster 1x1x4 --policy fifo --timeline real.fifo.tl.csv real.jobs.csv > real.fifo.csv
	dl simulate -q --provenance --cluster 1x1x4 --policy tiresias-las --timeline real.las.tl.csv real.jobs.csv > real.las.csv
	run report_html_nightly 0 "dl report --allow-unequal -o nightly.html --gpus 4 --by gpus --window arrivals -b 'as run' --as-run real.jobs.csv -l fifo -l tiresias-las -l rejected -t real.las.tl.csv -t fifo=real.fifo.tl.csv real.fifo.csv real.las.csv $R/rejected.csv"
	chrome --screenshot="$SCRATCH/nightly.png" "file://$SCRATCH/nightly.html" > /dev/null
	chrome --dump-dom "file://$SCRATCH/nightly.html" > ndom.html
	expect_eq report_html_dom_slowdown 4 "$(grep -o 'class="cdf-slowdown"' ndom.html | wc -l)"
	expect report_html_dom_by_table "grep -q '<table id=\"by-class-table\">' ndom.html && grep -q '<h2>By GPU count</h2>' ndom.html"
	expect report_html_dom_dropped "grep -q \"rejected</td><td>3</td><td class=\\\"s w\\\">1 needs more GPUs than the cluster has; 2 unknown GPU type 'a100'</td>\" ndom.html"
	expect report_html_dom_asrun "grep -q 'class=\"tl-util\" data-label=\"as run\"' ndom.html && grep -q 'baseline as run' ndom.html"
	expect report_html_dom_bar_title "grep -q '<rect class=\"bar\" data-label=\"fifo\"[^>]*><title>fifo: average JCT 4.43 s (2.35x) = 4.42857143 s over 14 finished jobs</title></rect>' ndom.html"
	# median, p90, p99 on each of 3 CDFs for 4 labels (3 with finished jobs each... all 4)
	expect report_html_dom_points "[ \$(grep -o '<path class=\"pt\"[^>]*><title>' ndom.html | wc -l) -ge 36 ] && grep -q '<title>as run: median JCT 10 s (10 s), 7 of 14 jobs</title>' ndom.html"
	expect report_html_dom_dashes "grep -q 'class=\"cdf-jct\" data-label=\"tiresias-las\" stroke=\"#d55e00\" stroke-dasharray=\"7 4\"' ndom.html"
	expect report_html_dom_human "grep -q '<td title=\"10.4285714 s\">10.4 s</td>' ndom.html"
	expect report_html_dom_footer "grep -q '<span id=\"version\">dlsched ' ndom.html && grep -q '<code id=\"command\">dlsched report --allow-unequal -o nightly.html' ndom.html && grep -q '<td class=\"s\">as run</td><td class=\"s\">real.jobs.csv</td><td>' ndom.html"
	expect report_html_dom_made_by "grep -q '<table id=\"made-by\">' ndom.html && grep -q '<tr><td class=\"s\">fifo, tiresias-las, as run</td><td class=\"s\"><code>dlsched trace import -q --provenance --from sacct [^<]*/sacct_real_sample.psv</code></td><td>-</td></tr>' ndom.html && grep -q '<tr><td class=\"s\">tiresias-las</td><td class=\"s\"><code>dlsched simulate -q --provenance --cluster 1x1x4 --policy tiresias-las --timeline real.las.tl.csv real.jobs.csv</code></td><td>1</td></tr>' ndom.html"
	expect report_html_dom_window "grep -q 'window: all jobs; utilisation from the first to the last arrival' ndom.html"
	# time to first feedback for every label; rho only where the results have the column
	expect_eq report_html_dom_feedback 4 "$(grep -o 'class="cdf-feedback"' ndom.html | wc -l)"
	expect_eq report_html_dom_rho 2 "$(grep -o 'class="cdf-rho"' ndom.html | wc -l)"
	expect report_html_dom_rho_absent "[ \$(grep -o '(no rho column)' ndom.html | wc -l) -eq 2 ] && grep -q 'rejected <em>(no rho column)</em>' ndom.html"
	expect report_html_dom_rho_points "grep -q '<svg[^>]*id=\"rho-cdf\"' ndom.html && grep -q '<title>fifo: median rho [0-9.]*, [0-9]* of 14 jobs</title>' ndom.html && grep -q '<th>max rho</th>' ndom.html"

	if [ -s nightly.png ]; then
		# the dashed orange tiresias-las and the markers/bars of the third label drawn
		third=$(grep -o 'data-label="rejected" stroke="#[0-9a-f]*"' ndom.html | head -1 | sed 's/.*#//; s/"//')
		set -- $(python3 pngstat.py nightly.png 0072b2 d55e00 "${third:-000000}")
		expect report_png_nightly "[ '$4' -ge 20000 ] && [ '$5' -ge 300 ] && [ '$6' -ge 300 ] && [ '$7' -ge 100 ]"
	fi
fi
