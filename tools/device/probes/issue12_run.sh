#!/usr/bin/env bash
# Issue 12 GPU batch (carry "dist"): memory-bound benchmark (5 alternating rounds), conformance
# under Tessera and Triton with --bench, GPU pytest. Results under $OUT.
bash tools/device/memory_bound_run.sh --rounds 5 2>&1 | tail -24
export PYTHONPATH=$PWD/python TESSERA_CONFORMANCE_DIR=$PWD/dist/conformance
for impl in tessera triton; do timeout 200 python3 dist/conformance/runner.py --impl $impl --bench > $OUT/conformance_$impl.jsonl 2>/tmp/c_$impl.err; tail -1 $OUT/conformance_$impl.jsonl; tail -3 /tmp/c_$impl.err; done
(cd python && timeout 240 python3 -m pytest -q -m gpu test/gpu -x 2>&1 | tail -15) > $OUT/gpu_tests.txt; tail -15 $OUT/gpu_tests.txt
