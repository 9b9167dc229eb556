# tunectl - evidence-gated tuning controller.
#
#   make                 build build/tunectl and build/libtunectl.a
#   make check           build and run every test (unit + CLI); last line "N passed, N failed"
#   make check SANITIZE=1  the same under ASan+UBSan (build in build/san)
#   make check VALGRIND=1  CLI tests run the binary under valgrind
#   make demo            run tunectl's main job end to end
#   make check-browser   render a demo's HTML report in headless Chromium
#   make fuzz            run the libFuzzer targets for FUZZ_SECONDS each (clang;
#                        FUZZ_TARGETS=fuzz_report_html runs only those named)
#   make stress          the long hardening suite (crash, races, faults, fuzz)
#   make install PREFIX=/usr/local
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
else
BUILD    ?= build
SANFLAGS :=
endif

VERSION  := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

WARN     := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
            -Wmissing-prototypes -Wformat=2 -Wvla -Wpointer-arith \
            -Wundef -Wcast-align -Wwrite-strings -Wnull-dereference \
            -Wimplicit-fallthrough -Werror
OPT      ?= -O2 -g
CPPFLAGS += -Iinclude -D_GNU_SOURCE -DTUNECTL_VERSION='"$(VERSION)"'
CFLAGS   += -std=c17 $(OPT) $(WARN) $(SANFLAGS) -MMD -MP
LDFLAGS  += $(SANFLAGS)
# The library's dependencies (what a program linking libtunectl.a names).
DEP_LIBS := -lcrypto -lyaml -lgmp -lm
# tunectl's own programs link libcrypto, libyaml and GMP from their static
# archives where the -dev packages ship them (Debian's do): the dynamic
# loader then maps and relocates none of them, which was most of the
# start-up cost of a controller command.  STATIC_DEPS=0, or an archive
# that is not there, links the shared library instead.  Expanded when a
# link runs, after "deps" has installed the packages.
STATIC_DEPS ?= 1
dep_lib   = $(or $(if $(filter 1,$(STATIC_DEPS)),$(filter /%,$(shell $(CC) -print-file-name=lib$(1).a))),-l$(1))
LIBS      = $(call dep_lib,crypto) $(call dep_lib,yaml) $(call dep_lib,gmp) -lm
# tunectl itself is a position-dependent executable: a PIE has the
# dynamic loader relocate every pointer in its data at each start (18 000
# with libcrypto's tables), which cost a controller command about as much
# as the rest of its start-up.  The price is a fixed address for the
# program's own code and data (libc, heap and stack stay randomised).
# PIE=1 links a PIE; sanitizer builds always do.
PIE ?= 0
EXE_LDFLAGS := $(if $(filter 1,$(PIE) $(SANITIZE)),,-no-pie)

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
# The demo workload (examples/workload): a real CPU program tuned by the demo.
SKW        := $(BUILD)/examples/skw
SKW_OBJS   := $(patsubst %.c,$(BUILD)/obj/%.o,$(sort $(wildcard examples/workload/*.c)))

# Keep test objects: they are intermediates of a pattern chain.
.SECONDARY:

.PHONY: all deps check unit-tests demo fuzz install clean bench check-browser stress

all: deps $(TUNECTL) $(LIBTUNECTL) $(SKW)

# Installs missing Debian packages (as root) or says which to install.
deps:
	@scripts/deps.sh $(if $(filter check,$(MAKECMDGOALS)),check,build)

$(BUILD)/obj/%.o: %.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(LIBTUNECTL): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(TUNECTL): $(CLI_OBJS) $(LIBTUNECTL)
	$(CC) $(LDFLAGS) $(EXE_LDFLAGS) -o $@ $(CLI_OBJS) $(LIBTUNECTL) $(LIBS)

$(SKW): $(SKW_OBJS) $(LIBTUNECTL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(SKW_OBJS) $(LIBTUNECTL) $(LIBS) -lpthread

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(UNIT_HELPER_OBJS) $(LIBTUNECTL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(UNIT_HELPER_OBJS) $(LIBTUNECTL) $(LIBS) -lcmocka

unit-tests: $(UNIT_BINS)

check: all unit-tests
	@scripts/deps.sh check
	@BUILD=$(BUILD) VALGRIND=$(VALGRIND) SANITIZE=$(SANITIZE) tests/run.sh

demo: all
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
stress: all unit-tests
	@BUILD=$(BUILD) scripts/stress.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib \
	    $(DESTDIR)$(PREFIX)/include/tunectl $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/tunectl $(DESTDIR)$(PREFIX)/libexec/tunectl
	install -m 0755 $(TUNECTL) $(DESTDIR)$(PREFIX)/bin/tunectl
	install -m 0644 $(LIBTUNECTL) $(DESTDIR)$(PREFIX)/lib/libtunectl.a
	install -m 0644 include/tunectl/*.h $(DESTDIR)$(PREFIX)/include/tunectl/
	install -m 0644 docs/tunectl.1 $(DESTDIR)$(PREFIX)/share/man/man1/tunectl.1
	cp -R share/. $(DESTDIR)$(PREFIX)/share/tunectl/
	# the demo: its workload binary, workers, hosts and example operator
	install -m 0755 $(SKW) $(DESTDIR)$(PREFIX)/libexec/tunectl/skw
	cp -R examples $(DESTDIR)$(PREFIX)/share/tunectl/

clean:
	rm -rf build

-include $(SKW_OBJS:.o=.d) $(LIB_OBJS:.o=.d) $(CLI_OBJS:.o=.d) $(UNIT_SRCS:%.c=$(BUILD)/obj/%.d) $(UNIT_HELPER_OBJS:.o=.d)
