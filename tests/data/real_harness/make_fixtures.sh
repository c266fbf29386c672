#!/usr/bin/env bash
# Regenerate the real-harness fixtures of tests/test_io_real_harness.py with the real tools.
#
# Usage: [OUT=DIR] [ORDER=interleaved|blocks] [FILES=N] bash tests/data/real_harness/make_fixtures.sh [TOOL...]
#   TOOL in: pyperf pytest-benchmark hyperfine google-benchmark asv (default: all)
#   OUT: output folder (default: tests/data/real_harness/new); the committed fixtures are
#        session1 (ORDER=blocks) and session2 (ORDER=interleaved), see README.md
# asv writes its machine file (~/.asv-machine.json) into a temporary HOME.
# Needs: python with pyperf, pytest-benchmark and asv (pip install pyperf pytest-benchmark asv),
#        hyperfine, g++ and libbenchmark-dev (apt-get install hyperfine g++ libbenchmark-dev), git.
#
# For each tool it writes, back to back on this machine:
#   base/    the base code, several files (one harness invocation each)
#   rerun/   the IDENTICAL code run again, the same number of files
#   slow/    the same code doing 1.3x the work (+30 %), the same number of files
# ORDER=interleaved (default): base/1, rerun/1, slow/1, base/2, rerun/2, slow/2, ... so that a
# drift of the machine's load over the minutes of the run falls on every variant alike;
# ORDER=blocks: all base files, then all rerun files, then all slow files (as a CI job
# compares a stored baseline with a later run). OUT/files.tsv records when each file was
# started and the 1-minute load average then. FILES=N makes N files per variant for every
# tool (default: pyperf 3, pytest-benchmark 6, hyperfine 4, Google Benchmark 4, asv 3).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${OUT:-$HERE/new}"
ORDER="${ORDER:-interleaved}"
case "$ORDER" in interleaved|blocks) ;; *) echo "ORDER must be interleaved or blocks" >&2; exit 2 ;; esac
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
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

order() {  # COUNT -> "index:variant" words in the order the files are made
    local i variant
    if [ -n "${FILES:-}" ]; then set -- "$FILES"; fi
    if [ "$ORDER" = blocks ]; then
        for variant in base rerun slow; do
            for i in $(seq 1 "$1"); do echo "$i:$variant"; done
        done
    else
        for i in $(seq 1 "$1"); do
            for variant in base rerun slow; do echo "$i:$variant"; done
        done
    fi
}

work_of() {  # variant -> python loop length
    if [ "$1" = slow ]; then echo "$SLOW_WORK"; else echo "$BASE_WORK"; fi
}

fresh() {  # fresh output folder for one tool
    rm -rf "${OUT:?}/$1"
    mkdir -p "$OUT/$1/base" "$OUT/$1/rerun" "$OUT/$1/slow"
}

record_versions() {
    {
        echo "made by: ORDER=$ORDER make_fixtures.sh ${TOOLS[*]}"
        echo "machine: $(uname -srm); $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
        echo "python: $("$PYTHON" -c 'import sys; print(sys.version.split()[0])')"
        echo "pyperf: $("$PYTHON" -c 'import pyperf; print(pyperf.__version__)')"
        echo "pytest-benchmark: $("$PYTHON" -c 'import importlib.metadata as m; print(m.version("pytest-benchmark"))')"
        echo "pytest: $("$PYTHON" -c 'import pytest; print(pytest.__version__)')"
        echo "asv: $("$PYTHON" -c 'import importlib.metadata as m; print(m.version("asv"), "asv_runner", m.version("asv_runner"))')"
        echo "hyperfine: $(hyperfine --version)"
        echo "libbenchmark-dev: $(dpkg-query -W -f='${Version}' libbenchmark-dev 2>/dev/null || echo unknown)"
        echo "g++: $(g++ --version | head -1)"
    } > "$OUT/VERSIONS.txt"
}

log_file() {  # tool variant index: when each file was started and the machine's load then
    printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
        "$(cut -d' ' -f1 /proc/loadavg)" >> "$OUT/files.tsv"
}

run_pyperf() {
    fresh pyperf
    for item in $(order 3); do
        i="${item%%:*}"; variant="${item#*:}"
        log_file pyperf "$variant" "$i"
        PILOT_WORK="$(work_of $variant)" "$PYTHON" "$WORKDIR/pyperf_bench.py" \
            --processes 20 --values 3 --inherit-environ=PILOT_WORK --quiet \
            -o "$OUT/pyperf/$variant/$i.json"
    done
}

run_pytest_benchmark() {
    fresh pytest_benchmark
    printf '[pytest]\n' > "$WORKDIR/pytest.ini"
    for item in $(order 6); do
        i="${item%%:*}"; variant="${item#*:}"
        log_file pytest-benchmark "$variant" "$i"
        (cd "$WORKDIR" && PILOT_WORK="$(work_of $variant)" "$PYTHON" -m pytest \
            test_workload.py -q -p no:cacheprovider \
            --benchmark-json="$OUT/pytest_benchmark/$variant/$i.json" > /dev/null)
        gzip -n -9 "$OUT/pytest_benchmark/$variant/$i.json"  # ~1800 rounds: 90 kB each
    done
}

run_hyperfine() {
    fresh hyperfine
    gcc -O2 -DWORK=${SPIN_BASE}L -o "$WORKDIR/spin_base" "$WORKDIR/spin.c"
    gcc -O2 -DWORK=${SPIN_SLOW}L -o "$WORKDIR/spin_slow" "$WORKDIR/spin.c"
    for item in $(order 4); do
        i="${item%%:*}"; variant="${item#*:}"
        # the changed build replaces ./spin, so the command string is the same everywhere
        binary="$WORKDIR/spin_base"; [ "$variant" = slow ] && binary="$WORKDIR/spin_slow"
        cp "$binary" "$WORKDIR/spin"
        log_file hyperfine "$variant" "$i"
        (cd "$WORKDIR" && hyperfine -N --warmup 2 --runs 20 --style none \
            --export-json "$OUT/hyperfine/$variant/$i.json" "./spin" > /dev/null)
    done
}

run_google_benchmark() {
    fresh google_benchmark
    g++ -O2 -std=c++17 -DWORK=$GB_BASE "$WORKDIR/gbench.cc" -o "$WORKDIR/gbench_base" \
        -lbenchmark -lpthread
    g++ -O2 -std=c++17 -DWORK=$GB_SLOW "$WORKDIR/gbench.cc" -o "$WORKDIR/gbench_slow" \
        -lbenchmark -lpthread
    for item in $(order 4); do
        i="${item%%:*}"; variant="${item#*:}"
        binary="$WORKDIR/gbench_base"; [ "$variant" = slow ] && binary="$WORKDIR/gbench_slow"
        log_file google-benchmark "$variant" "$i"
        "$binary" --benchmark_repetitions=20 --benchmark_min_time=0.1 \
            --benchmark_format=json --benchmark_out_format=json \
            --benchmark_out="$OUT/google_benchmark/$variant/$i.json" > /dev/null
    done
}

run_asv() {
    fresh asv
    project="$WORKDIR/asv_project"
    (
        cd "$project"
        git=(git -c user.name=fixtures -c user.email=fixtures@example.invalid)
        git init -q
        "${git[@]}" add -A
        "${git[@]}" commit -q -m base
        base_commit="$(git rev-parse HEAD)"
        sed -i "s/^WORK = $BASE_WORK/WORK = $SLOW_WORK/" benchmarks/bench.py
        "${git[@]}" commit -q -am slow
        slow_commit="$(git rev-parse HEAD)"
        HOME="$WORKDIR" "$PYTHON" -m asv machine --yes --machine fixtures > /dev/null
        for item in $(order 3); do
            i="${item%%:*}"; variant="${item#*:}"
            commit=$base_commit; [ "$variant" = slow ] && commit=$slow_commit
            git checkout -q "$commit"  # asv --python=same runs the checked-out benchmarks
            rm -rf results
            log_file asv "$variant" "$i"
            HOME="$WORKDIR" "$PYTHON" -m asv run --python=same --record-samples \
                --machine fixtures --set-commit-hash "$commit" > /dev/null
            cp results/fixtures/"${commit:0:8}"-*.json "$OUT/asv/$variant/$i.json"
            cp results/benchmarks.json "$OUT/asv/$variant/benchmarks.json"
        done
    )
}

record_versions
printf 'tool\tvariant\tfile\tstarted_utc\tload_average_1min\n' > "$OUT/files.tsv"
for tool in "${TOOLS[@]}"; do
    echo "== $tool ($(date -u +%H:%M:%S))"
    echo "$tool: started $(date -u +%Y-%m-%dT%H:%M:%SZ), load average $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/VERSIONS.txt"
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
