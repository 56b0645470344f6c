/* SPDX-License-Identifier: BSD-3-Clause */
/* util/module.c - the module interface's own code: the result a module
 * hands up (util/module.h), set and cleared by the modules and the mesh
 * alike. */
#include "config.h"
#include "util/module.h"
#include "util/msgparse.h"
#include <stddef.h>
#include <string.h>

void module_result_free_lists(struct module_result* res)
{
	ldns_rr_list_deep_free(res->answer);
	ldns_rr_list_deep_free(res->authority);
	ldns_rr_list_deep_free(res->additional);
	res->answer = res->authority = res->additional = NULL;
}

void module_result_clear(struct module_result* res)
{
	module_result_free_lists(res);
	memset(res, 0, sizeof(*res));
	res->rcode = RCODE_SERVFAIL;
	res->why_bogus.ede = VAL_EDE_NONE;
}

void module_result_clear_keep_from(struct module_result* res)
{
	int nfrom = res->num_from;
	module_result_free_lists(res);
	memset(res, 0, offsetof(struct module_result, from));
	memset(&res->num_from, 0, offsetof(struct module_result, ede_text) -
		offsetof(struct module_result, num_from));
	res->ede_text[0] = 0;
	res->num_from = nfrom;
	res->rcode = RCODE_SERVFAIL;
	res->why_bogus.ede = VAL_EDE_NONE;
}

void module_result_servfail(struct module_result* res)
{
	struct val_reason why = res->why_bogus;
	enum sec_status sec = res->security;
	module_result_clear(res);
	res->why_bogus = why;
	res->security = sec;
}
