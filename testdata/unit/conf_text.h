/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/unit/conf_text.h - a unit test's config from the text of an
 * unbound.conf: written to a temporary file and read by config_read, as
 * the daemon reads its own (NULL when the reader refuses it). Include
 * after cmocka.h. */
#ifndef TESTDATA_UNIT_CONF_TEXT_H
#define TESTDATA_UNIT_CONF_TEXT_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/config_file.h"

static struct config_file* conf(const char* text)
{
	char path[64];
	struct config_file* cfg = config_create();
	int fd, ok;
	snprintf(path, sizeof(path), "/tmp/unit_conf_text.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
	assert_non_null(cfg);
	ok = config_read(cfg, path, NULL);
	unlink(path);
	if(!ok) {
		config_delete(cfg);
		return NULL;
	}
	return cfg;
}

#endif /* TESTDATA_UNIT_CONF_TEXT_H */
