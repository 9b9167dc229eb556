# tunectl - evidence-gated tuning controller.
#
#   make                 build build/tunectl, build/libtunectl.a and the demo workloads
#                        (the GPU one, build/examples/gskw, only where nvcc is found)
#   make check           build and run every test (unit + CLI); last line "N passed, N failed"
#   make check SANITIZE=1  the same under ASan+UBSan (build in build/san)
#   make check VALGRIND=1  CLI tests run the binary under valgrind (build in
#                        build/valgrind, linked with a shared libc)
#   make demo            run tunectl's main job end to end
#   make check-browser   render a demo's HTML report in headless Chromium
#   make fuzz            run the libFuzzer targets for FUZZ_SECONDS each (clang;
#                        FUZZ_TARGETS=fuzz_report_html runs only those named)
#   make stress          the long hardening suite (crash, races, faults, fuzz)
#   make install PREFIX=/usr/local   (DESTDIR= honoured): the binary, the
#                        library, its headers and tunectl.pc for pkg-config
#
# Sources are discovered: every src/<module>/*.c is part of the library
# except src/cli/, which is the command-line program on top of it.  Every
# tests/unit/test_*.c becomes one cmocka test binary.

PREFIX   ?= /usr/local
CC       ?= cc
AR       ?= ar
SANITIZE ?= 0
VALGRIND ?= 0
FUZZ_SECONDS ?= 30
FUZZ_TARGETS ?=

ifeq ($(SANITIZE),1)
BUILD    ?= build/san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
else ifeq ($(VALGRIND),1)
# valgrind finds malloc only in a dynamically linked libc (STATIC below)
BUILD    ?= build/valgrind
SANFLAGS :=
else
BUILD    ?= build
SANFLAGS :=
endif

VERSION  := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
VERSION_PARTS := $(subst ., ,$(VERSION))

WARN     := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
            -Wmissing-prototypes -Wformat=2 -Wvla -Wpointer-arith \
            -Wundef -Wcast-align -Wwrite-strings -Wnull-dereference \
            -Wimplicit-fallthrough -Werror
OPT      ?= -O2 -g
CPPFLAGS += -Iinclude -I$(BUILD)/include -D_GNU_SOURCE -DTUNECTL_VERSION='"$(VERSION)"'
CFLAGS   += -std=c17 $(OPT) $(WARN) $(SANFLAGS) -MMD -MP
LDFLAGS  += $(SANFLAGS)
# The library's dependencies (what a program linking libtunectl.a names).
DEP_LIBS := -lsodium -lyaml -lgmp -lm
# tunectl's own programs link libsodium, libyaml and GMP from
# their static archives where the -dev packages ship them (Debian's do):
# the dynamic loader then maps and relocates none of them, which was most
# of the start-up cost of a controller command.  libsodium signs and
# verifies Ed25519 (src/attest/).  SHA-256 is tunectl's own
# (src/util/sha256_core.c): libcrypto's ran its CPU probe before main in
# every command.
# STATIC_DEPS=0, or an archive that is not there, links the shared
# library instead.  Expanded when a link runs, after "deps" has installed
# the packages.
STATIC_DEPS ?= 1
dep_lib   = $(or $(if $(filter 1,$(STATIC_DEPS)),$(filter /%,$(shell $(CC) -print-file-name=lib$(1).a))),-l$(1))
LIBS      = $(call dep_lib,sodium) $(call dep_lib,yaml) $(call dep_lib,gmp) -lm
# Hardening, for every object and program: stack protector, stack clash
# probes, _FORTIFY_SOURCE (3 where gcc has it, from gcc 12; not with the
# sanitizers, which replace the same functions, nor at -O0, where glibc
# refuses it), position-independent code, and full RELRO with BIND_NOW.
FORTIFY_LEVEL := $(shell $(CC) -dumpversion 2>/dev/null | awk -F. '{ print ($$1 >= 12) ? 3 : 2 }')
FORTIFY  := $(if $(filter 1,$(SANITIZE)),,$(if $(filter -O0,$(OPT)),,-U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=$(FORTIFY_LEVEL)))
HARDEN_CFLAGS := -fPIE -fstack-protector-strong -fstack-clash-protection $(FORTIFY)
HARDEN_LDFLAGS := -Wl,-z,relro,-z,now
CFLAGS   += $(HARDEN_CFLAGS)
LDFLAGS  += $(HARDEN_LDFLAGS)
# tunectl itself is a static PIE: libc, libm and the static dependencies
# linked in, and the program relocating itself at start (addresses
# randomised, libc's included).  Measured against the alternatives
# (docs/hardening.md, "The binary"): a static PIE costs what its
# relocations cost (about 4 100 since keys are libsodium's; 20 700, almost
# all libcrypto's ASN.1, provider and encoder tables, while attest used
# OpenSSL's EVP and PEM functions), a dynamic PIE adds the loader (mapping
# and binding libc, libm, libcrypto, ...) and starts 2-5x slower.
# hardening-check cannot see the stack protector or fortified calls of a
# static program (it looks for them among the undefined dynamic symbols);
# tests/cli/test_hardening.sh checks those from the symbol table instead.
# STATIC=0 links a dynamic PIE (VALGRIND=1 builds do: valgrind replaces
# malloc in a shared libc only; sanitizer builds always do); PIE=0 links
# the old fully static, position-dependent executable (no address
# randomisation of its code and data).
PIE ?= 1
STATIC ?= $(if $(filter 1,$(VALGRIND)),0,1)
EXE_LDFLAGS := $(if $(filter 1,$(SANITIZE)),-pie,$(if $(filter 0,$(PIE)),-no-pie $(if $(filter 1,$(STATIC)),-static),$(if $(filter 1,$(STATIC)),-static-pie,-pie)))
# The code a controller command runs, tunectl's functions (each object is
# built with -ffunction-sections) and libc's members, is gathered at the
# front of tunectl's text by scripts/startup-order.ld (generated by
# scripts/startup-order.py): the kernel faults code in 64 KiB at a time,
# and verify's code then takes 6 windows instead of about 23
# (docs/hardening.md, "Start-up, 2026-12-07").  Placement only.
CFLAGS   += -ffunction-sections
START_ORDER := scripts/startup-order.ld

# The compile and link flags of the last build in $(BUILD): every object
# and program depends on this file, which changes only when the flags do,
# so a change of flags (these, OPT=, STATIC=) rebuilds what they affect.
FLAGS_FILE := $(BUILD)/flags.txt
FLAGS_LINE := $(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $(EXE_LDFLAGS)
ifneq ($(FLAGS_LINE),$(file <$(FLAGS_FILE)))
$(shell mkdir -p $(BUILD))
$(file >$(FLAGS_FILE),$(FLAGS_LINE))
endif

LIB_SRCS := $(sort $(filter-out src/cli/%,$(wildcard src/*/*.c)))
CLI_SRCS := $(sort $(wildcard src/cli/*.c))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_HELPERS := $(sort $(filter-out tests/unit/test_%,$(wildcard tests/unit/*.c)))

LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
UNIT_HELPER_OBJS := $(UNIT_HELPERS:%.c=$(BUILD)/obj/%.o)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)

LIBTUNECTL := $(BUILD)/libtunectl.a
TUNECTL    := $(BUILD)/tunectl
# <tunectl/version.h>, made from VERSION; <tunectl/tunectl.h> includes it.
VERSION_H  := $(BUILD)/include/tunectl/version.h

# Test hooks (fault points, the PyPTO clock override) exist only in test
# builds.  The few files that have them (#ifdef TUNECTL_TEST_HOOKS) are
# compiled a second time with the hooks into a test copy of the library;
# the unit tests link it, and so does tunectl-test, the binary the crash
# tests drive.  The production library and binary have none.
HOOK_SRCS  := $(shell grep -l 'ifdef TUNECTL_TEST_HOOKS' $(LIB_SRCS))
HOOK_OBJS  := $(HOOK_SRCS:%.c=$(BUILD)/obj-hooks/%.o)
TEST_LIBTUNECTL := $(BUILD)/libtunectl-test.a
TEST_TUNECTL    := $(BUILD)/tunectl-test
# The demo workload (examples/workload): a real CPU program tuned by the demo.
SKW        := $(BUILD)/examples/skw
# Both workloads write msprof's files with examples/msprof (--msprof-out).
MSP_OBJS   := $(patsubst %.c,$(BUILD)/obj/%.o,$(sort $(wildcard examples/msprof/*.c)))
SKW_OBJS   := $(patsubst %.c,$(BUILD)/obj/%.o,$(sort $(wildcard examples/workload/*.c))) $(MSP_OBJS)

# The GPU demo workload (examples/gpu-workload): its host side is C, built
# and unit-tested everywhere (linked with a simulated device as
# build/tests/gskw-sim for the tests); its kernels and CUDA runtime calls
# are .cu files, and build/examples/gskw is built only where nvcc is found.
CUDA_HOME  ?= /usr/local/cuda
NVCC       ?= $(or $(shell command -v nvcc 2>/dev/null),$(wildcard $(CUDA_HOME)/bin/nvcc))
# sm_90 code for H100/H200, PTX that the driver compiles for other GPUs.
NVCC_GENCODE ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_75,code=compute_75
NVCCFLAGS  ?= -std=c++17 -O2 -g -lineinfo -Werror all-warnings \
              -Xcompiler -Wall,-Wextra,-Werror $(NVCC_GENCODE)
CUDA_LIBS  := -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread -lstdc++
GSKW_DIR   := examples/gpu-workload
GSKW       := $(BUILD)/examples/gskw
GSKW_SIM   := $(BUILD)/tests/gskw-sim
GSKW_MAIN_OBJ := $(BUILD)/obj/$(GSKW_DIR)/gskw_main.o
GSKW_HOST_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(sort $(filter-out \
              $(GSKW_DIR)/gskw_main.c,$(wildcard $(GSKW_DIR)/*.c)))) $(MSP_OBJS)
GSKW_CU_OBJS := $(patsubst %.cu,$(BUILD)/obj/%.o,$(sort $(wildcard $(GSKW_DIR)/*.cu)))
GSKW_SIM_OBJ := $(BUILD)/obj/tests/fixtures/gpu-sim/gskw_sim.o
ifneq ($(NVCC),)
GPU_WORKLOAD := $(GSKW)
else
GPU_WORKLOAD := gpu-workload-skipped
endif
# Unit tests that link more than the library: UNIT_EXTRA_<test name>.
UNIT_EXTRA_test_gskw := $(GSKW_HOST_OBJS) $(GSKW_SIM_OBJ)
# The SHA-256 test holds tunectl's own digest to libcrypto's.
UNIT_EXTRA_test_sha256 := -lcrypto

# Keep test objects: they are intermediates of a pattern chain.
.SECONDARY:

.PHONY: all deps check unit-tests test-hooks demo fuzz install clean bench check-browser stress \
	gpu-workload-skipped

all: deps $(TUNECTL) $(LIBTUNECTL) $(SKW) $(GPU_WORKLOAD) $(VERSION_H)

gpu-workload-skipped:
	@echo "make: nvcc not found (PATH, $(CUDA_HOME)/bin): skipping the GPU workload ($(GSKW_DIR))"

# Installs missing Debian packages (as root) or says which to install.
deps:
	@scripts/deps.sh $(if $(filter check,$(MAKECMDGOALS)),check,build)

$(BUILD)/obj/%.o: %.c $(FLAGS_FILE) | deps $(VERSION_H)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/%.o: %.cu | deps
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj-hooks/%.o: %.c $(FLAGS_FILE) | deps $(VERSION_H)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DTUNECTL_TEST_HOOKS $(CFLAGS) -c $< -o $@

$(VERSION_H): VERSION
	@mkdir -p $(dir $@)
	@printf '%s\n' '/* version.h - made by the Makefile from VERSION; do not edit. */' \
	    '#ifndef TUNECTL_VERSION_H' '#define TUNECTL_VERSION_H' '' \
	    '#define TUNECTL_VERSION_MAJOR $(word 1,$(VERSION_PARTS))' \
	    '#define TUNECTL_VERSION_MINOR $(word 2,$(VERSION_PARTS))' \
	    '#define TUNECTL_VERSION_PATCH $(word 3,$(VERSION_PARTS))' \
	    '#define TUNECTL_VERSION_STRING "$(VERSION)"' '' '#endif' > $@

$(LIBTUNECTL): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(TEST_LIBTUNECTL): $(filter-out $(HOOK_SRCS:%.c=$(BUILD)/obj/%.o),$(LIB_OBJS)) $(HOOK_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(TUNECTL): $(CLI_OBJS) $(LIBTUNECTL) $(FLAGS_FILE) $(START_ORDER)
	$(CC) $(LDFLAGS) $(EXE_LDFLAGS) -Wl,-T,$(START_ORDER) -o $@ $(CLI_OBJS) $(LIBTUNECTL) $(LIBS)

$(TEST_TUNECTL): $(CLI_OBJS) $(TEST_LIBTUNECTL)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJS) $(TEST_LIBTUNECTL) $(LIBS)

test-hooks: $(TEST_TUNECTL) $(TEST_LIBTUNECTL)

$(SKW): $(SKW_OBJS) $(LIBTUNECTL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(SKW_OBJS) $(LIBTUNECTL) $(LIBS) -lpthread

$(GSKW): $(GSKW_MAIN_OBJ) $(GSKW_HOST_OBJS) $(GSKW_CU_OBJS) $(LIBTUNECTL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(GSKW_MAIN_OBJ) $(GSKW_HOST_OBJS) $(GSKW_CU_OBJS) \
	    $(LIBTUNECTL) $(LIBS) $(CUDA_LIBS)

$(GSKW_SIM): $(GSKW_MAIN_OBJ) $(GSKW_HOST_OBJS) $(GSKW_SIM_OBJ) $(LIBTUNECTL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(UNIT_HELPER_OBJS) $(TEST_LIBTUNECTL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(UNIT_EXTRA_$*) $(UNIT_HELPER_OBJS) $(TEST_LIBTUNECTL) $(LIBS) -lcmocka

$(BUILD)/tests/test_gskw: $(UNIT_EXTRA_test_gskw)

unit-tests: $(UNIT_BINS) $(GSKW_SIM)

check: all unit-tests test-hooks
	@scripts/deps.sh check
	@BUILD=$(BUILD) VALGRIND=$(VALGRIND) SANITIZE=$(SANITIZE) tests/run.sh

# The build runs on every CPU unless make was given -j already (objects
# wait for deps, so the packages are in place before anything compiles).
DEMO_JOBS = $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 2))

demo:
	@$(MAKE) --no-print-directory $(DEMO_JOBS) all
	@scripts/demo.sh $(TUNECTL)

# Renders a demo's HTML report in headless Chromium (installs chromium).
check-browser: all
	@scripts/deps.sh browser
	@scripts/check-browser.sh $(TUNECTL)

bench: all
	@for b in bench/*.sh; do echo "== $$b"; BUILD=$(BUILD) $$b || exit 1; done

fuzz:
	@scripts/deps.sh fuzz
	@FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh $(FUZZ_TARGETS)

# The long hardening suite: every kill point, long races, fuzzing.
stress: all unit-tests test-hooks
	@BUILD=$(BUILD) scripts/stress.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib \
	    $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	    $(DESTDIR)$(PREFIX)/include/tunectl $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/tunectl $(DESTDIR)$(PREFIX)/libexec/tunectl
	install -m 0755 $(TUNECTL) $(DESTDIR)$(PREFIX)/bin/tunectl
	install -m 0644 $(LIBTUNECTL) $(DESTDIR)$(PREFIX)/lib/libtunectl.a
	install -m 0644 include/tunectl/*.h $(VERSION_H) $(DESTDIR)$(PREFIX)/include/tunectl/
	@# tunectl.pc names the library's own dependencies in Libs: only the
	@# static library is installed, so a plain "pkg-config --libs" must do.
	@# The headers use POSIX and GNU declarations (struct sigaction, pid_t),
	@# so Cflags asks for them as the library's own build does.
	printf '%s\n' 'prefix=$(PREFIX)' 'exec_prefix=$${prefix}' \
	    'libdir=$${exec_prefix}/lib' 'includedir=$${prefix}/include' '' \
	    'Name: tunectl' 'Description: evidence-gated tuning controller library' \
	    'Version: $(VERSION)' 'Libs: -L$${libdir} -ltunectl $(DEP_LIBS)' \
	    'Cflags: -I$${includedir} -D_GNU_SOURCE' > $(DESTDIR)$(PREFIX)/lib/pkgconfig/tunectl.pc
	install -m 0644 docs/tunectl.1 $(DESTDIR)$(PREFIX)/share/man/man1/tunectl.1
	cp -R share/. $(DESTDIR)$(PREFIX)/share/tunectl/
	# the demo: its workload binary, workers, hosts and example operator
	install -m 0755 $(SKW) $(DESTDIR)$(PREFIX)/libexec/tunectl/skw
	$(if $(filter $(GSKW),$(GPU_WORKLOAD)),install -m 0755 $(GSKW) $(DESTDIR)$(PREFIX)/libexec/tunectl/gskw)
	cp -R examples $(DESTDIR)$(PREFIX)/share/tunectl/

clean:
	rm -rf build

-include $(SKW_OBJS:.o=.d) $(GSKW_MAIN_OBJ:.o=.d) $(GSKW_HOST_OBJS:.o=.d) $(GSKW_CU_OBJS:.o=.d) $(GSKW_SIM_OBJ:.o=.d) $(LIB_OBJS:.o=.d) $(HOOK_OBJS:.o=.d) $(CLI_OBJS:.o=.d) $(UNIT_SRCS:%.c=$(BUILD)/obj/%.d) $(UNIT_HELPER_OBJS:.o=.d)
