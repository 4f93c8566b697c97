// SPDX-License-Identifier: GPL-2.0
/*
 * LTT_HAVE_LINUX_UNALIGNED_H: the unaligned-access helpers moved from
 * <asm/unaligned.h> to <linux/unaligned.h> (6.12).
 */
#include <linux/unaligned.h>
