/* daemon/worker.c - one worker thread: reads queries from its sockets
 * (a batch per wake-up with recvmmsg), answers each through
 * query_answer(), and sends the replies back in one sendmmsg. */
#include "config.h"
#include "daemon/worker.h"
#include "daemon/daemon.h"
#include "daemon/query.h"
#include "services/listen_dnsport.h"
#include "services/tcp_conn.h"
#include "util/config_file.h"
#include "util/log.h"
#include <event2/event.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define UDP_BATCH 32
#define UDP_QUERY_MAX 4096   /* larger datagrams are cut: FORMERR */
#define UDP_REPLY_MAX 65535
/* batches per wake-up before other sockets get their turn */
#define UDP_ROUNDS 4

struct udp_batch {
	struct mmsghdr rmsg[UDP_BATCH];
	struct iovec riov[UDP_BATCH];
	struct sockaddr_storage addr[UDP_BATCH];
	struct mmsghdr smsg[UDP_BATCH];
	struct iovec siov[UDP_BATCH];
	uint8_t query[UDP_BATCH][UDP_QUERY_MAX];
	uint8_t* reply;  /* UDP_BATCH replies of UDP_REPLY_MAX */
};

void worker_refresh_env(struct worker* w)
{
	struct daemon* d = w->daemon;
	struct serve_env* old;
	if(atomic_load_explicit(&d->env_gen, memory_order_acquire) ==
		w->env_gen)
		return;
	old = w->env;
	w->env = daemon_env_acquire(d, &w->env_gen);
	serve_env_release(old);
	tcp_pool_set_idle_timeout(w->tcp, w->env->cfg->tcp_idle_timeout);
}

static void udp_read_cb(evutil_socket_t fd, short ev, void* arg)
{
	struct worker* w = arg;
	struct udp_batch* b = w->udp;
	int round, i, n, nsend;
	(void)ev;
	worker_refresh_env(w);
	for(round = 0; round < UDP_ROUNDS; round++) {
		for(i = 0; i < UDP_BATCH; i++) {
			b->rmsg[i].msg_hdr.msg_namelen = sizeof(b->addr[i]);
			b->rmsg[i].msg_hdr.msg_flags = 0;
		}
		n = recvmmsg(fd, b->rmsg, UDP_BATCH, MSG_DONTWAIT, NULL);
		if(n <= 0) {
			if(n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
				errno != EINTR)
				verbose(VERB_ALGO, "recvmmsg: %s",
					strerror(errno));
			return;
		}
		nsend = 0;
		for(i = 0; i < n; i++) {
			struct msghdr* h = &b->rmsg[i].msg_hdr;
			uint8_t* out = b->reply + (size_t)i * UDP_REPLY_MAX;
			size_t len;
			if(h->msg_flags & MSG_TRUNC) {
				/* over UDP_QUERY_MAX: parse what we have,
				 * which is missing its end: FORMERR */
				b->rmsg[i].msg_len = UDP_QUERY_MAX;
			}
			len = query_answer(w->env, &w->stats, b->query[i],
				b->rmsg[i].msg_len, &b->addr[i],
				h->msg_namelen, 0, out, UDP_REPLY_MAX);
			if(len == 0)
				continue;
			b->siov[nsend].iov_base = out;
			b->siov[nsend].iov_len = len;
			b->smsg[nsend].msg_hdr.msg_name = &b->addr[i];
			b->smsg[nsend].msg_hdr.msg_namelen = h->msg_namelen;
			b->smsg[nsend].msg_hdr.msg_iov = &b->siov[nsend];
			b->smsg[nsend].msg_hdr.msg_iovlen = 1;
			b->smsg[nsend].msg_hdr.msg_control = NULL;
			b->smsg[nsend].msg_hdr.msg_controllen = 0;
			b->smsg[nsend].msg_hdr.msg_flags = 0;
			nsend++;
		}
		for(i = 0; i < nsend; ) {
			int s = sendmmsg(fd, b->smsg + i,
				(unsigned)(nsend - i), 0);
			if(s <= 0) {
				if(s < 0 && errno == EINTR)
					continue;
				/* a full socket buffer or an unreachable
				 * client: drop this reply, keep the rest */
				verbose(VERB_ALGO, "sendmmsg: %s",
					s < 0 ? strerror(errno) : "0 sent");
				i++;
				continue;
			}
			i += s;
		}
		if(n < UDP_BATCH)
			return;
	}
}

static size_t tcp_answer(void* arg, const uint8_t* pkt, size_t len,
	const struct sockaddr_storage* addr, socklen_t addrlen, uint8_t* out,
	size_t outcap)
{
	struct worker* w = arg;
	worker_refresh_env(w);
	return query_answer(w->env, &w->stats, pkt, len, addr, addrlen, 1,
		out, outcap);
}

static struct udp_batch* udp_batch_create(void)
{
	struct udp_batch* b = calloc(1, sizeof(*b));
	int i;
	if(!b)
		return NULL;
	b->reply = malloc((size_t)UDP_BATCH * UDP_REPLY_MAX);
	if(!b->reply) {
		free(b);
		return NULL;
	}
	for(i = 0; i < UDP_BATCH; i++) {
		b->riov[i].iov_base = b->query[i];
		b->riov[i].iov_len = UDP_QUERY_MAX;
		b->rmsg[i].msg_hdr.msg_name = &b->addr[i];
		b->rmsg[i].msg_hdr.msg_iov = &b->riov[i];
		b->rmsg[i].msg_hdr.msg_iovlen = 1;
	}
	return b;
}

struct worker* worker_create(struct daemon* d, int num)
{
	struct worker* w = aligned_alloc(64, (sizeof(struct worker) + 63) /
		64 * 64);
	struct listen_sockets* ls = d->ports;
	int i;
	if(!w)
		return NULL;
	memset(w, 0, sizeof(*w));
	w->thread_num = num;
	w->daemon = d;
	w->env = daemon_env_acquire(d, &w->env_gen);
	w->base = event_base_new();
	w->udp = udp_batch_create();
	w->events = calloc((size_t)ls->num, sizeof(*w->events));
	if(!w->base || !w->udp || !w->events)
		goto fail;
	w->tcp = tcp_pool_create(w->base, w->env->cfg->incoming_num_tcp,
		w->env->cfg->tcp_idle_timeout, tcp_answer, w);
	if(!w->tcp)
		goto fail;
	for(i = 0; i < ls->num; i++) {
		struct listen_socket* s = &ls->socks[i];
		if(s->thread != -1 && s->thread != num)
			continue;  /* another worker's own socket */
		if(s->is_tcp) {
			if(!tcp_pool_add_listener(w->tcp, s->fd))
				goto fail;
			continue;
		}
		w->events[w->num_events] = event_new(w->base, s->fd,
			EV_READ | EV_PERSIST, udp_read_cb, w);
		if(!w->events[w->num_events] ||
			event_add(w->events[w->num_events], NULL) != 0)
			goto fail;
		w->num_events++;
	}
	return w;
fail:
	log_err("could not create worker %d", num);
	worker_delete(w);
	return NULL;
}

static void* worker_main(void* arg)
{
	struct worker* w = arg;
	log_thread_set(w->thread_num);
	verbose(VERB_ALGO, "worker %d start", w->thread_num);
	event_base_dispatch(w->base);
	verbose(VERB_ALGO, "worker %d stop", w->thread_num);
	return NULL;
}

int worker_start(struct worker* w)
{
	sigset_t all, old;
	int r;
	/* signals are for the main thread only */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&w->thr, NULL, worker_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if(r != 0) {
		log_err("pthread_create: %s", strerror(r));
		return 0;
	}
	return 1;
}

void worker_stop(struct worker* w)
{
	event_base_loopbreak(w->base);
	pthread_join(w->thr, NULL);
}

void worker_delete(struct worker* w)
{
	int i;
	if(!w)
		return;
	for(i = 0; i < w->num_events; i++)
		event_free(w->events[i]);
	free(w->events);
	tcp_pool_delete(w->tcp);
	if(w->base)
		event_base_free(w->base);
	if(w->udp)
		free(w->udp->reply);
	free(w->udp);
	serve_env_release(w->env);
	free(w);
}
