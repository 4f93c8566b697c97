// SPDX-License-Identifier: MIT
/* wl_leaf: exec target of wl_forktree; exits at once with status 0. */
int main(void)
{
	return 0;
}
