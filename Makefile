# Thin driver over CMake.  `make demo` and `make test` do all set-up on a
# fresh Debian 12 machine (tools/bootstrap installs what is missing).
BUILD ?= build
PREFIX ?= /usr/local
CMAKE_FLAGS ?=

.PHONY: build demo test check-tsan bench bench-durable install clean bootstrap configure crashtest

build: configure
	cmake --build $(BUILD)

bootstrap:
	@tools/bootstrap

configure: bootstrap
	@if [ ! -f $(BUILD)/build.ninja ]; then \
	  cmake -S . -B $(BUILD) -G Ninja -DCMAKE_C_COMPILER=clang-16 \
	    -DCMAKE_CXX_COMPILER=clang++-16 -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS); \
	fi

demo: build
	@tools/demo

test: build
	@tools/run-tests $(BUILD)

# Every multi-thread run test under ThreadSanitizer (test/tsan; `make test`
# runs the few of test/tsan/quick.txt).  DEVELOPERS.md, "ThreadSanitizer".
check-tsan: build
	@tools/run-tests $(BUILD) --param tsan=all --filter 'amber :: tsan/'

bench: build
	@bench/run

# Durable transactions per second on a file on this machine's disk: amber
# (AMBER_PM=msync), PMDK and SQLite side by side (bench/README.md).
bench-durable: build
	@bench/durable --build $(BUILD)

# Full crash enumeration of every workload (ADR and eADR models), then every
# planted bug (quick walks, a full walk for a site they miss; a planted run
# stops at its first violation).  Prints the figures of docs/crashtest.md;
# exits non-zero on any violation or uncaught planted bug.
crashtest: build
	@tools/crashtest --build $(BUILD) --full --eadr; full=$$?; \
	tools/crashtest --build $(BUILD) --quick --plant all; plant=$$?; \
	[ $$full = 0 ] && [ $$plant = 0 ]

install: build
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null
	cmake --build $(BUILD)
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD)
