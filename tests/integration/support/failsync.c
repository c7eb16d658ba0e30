/* LD_PRELOAD shim for the durability tests (R51, R54): while the file named by
 * $FAILSYNC_FLAG exists, fdatasync and fsync of any file under a "/partial/"
 * directory fail with EIO, as a dying disk's would. Everything else goes to
 * libc untouched. Built by the test that uses it (gcc -shared -fPIC). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int should_fail(int fd) {
    const char *flag = getenv("FAILSYNC_FLAG");
    if (flag == NULL || access(flag, F_OK) != 0) return 0;
    char link[64], target[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0) return 0;
    target[n] = '\0';
    return strstr(target, "/partial/") != NULL;
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    if (should_fail(fd)) { errno = EIO; return -1; }
    return real(fd);
}

int fsync(int fd) {
    static int (*real)(int);
    if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    if (should_fail(fd)) { errno = EIO; return -1; }
    return real(fd);
}
