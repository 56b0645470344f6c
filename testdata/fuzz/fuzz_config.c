/* SPDX-License-Identifier: BSD-3-Clause */
/* testdata/fuzz/fuzz_config.c - unbound.conf text: the parser
 * (util/config_parse.c, config_options.c) through config_read_text,
 * which reads only the text given (include: is an error there, so
 * the fuzzer cannot make it open files), then what the daemon does
 * with a config that reads: config_check, a deep copy
 * (config_copy), and building the serve env from the copy (access
 * control, local zones, root hints, stub and forward zones:
 * serve_env_derive), as a start or reload does. root-hints: and other
 * file options may still name files to read; nothing is written. */
#include "config.h"
#include "testdata/fuzz/fuzz_env.h"
#include "daemon/daemon.h"
#include "util/config_file.h"
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	static FILE* devnull;
	struct config_file* cfg, *copy;
	if(!devnull) {
		fuzz_quiet_logs();
		if(!(devnull = fopen("/dev/null", "w")))
			abort();
	}
	if(!(cfg = config_create()))
		abort();
	if(config_read_text(cfg, "fuzz.conf", (const char*)data, size) &&
		config_check(cfg)) {
		copy = config_copy(cfg);
		if(copy)
			serve_env_release(serve_env_derive(copy, NULL, NULL));
		(void)config_print_option(cfg, "local-zone", devnull);
	}
	config_delete(cfg);
	return 0;
}
