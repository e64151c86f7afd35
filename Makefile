# dlsched: one hand-written, non-recursive GNU Makefile (see README.md).
#
#   make                 build ./dlsched (C11, -Werror) from build/libdlsched.a + cmd/
#   make deps            install the Debian packages the build and tests need (tests/deps.d)
#   make deps-build      install only those the build needs (what make demo installs)
#   make check           unit + CLI tests, then again under ASan+UBSan; ends "N passed, N failed"
#   make demo            install the build's packages, run the main job on a bundled example
#   make bench           benchmarks with ratios against baselines measured in the same run
#   make bench-grid      Gavel's figure as a sweep (240 runs, -j 2): its wall time, agnostic/aware JCT per rate
#   make install         PREFIX=/usr/local DESTDIR= : binary, dlsched-CMD symlinks, man, completions, examples
#   make deb             build/dlsched_VERSION_ARCH.deb (dpkg-deb, dpkg-shlibdeps: apt-get install dpkg-dev)
#   make fuzz            libFuzzer targets (clang), FUZZ_TIME seconds each
#   make format-check    clang-format --dry-run -Werror on all C sources

VERSION_BASE := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
GIT_REV := $(shell git rev-parse --short HEAD 2>/dev/null)
VERSION ?= $(VERSION_BASE)$(if $(GIT_REV),+g$(GIT_REV))

CC ?= cc
O ?= build
CFLAGS ?= -O2 -g
PKG_CONFIG ?= pkg-config
ZLIB_CFLAGS ?= $(shell $(PKG_CONFIG) --cflags zlib 2>/dev/null)
ZLIB_LIBS ?= $(shell $(PKG_CONFIG) --libs zlib 2>/dev/null || echo -lz)
JANSSON_CFLAGS ?= $(shell $(PKG_CONFIG) --cflags jansson 2>/dev/null)
JANSSON_LIBS ?= $(shell $(PKG_CONFIG) --libs jansson 2>/dev/null || echo -ljansson)
CSV_LIBS ?= -lcsv
GLPK_LIBS ?= -lglpk
LIBS = $(CSV_LIBS) $(GLPK_LIBS) $(JANSSON_LIBS) $(ZLIB_LIBS) -lm -pthread

WARN = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wpointer-arith -Wundef \
       -Wno-missing-field-initializers
DL_CFLAGS = -std=c11 -D_GNU_SOURCE -pthread $(WARN) -Ilib -Icmd -I$(O)/gen \
	    $(ZLIB_CFLAGS) $(JANSSON_CFLAGS) -MMD -MP
ifdef SANITIZE
DL_CFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_LDFLAGS = -fsanitize=address,undefined
endif

LIB_SRCS := $(sort $(wildcard lib/*/*.c))
CMD_SRCS := $(sort $(wildcard cmd/*.c))
CMD_MODULES := $(filter-out cmd/main.c cmd/options.c,$(CMD_SRCS))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(O)/%.o)
CMD_OBJS := $(CMD_SRCS:%.c=$(O)/%.o)
UNIT_BINS := $(UNIT_SRCS:%.c=$(O)/%)
MAN_SRCS := $(sort $(wildcard man/*.scd))
MAN_PAGES := $(MAN_SRCS:man/%.scd=$(O)/man/%)

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share
DOCDIR ?= $(DATADIR)/doc/dlsched
BASH_COMPLETIONDIR ?= $(DATADIR)/bash-completion/completions
ZSH_COMPLETIONDIR ?= $(DATADIR)/zsh/site-functions
FISH_COMPLETIONDIR ?= $(DATADIR)/fish/vendor_completions.d
EXAMPLES := $(sort $(wildcard man/examples/*))

ifeq ($(V),1)
Q =
else
Q = @
endif

.PHONY: all deps deps-build check test check-asan unit cli demo bench bench-grid install uninstall deb man completions \
	fuzz fuzz-build format format-check clean
.DELETE_ON_ERROR:

all: dlsched

dlsched: $(O)/dlsched
	$(Q)ln -sf $(O)/dlsched dlsched

$(O)/gen/commands.h: $(CMD_MODULES) Makefile
	@mkdir -p $(dir $@)
	$(Q)sed -n 's/^DL_COMMAND(\([a-z_][a-z0-9_]*\), *\(".*"\))[ ]*$$/DL_CMD(\1, \2)/p' \
		$(CMD_MODULES) | LC_ALL=C sort > $@.tmp && mv $@.tmp $@

$(O)/cmd/main.o: $(O)/gen/commands.h
$(O)/cmd/main.o: DL_CFLAGS += -DDLSCHED_VERSION='"$(VERSION)"'

# the version for pages that name it (report's footer); rewritten only when it changes
$(O)/gen/version.h: FORCE
	@mkdir -p $(dir $@)
	$(Q)echo '#define DLSCHED_VERSION "$(VERSION)"' > $@.tmp && \
		{ cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@; }
$(O)/cmd/report.o $(O)/cmd/main.o: $(O)/gen/version.h
.PHONY: FORCE

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(CFLAGS) $(DL_CFLAGS) -c -o $@ $<

$(O)/libdlsched.a: $(LIB_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^

$(O)/dlsched: $(CMD_OBJS) $(O)/libdlsched.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $(SAN_LDFLAGS) -o $@ $(CMD_OBJS) $(O)/libdlsched.a $(LIBS)

$(O)/tests/unit/%: tests/unit/%.c tests/unit/tap.h $(O)/libdlsched.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(DL_CFLAGS) -Itests/unit $(SAN_LDFLAGS) -o $@ $< $(UNIT_EXTRA) $(O)/libdlsched.a $(LIBS)

# the option parser itself (cmd/options.c), with tables as a lib/ part would declare them
$(O)/tests/unit/test_options: $(O)/cmd/options.o
$(O)/tests/unit/test_options: UNIT_EXTRA = $(O)/cmd/options.o

$(O)/tests/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(O)/libdlsched.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(DL_CFLAGS) $(SAN_LDFLAGS) -Itests/fuzz -o $@ $< tests/fuzz/replay.c $(O)/libdlsched.a $(LIBS)

# tools the benchmarks run (tests/bench/*.c), built against the library
BENCH_TOOL_SRCS := $(sort $(wildcard tests/bench/*.c))
BENCH_TOOLS := $(BENCH_TOOL_SRCS:%.c=$(O)/%)

$(O)/tests/bench/%: tests/bench/%.c $(O)/libdlsched.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(DL_CFLAGS) $(SAN_LDFLAGS) -o $@ $< $(O)/libdlsched.a $(LIBS)

FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_REPLAYS := $(FUZZ_SRCS:tests/fuzz/fuzz_%.c=$(O)/tests/fuzz/replay_%)

build-tests: $(O)/dlsched $(UNIT_BINS) $(FUZZ_REPLAYS) $(BENCH_TOOLS)

# ---- documentation and completions ----

# The OPTIONS sections come from the binary's option tables (man/splice.sh), so a page
# cannot drift from the parser; the spliced source stays beside the page for t_docs.
# Like the completions, both are written under a name of their own ($$$$, the shell's pid)
# and renamed into place, so that a make install beside a make check copies whole pages.
$(O)/man/%: man/%.scd man/splice.sh $(O)/dlsched
	@mkdir -p $(dir $@)
	$(Q)sh man/splice.sh $(O)/dlsched $< > $@.scd.$$$$ && mv -f $@.scd.$$$$ $@.scd && \
		scdoc < $@.scd > $@.$$$$ && mv -f $@.$$$$ $@

# dlsched-formats(5) is its head plus one fragment per stream (man/formats/*.scd),
# so each command documents its own stream without editing a shared file.
FORMAT_PARTS := $(sort $(wildcard man/formats/*.scd))
$(O)/man/dlsched-formats.5: man/dlsched-formats.5.scd $(FORMAT_PARTS)
	@mkdir -p $(dir $@)
	$(Q)cat $^ | scdoc > $@.$$$$ && mv -f $@.$$$$ $@

man: $(MAN_PAGES)

# one run of gen.sh writes the three files, each renamed into place (a `make install`
# beside a `make check` never copies half a file), and only when the binary or gen.sh changed
COMPLETIONS := $(O)/completions/dlsched.bash $(O)/completions/_dlsched $(O)/completions/dlsched.fish
$(COMPLETIONS) &: $(O)/dlsched completions/gen.sh
	$(Q)sh completions/gen.sh $(O)/dlsched $(O)/completions

completions: $(COMPLETIONS)

# ---- tests ----

# `make check`: install what is missing, build, test the normal build, then an
# ASan+UBSan build, plus a clang -Werror compile; one summary line at the end.
check: deps
	$(Q)$(MAKE) --no-print-directory test-all

test-all:
	$(Q)$(MAKE) --no-print-directory build-tests man completions dlsched
	$(Q)$(MAKE) --no-print-directory O=build/asan SANITIZE=1 CFLAGS="-O1 -g" build-tests
	$(Q)$(MAKE) --no-print-directory O=build/clang CC=clang build/clang/dlsched
	$(Q)sh tests/run.sh --build build --build build/asan

test: build-tests man completions
	$(Q)sh tests/run.sh --build $(O)

# the build in parallel on every core, unless make was given its own -j
demo: deps-build
	$(Q)$(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 1)) dlsched
	$(Q)sh tests/demo.sh ./dlsched

bench: dlsched $(BENCH_TOOLS)
	$(Q)DLSCHED_BUILD=$(abspath $(O)) sh tests/bench/run.sh ./dlsched

bench-grid: dlsched
	$(Q)sh tests/bench/gavel_grid.sh ./dlsched

deps:
	$(Q)sh tests/deps.sh test

deps-build:
	$(Q)sh tests/deps.sh build

fuzz-build:
	$(Q)$(MAKE) --no-print-directory O=build/fuzz CC=clang CFLAGS="-O1 -g -fsanitize=fuzzer-no-link" SANITIZE=1 build/fuzz/libdlsched.a
	$(Q)for f in $(FUZZ_SRCS); do n=$$(basename $$f .c); \
		clang -O1 -g -fsanitize=fuzzer,address,undefined -std=c11 -D_GNU_SOURCE -Ilib -Itests/fuzz \
			-o build/fuzz/$$n $$f build/fuzz/libdlsched.a $(LIBS) || exit 1; done

FUZZ_TIME ?= 30
fuzz: fuzz-build
	$(Q)for f in $(FUZZ_SRCS); do n=$$(basename $$f .c); c=tests/fuzz/corpus/$${n#fuzz_}; \
		mkdir -p build/fuzz/corpus-$$n; \
		build/fuzz/$$n -max_total_time=$(FUZZ_TIME) -artifact_prefix=build/fuzz/ build/fuzz/corpus-$$n $$c || exit 1; done

format:
	$(Q)clang-format -i $(LIB_SRCS) $(wildcard lib/*/*.h) $(CMD_SRCS) cmd/*.h

format-check:
	$(Q)clang-format --dry-run -Werror $(LIB_SRCS) $(wildcard lib/*/*.h) $(CMD_SRCS) cmd/*.h

# ---- install ----

# bash-completion loads a completion when its command is first completed, from the file of
# that name: each dlsched-CMD link gets a link to the one file.
install: $(O)/dlsched man completions
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(BASH_COMPLETIONDIR) $(DESTDIR)$(ZSH_COMPLETIONDIR) $(DESTDIR)$(FISH_COMPLETIONDIR) \
		$(DESTDIR)$(DOCDIR)/examples
	install -m 755 $(O)/dlsched $(DESTDIR)$(BINDIR)/dlsched
	for c in $$($(O)/dlsched --list-commands); do [ "$$c" = help ] || { \
		ln -sf dlsched $(DESTDIR)$(BINDIR)/dlsched-$$c; \
		ln -sf dlsched $(DESTDIR)$(BASH_COMPLETIONDIR)/dlsched-$$c; }; done
	for p in $(MAN_PAGES); do case $$p in *.5) d=man5;; *) d=man1;; esac; \
		install -m 644 $$p $(DESTDIR)$(MANDIR)/$$d/; done
	install -m 644 $(O)/completions/dlsched.bash $(DESTDIR)$(BASH_COMPLETIONDIR)/dlsched
	install -m 644 $(O)/completions/_dlsched $(DESTDIR)$(ZSH_COMPLETIONDIR)/_dlsched
	install -m 644 $(O)/completions/dlsched.fish $(DESTDIR)$(FISH_COMPLETIONDIR)/dlsched.fish
	install -m 644 $(EXAMPLES) $(DESTDIR)$(DOCDIR)/examples/

# ---- Debian package ----

# make deb: $(O)/dlsched_VERSION_ARCH.deb with Debian's own tools, from a staged `make install
# PREFIX=/usr` (zsh's vendor path) of a build of its own, $(O)/deb-build, with Debian's
# hardening flags (dpkg-buildflags, bindnow too): the binary stripped, the man pages
# gzipped, a copyright file (man/copyright), a changelog, md5sums, Depends computed by
# dpkg-shlibdeps from the binary's shared libraries (it wants a debian/control, written
# beside the stage), and root:root ownership from dpkg-deb itself. The maintainer is
# "$DEBFULLNAME <$DEBEMAIL>" as for Debian's own tools, else the author of the last commit.
DEB_VERSION := $(subst -,.,$(VERSION))
DEB_ARCH = $(shell dpkg --print-architecture 2>/dev/null)
DEB = $(O)/dlsched_$(DEB_VERSION)_$(DEB_ARCH).deb
DEB_MAINTAINER ?= $(if $(DEBEMAIL),$(DEBFULLNAME) <$(DEBEMAIL)>,$(shell git log -1 --format='%an <%ae>' 2>/dev/null))
define DEB_DESCRIPTION
GPU-cluster scheduling for deep learning, from the terminal
 dlsched is one binary with composable subcommands that read and write CSV or
 JSON Lines: it profiles model files for tensor-size skew, imports Slurm
 accounting and published cluster traces or generates synthetic workloads,
 orders job queues, places jobs on a cluster topology, solves
 heterogeneity-aware GPU allocations as linear programs, simulates whole
 clusters under published policies (Tiresias, Gandiva, Gavel, Themis, Dally)
 and reports the results as tables or a self-contained HTML page.
 .
 /usr/share/doc/dlsched/examples has a nightly what-if page from Slurm's
 accounting as a crontab line and as a systemd service and timer.
endef
export DEB_DESCRIPTION

deb:
	@for t in dpkg-deb dpkg-shlibdeps dpkg-buildflags; do command -v $$t > /dev/null || \
		{ echo "make deb: $$t not found (apt-get install dpkg-dev)" >&2; exit 1; }; done
	@[ -n '$(DEB_MAINTAINER)' ] || { echo "make deb: no maintainer: set DEBFULLNAME and DEBEMAIL" >&2; exit 1; }
	$(Q)rm -rf $(O)/deb && mkdir -p $(O)/deb/debian $(O)/deb/root/DEBIAN
	$(Q)export DEB_BUILD_MAINT_OPTIONS=hardening=+all && umask 022 && \
		$(MAKE) --no-print-directory -s install O=$(O)/deb-build PREFIX=/usr \
		CFLAGS="$$(dpkg-buildflags --get CFLAGS) $$(dpkg-buildflags --get CPPFLAGS)" \
		LDFLAGS="$$(dpkg-buildflags --get LDFLAGS)" \
		ZSH_COMPLETIONDIR=/usr/share/zsh/vendor-completions DESTDIR=$(abspath $(O)/deb/root) > /dev/null
	$(Q)cd $(O)/deb/root && umask 022 && \
		strip --remove-section=.comment --remove-section=.note --strip-unneeded usr/bin/dlsched && \
		gzip -9n usr/share/man/man*/* && \
		install -m 644 $(CURDIR)/man/copyright usr/share/doc/dlsched/copyright && \
		printf 'dlsched (%s) unstable; urgency=medium\n\n  * Built by make deb from the source tree.\n\n -- %s  %s\n' \
			'$(DEB_VERSION)' '$(DEB_MAINTAINER)' "$$(git log -1 --format=%aD 2> /dev/null || date -R)" | \
			gzip -9n > usr/share/doc/dlsched/changelog.gz && \
		chmod -R u+rwX,go=rX . && \
		find usr -type f | LC_ALL=C sort | xargs md5sum > DEBIAN/md5sums
	$(Q)printf 'Source: dlsched\nMaintainer: %s\n\nPackage: dlsched\nArchitecture: any\nDescription: %s\n' \
		'$(DEB_MAINTAINER)' "$$DEB_DESCRIPTION" > $(O)/deb/debian/control
	$(Q)cd $(O)/deb && depends=$$(dpkg-shlibdeps -O root/usr/bin/dlsched | sed -n 's/^shlibs:Depends=//p') && \
		[ -n "$$depends" ] && \
		printf 'Package: dlsched\nVersion: %s\nArchitecture: %s\nMaintainer: %s\nInstalled-Size: %s\nDepends: %s\nSection: science\nPriority: optional\nDescription: %s\n' \
			'$(DEB_VERSION)' '$(DEB_ARCH)' '$(DEB_MAINTAINER)' "$$(du -sk --exclude=DEBIAN root | cut -f1)" \
			"$$depends" "$$DEB_DESCRIPTION" > root/DEBIAN/control
	$(Q)dpkg-deb --root-owner-group -Zxz --build $(O)/deb/root $(DEB) > /dev/null
	@echo "$(DEB)"

clean:
	rm -rf build dlsched

-include $(LIB_OBJS:.o=.d) $(CMD_OBJS:.o=.d)
