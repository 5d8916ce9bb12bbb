/* SPDX-License-Identifier: Apache-2.0 */
/* metrics=[HOST:]PORT: the HTTP endpoint for Prometheus, on a thread of
 * its own. */
#ifndef PW_METRICS_SERVER_H
#define PW_METRICS_SERVER_H

#include "base/options.h"

/* Binds opts->metrics_host:metrics_port and starts serving, with a copy
 * of opts; nothing with metrics_port 0.  On failure logs one ERROR line
 * naming the address and the cause and returns false; the agent goes on
 * without the endpoint. */
PW_HIDDEN bool pw_metrics_server_start(const struct pw_options *opts);

#endif
