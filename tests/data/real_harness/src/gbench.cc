// Google Benchmark workload: compiled with -DWORK=100000 (base) or -DWORK=130000 (slow).
#include <benchmark/benchmark.h>

#ifndef WORK
#define WORK 100000
#endif

static void BM_sum_squares(benchmark::State& state) {
    for (auto _ : state) {
        unsigned long total = 0;
        for (long i = 0; i < WORK; ++i) {
            total += static_cast<unsigned long>(i) * static_cast<unsigned long>(i);
            benchmark::DoNotOptimize(total);
        }
    }
}
BENCHMARK(BM_sum_squares);

BENCHMARK_MAIN();
