/* failwrite: an LD_PRELOAD library that makes writes to chosen files fail,
 * to test how sompca handles a write error (EIO, ENOSPC) inside libhdf5,
 * which no unprivileged trick provokes on a real disk.
 *
 *   FAILWRITE_PATH   writes to files whose path contains this string fail
 *                    (unset: the library does nothing)
 *   FAILWRITE_ERRNO  EIO (default) or ENOSPC
 *   FAILWRITE_AFTER  bytes that those files take before the first failure
 *                    (default 0), so that a write fails halfway through
 *                    a file (after its superblock, say)
 *
 * It interposes write, pwrite, pwrite64, writev, fallocate, fallocate64
 * and posix_fallocate (what libhdf5 and sompca's shim call through the C
 * library). Go's own writes are system calls that it does not see.
 *
 * It also makes reads slow, to test cancellation during reads of a slow
 * file (a network file system, a failing disk):
 *
 *   SLOWREAD_PATH    reads (read, pread, pread64) from files whose path
 *                    contains this string sleep first
 *   SLOWREAD_MS      for this many milliseconds each (default 300) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static atomic_llong taken;

/* fails reports whether a write of n bytes to fd must fail (and sets errno). */
static int matches(int fd, const char *var);

static int fails(int fd, size_t n)
{
	if (!matches(fd, "FAILWRITE_PATH"))
		return 0;
	const char *after = getenv("FAILWRITE_AFTER");
	long long budget = after != NULL ? atoll(after) : 0;
	if (atomic_fetch_add(&taken, (long long)n) + (long long)n <= budget)
		return 0;
	const char *e = getenv("FAILWRITE_ERRNO");
	errno = e != NULL && strcmp(e, "ENOSPC") == 0 ? ENOSPC : EIO;
	return 1;
}

/* matches reports whether fd is a file whose path contains the value of
 * the environment variable var. */
static int matches(int fd, const char *var)
{
	const char *pattern = getenv(var);
	if (pattern == NULL || *pattern == '\0')
		return 0;
	char link[64], path[4096];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t len = readlink(link, path, sizeof path - 1);
	if (len < 0)
		return 0;
	path[len] = '\0';
	return strstr(path, pattern) != NULL;
}

static void slow(int fd)
{
	if (!matches(fd, "SLOWREAD_PATH"))
		return;
	const char *ms = getenv("SLOWREAD_MS");
	long n = ms != NULL ? atol(ms) : 300;
	struct timespec pause = {n / 1000, (n % 1000) * 1000000L};
	nanosleep(&pause, NULL);
}

#define REAL(name) \
	static __typeof__(name) *real; \
	if (real == NULL) \
		real = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buf, size_t n)
{
	REAL(write);
	return fails(fd, n) ? -1 : real(fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	REAL(pwrite);
	return fails(fd, n) ? -1 : real(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
	REAL(pwrite64);
	return fails(fd, n) ? -1 : real(fd, buf, n, off);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	REAL(writev);
	size_t n = 0;
	for (int i = 0; i < cnt; i++)
		n += iov[i].iov_len;
	return fails(fd, n) ? -1 : real(fd, iov, cnt);
}

/* Reserving space counts as taking no bytes, but fails with ENOSPC once
 * the budget is spent (as on a full disk). */
int fallocate(int fd, int mode, off_t off, off_t len)
{
	REAL(fallocate);
	return fails(fd, 0) ? -1 : real(fd, mode, off, len);
}

int fallocate64(int fd, int mode, off64_t off, off64_t len)
{
	REAL(fallocate64);
	return fails(fd, 0) ? -1 : real(fd, mode, off, len);
}

int posix_fallocate(int fd, off_t off, off_t len)
{
	REAL(posix_fallocate);
	return fails(fd, 0) ? errno : real(fd, off, len);
}

ssize_t read(int fd, void *buf, size_t n)
{
	REAL(read);
	slow(fd);
	return real(fd, buf, n);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	REAL(pread);
	slow(fd);
	return real(fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
	REAL(pread64);
	slow(fd);
	return real(fd, buf, n, off);
}
