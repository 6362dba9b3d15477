# Sourced by the same-machine A/B probes (prof_ab.sh, mb_ab.sh): the packed library ("new") and
# the baseline's (dist/baseline, from `pack.sh --baseline <commit> <build dir>`) swapped under
# the one Python extension built by h200_run.sh --setup-only (the two must share its ABI).
#   ab_libs_init          unpack the baseline, keep a copy of the new library
#   ab_use new|old        make that library the one the extension loads
#   ab_libs_done          leave the new library in place
ab_libs_init() {
  xz -d -k -f dist/baseline/libtessera.so.xz
  cp dist/lib/libtessera.so dist/lib/new.so
}
ab_use() {
  if [ "$1" = new ]; then cp dist/lib/new.so dist/lib/libtessera.so; else cp dist/baseline/libtessera.so dist/lib/libtessera.so; fi
}
ab_libs_done() { ab_use new; }
