// SPDX-License-Identifier: GPL-2.0
/*
 * ltt trace module: the event source of a patched kernel, its trace
 * facility (<linux/ltt.h>, CONFIG_LTT, docs/kernel-facility.md). The
 * facility's hooks build every event's details and call the one callback
 * registered with it, ltt_callback(); registering enables the hooks'
 * static key and the syscall work of every thread, unregistering disables
 * both and waits for an RCU grace period. The facility applies the
 * syscall IP policy itself. The hooks call the callback for every event;
 * its first test is the union of the sessions' masks, so a change of the
 * union needs nothing here.
 */
#include <linux/ltt.h>

#include "ltt_probe.h"

const u32 ltt_backend = LTT_BACKEND_FACILITY;
static bool ltt_fac_registered;

int ltt_backend_attach(const struct ltt_config *cfg, bool policy)
{
	int ret;

	if (policy)
		ltt_set_syscall_ip_policy(cfg->syscall_depth,
					  cfg->syscall_range.lower,
					  cfg->syscall_range.upper);
	/* Another session's START: the callback already gets everything. */
	if (ltt_fac_registered)
		return 0;
	ret = ltt_register_callback(ltt_callback);
	if (ret)
		ltt_set_syscall_ip_policy(0, 0, 0);
	else
		ltt_fac_registered = true;
	return ret;
}

void ltt_backend_trim(u64 mask)
{
}

void ltt_backend_detach(void)
{
	if (!ltt_fac_registered)
		return;
	/* Cannot fail: this module registered ltt_callback itself. */
	WARN_ON_ONCE(ltt_unregister_callback(ltt_callback));
	ltt_set_syscall_ip_policy(0, 0, 0);
	ltt_fac_registered = false;
}
