// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// The public header must be usable from C++, and the shared library must
// export its calls with C linkage.  Linked against libtxrdma.so.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <txrdma.h>

int main()
{
	struct txrdma_ctx *ctx = nullptr;
	int failed = 0;

	std::printf("TAP version 13\n1..2\n");
	const char *v = txrdma_version();
	bool ok = v && std::strlen(v) > 0;
	std::printf("%sok 1 - C++: txrdma_version() links and is non-empty\n",
		    ok ? "" : "not ");
	failed += !ok;
	ok = txrdma_open(&ctx, ~0u) == -EINVAL && !ctx;
	std::printf("%sok 2 - C++: txrdma_open() with bad flags gives -EINVAL\n",
		    ok ? "" : "not ");
	failed += !ok;
	return failed ? 1 : 0;
}
