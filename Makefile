# Tessera's entry points. `make test` is README's test command; CI runs it.
BUILD ?= build
PYTHON ?= /usr/bin/python3
LIT ?= /usr/lib/llvm-22/bin/lit
# Extra CMake arguments for a fresh configure (CI: -DTESSERA_WARNINGS_AS_ERRORS=ON).
CMAKE_ARGS ?=
export CCACHE_BASEDIR := $(CURDIR)
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c

.PHONY: setup configure build run test test-lit test-cpp test-python test-install test-wheel clean

setup:
	@tools/setup

$(BUILD)/build.ninja: | setup
	cmake -G Ninja -S . -B $(BUILD) \
	  -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
	  -DLLVM_EXTERNAL_LIT=$(LIT) -DPython3_EXECUTABLE=$(PYTHON) $(CMAKE_ARGS)

configure: $(BUILD)/build.ninja

build: setup configure
	ninja -C $(BUILD)

# The main job: compile and run the example kernels (GPU if usable, else the interpreter).
run: build
	$(PYTHON) examples/run.py

test-lit: build
	$(LIT) -sv $(BUILD)/test

test-cpp: build
	ctest --test-dir $(BUILD) --output-on-failure

test-python: build
	cd python && $(PYTHON) -m pytest -q test

# The installed C++ package: cmake --install into a temporary prefix, the example consumer
# (examples/cpp-consumer) found through find_package(Tessera), a conformance kernel compiled to PTX
# through it, its --launch mode (PASS on a GPU, SKIP without one; and PASS on a stand-in driver,
# mock_libcuda.c, that runs the add kernel on the host), and no LLVM/MLIR shared library under
# the installed libtessera.
CONFORMANCE ?= ../shared/conformance
test-install: build
	@rm -rf $(BUILD)/install-test && mkdir -p $(BUILD)/install-test/mock
	cmake --install $(BUILD) --prefix $(CURDIR)/$(BUILD)/install-test/prefix > $(BUILD)/install-test/install.log
	cmake -G Ninja -S examples/cpp-consumer -B $(BUILD)/install-test/consumer \
	  -DCMAKE_CXX_COMPILER=clang++-22 -DCMAKE_PREFIX_PATH=$(CURDIR)/$(BUILD)/install-test/prefix > /dev/null
	ninja -C $(BUILD)/install-test/consumer > /dev/null
	$(BUILD)/install-test/consumer/ttir-to-ptx $(CONFORMANCE)/triton-3.6/add.ttir cuda:90 > $(BUILD)/install-test/add.ptx
	grep -q '^.visible .entry' $(BUILD)/install-test/add.ptx
	$(BUILD)/install-test/consumer/ttir-to-ptx --launch $(CONFORMANCE)/triton-3.6/add.ttir > $(BUILD)/install-test/launch.txt
	grep -qE '^(PASS|SKIP):' $(BUILD)/install-test/launch.txt
	clang-22 -shared -fPIC -o $(BUILD)/install-test/mock/libcuda.so.1 examples/cpp-consumer/mock_libcuda.c
	TESSERA_LIBCUDA=$(CURDIR)/$(BUILD)/install-test/mock/libcuda.so.1 $(BUILD)/install-test/consumer/ttir-to-ptx \
	  --launch $(CONFORMANCE)/triton-3.6/add.ttir > $(BUILD)/install-test/launch-mock.txt
	grep -q '^PASS:' $(BUILD)/install-test/launch-mock.txt
	$(BUILD)/install-test/prefix/bin/tessera-opt $(CONFORMANCE)/triton-3.6/add.ttir > /dev/null
	! ldd $(BUILD)/install-test/prefix/lib/libtessera.so | grep -E 'lib(LLVM|MLIR)'
	@echo "install: ok (find_package consumer compiled add.ttir to PTX and launched it: $$(grep -oE '^(PASS|SKIP)' $(BUILD)/install-test/launch.txt), on the mock driver too; installed tessera-opt ran; no LLVM/MLIR shared libraries)"

# The Python package: the wheel built, installed with pip into a fresh virtual environment in a
# temporary folder, and used from there (tools/package/wheel_check.sh says what it checks).
test-wheel: build
	PYTHON=$(PYTHON) TESSERA_BUILD_DIR=$(BUILD) CONFORMANCE=$(CONFORMANCE) TESSERA_CMAKE_ARGS="$(CMAKE_ARGS)" \
	  tools/package/wheel_check.sh

# Runs every harness even when one fails, then reports each summary line.
test: build
	@status=0; \
	$(LIT) -sv $(BUILD)/test 2>&1 | tee $(BUILD)/lit.log || status=1; \
	ctest --test-dir $(BUILD) --output-on-failure 2>&1 | tee $(BUILD)/ctest.log || status=1; \
	(cd python && $(PYTHON) -m pytest -q test) 2>&1 | tee $(BUILD)/pytest.log || status=1; \
	$(MAKE) --no-print-directory test-install > $(BUILD)/install.log 2>&1 || { status=1; tail -20 $(BUILD)/install.log; }; \
	$(MAKE) --no-print-directory test-wheel > $(BUILD)/wheel.log 2>&1 || { status=1; tail -40 $(BUILD)/wheel.log; }; \
	echo; echo "== summary =="; \
	echo "lit:    $$(grep -E '^ *(Passed|Failed|Unsupported|Expectedly Failed)' $(BUILD)/lit.log | tr -s ' ' | paste -sd, -)"; \
	echo "ctest:  $$(grep -E 'tests passed' $(BUILD)/ctest.log)"; \
	tail -n 1 $(BUILD)/pytest.log; \
	echo "$$(tail -n 1 $(BUILD)/install.log)"; \
	echo "$$(tail -n 1 $(BUILD)/wheel.log)"; \
	exit $$status

clean:
	rm -rf $(BUILD)
