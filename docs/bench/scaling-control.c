// A control for the encode-linearity target (issue 19: 10× people in at most 11× the time): how two operations
// every encoder of W1 makes scale from 100k people to 1M on the host, with no Swift and no archive in between.
//   touch:  fresh memory written once, as an encode writes its output (75 MB, then 750 MB: W1's archive sizes);
//   unique: N keys inserted into an open-addressed table of 2N 16-byte slots, as the encoders' identity table
//           and the writer's string table are filled (N = 858,411, then 8,024,783: W1's `$objects` counts);
//           the keys are object addresses, 48 bytes apart, hashed by a multiply.
// Build and run: gcc -O2 -o /tmp/scaling-control docs/bench/scaling-control.c && /tmp/scaling-control
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static double touch(size_t bytes) {
    double start = now();
    unsigned char *p = malloc(bytes);
    memset(p, 1, bytes);
    volatile unsigned char sink = p[bytes / 2];
    (void)sink;
    free(p);
    return now() - start;
}

static double unique(size_t n) {
    double start = now();
    size_t capacity = 1;
    while (capacity < 2 * n) capacity <<= 1;
    struct slot { uint64_t key; uint64_t value; } *table = calloc(capacity, sizeof *table);
    for (size_t i = 0; i < n; i++) {
        uint64_t key = 0x7f0000000000ull + 48 * i;
        size_t b = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (capacity - 1);
        while (table[b].key != 0 && table[b].key != key) b = (b + 1) & (capacity - 1);
        table[b].key = key;
        table[b].value = i + 1;
    }
    free(table);
    return now() - start;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double (*f)(size_t), size_t size) {
    double t[5];
    for (int i = 0; i < 5; i++) t[i] = f(size);
    qsort(t, 5, sizeof t[0], compare);
    return t[2];
}

int main(void) {
    double t1 = median(touch, 75000000), t2 = median(touch, 750000000);
    printf("touch   75 MB %8.1f ms   750 MB %8.1f ms   ratio %.1fx\n", t1 * 1e3, t2 * 1e3, t2 / t1);
    double u1 = median(unique, 858411), u2 = median(unique, 8024783);
    printf("unique  858,411 keys %8.1f ms   8,024,783 keys %8.1f ms   ratio %.1fx\n", u1 * 1e3, u2 * 1e3, u2 / u1);
    return 0;
}
