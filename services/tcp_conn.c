/* services/tcp_conn.c: to be written */
#include "config.h"
