// SPDX-License-Identifier: GPL-2.0
/*
 * The world around the module, for mwin_faults: child processes and
 * bounded waits for them (with the kernel stacks of what is stuck), the
 * RDMA device (test_dev_name(): rxe0, or siw0) deleted and added back,
 * the module unloaded and loaded by its system calls, and slab memory,
 * taken once when the binary starts.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "faults.h"

/* --------------------------------------------------------- processes */

/* Child processes: no inherited /dev/mwin file or mapping, die with us. */
void child_init(void)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	syscall(SYS_close_range, 3, ~0U, 0);
}

/* Wait for @pid at most @ms; returns 0 and its status, or -ETIMEDOUT. */
int wait_pid(pid_t pid, int ms, int *status)
{
	int64_t end = test_now_ms() + ms;

	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);

		watch_lost();
		if (r == pid)
			return 0;
		if (r < 0)
			return -errno;
		if (test_now_ms() > end)
			return -ETIMEDOUT;
		usleep(5000);
	}
}

/* The kernel stacks of a process that is stuck, into the log. */
void dump_stacks(struct __test_metadata *_metadata, pid_t pid, const char *who)
{
	char path[64], line[256];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/stack", pid,
			 d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		TH_LOG("%s (pid %d, task %s) is stuck in:", who, pid,
		       d->d_name);
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			TH_LOG("    %s", line);
		}
		fclose(f);
	}
	closedir(dir);
}

/* Run a command (no shell), bounded; returns its exit status or -errno. */
int run_cmd(struct __test_metadata *_metadata, int ms, char *const argv[])
{
	int status, r;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		child_init();
		execvp(argv[0], argv);
		_exit(127);
	}
	r = wait_pid(pid, ms, &status);
	if (r) {
		TH_LOG("'%s %s ...' did not finish in %d ms", argv[0], argv[1],
		       ms);
		dump_stacks(_metadata, pid, argv[0]);
		kill(pid, SIGKILL);
		return r;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -EINTR;
}

/* ------------------------------------------------- the RDMA device */

bool exists(const char *path)
{
	return !access(path, F_OK);
}

/* /sys/class/infiniband/DEV@tail, of the tests' device */
const char *dev_path(char *buf, size_t size, const char *tail)
{
	snprintf(buf, size, "/sys/class/infiniband/%s%s", test_dev_name(),
		 tail);
	return buf;
}

bool dev_active(void)
{
	char buf[64] = "", path[128];
	int fd = open(dev_path(path, sizeof(path), "/ports/1/state"), O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 && strstr(buf, "ACTIVE");
}

int rdma_link_delete(struct __test_metadata *_metadata, int ms)
{
	char *const argv[] = {
		"rdma", "link", "delete", (char *)test_dev_name(), NULL
	};

	return run_cmd(_metadata, ms, argv);
}

int rdma_link_add(struct __test_metadata *_metadata, int ms)
{
	char *const argv[] = {
		"rdma", "link", "add", (char *)test_dev_name(),
		"type", (char *)test_provider(), "netdev", "eth0", NULL
	};

	return run_cmd(_metadata, ms, argv);
}

/* ------------------------------------------------------------ module */

/* rmmod and insmod by their system calls, in a child, bounded. */
int module_call(struct __test_metadata *_metadata, bool load, int ms)
{
	const char *ko = getenv("MWIN_KO");
	int status, r;
	pid_t pid;

	if (load && !ko)
		return -ENOENT;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		int fd;

		child_init();
		if (!load)
			_exit(syscall(SYS_delete_module, "mwin", O_NONBLOCK) ?
			      errno : 0);
		fd = open(ko, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			_exit(errno);
		_exit(syscall(SYS_finit_module, fd,
			      getenv("MWIN_MODULE_PARAMS") ?: "", 0) ?
		      errno : 0);
	}
	r = wait_pid(pid, ms, &status);
	if (r) {
		TH_LOG("%s did not return in %d ms", load ? "finit_module" :
		       "delete_module", ms);
		dump_stacks(_metadata, pid, load ? "insmod" : "rmmod");
		return r;
	}
	return WIFEXITED(status) ? -WEXITSTATUS(status) : -EINTR;
}

/* /sys/module/mwin/refcnt, or -1 when the module is not loaded. */
int module_refcnt(void)
{
	char buf[32] = "";
	int fd = open("/sys/module/mwin/refcnt", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atoi(buf) : -1;
}

/* Does the module list device @name? */
bool mwin_has_dev(int fd, const char *name)
{
	struct mwin_dev_info devs[8];
	struct mwin_info info;
	unsigned int i;

	if (mwin_info(fd, &info, devs, 8))
		return false;
	for (i = 0; i < info.nr_devs && i < 8; i++)
		if (!strcmp(devs[i].name, name))
			return true;
	return false;
}

/* The module loaded, the device present: what the next binaries need. */
void restore_world(struct __test_metadata *_metadata)
{
	char path[128];
	int i;

	if (!exists("/sys/module/mwin")) {
		TH_LOG("restoring: loading mwin again");
		module_call(_metadata, true, 30000);
	}
	if (!exists(dev_path(path, sizeof(path), ""))) {
		TH_LOG("restoring: adding %s again", test_dev_name());
		rdma_link_add(_metadata, 30000);
	}
	for (i = 0; i < 100 && !dev_active(); i++)
		usleep(50000);
}

/* ------------------------------------------------------ slab memory */

/* /proc/meminfo's @key in kB, or -1. */
long meminfo_kb(const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			v = atol(line + n + 1);
			break;
		}
	fclose(f);
	return v;
}

/* kB of slab objects in use: active objects times their size, all caches. */
long slab_used_kb(void)
{
	char line[512], name[128];
	long objs, total, size;
	long long sum = 0;
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %ld %ld %ld", name, &objs, &total,
			   &size) == 4)
			sum += (long long)objs * size;
	fclose(f);
	return sum / 1024;
}

/* Active objects of slab caches whose name starts with "mwin". */
long mwin_slab_objs(void)
{
	char line[512], name[128];
	long n = 0, objs;
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %ld", name, &objs) == 2 &&
		    !strncmp(name, "mwin", 4))
			n += objs;
	fclose(f);
	return n;
}

void drop_slab_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	sync();
	if (fd >= 0) {
		ssize_t n = write(fd, "3\n", 2);

		(void)n;	/* best effort */
		close(fd);
	}
}

struct start_state at_start;

/* Before any test: slab memory and the module's counts, for the end. */
static void __attribute__((constructor)) faults_start(void)
{
	int fd;

	drop_slab_caches();
	at_start.slab_kb = meminfo_kb("Slab");
	at_start.sunreclaim_kb = meminfo_kb("SUnreclaim");
	at_start.used_kb = slab_used_kb();
	at_start.mwin_objs = mwin_slab_objs();
	fd = mwin_open();
	if (fd >= 0) {
		at_start.info_ok = !mwin_info(fd, &at_start.info, NULL, 0);
		close(fd);
	}
}
