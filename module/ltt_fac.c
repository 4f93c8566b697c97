// SPDX-License-Identifier: GPL-2.0
/*
 * ltt trace module: the event source of a patched kernel, its trace
 * facility (<linux/ltt.h>, CONFIG_LTT, docs/kernel-facility.md). The
 * facility's hooks build every event's details and call the one callback
 * registered with it, ltt_callback(); registering enables the hooks'
 * static key and the syscall work of every thread, unregistering disables
 * both and waits for an RCU grace period. The facility applies the
 * syscall IP policy itself.
 */
#include <linux/ltt.h>

#include "ltt_tracer.h"

const u32 ltt_backend = LTT_BACKEND_FACILITY;

int ltt_backend_attach(const struct ltt_config *cfg)
{
	int ret;

	ltt_set_syscall_ip_policy(cfg->syscall_depth, cfg->syscall_range.lower,
				  cfg->syscall_range.upper);
	ret = ltt_register_callback(ltt_callback);
	if (ret)
		ltt_set_syscall_ip_policy(0, 0, 0);
	return ret;
}

void ltt_backend_detach(void)
{
	/* Cannot fail: this module registered ltt_callback itself. */
	WARN_ON_ONCE(ltt_unregister_callback(ltt_callback));
	ltt_set_syscall_ip_policy(0, 0, 0);
}
