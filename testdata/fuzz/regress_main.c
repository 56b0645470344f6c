/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/regress_main.c - runs a fuzz harness without libFuzzer:
 * every file named, and every file in every directory named, is fed
 * once to LLVMFuzzerTestOneInput, in name order; one that runs over a
 * minute ends the run (SIGALRM). For `make check` (any
 * compiler, with or without sanitizers): the seed corpus and every
 * input that once made a harness fail stay regression tests. A
 * failure is a crash or abort (the sanitizers report it). */
#include "config.h"
#include "testdata/fuzz/fuzz_env.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Per input; sanitizer builds are slow, but no input takes a second. */
#define REGRESS_TIMEOUT_SECS 60

static int run_file(const char* path)
{
	FILE* f = fopen(path, "rb");
	uint8_t* buf;
	long n;
	if(!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
		fseek(f, 0, SEEK_SET) != 0) {
		perror(path);
		if(f)
			fclose(f);
		return 0;
	}
	/* an exact-size copy: a read past the input is an ASan error */
	buf = malloc(n ? (size_t)n : 1);
	if(!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		perror(path);
		free(buf);
		fclose(f);
		return 0;
	}
	fclose(f);
	/* a hang is a failure too (libFuzzer's -timeout): SIGALRM ends
	 * the run */
	alarm(REGRESS_TIMEOUT_SECS);
	(void)LLVMFuzzerTestOneInput(buf, (size_t)n);
	alarm(0);
	free(buf);
	return 1;
}

static int by_name(const void* a, const void* b)
{
	return strcmp(*(char* const*)a, *(char* const*)b);
}

/* Returns the number of files run, -1 on an error. */
static int run_dir(const char* dir)
{
	DIR* d = opendir(dir);
	struct dirent* e;
	char** names = NULL;
	size_t n = 0, cap = 0, i;
	int ran = 0;
	if(!d) {
		perror(dir);
		return -1;
	}
	while((e = readdir(d)) != NULL) {
		if(e->d_name[0] == '.')
			continue;
		if(n == cap) {
			cap = cap ? cap * 2 : 64;
			names = realloc(names, cap * sizeof(*names));
			if(!names)
				abort();
		}
		if(!(names[n++] = strdup(e->d_name)))
			abort();
	}
	closedir(d);
	if(n)
		qsort(names, n, sizeof(*names), by_name);
	for(i = 0; i < n; i++) {
		char path[4096];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if(stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if(!run_file(path))
				ran = -1;
			else if(ran >= 0)
				ran++;
		}
		free(names[i]);
	}
	free(names);
	return ran;
}

int main(int argc, char** argv)
{
	int i, total = 0;
	if(argc < 2) {
		fprintf(stderr, "usage: %s DIR|FILE ...\n", argv[0]);
		return 2;
	}
	for(i = 1; i < argc; i++) {
		struct stat st;
		int r;
		if(stat(argv[i], &st) != 0) {
			perror(argv[i]);
			return 1;
		}
		r = S_ISDIR(st.st_mode) ? run_dir(argv[i]) :
			run_file(argv[i]) ? 1 : -1;
		if(r < 0)
			return 1;
		total += r;
	}
	if(total == 0) {
		fprintf(stderr, "%s: no inputs found\n", argv[0]);
		return 1;
	}
	printf("%s: %d inputs, no failure\n", argv[0], total);
	return 0;
}
