/* daemon/acl_list.c: to be written */
#include "config.h"
