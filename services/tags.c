/* SPDX-License-Identifier: BSD-3-Clause */
/* services/tags.c - compat: unbound-1.17: define-tag names, tag lists
 * (services/tags.h). Only used while a config snapshot is built. */
#include "config.h"
#include "services/tags.h"
#include "util/config_file.h"
#include "util/log.h"
#include <string.h>

/* The defined names in order, duplicates left out, into w/l (at most
 * TAGS_MAX + 1: enough to tell "too many"); returns how many. */
static int
tags_names(const struct config_file* cfg, const char** w, size_t* l)
{
	const struct config_strlist* p;
	int n = 0, i;
	for(p = cfg ? cfg->define_tags : NULL; p; p = p->next) {
		const char* s = p->str ? p->str : "";
		for(;;) {
			size_t len;
			s += strspn(s, " \t\n");
			if(!*s)
				break;
			len = strcspn(s, " \t\n");
			for(i = 0; i < n; i++)
				if(l[i] == len && strncmp(w[i], s, len) == 0)
					break;
			if(i == n && n <= TAGS_MAX) {
				w[n] = s;
				l[n++] = len;
			}
			s += len;
		}
	}
	return n;
}

int
tags_count(const struct config_file* cfg)
{
	const char* w[TAGS_MAX + 1];
	size_t l[TAGS_MAX + 1];
	int n = tags_names(cfg, w, l);
	if(n > TAGS_MAX) {
		log_err("too many tags defined with define-tag, at most "
			"%d", TAGS_MAX);
		return -1;
	}
	return n;
}

int
tags_find_id(const struct config_file* cfg, const char* name)
{
	const char* w[TAGS_MAX + 1];
	size_t l[TAGS_MAX + 1];
	int n = tags_names(cfg, w, l), i;
	for(i = 0; i < n && i < TAGS_MAX; i++)
		if(strlen(name) == l[i] && strncmp(name, w[i], l[i]) == 0)
			return i;
	return -1;
}

int
tags_parse_list(const struct config_file* cfg, const char* list,
	uint64_t* bits)
{
	char word[256];
	const char* s = list ? list : "";
	int n = tags_count(cfg);
	*bits = 0;
	if(n < 0)
		return 0;
	if(n == 0) {
		log_err("parse taglist, but no tags defined");
		return 0;
	}
	for(;;) {
		size_t len;
		int id;
		s += strspn(s, " \t\n");
		if(!*s)
			break;
		len = strcspn(s, " \t\n");
		if(len >= sizeof(word))
			len = sizeof(word) - 1;
		memcpy(word, s, len);
		word[len] = 0;
		s += strcspn(s, " \t\n");
		if((id = tags_find_id(cfg, word)) < 0) {
			log_err("unknown tag: %s", word);
			return 0;
		}
		*bits |= (uint64_t)1 << id;
	}
	return 1;
}
