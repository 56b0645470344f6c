/* SPDX-License-Identifier: BSD-3-Clause */
/* daemon/remote_cookie.c - compat: unbound-1.21: unbound-control's DNS cookie
 * secret commands (add_cookie_secret, activate_cookie_secret,
 * drop_cookie_secret, print_cookie_secrets), in Unbound's words. The change
 * is written to the cookie-secret-file first, then published as a new
 * serve_env (the workers never see a secret change under them). */
#include "config.h"
#include "daemon/remote_cmd.h"
#include "daemon/daemon.h"
#include "services/localzone.h"
#include "util/config_file.h"
#include "util/edns_cookie.h"
#include "util/strutil.h"
#include <string.h>

static int word_is(const char* p, const char* cmd)
{
	size_t n = strlen(cmd);
	return strncmp(p, cmd, n) == 0 && (p[n] == 0 || p[n] == ' ' ||
		p[n] == '\t');
}

static const char* secret_file(struct daemon_remote* rc)
{
	const char* f = rc->d->env->cfg->cookie_secret_file;
	return f && f[0] ? f : NULL;
}

/* Write s to the file, then publish it; answers "ok" or the error. */
static void publish(struct daemon_remote* rc, struct cookie_secrets* s,
	struct strbuf* b)
{
	char err[512];
	struct config_file* cfg;
	struct local_zones* lz;
	struct serve_env* env;
	if(!cookie_secrets_write_file(secret_file(rc), s, err, sizeof(err))) {
		strbuf_printf(b, "%s\nerror: writing to cookie secret file: "
			"\"%s\"\n", err, secret_file(rc));
		return;
	}
	if(!(cfg = config_copy(rc->d->env->cfg)) ||
		!(lz = local_zones_copy(rc->d->env->lz))) {
		config_delete(cfg);
		strbuf_printf(b, "error: out of memory\n");
		return;
	}
	if(!(env = serve_env_derive(cfg, lz, rc->d->env))) {
		strbuf_printf(b, "error: out of memory\n");
		return;
	}
	env->cookies = *s;
	env->cookies.gen = cookie_secrets_next_gen();
	daemon_env_publish(rc->d, env);
	strbuf_printf(b, "ok\n");
}

static void do_add(struct daemon_remote* rc, char* args, struct strbuf* b)
{
	struct cookie_secrets s;
	uint8_t secret[COOKIE_SECRET_SIZE];
	size_t n;
	if(!secret_file(rc)) {
		strbuf_printf(b, "error: no cookie secret file configured\n");
		return;
	}
	args = (char*)str_skip_blank(args);
	n = strcspn(args, " \t\r\n");
	args[n] = 0;
	if(n == 0) {
		strbuf_printf(b, "error: missing argument (cookie_secret)\n");
		return;
	}
	if(n != 2 * COOKIE_SECRET_SIZE || !cookie_secret_from_hex(args, n,
		secret)) {
		strbuf_printf(b, "invalid cookie secret: %s\nplease provide a "
			"128bit hex encoded secret\n", n != 2 *
			COOKIE_SECRET_SIZE ? "invalid argument length" :
			"parse error");
		memset(args, 0, n);
		return;
	}
	memset(args, 0, n);
	s = rc->d->env->cookies;
	cookie_secrets_add(&s, secret);
	memset(secret, 0, sizeof(secret));
	publish(rc, &s, b);
	memset(&s, 0, sizeof(s));
}

static void do_activate_drop(struct daemon_remote* rc, int activate,
	struct strbuf* b)
{
	struct cookie_secrets s;
	if(!secret_file(rc)) {
		strbuf_printf(b, "error: no cookie secret file configured\n");
		return;
	}
	s = rc->d->env->cookies;
	if(!(activate ? cookie_secrets_activate(&s) :
		cookie_secrets_drop(&s))) {
		strbuf_printf(b, activate ?
			"error: no staging cookie secret to activate\n" :
			"error: can not drop the currently active cookie "
			"secret\n");
		return;
	}
	publish(rc, &s, b);
	memset(&s, 0, sizeof(s));
}

/* compat: unbound-1.21: the secrets of the cookie-secret-file ("active : ",
 * "staging: "); nothing when none is configured */
static void do_print(struct daemon_remote* rc, struct strbuf* b)
{
	const struct cookie_secrets* s = &rc->d->env->cookies;
	int i, j;
	if(!secret_file(rc))
		return;
	for(i = 0; i < s->count; i++) {
		strbuf_printf(b, "%s", i == 0 ? "active : " : "staging: ");
		for(j = 0; j < COOKIE_SECRET_SIZE; j++)
			strbuf_printf(b, "%02x", s->secret[i][j]);
		strbuf_printf(b, "\n");
	}
}

int rc_cookie_cmd(struct daemon_remote* rc, const char* p, char* args,
	struct strbuf* b)
{
	char none[1] = "";
	if(word_is(p, "add_cookie_secret"))
		do_add(rc, args ? args : none, b);
	else if(word_is(p, "activate_cookie_secret"))
		do_activate_drop(rc, 1, b);
	else if(word_is(p, "drop_cookie_secret"))
		do_activate_drop(rc, 0, b);
	else if(word_is(p, "print_cookie_secrets"))
		do_print(rc, b);
	else
		return 0;
	return 1;
}
