/* validator/validator.c - the validator module (util/module.h).
 * FIRST STEP ONLY: it passes every question to the module below and
 * hands the result up unchecked. The checks come in the next commits. */
#include "config.h"
#include "util/module.h"
#include <stdlib.h>

static int val_init(struct module_env* env, int id)
{
	env->modinfo[id] = NULL;
	return 1;
}

static void val_deinit(struct module_env* env, int id)
{
	(void)env;
	(void)id;
}

static enum module_state val_operate(struct module_qstate* qs,
	enum module_event ev, int id, const struct outnet_reply* reply)
{
	(void)id;
	(void)reply;
	if(ev == MODULE_EVENT_NEW)
		return MODULE_WAIT_MODULE;
	qs->res.security = SEC_UNCHECKED;
	return MODULE_FINISHED;
}

static void val_inform_super(struct module_qstate* sub, int id,
	struct module_qstate* super)
{
	(void)sub;
	(void)id;
	(void)super;
}

static void val_clear(struct module_qstate* qs, int id)
{
	qs->minfo[id] = NULL;
}

const struct module_func_block val_module_block = {
	.name = "validator",
	.init = val_init,
	.deinit = val_deinit,
	.operate = val_operate,
	.inform_super = val_inform_super,
	.clear = val_clear,
};
