/* test_table.c: the CSV and JSON Lines readers and writers, gzip input, atomic output */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "table/table.h"
#include "tap.h"

static char tmpdir[] = "/tmp/dl-test-table-XXXXXX";

static const char *write_tmp(const char *name, const char *data, size_t len)
{
	static char path[256];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	FILE *fp = fopen(path, "wb");
	fwrite(data, 1, len, fp);
	fclose(fp);
	return path;
}

/* read everything: "line:f1|f2;line:..." or "ERR:msg" */
static char *slurp(const char *path, enum dl_in_format fmt)
{
	struct strbuf sb = STRBUF_INIT;
	struct dl_err err = DL_ERR_INIT;
	struct dl_reader *r = dl_reader_open(path, fmt, &err);
	if (!r) {
		sb_addf(&sb, "ERR:%s", err.msg);
		return sb_detach(&sb);
	}
	sb_addstr(&sb, "H:");
	for (size_t i = 0; i < dl_reader_ncols(r); i++)
		sb_addf(&sb, "%s%s", i ? "|" : "", dl_reader_columns(r)[i]);
	struct dl_row row;
	int rc;
	while ((rc = dl_reader_next(r, &row, &err)) > 0) {
		sb_addf(&sb, ";%ld:", row.line);
		for (size_t i = 0; i < row.n; i++)
			sb_addf(&sb, "%s%s", i ? "|" : "", row.f[i]);
	}
	if (rc < 0)
		sb_addf(&sb, ";ERR:%s", err.msg);
	dl_reader_close(r);
	return sb_detach(&sb);
}

/* want with "%s" replaced by the temporary directory */
static char *expand(const char *want)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = strstr(want, "%s");
	if (p) {
		sb_add(&sb, want, (size_t)(p - want));
		sb_addstr(&sb, tmpdir);
		sb_addstr(&sb, p + 2);
	} else {
		sb_addstr(&sb, want);
	}
	return sb_detach(&sb);
}

#define CSV_CASE(name, data, want)                                           \
	do {                                                                 \
		const char *p_ = write_tmp("t.csv", data, sizeof(data) - 1); \
		char *got_ = slurp(p_, DL_IN_AUTO);                          \
		char *want_ = expand(want);                                  \
		is_str(got_, want_, name);                                   \
		free(got_);                                                  \
		free(want_);                                                 \
	} while (0)

static void test_csv(void)
{
	CSV_CASE("plain", "a,b\n1,2\n3,4\n", "H:a|b;2:1|2;3:3|4");
	CSV_CASE("last line without newline", "a,b\n1,2\n3,4", "H:a|b;2:1|2;3:3|4");
	CSV_CASE("CRLF", "a,b\r\n1,2\r\n3,4\r\n", "H:a|b;2:1|2;3:3|4");
	CSV_CASE("BOM",
		 "\xEF\xBB\xBF"
		 "a,b\n1,2\n",
		 "H:a|b;2:1|2");
	CSV_CASE("blank lines keep line numbers", "a,b\n\n1,2\n\n\n3,4\n", "H:a|b;3:1|2;6:3|4");
	CSV_CASE("quoted newline counts lines", "a,b\n\"x\ny\",2\n3,4\n", "H:a|b;2:x\ny|2;4:3|4");
	CSV_CASE("quoted CRLF newline", "a,b\r\n\"x\r\ny\",2\r\n3,4\r\n", "H:a|b;2:x\r\ny|2;4:3|4");
	CSV_CASE("quotes and commas", "a,b\n\"x,\"\"q\"\"\",\"\"\n", "H:a|b;2:x,\"q\"|");
	CSV_CASE("blanks trimmed around unquoted", "a,b\n 1 , 2\n", "H:a|b;2:1|2");
	CSV_CASE("field count mismatch", "a,b\n1,2\n1,2,3\n",
		 "H:a|b;2:1|2;ERR:%s/t.csv:3: expected 2 fields, got 3");
	CSV_CASE("too few fields after CRLF blank", "a,b\r\n\r\n1\r\n",
		 "H:a|b;ERR:%s/t.csv:3: expected 2 fields, got 1");
	CSV_CASE("unterminated quote", "a,b\n1,\"2\n",
		 "H:a|b;ERR:%s/t.csv:2: unterminated quoted field");
	CSV_CASE(
		"bad quote", "a,b\n1,\"2\"x\n",
		"ERR:%s/t.csv:2: malformed CSV (error parsing data while strict checking enabled)");
	CSV_CASE("duplicate column", "a,a\n1,2\n", "ERR:%s/t.csv:1: duplicate column 'a'");
	CSV_CASE("empty input", "", "H:");
	CSV_CASE("line of blanks skipped", "a,b\n1,2\n   \n3,4\n", "H:a|b;2:1|2;4:3|4");
	CSV_CASE("header only", "a,b\n", "H:a|b");
	CSV_CASE("one empty column keeps empty rows", "a\n1\n\"\"\n3\n", "H:a;2:1;3:;4:3");
}

static void test_csv_big(void)
{
	/* rows spanning many 64 KiB chunks keep their line numbers */
	struct strbuf sb = STRBUF_INIT;
	sb_addstr(&sb, "id,text\n");
	for (int i = 0; i < 20000; i++)
		sb_addf(&sb, "%d,\"line %d\nsecond\"\n", i, i);
	sb_addstr(&sb, "x\n");
	const char *p = write_tmp("big.csv", sb.buf, sb.len);
	struct dl_err err = DL_ERR_INIT;
	struct dl_reader *r = dl_reader_open(p, DL_IN_AUTO, &err);
	struct dl_row row;
	int rc, good = 1;
	long n = 0;
	while ((rc = dl_reader_next(r, &row, &err)) > 0) {
		good &= row.line == 2 + 2 * n && atol(row.f[0]) == n;
		n++;
	}
	is_int(n, 20000, "20000 multi-line rows");
	ok(good, "line numbers across chunks");
	is_int(rc, -1, "the last bad row fails");
	char want[256];
	snprintf(want, sizeof(want), "%s/big.csv:40002: expected 2 fields, got 1", tmpdir);
	is_str(err.msg, want, "error line after 40000 lines");
	dl_reader_close(r);
	sb_release(&sb);
}

static void test_json(void)
{
	CSV_CASE("jsonl types", "{\"a\":1,\"b\":\"x\",\"c\":2.5,\"d\":true,\"e\":null}\n",
		 "H:a|b|c|d|e;1:1|x|2.5|true|");
	CSV_CASE("jsonl missing key is empty, blank lines skipped",
		 "{\"a\":1,\"b\":2}\n\n{\"b\":3}\n", "H:a|b;1:1|2;3:|3");
	CSV_CASE("jsonl new key rejected", "{\"a\":1}\n{\"a\":1,\"z\":2}\n",
		 "H:a;1:1;ERR:%s/t.csv:2: key 'z' is not in the first record");
	CSV_CASE("jsonl nested as compact json", "{\"a\":[1,{\"b\":2}]}\n", "H:a;1:[1,{\"b\":2}]");
	CSV_CASE("jsonl not an object", "{\"a\":1}\n[1]\n",
		 "H:a;1:1;ERR:%s/t.csv:2: expected a JSON object per line");
	CSV_CASE("jsonl CRLF and no final newline", "{\"a\":1}\r\n{\"a\":2}", "H:a;1:1;2:2");
	const char bad[] = "{\"a\":1}\n{\"a\":}\n";
	const char *p = write_tmp("t.json", bad, sizeof(bad) - 1);
	char *got = slurp(p, DL_IN_AUTO);
	ok(strstr(got, "t.json:2: bad JSON at column") != NULL, "bad JSON names line: %s", got);
	free(got);
}

static char *write_rows(enum dl_out_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct dl_writer *w = dl_writer_new(fp, fmt);
	const char *cols[] = {"s", "n", "d", "x"};
	dl_writer_set_columns(w, cols, 4);
	dl_writer_str(w, 0, "plain");
	dl_writer_int(w, 1, -3);
	dl_writer_double(w, 2, 0.5);
	dl_writer_auto(w, 3, "12");
	dl_writer_end_row(w);
	dl_writer_str(w, 0, "a,\"b\"\n\x01\xff");
	dl_writer_double(w, 2, NAN);
	dl_writer_auto(w, 3, "12a");
	dl_writer_end_row(w);
	dl_writer_str(w, 0, " edge");
	dl_writer_end_row(w);
	dl_writer_free(w);
	fclose(fp);
	return buf;
}

static void test_writer(void)
{
	char *csv = write_rows(DL_OUT_CSV);
	is_str(csv, "s,n,d,x\nplain,-3,0.5,12\n\"a,\"\"b\"\"\n\x01\xff\",,,12a\n\" edge\",,,\n",
	       "CSV quotes only where needed");
	free(csv);
	char *json = write_rows(DL_OUT_JSON);
	is_str(json,
	       "{\"s\":\"plain\",\"n\":-3,\"d\":0.5,\"x\":12}\n"
	       "{\"s\":\"a,\\\"b\\\"\\n\\u0001\xEF\xBF\xBD\",\"n\":null,\"d\":null,\"x\":\"12a\"}\n"
	       "{\"s\":\" edge\",\"n\":null,\"d\":null,\"x\":null}\n",
	       "JSON escapes, NaN and fields left unset as null, bad UTF-8 as U+FFFD");
	free(json);
	{
		char *b2 = NULL;
		size_t l2 = 0;
		FILE *f2 = open_memstream(&b2, &l2);
		struct dl_writer *w2 = dl_writer_new(f2, DL_OUT_CSV);
		dl_writer_add_column(w2, "t");
		dl_writer_add_column(w2, "u");
		dl_writer_seconds(w2, 0, 1991.802 + 1313.9999999999998);
		dl_writer_seconds(w2, 1, 1e-7);
		dl_writer_end_row(w2);
		dl_writer_free(w2);
		fclose(f2);
		is_str(b2, "t,u\n3305.802,0\n", "seconds are rounded to the microsecond");
		free(b2);
	}
	{
		/*
		 * CSV rows are written as lines while their fields come in column
		 * order; a field set again, out of order, skipped or past the last
		 * column must give what separate fields joined at the end give.
		 */
		char *b3 = NULL;
		size_t l3 = 0;
		FILE *f3 = open_memstream(&b3, &l3);
		struct dl_writer *w3 = dl_writer_new(f3, DL_OUT_CSV);
		const char *c4[] = {"a", "b", "c", "d"};
		dl_writer_set_columns(w3, c4, 4);
		dl_writer_str(w3, 2, "3");
		dl_writer_str(w3, 0, "1");
		dl_writer_str(w3, 3, "x,y");
		dl_writer_end_row(w3);
		dl_writer_str(w3, 0, "p");
		dl_writer_str(w3, 1, "q");
		dl_writer_str(w3, 0, "r");
		dl_writer_end_row(w3);
		dl_writer_str(w3, 1, " s");
		dl_writer_int(w3, 3, 7);
		dl_writer_end_row(w3);
		dl_writer_end_row(w3);
		dl_writer_str(w3, 0, "\"q\"");
		dl_writer_micros(w3, 1, 1500000);
		dl_writer_null(w3, 2);
		dl_writer_str(w3, 1, "b2");
		dl_writer_double(w3, 3, 0.25);
		dl_writer_end_row(w3);
		dl_writer_str(w3, 4, "ignored");
		dl_writer_str(w3, 3, "z");
		dl_writer_end_row(w3);
		dl_writer_free(w3);
		w3 = dl_writer_new(f3, DL_OUT_CSV);
		dl_writer_add_column(w3, "one");
		dl_writer_end_row(w3);
		dl_writer_str(w3, 0, "");
		dl_writer_end_row(w3);
		dl_writer_str(w3, 0, "v");
		dl_writer_end_row(w3);
		dl_writer_free(w3);
		w3 = dl_writer_new(f3, DL_OUT_CSV); /* no columns at all */
		dl_writer_end_row(w3);
		dl_writer_free(w3);
		fclose(f3);
		is_str(b3,
		       "a,b,c,d\n1,,3,\"x,y\"\nr,q,,\n,\" s\",,7\n,,,\n\"\"\"q\"\"\",b2,,0.25\n,,,z\n"
		       "one\n\"\"\n\"\"\nv\n\n\n",
		       "CSV rows filled in any order, set twice, skipped or empty");
		free(b3);
	}
	ok(dl_is_json_number("-1.5e+3") && !dl_is_json_number("01") && !dl_is_json_number("1.") &&
		   !dl_is_json_number("") && !dl_is_json_number("+1"),
	   "JSON number literal detection");
	/* empty result keeps its header */
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct dl_writer *w = dl_writer_new(fp, DL_OUT_CSV);
	dl_writer_add_column(w, "id");
	dl_writer_finish(w);
	dl_writer_free(w);
	fclose(fp);
	is_str(buf, "id\n", "empty CSV output keeps the header");
	free(buf);
}

/* provenance stamps: on the first row only, last or in place of a column of that name */
static char *write_stamped(enum dl_out_format fmt, int rows)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct dl_writer *w = dl_writer_new(fp, fmt);
	dl_writer_stamp(w, "made_by", "dlsched x 'a b'");
	dl_writer_stamp(w, "seed", "7");
	dl_writer_stamp(w, "none", "");
	const char *cols[] = {"id", "seed"};
	dl_writer_set_columns(w, cols, 2); /* after the stamps: they still hold */
	for (int i = 0; i < rows; i++) {
		dl_writer_int(w, 0, i);
		dl_writer_str(w, 1, "old"); /* a pass-through value the stamp replaces */
		dl_writer_end_row(w);
	}
	dl_writer_finish(w);
	dl_writer_free(w);
	fclose(fp);
	return buf;
}

static void test_stamp(void)
{
	char *csv = write_stamped(DL_OUT_CSV, 3);
	is_str(csv, "id,seed,made_by,none\n0,7,dlsched x 'a b',\n1,,,\n2,,,\n",
	       "stamps: first row only, an existing column replaced, new ones last");
	free(csv);
	char *json = write_stamped(DL_OUT_JSON, 2);
	is_str(json,
	       "{\"id\":0,\"seed\":7,\"made_by\":\"dlsched x 'a b'\",\"none\":null}\n"
	       "{\"id\":1,\"seed\":null,\"made_by\":null,\"none\":null}\n",
	       "stamps in JSON Lines: a number as a number, null on the other rows");
	free(json);
	char *empty = write_stamped(DL_OUT_CSV, 0);
	is_str(empty, "id,seed,made_by,none\n", "a stream without rows keeps the stamp columns");
	free(empty);
	struct strbuf sb = STRBUF_INIT;
	char *argv[] = {"--title", "it's a b", "x.csv", "", "a;b", "-o", "/t/p_1.csv"};
	sb_add_command(&sb, "dlsched report", 7, argv);
	is_str(sb.buf, "dlsched report --title 'it'\\''s a b' x.csv '' 'a;b' -o /t/p_1.csv",
	       "command lines quote what sh would split or expand");
	sb_release(&sb);
}

static void test_gzip(void)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/t.csv.gz", tmpdir);
	gzFile gz = gzopen(path, "wb");
	for (int i = 0; i < 1000; i++)
		gzprintf(gz, i ? "%d,%d\n" : "a,b\n", i, i * 2);
	gzclose(gz);
	char *got = slurp(path, DL_IN_AUTO);
	ok(!strncmp(got, "H:a|b;2:1|2;3:2|4", 17), "gzip read transparently");
	free(got);
	/* truncated gzip is an error, not a silent short read */
	FILE *fp = fopen(path, "rb");
	char buf[4096];
	size_t n = fread(buf, 1, sizeof(buf), fp);
	fclose(fp);
	const char *p = write_tmp("trunc.csv.gz", buf, n / 2);
	got = slurp(p, DL_IN_AUTO);
	ok(strstr(got, "ERR:") != NULL, "truncated gzip is an error: %.80s", got);
	free(got);
}

static void test_output(void)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/out.csv", tmpdir);
	struct dl_err err = DL_ERR_INIT;
	struct dl_output *o = dl_output_open(path, &err);
	fputs("partial\n", dl_output_fp(o));
	ok(access(path, F_OK) != 0, "nothing at PATH before commit");
	dl_output_abort(o);
	ok(access(path, F_OK) != 0, "abort leaves no file");
	o = dl_output_open(path, &err);
	fputs("done\n", dl_output_fp(o));
	is_int(dl_output_commit(o, &err), 0, "commit succeeds");
	struct strbuf sb = STRBUF_INIT;
	dl_read_file(path, &sb, &err);
	is_str(sb.buf, "done\n", "committed content");
	sb_release(&sb);
	o = dl_output_open("/nonexistent-dir/x.csv", &err);
	ok(o == NULL && strstr(err.msg, "cannot create '/nonexistent-dir/x.csv'"),
	   "unwritable output is an error: %s", err.msg);
	struct dl_input *in = dl_input_open("/nonexistent-file", &err);
	ok(in == NULL && strstr(err.msg, "cannot open '/nonexistent-file'"), "missing input: %s",
	   err.msg);
}

int main(void)
{
	if (!mkdtemp(tmpdir))
		return 1;
	test_csv();
	test_csv_big();
	test_json();
	test_writer();
	test_stamp();
	test_gzip();
	test_output();
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		ok(0, "cleanup");
	return done_testing();
}
