/*
 * check.h - a minimal assertion helper for the C tests.
 *
 * CHECK(cond) counts a pass, or prints file:line, the condition and a
 * message and exits with status 1. CHECK_STATUS(call, code) checks a
 * status-returning call and, on a mismatch, also prints the library's
 * last error. check_report() prints the final "N passed, 0 failed" line.
 * Safe to use from several threads.
 */
#ifndef SOMPCA_CHECK_H
#define SOMPCA_CHECK_H

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "sompca.h"

static atomic_long check_passed;

#define CHECK_MSG(cond, ...)                                                         \
	do {                                                                         \
		if (cond) {                                                          \
			atomic_fetch_add(&check_passed, 1);                          \
		} else {                                                             \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, \
			        #cond);                                              \
			fprintf(stderr, __VA_ARGS__);                                \
			fprintf(stderr, "\n%ld passed, 1 failed\n",                  \
			        (long)atomic_load(&check_passed));                   \
			exit(1);                                                     \
		}                                                                    \
	} while (0)

#define CHECK(cond) CHECK_MSG(cond, "%s", "")

#define CHECK_STATUS(call, code)                                                     \
	do {                                                                         \
		int check_got_ = (call);                                             \
		CHECK_MSG(check_got_ == (code), "got status %d (%s), want %d; last error: %s", \
		          check_got_, sompca_errstr(check_got_), (code), sompca_last_error()); \
	} while (0)

#define CHECK_OK(call) CHECK_STATUS(call, SOMPCA_OK)

static void check_report(void)
{
	printf("%ld passed, 0 failed\n", (long)atomic_load(&check_passed));
}

#endif /* SOMPCA_CHECK_H */
