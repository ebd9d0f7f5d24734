// SPDX-License-Identifier: GPL-2.0
/*
 * libmwin-app: an application of the installed libmwin, built by
 * install-check.sh with `pkg-config --cflags --libs mwin` against a
 * staged tree, that checks what runs without the module: the explanations
 * of mwin_strerror(), the event decoder (over a pipe), the checks done
 * before any ioctl, and open failing as /dev/mwin is absent.
 *
 *   libmwin-app          the checks: one line per failure, exit 1 on any
 *   libmwin-app sizes    the sizes of the uAPI structs, for the Python
 *                        module's to be compared with
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <mwin/mwin.h>

static int failed;

static void expect_str(const char *what, const char *got, const char *want)
{
	if (strcmp(got, want)) {
		printf("%s: \"%s\", not \"%s\"\n", what, got, want);
		failed++;
	}
}

static void expect_int(const char *what, long got, long want)
{
	if (got != want) {
		printf("%s: %ld, not %ld\n", what, got, want);
		failed++;
	}
}

static void check_strerror(void)
{
	expect_str("open ENOENT", mwin_strerror(MWIN_CALL_OPEN, -ENOENT),
		   "No such file or directory (is the mwin module loaded?)");
	expect_str("renew ETIME", mwin_strerror(MWIN_CALL_WINDOW_RENEW, ETIME),
		   "its lease ran out; rebind it for a new grant");
	expect_str("any call's EPERM", mwin_strerror(MWIN_CALL_TENANT_SET, -EPERM),
		   "Operation not permitted (needs CAP_SYS_ADMIN)");
	expect_str("ENOTTY", mwin_strerror(MWIN_CALL_STATS, -ENOTTY),
		   "the loaded mwin module does not know this command (ABI 1 expected)");
	expect_str("no meaning of its own", mwin_strerror(MWIN_CALL_INFO, -EFAULT),
		   strerror(EFAULT));
	expect_str("event name", mwin_event_name(MWIN_EVENT_REVOKE), "revoke");
}

/*
 * mwin_next_event() over a pipe, which hands out what was written: an
 * older module's record, today's, and a record cut short.
 */
static void check_events(void)
{
	struct mwin_event in = {
		.size = sizeof(in), .type = MWIN_EVENT_GRANT, .window = 7,
		.peer = 3, .rkey = 0x1234, .reason = 500, .seq = 9,
	}, out;
	uint8_t older[24];
	int p[2];

	if (pipe(p)) {
		printf("pipe: %s\n", strerror(errno));
		failed++;
		return;
	}
	memcpy(older, &in, sizeof(older));
	older[0] = sizeof(older);
	expect_int("write", write(p[1], older, sizeof(older)), sizeof(older));
	expect_int("an older record", mwin_next_event(p[0], &out), 0);
	expect_int("an older record's window", out.window, 7);
	expect_int("an older record's seq (it has none)", (long)out.seq, 0);
	expect_int("write", write(p[1], &in, sizeof(in)), sizeof(in));
	expect_int("today's record", mwin_next_event(p[0], &out), 0);
	expect_int("today's record's seq", (long)out.seq, 9);
	expect_int("write", write(p[1], &in, 8), 8);
	expect_int("a record cut short", mwin_next_event(p[0], &out), -EPROTO);
	close(p[1]);
	close(p[0]);
}

static void check_no_module(void)
{
	struct mwin_region_opts o = { .size = sizeof(o) - 1, .length = 4096 };
	uint32_t id;

	expect_int("region opts of an unknown size",
		   mwin_region_create_opts(-1, &o, &id, NULL), -EINVAL);
	o.size = sizeof(o) + 8;
	expect_int("region opts larger than the library's",
		   mwin_region_create_opts(-1, &o, &id, NULL), -EINVAL);
	o.size = MWIN_REGION_OPTS_SIZE_VER0 - 8;
	expect_int("region opts smaller than the first version",
		   mwin_region_create_opts(-1, &o, &id, NULL), -EINVAL);
	/* a caller of the first version is taken: the ioctl says EBADF */
	o.size = MWIN_REGION_OPTS_SIZE_VER0;
	expect_int("region opts of the first version",
		   mwin_region_create_opts(-1, &o, &id, NULL), -EBADF);
	expect_int("a user region, no module",
		   mwin_region_create_user(-1, &o, 4096, 0, &id), -EBADF);
	expect_int("a file region, no module",
		   mwin_region_create_file(-1, 0, 0, 4096, 0, &id), -EBADF);
	if (access(MWIN_DEV_PATH, F_OK))
		expect_int("mwin_open() without /dev/mwin", mwin_open(), -ENOENT);
	if (access(MWIN_DEV_PATH, F_OK))
		expect_int("mwin_events() without /dev/mwin", mwin_events(), -ENOENT);
}

static void print_sizes(void)
{
	printf("%zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu\n",
	       sizeof(struct mwin_info), sizeof(struct mwin_dev_info),
	       sizeof(struct mwin_region_opts), sizeof(struct mwin_region_info),
	       sizeof(struct mwin_window_bind), sizeof(struct mwin_window_info),
	       sizeof(struct mwin_batch_op), sizeof(struct mwin_peer_info),
	       sizeof(struct mwin_tenant_info), sizeof(struct mwin_stats),
	       sizeof(struct mwin_event));
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "sizes")) {
		print_sizes();
		return 0;
	}
	check_strerror();
	check_events();
	check_no_module();
	return failed ? 1 : 0;
}
