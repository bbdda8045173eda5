/*
 * Shifts a process's wall clock, for tests: loaded with LD_PRELOAD, it answers gettimeofday(),
 * time() and clock_gettime() on the realtime clocks with the kernel's time plus an offset in
 * microseconds (signed, decimal) read from the file named by TURNSTILE_CLOCK_FILE. The file is read
 * again at most every 5 ms, so the offset can change while the process runs. Monotonic and CPU
 * clocks are not shifted.
 *
 * It calls the kernel directly (no dlsym, no malloc, no stdio): libfaketime's lookups recurse in
 * redis-server's allocator, which itself asks for the time.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static long long offset_us;
static long long read_at_ns = -1;

static int kernel_clock(clockid_t clock, struct timespec *ts) {
    return (int) syscall(SYS_clock_gettime, clock, ts);
}

static long long parse(const char *text, long length) {
    long long value = 0;
    int negative = 0;
    long i = 0;
    while (i < length && (text[i] == ' ' || text[i] == '\n')) {
        i++;
    }
    if (i < length && (text[i] == '-' || text[i] == '+')) {
        negative = text[i] == '-';
        i++;
    }
    for (; i < length && text[i] >= '0' && text[i] <= '9'; i++) {
        value = value * 10 + (text[i] - '0');
    }
    return negative ? -value : value;
}

static long long current_offset(void) {
    struct timespec now;
    if (kernel_clock(CLOCK_MONOTONIC, &now) != 0) {
        return __atomic_load_n(&offset_us, __ATOMIC_RELAXED);
    }
    long long now_ns = (long long) now.tv_sec * 1000000000LL + now.tv_nsec;
    long long last = __atomic_load_n(&read_at_ns, __ATOMIC_RELAXED);
    if (last < 0 || now_ns - last > 5000000LL) {
        const char *path = getenv("TURNSTILE_CLOCK_FILE");
        if (path != NULL) {
            int fd = (int) syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
            if (fd >= 0) {
                char text[64];
                long length = (long) syscall(SYS_read, fd, text, sizeof text);
                syscall(SYS_close, fd);
                if (length > 0) {
                    __atomic_store_n(&offset_us, parse(text, length), __ATOMIC_RELAXED);
                }
            }
        }
        __atomic_store_n(&read_at_ns, now_ns, __ATOMIC_RELAXED);
    }
    return __atomic_load_n(&offset_us, __ATOMIC_RELAXED);
}

static void shift(struct timespec *ts) {
    long long ns = (long long) ts->tv_sec * 1000000000LL + ts->tv_nsec + current_offset() * 1000LL;
    ts->tv_sec = (time_t) (ns / 1000000000LL);
    ts->tv_nsec = (long) (ns % 1000000000LL);
    if (ts->tv_nsec < 0) {
        ts->tv_nsec += 1000000000L;
        ts->tv_sec -= 1;
    }
}

int clock_gettime(clockid_t clock, struct timespec *ts) {
    int result = kernel_clock(clock, ts);
    if (result == 0 && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE)) {
        shift(ts);
    }
    return result;
}

#pragma GCC diagnostic ignored "-Wnonnull-compare"
int gettimeofday(struct timeval *tv, void *tz) {
    struct timespec ts;
    int result = kernel_clock(CLOCK_REALTIME, &ts);
    if (result != 0) {
        return result;
    }
    shift(&ts);
    if (tv != NULL) {
        tv->tv_sec = ts.tv_sec;
        tv->tv_usec = ts.tv_nsec / 1000;
    }
    if (tz != NULL) {
        ((struct timezone *) tz)->tz_minuteswest = 0;
        ((struct timezone *) tz)->tz_dsttime = 0;
    }
    return 0;
}

time_t time(time_t *out) {
    struct timespec ts;
    if (kernel_clock(CLOCK_REALTIME, &ts) != 0) {
        return (time_t) -1;
    }
    shift(&ts);
    if (out != NULL) {
        *out = ts.tv_sec;
    }
    return ts.tv_sec;
}
