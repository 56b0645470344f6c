/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/failalloc_shim.c - test aid, loaded with LD_PRELOAD: injects
 * resource failures into a running daemon.
 *
 * Armed at run time through a control file (env FAILALLOC_CTL names it),
 * re-read at most every 50 ms, so a test arms and disarms it after the
 * daemon has started. Its text is words separated by blanks:
 *   alloc=N     every Nth malloc/calloc/realloc/posix_memalign called
 *               from the daemon's own code (the executable) fails (0:
 *               none)
 *   libs=1      with alloc=N, calls from the libraries count too
 *               (libldns and OpenSSL; not safe: libldns 1.8.3 crashes
 *               in ldns_wire2rr and ldns_wire2pkt, and ldns_rr_clone
 *               returns RRs with NULL fields: doc/testing.md)
 *   accept=1    accept()/accept4() fail with EMFILE
 *   socket=1    socket() fails with EMFILE
 *   bind=1      bind() fails with EADDRINUSE (the listeners are bound at
 *               start, so after arming only outgoing sockets bind)
 *   connect=1   connect() fails with EADDRNOTAVAIL (a full port range)
 * A missing or empty file disarms everything. The failures made so far
 * are written to FAILALLOC_CTL.count at each failure, for the test to
 * see that the shim did fail calls.
 *
 * Under AddressSanitizer the shim sits in front of ASan's malloc (run
 * with ASAN_OPTIONS=verify_asan_link_order=0): failed calls return NULL
 * without reaching ASan, the others go on to it. dlsym() allocates while
 * the real functions are being looked up; that comes from a small static
 * arena that free() recognises. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef void* (*malloc_fn)(size_t);
typedef void* (*calloc_fn)(size_t, size_t);
typedef void* (*realloc_fn)(void*, size_t);
typedef void (*free_fn)(void*);
typedef int (*memalign_fn)(void**, size_t, size_t);
typedef int (*accept_fn)(int, struct sockaddr*, socklen_t*);
typedef int (*accept4_fn)(int, struct sockaddr*, socklen_t*, int);
typedef int (*socket_fn)(int, int, int);
typedef int (*addr_fn)(int, const struct sockaddr*, socklen_t);

static malloc_fn real_malloc;
static calloc_fn real_calloc;
static realloc_fn real_realloc;
static free_fn real_free;
static memalign_fn real_memalign;
static int resolving;

/* for dlsym's own allocations before the real functions are known */
static char arena[8192] __attribute__((aligned(16)));
static size_t arena_used;

static int in_arena(const void* p)
{
	return (const char*)p >= arena && (const char*)p < arena +
		sizeof(arena);
}

static void* lz_arena_alloc(size_t n)
{
	void* p;
	n = (n + 15) & ~(size_t)15;
	if(arena_used + n > sizeof(arena))
		return NULL;
	p = arena + arena_used;
	arena_used += n;
	return p;
}

static void resolve(void)
{
	if(real_malloc || resolving)
		return;
	resolving = 1;
	real_calloc = (calloc_fn)dlsym(RTLD_NEXT, "calloc");
	real_realloc = (realloc_fn)dlsym(RTLD_NEXT, "realloc");
	real_free = (free_fn)dlsym(RTLD_NEXT, "free");
	real_memalign = (memalign_fn)dlsym(RTLD_NEXT, "posix_memalign");
	real_malloc = (malloc_fn)dlsym(RTLD_NEXT, "malloc");
	resolving = 0;
}

/* The executable's address range: only its own allocations fail. */
static uintptr_t exe_lo, exe_hi;

static int exe_range(struct dl_phdr_info* info, size_t size, void* arg)
{
	int i;
	(void)size;
	(void)arg;
	for(i = 0; i < info->dlpi_phnum; i++) {
		uintptr_t lo, hi;
		if(info->dlpi_phdr[i].p_type != PT_LOAD)
			continue;
		lo = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
		hi = lo + info->dlpi_phdr[i].p_memsz;
		if(!exe_lo || lo < exe_lo)
			exe_lo = lo;
		if(hi > exe_hi)
			exe_hi = hi;
	}
	return 1;   /* the first object is the executable */
}

/* Set once the constructor ran: before it (ASan's own start-up, whose
 * interceptors of clock_gettime, open, read are not set up yet) the
 * shim only passes calls through. */
static int started;

__attribute__((constructor)) static void find_executable(void)
{
	dl_iterate_phdr(exe_range, NULL);
	__atomic_store_n(&started, 1, __ATOMIC_RELEASE);
}

/* -- the control file -------------------------------------------------- */

static long every_n;          /* alloc=N */
static int fail_libs;         /* libs=1 */
static int fail_accept, fail_socket, fail_bind, fail_connect;
static unsigned long alloc_calls, alloc_failed, other_failed;
static long long next_check_ms;
static int checking;

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static long word_value(const char* text, const char* key)
{
	const char* p = text;
	size_t k = strlen(key);
	while((p = strstr(p, key)) != NULL) {
		if((p == text || p[-1] == ' ' || p[-1] == '\n') && p[k] == '=')
			return strtol(p + k + 1, NULL, 10);
		p += k;
	}
	return 0;
}

static int count_fd = -1;

/* Write the failure counts next to the control file, fixed width at
 * offset 0 so writes from several threads do not mix (no stdio: it
 * allocates). */
static void write_count(void)
{
	char buf[96];
	int n;
	if(count_fd == -1)
		return;
	n = snprintf(buf, sizeof(buf), "alloc_failed=%-20lu "
		"other_failed=%-20lu\n",
		__atomic_load_n(&alloc_failed, __ATOMIC_RELAXED),
		__atomic_load_n(&other_failed, __ATOMIC_RELAXED));
	if(pwrite(count_fd, buf, (size_t)n, 0) != n) {
		/* a test aid: a short count file shows up in the test */
	}
}

static void open_count(const char* ctl)
{
	char path[512];
	if(count_fd != -1 || snprintf(path, sizeof(path), "%s.count", ctl) >=
		(int)sizeof(path))
		return;
	count_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

/* Re-read the control file at most every 50 ms. Races between threads
 * only delay a change by a call or two. */
static void check_ctl(void)
{
	const char* ctl;
	char text[256];
	long long t;
	ssize_t n = 0;
	int fd;
	if(!__atomic_load_n(&started, __ATOMIC_ACQUIRE) ||
		__atomic_exchange_n(&checking, 1, __ATOMIC_ACQUIRE))
		return;
	t = now_ms();
	if(t < __atomic_load_n(&next_check_ms, __ATOMIC_RELAXED))
		goto out;
	__atomic_store_n(&next_check_ms, t + 50, __ATOMIC_RELAXED);
	if(!(ctl = getenv("FAILALLOC_CTL")))
		goto out;
	fd = open(ctl, O_RDONLY | O_CLOEXEC);
	if(fd != -1) {
		n = read(fd, text, sizeof(text) - 1);
		close(fd);
	}
	text[n > 0 ? n : 0] = 0;
	__atomic_store_n(&every_n, word_value(text, "alloc"),
		__ATOMIC_RELAXED);
	fail_libs = word_value(text, "libs") != 0;
	fail_accept = word_value(text, "accept") != 0;
	fail_socket = word_value(text, "socket") != 0;
	fail_bind = word_value(text, "bind") != 0;
	fail_connect = word_value(text, "connect") != 0;
	open_count(ctl);
	write_count();
out:
	__atomic_store_n(&checking, 0, __ATOMIC_RELEASE);
}

/* Should this allocation, called from caller, fail? */
static int alloc_fails(const void* caller)
{
	long n;
	check_ctl();
	n = __atomic_load_n(&every_n, __ATOMIC_RELAXED);
	if(n <= 0)
		return 0;
	if(!fail_libs && ((uintptr_t)caller < exe_lo ||
		(uintptr_t)caller >= exe_hi))
		return 0;
	if(__atomic_add_fetch(&alloc_calls, 1, __ATOMIC_RELAXED) %
		(unsigned long)n != 0)
		return 0;
	__atomic_add_fetch(&alloc_failed, 1, __ATOMIC_RELAXED);
	write_count();
	return 1;
}

static int call_fails(int armed, int err)
{
	check_ctl();
	if(!armed)
		return 0;
	__atomic_add_fetch(&other_failed, 1, __ATOMIC_RELAXED);
	write_count();
	errno = err;
	return 1;
}

/* -- allocation -------------------------------------------------------- */

void* malloc(size_t n)
{
	resolve();
	if(!real_malloc)
		return lz_arena_alloc(n);
	if(alloc_fails(__builtin_return_address(0))) {
		errno = ENOMEM;
		return NULL;
	}
	return real_malloc(n);
}

void* calloc(size_t n, size_t size)
{
	resolve();
	if(!real_calloc || resolving) {
		void* p;
		if(size && n > SIZE_MAX / size)
			return NULL;
		if((p = lz_arena_alloc(n * size)) != NULL)
			memset(p, 0, n * size);
		return p;
	}
	if(alloc_fails(__builtin_return_address(0))) {
		errno = ENOMEM;
		return NULL;
	}
	return real_calloc(n, size);
}

void* realloc(void* old, size_t n)
{
	resolve();
	if(in_arena(old)) {
		/* only dlsym's buffers: copy what fits, never freed */
		size_t room = (size_t)(arena + sizeof(arena) - (char*)old);
		void* p = malloc(n);
		if(p)
			memcpy(p, old, n < room ? n : room);
		return p;
	}
	if(!real_realloc)
		return NULL;
	if(n > 0 && alloc_fails(__builtin_return_address(0))) {
		errno = ENOMEM;
		return NULL;
	}
	return real_realloc(old, n);
}

void free(void* p)
{
	if(!p || in_arena(p))
		return;
	resolve();
	if(real_free)
		real_free(p);
}

int posix_memalign(void** out, size_t align, size_t n)
{
	resolve();
	if(!real_memalign)
		return ENOMEM;
	if(alloc_fails(__builtin_return_address(0)))
		return ENOMEM;
	return real_memalign(out, align, n);
}

/* -- descriptors and ports --------------------------------------------- */

int accept(int fd, struct sockaddr* addr, socklen_t* len)
{
	accept_fn real = (accept_fn)dlsym(RTLD_NEXT, "accept");
	if(call_fails(fail_accept, EMFILE))
		return -1;
	return real(fd, addr, len);
}

int accept4(int fd, struct sockaddr* addr, socklen_t* len, int flags)
{
	accept4_fn real = (accept4_fn)dlsym(RTLD_NEXT, "accept4");
	if(call_fails(fail_accept, EMFILE))
		return -1;
	return real(fd, addr, len, flags);
}

int socket(int domain, int type, int proto)
{
	socket_fn real = (socket_fn)dlsym(RTLD_NEXT, "socket");
	if(call_fails(fail_socket, EMFILE))
		return -1;
	return real(domain, type, proto);
}

int bind(int fd, const struct sockaddr* addr, socklen_t len)
{
	addr_fn real = (addr_fn)dlsym(RTLD_NEXT, "bind");
	if(call_fails(fail_bind, EADDRINUSE))
		return -1;
	return real(fd, addr, len);
}

int connect(int fd, const struct sockaddr* addr, socklen_t len)
{
	addr_fn real = (addr_fn)dlsym(RTLD_NEXT, "connect");
	if(call_fails(fail_connect, EADDRNOTAVAIL))
		return -1;
	return real(fd, addr, len);
}
