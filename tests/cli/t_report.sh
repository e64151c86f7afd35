# t_report.sh: dlsched report on small hand-computed results files (every number in the
# goldens is checked by hand in testdata/report/NOTE), its formats, errors, and the HTML
# page in real headless Chromium.
R=$TESTDATA/report
ALL="$R/fifo.csv $R/las.csv $R/stuck.csv $R/srtf.jsonl"

# ---- metrics (CSV is the exact numbers) ----
run report_csv 0 "dl report -b fifo --gpus 4 $ALL"
# fifo: JCTs 100 140 330 330 -> avg 225, nearest-rank median 140, p90 330; makespan 360
expect_eq report_fifo_row "fifo,4,4,225,140,330,330,330,360,135,320,0.7013888888888888,0,0,0.335828837526265,1,1" \
	"$(grep '^fifo,' out)"
# las: JCTs 10 50 110 280 -> avg 112.5, speedup 225/112.5 = 2, makespan 360/300 = 1.2
expect_eq report_las_row "las,4,4,112.5,50,280,280,280,300,12.5,40,0.8416666666666667,0.25,0.25,0.9792069632495165,2,1.2" \
	"$(grep '^las,' out)"
# a label with no finished jobs: counted, empty metrics, no division by zero
expect_eq report_stuck_row "stuck,2,0,,,,,,,,,,0,0,,," "$(grep '^stuck,' out)"
expect report_stuck_warns "grep -q \"label 'stuck' has no finished jobs\" err"
run report_json 0 "dl report -f json -b fifo --gpus 4 $ALL"
run report_text 0 "dl report -f text -b fifo --gpus 4 $ALL"
run report_markdown 0 "dl report -f markdown -b fifo --gpus 4 $ALL"
run report_by_gpus 0 "dl report --by gpus -b fifo $R/fifo.csv $R/las.csv"
run report_by_duration 0 "dl report -f text --by duration $R/fifo.csv $R/las.csv"
# one job in each duration class and each GPU class: rows are the jobs themselves
run report_by_duration4 0 "dl report --by duration $R/gittins.csv"
expect_eq report_by_duration4_classes "all:57940:14485:1260:48260:48460:2370
<10min:60:60:60:60:60:0
10min-1h:1260:1260:1260:1260:1260:60
1h-10h:8360:8360:8360:8360:8360:1160
>=10h:48260:48260:48260:48260:48260:8260" \
	"$(awk -F, 'NR > 1 {print $2 ":" $5 * $4 ":" $5 ":" $6 ":" $7 ":" $10 ":" $11}' out)"
run report_by_gpus4 0 "dl report --by gpus $R/gittins.csv | cut -d, -f2,3,14,15"
expect_eq report_by_gpus4_classes "class,jobs,preemptions_per_job,migrations_per_job
all,4,0.5,0.75
1,1,0,0
2-4,1,0,0
5-8,1,2,0
>8,1,0,3" "$(cat out)"
run report_timeline 0 "dl report --gpus 8 -t $R/fifo.timeline.csv $R/fifo.csv $R/las.csv"
# utilisation from the timeline: 1010 GPU-s over 360 s on 8 GPUs
expect_eq report_timeline_util "0.3506944444444444" "$(awk -F, '$1 == "fifo" {print $12}' out)"

# labels: --label in input order, file name without a policy column, stdin
run report_labels 0 "dl report -l A -l B $R/fifo.csv $R/las.csv | cut -d, -f1-4"
expect_eq report_labels_out "label,jobs,finished,avg_jct
A,4,4,225
B,4,4,112.5" "$(cat out)"
run report_stdin 0 "dl report < $R/stuck.csv | cut -d, -f1-3"
expect_eq report_stdin_label "stdin,2,0" "$(tail -1 out)"
run report_pooled 0 "dl report $R/fifo.csv $R/fifo.csv | cut -d, -f1-4"
expect_eq report_pooled_rows "fifo,8,8,225" "$(tail -1 out)"
# UTF-8 labels line up by characters, not bytes
printf 'id,submit,gpus,duration,start,end,policy\n1,0,1,5,0,5,\303\251t\303\251\n2,0,1,5,0,7,ab\n' > utf8.csv
run report_text_utf8 0 "dl report -f text utf8.csv"
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
run report_err_empty 1 "dl report empty.csv"
run report_err_header 1 "dl report header.csv"
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
run report_cluster 0 "dl report --cluster 1x1x4:v100 $R/fifo.csv | cut -d, -f12"
expect_eq report_cluster_util "0.7013888888888888" "$(tail -1 out)"

# ---- HTML ----
run report_html 0 "dl report -o page.html --title 'Nightly <test> & co' --date 2026-11-21 -b fifo --gpus 4 -t $R/fifo.timeline.csv $ALL"
expect report_html_self_contained "! grep -Eq '<script|https?://[^\" ]*\\.(js|css|woff)|@import|<link ' page.html"
expect report_html_title_escaped "grep -q '<h1>Nightly &lt;test&gt; &amp; co</h1>' page.html"
if command -v xmllint > /dev/null; then
	expect report_html_xml "xmllint --noout page.html"
else
	skip report_html_xml "xmllint not installed (libxml2-utils)"
fi
# and valid HTML: HTML Tidy finds neither errors nor warnings (exit 0)
if command -v tidy > /dev/null; then
	expect report_html_tidy "tidy -e -q page.html"
else
	skip report_html_tidy "tidy not installed"
fi
# one JCT CDF path per label with finished jobs (fifo, las, srtf; stuck has none)
expect_eq report_html_cdf_paths 3 "$(grep -o 'class="cdf-jct"' page.html | wc -l)"
run report_html_same 0 "dl report -f html --title 'Nightly <test> & co' --date 2026-11-21 -b fifo --gpus 4 -t $R/fifo.timeline.csv $ALL | cmp - page.html"
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
		# width height colours non-background-pixels fifo-blue las-orange
		set -- $(python3 pngstat.py page.png 0072b2 d55e00)
		expect report_png_size "[ '$1' -ge 800 ] && [ '$2' -ge 600 ]"
		expect report_png_not_blank "[ '$3' -ge 50 ] && [ '$4' -ge 20000 ]"
		expect report_png_series_drawn "[ '$5' -ge 500 ] && [ '$6' -ge 500 ]"
	fi
fi
