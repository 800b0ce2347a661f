# jersey: loss-differentiating TCP congestion control, marking qdiscs, testbed.
#
#   make deps          install toolchain, the Debian kernels of testbed/kernels.txt
#                      (6.1 + 6.12 here, Debian 13's in build/trixie), QEMU, testbed
#   make               build the modules (host kernel if it can load modules,
#                      otherwise every pinned Debian kernel)
#   make KVER=6.1      build for one kernel (a name of testbed/kernels.txt: 6.1,
#                      6.12, trixie-6.12, 7.3; host; or a full ABI name)
#   make all-kernels   build for every kernel of testbed/kernels.txt
#   make tc            the patched tc (iproute2 + cw/vcrr) -> build/tc
#   make install       modules -> /lib/modules/<abi>/extra/jersey/ + depmod, the
#                      patched tc -> /usr/local/sbin/tc (scripts/install.sh)
#   make uninstall     removes both again (install-tc/uninstall-tc: tc only)
#   make dkms-src      module sources + dkms.conf -> /usr/src/jersey-<version>
#   make check         lint (ruff, mypy) + unit tests + builds + in-VM end-to-end tests
#   make demo          fig 5.11 goodput-vs-loss comparison -> out/demo/
#                      (OUT=results/demo regenerates the published one)
#   make bench         every paper scenario (scenarios/*.toml) in the VM, tables,
#                      plots and results/report.md (about two hours under TCG; resumable)
#   make bench-quick   the same in quick mode (a few minutes) -> out/quick/
#   make report        rebuild the tables, plots and report from existing results
#                      (OUT=DIR, default results; REPORT_ARGS="fig5_11 soho")
#   BENCH_ARGS="fig5_11 soho --kernel 6.1" passes options on to python -m testbed run
#   make clean         objects; keeps what make deps put into build/
SHELL := /bin/bash
TOP := $(CURDIR)
PY := $(TOP)/.venv/bin/python
# The pinned Debian kernels, one series a line in testbed/kernels.txt (a line
# more adds a series to every build and to make deps).
PINNED := $(shell $(TOP)/scripts/kernels names)
# Which kernels "make" builds for: KVER if given; else the kernel of KDIR;
# else the running kernel if it can load modules (scripts/kdir names the
# headers package when its build tree is missing); else (a development
# machine whose kernel has no module support) the pinned Debian kernels.
ifneq ($(KVER),)
  KVERS := $(KVER)
else ifneq ($(KDIR),)
  KVERS := kdir
else ifneq ($(wildcard /proc/modules),)
  KVERS := host
else
  KVERS := $(PINNED)
endif
# Objects go to $(BUILDDIR)/<abi>/.  A kernel of another Debian release (env
# in testbed/kernels.txt) is built in that release's system, build/<release>/,
# with its compiler (scripts/debian-env run).
BUILDDIR ?= $(TOP)/build
# Warnings are errors in our own builds (make, make check, CI); not in what
# users build: make install (scripts/install.sh sets WERROR=0) and DKMS,
# whose kbuild runs without it, so that a new compiler warning on a future
# kernel cannot break a user's kernel upgrade.
WERROR ?= 1
# The testbed's own modules (testbed/oracle/: the oracle congestion control)
# are built for the VM tests and experiments, never installed: make install
# (scripts/install.sh) builds with TESTBED_MODULES=0, and DKMS's kbuild
# knows nothing of them (Kbuild).
TESTBED_MODULES ?= 1
# kbuild compiles the modules JOBS at a time (one per CPU), unless make was
# given -j itself (then its jobserver shares them out): make install in a
# two-CPU QEMU guest took five minutes one file at a time.
# (expanded in the recipe: make 4.3 adds -j and its jobserver to MAKEFLAGS
# only after the makefile is read)
JOBS ?= $(shell nproc 2>/dev/null || echo 1)
KBUILD_JOBS = $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(or $(JOBS),1))
# Sources mirrored (as symlinks) into build/<abi>/ so that one checkout builds
# for several kernels without their objects colliding.
SRCDIRS := kmod qdisc testbed/oracle

.PHONY: all modules all-kernels deps check unit lint tc demo bench bench-quick report clean \
	install uninstall install-tc uninstall-tc dkms-src
all modules:
	@set -e; for k in $(KVERS); do $(MAKE) --no-print-directory build-one K=$$k; done

all-kernels:
	@$(MAKE) --no-print-directory modules KVER="$(PINNED)"

.PHONY: build-one
build-one:
	@set -e; read -r abi kdir root < <($(TOP)/scripts/kdir $(K)); out=$(BUILDDIR)/$$abi; \
	mkdir -p $$out; ln -sf $(TOP)/Kbuild $$out/Kbuild; \
	for d in $(SRCDIRS); do \
		mkdir -p $$out/$$d; find $$out/$$d -maxdepth 1 -xtype l -delete; \
		for f in $(TOP)/$$d/*.[ch] $(TOP)/$$d/Kbuild; do \
			[ -e "$$f" ] && ln -sf $$f $$out/$$d/; done; \
	done; \
	where=$$kdir; [ "$$root" = / ] || where="$$kdir in $${root#$(TOP)/}"; \
	echo "  BUILD   $$abi ($$where)"; \
	$(TOP)/scripts/debian-env run --bind $(BUILDDIR) $$root \
		$(MAKE) --no-print-directory $(KBUILD_JOBS) -C $$kdir M=$$out \
		$(if $(filter 1,$(WERROR)),KCFLAGS=-Werror) \
		$(if $(filter 1,$(TESTBED_MODULES)),JERSEY_TESTBED=m) modules

deps:
	@$(TOP)/testbed/deps.sh

tc:
	@$(TOP)/iproute2-patch/build-tc.sh

# Install on a real machine (README "Installing on a host or a gateway");
# variables KVER, KDIR, DESTDIR, INSTALL_MOD_PATH, PREFIX, TC_INSTALL: see
# scripts/install.sh.
install uninstall install-tc uninstall-tc dkms-src:
	@$(TOP)/scripts/install.sh $@

unit:
	@$(MAKE) --no-print-directory -C tests/unit

lint:
	@$(PY) -m ruff check .
	@$(PY) -m ruff format --check .
	@$(PY) -m mypy

# The README's test command.  Ends with pytest's summary line.
check: lint all-kernels tc
	@$(PY) -m pytest -ra --durations=25 tests

# A user's results go to out/ (not tracked); OUT=results/... regenerates the
# published ones.
OUT ?=
demo: tc
	@$(PY) -m testbed demo $(if $(OUT),--out $(OUT))

BENCH_ARGS ?=
bench: all-kernels tc
	@$(PY) -m testbed run --out $(if $(OUT),$(OUT),results) $(BENCH_ARGS)

bench-quick: all-kernels tc
	@$(PY) -m testbed run --profile quick $(if $(OUT),--out $(OUT)) $(BENCH_ARGS)

REPORT_ARGS ?=
report:
	@$(PY) -m testbed report --out $(if $(OUT),$(OUT),results) $(REPORT_ARGS)

# build/<release>/ and build/kernel-<abi>/ are what make deps installed (the
# Debian 13 system and kernel images of scripts/debian-env): kept by clean.
KEEP := ! -name 'kernel-*' $(foreach e,$(shell $(TOP)/scripts/kernels envs),! -name $(e) ! -name $(e).log)
clean:
	find build -mindepth 1 -maxdepth 1 $(KEEP) -exec rm -rf {} + 2>/dev/null || true
	rm -rf tests/unit/build
