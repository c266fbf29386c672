#!/usr/bin/env bash
# Compare a pull request's benchmark result with the main branch's stored baseline.
#
#   examples/ci/compare.sh BASELINE NEW [extra pilotstats compare options]
#
# Prints pilotstats' table and summary, appends them to the GitHub job summary when
# $GITHUB_STEP_SUMMARY is set, and exits with pilotstats compare's status:
#   0 no significant regression, 1 significant regression,
#   2 bad input or an incomplete comparison (nothing comparable, a benchmark not analysable;
#     pass --allow-missing to accept those),
#   5 inconclusive: a benchmark had one run on a side (e.g. one pytest-benchmark file per
#     side), so the run-to-run variance is unknown; store several result files per side
#     (pilotstats compare BASE... -- NEW...) or pass --assume-runs-equivalent.
# Without a baseline (the first run on main) it says so and exits 0.
set -uo pipefail

baseline=$1
new=$2
shift 2

if [[ ! -f "$baseline" ]]; then
    echo "no baseline result at $baseline (first run on main?): nothing to compare"
    exit 0
fi

report=$("${PYTHON:-python}" -m pilotstats compare "$baseline" "$new" --min-change-percent "${MIN_CHANGE_PERCENT:-2}" "$@")
status=$?
echo "$report"

case $status in
    0) verdict="no significant regression" ;;
    1) verdict="significant regression: see the table" ;;
    5) verdict="inconclusive: one run per side (store several result files per side, or pass --assume-runs-equivalent)" ;;
    *) verdict="comparison failed or incomplete (exit status $status)" ;;
esac

if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
    {
        echo "### Benchmarks: $verdict"
        echo
        echo '```'
        echo "$report"
        echo '```'
    } >> "$GITHUB_STEP_SUMMARY"
fi
echo "pilotstats compare: $verdict"
exit $status
