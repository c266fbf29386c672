/* hyperfine workload: a loop of WORK iterations, compiled with -DWORK=40000000 (base) or
   -DWORK=52000000 (slow) into the same ./spin path, so the command name stays the same. */
#ifndef WORK
#define WORK 40000000L
#endif

int main(void) {
    volatile unsigned long total = 0;
    for (long i = 0; i < WORK; ++i) {
        total += (unsigned long)i * (unsigned long)i;
    }
    return total == 1 ? 1 : 0;
}
