#!/usr/bin/env bash
# Regenerate the real-harness fixtures of tests/test_io_real_harness.py with the real tools.
#
# Usage: bash tests/data/real_harness/make_fixtures.sh [TOOL...]
#   TOOL in: pyperf pytest-benchmark hyperfine google-benchmark asv (default: all)
# asv writes its machine file (~/.asv-machine.json) into a temporary HOME.
# Needs: python with pyperf, pytest-benchmark and asv (pip install pyperf pytest-benchmark asv),
#        hyperfine, g++ and libbenchmark-dev (apt-get install hyperfine g++ libbenchmark-dev), git.
#
# For each tool it writes, back to back on this machine:
#   base/    the base code, several files (one harness invocation each)
#   rerun/   the IDENTICAL code run again, the same number of files
#   slow/    the same code doing 1.3x the work (+30 %), the same number of files
# Variants run one after another (all base files, then all rerun files, then all slow files),
# as a CI job compares a stored baseline with a later run.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PYTHON="${PYTHON:-python3}"
BASE_WORK=20000          # Python loop length (pyperf, pytest-benchmark, asv)
SLOW_WORK=26000          # 1.3x
SPIN_BASE=40000000       # C loop length (hyperfine)
SPIN_SLOW=52000000
GB_BASE=100000           # C++ loop length (Google Benchmark)
GB_SLOW=130000
TOOLS=("$@")
if [ ${#TOOLS[@]} -eq 0 ]; then
    TOOLS=(pyperf pytest-benchmark hyperfine google-benchmark asv)
fi

WORKDIR="$(mktemp -d)"
trap 'rm -rf "$WORKDIR"' EXIT
cp -r "$HERE/src/." "$WORKDIR/"

work_of() {  # variant -> python loop length
    if [ "$1" = slow ]; then echo "$SLOW_WORK"; else echo "$BASE_WORK"; fi
}

fresh() {  # fresh output folder for one tool
    rm -rf "${HERE:?}/$1"
    mkdir -p "$HERE/$1/base" "$HERE/$1/rerun" "$HERE/$1/slow"
}

record_versions() {
    {
        echo "made by: make_fixtures.sh ${TOOLS[*]}"
        echo "machine: $(uname -srm); $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
        echo "python: $("$PYTHON" -c 'import sys; print(sys.version.split()[0])')"
        echo "pyperf: $("$PYTHON" -c 'import pyperf; print(pyperf.__version__)')"
        echo "pytest-benchmark: $("$PYTHON" -c 'import importlib.metadata as m; print(m.version("pytest-benchmark"))')"
        echo "pytest: $("$PYTHON" -c 'import pytest; print(pytest.__version__)')"
        echo "asv: $("$PYTHON" -c 'import importlib.metadata as m; print(m.version("asv"), "asv_runner", m.version("asv_runner"))')"
        echo "hyperfine: $(hyperfine --version)"
        echo "libbenchmark-dev: $(dpkg-query -W -f='${Version}' libbenchmark-dev 2>/dev/null || echo unknown)"
        echo "g++: $(g++ --version | head -1)"
    } > "$HERE/VERSIONS.txt"
}

run_pyperf() {
    fresh pyperf
    for variant in base rerun slow; do
        for i in 1 2 3; do
            PILOT_WORK="$(work_of $variant)" "$PYTHON" "$WORKDIR/pyperf_bench.py" \
                --processes 20 --values 3 --inherit-environ=PILOT_WORK --quiet \
                -o "$HERE/pyperf/$variant/$i.json"
        done
    done
}

run_pytest_benchmark() {
    fresh pytest_benchmark
    printf '[pytest]\n' > "$WORKDIR/pytest.ini"
    for variant in base rerun slow; do
        for i in 1 2 3 4 5 6; do
            (cd "$WORKDIR" && PILOT_WORK="$(work_of $variant)" "$PYTHON" -m pytest \
                test_workload.py -q -p no:cacheprovider \
                --benchmark-json="$HERE/pytest_benchmark/$variant/$i.json" > /dev/null)
            gzip -n -9 "$HERE/pytest_benchmark/$variant/$i.json"  # ~1800 rounds: 90 kB each
        done
    done
}

run_hyperfine() {
    fresh hyperfine
    gcc -O2 -DWORK=${SPIN_BASE}L -o "$WORKDIR/spin_base" "$WORKDIR/spin.c"
    gcc -O2 -DWORK=${SPIN_SLOW}L -o "$WORKDIR/spin_slow" "$WORKDIR/spin.c"
    for variant in base rerun slow; do
        # the changed build replaces ./spin, so the command string is the same in every file
        binary="$WORKDIR/spin_base"; [ "$variant" = slow ] && binary="$WORKDIR/spin_slow"
        cp "$binary" "$WORKDIR/spin"
        for i in 1 2 3 4; do
            (cd "$WORKDIR" && hyperfine -N --warmup 2 --runs 20 --style none \
                --export-json "$HERE/hyperfine/$variant/$i.json" "./spin" > /dev/null)
        done
    done
}

run_google_benchmark() {
    fresh google_benchmark
    g++ -O2 -std=c++17 -DWORK=$GB_BASE "$WORKDIR/gbench.cc" -o "$WORKDIR/gbench_base" \
        -lbenchmark -lpthread
    g++ -O2 -std=c++17 -DWORK=$GB_SLOW "$WORKDIR/gbench.cc" -o "$WORKDIR/gbench_slow" \
        -lbenchmark -lpthread
    for variant in base rerun slow; do
        binary="$WORKDIR/gbench_base"; [ "$variant" = slow ] && binary="$WORKDIR/gbench_slow"
        for i in 1 2 3 4; do
            "$binary" --benchmark_repetitions=20 --benchmark_min_time=0.1 \
                --benchmark_format=json --benchmark_out_format=json \
                --benchmark_out="$HERE/google_benchmark/$variant/$i.json" > /dev/null
        done
    done
}

run_asv() {
    fresh asv
    project="$WORKDIR/asv_project"
    (
        cd "$project"
        git init -q
        git -c user.name=fixtures -c user.email=fixtures@example.invalid add -A
        git -c user.name=fixtures -c user.email=fixtures@example.invalid commit -q -m base
        HOME="$WORKDIR" "$PYTHON" -m asv machine --yes --machine fixtures > /dev/null
        for variant in base rerun slow; do
            if [ "$variant" = slow ]; then
                sed -i "s/^WORK = $BASE_WORK/WORK = $SLOW_WORK/" benchmarks/bench.py
                git -c user.name=fixtures -c user.email=fixtures@example.invalid commit -q -am slow
            fi
            commit="$(git rev-parse HEAD)"
            for i in 1 2 3; do
                rm -rf results
                HOME="$WORKDIR" "$PYTHON" -m asv run --python=same --record-samples --machine fixtures \
                    --set-commit-hash "$commit" > /dev/null
                cp results/fixtures/"${commit:0:8}"-*.json "$HERE/asv/$variant/$i.json"
            done
            cp results/benchmarks.json "$HERE/asv/$variant/benchmarks.json"
        done
    )
}

record_versions
for tool in "${TOOLS[@]}"; do
    echo "== $tool ($(date -u +%H:%M:%S))"
    echo "$tool: started $(date -u +%Y-%m-%dT%H:%M:%SZ), load average $(cut -d' ' -f1-3 /proc/loadavg)" >> "$HERE/VERSIONS.txt"
    case "$tool" in
        pyperf) run_pyperf ;;
        pytest-benchmark) run_pytest_benchmark ;;
        hyperfine) run_hyperfine ;;
        google-benchmark) run_google_benchmark ;;
        asv) run_asv ;;
        *) echo "unknown tool $tool" >&2; exit 2 ;;
    esac
done
echo "== done ($(date -u +%H:%M:%S))"
