// SPDX-License-Identifier: GPL-2.0
/*
 * The test's side of mwin_faults' processes: start the peer processes
 * (peer.c) and the controller (ctl.c), command the peers through their
 * slots (run, quiesce, verify, stop) and wait for their answers, let the
 * load run while watching for calls that do not return, reap the
 * processes, and report what they saw. Every wait is bounded; what is
 * stuck has its kernel stacks logged.
 */
#define _GNU_SOURCE
#include "faults.h"

#define STUCK_MS	15000

/*
 * A step failed in a way its caller has logged: the harness counts it as
 * a failed check, and the test's loops read self->failed.
 */
void step_failed(struct __test_metadata *_metadata,
		 FIXTURE_DATA(faults) *self)
{
	self->failed = true;
	EXPECT_FALSE(self->failed);
}

/* ------------------------------------------------------------- peers */

/*
 * Start the peer process of slot @i. A new process in a used slot (@fresh
 * false) adds to its counters and history.
 */
pid_t start_peer(FIXTURE_DATA(faults) *self, int i, int mode, bool fresh)
{
	struct peer_slot *s = &self->sh->peer[i];
	pid_t pid;

	if (fresh)
		memset(s, 0, sizeof(*s));
	s->mode = mode;
	s->exit_when_gone = 0;
	s->cmd = CMD_RUN;
	s->ack = s->epoch;
	s->id = 0;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (!pid)
		peer_main(self->sh, i, self->seed * 7 + i + 1);
	s->pid = pid;
	return pid;
}

/* The NPEERS hammering peers, each connected. */
void start_peers(struct __test_metadata *_metadata,
		 FIXTURE_DATA(faults) *self)
{
	int i;

	for (i = 0; i < NPEERS; i++)
		ASSERT_LT(0, start_peer(self, i, PEER_HAMMER, true));
	ASSERT_EQ(0, wait_peers_connected(self, 0, NPEERS, 20000));
}

/* The running test, for watch_lost() from every wait. */
FIXTURE_DATA(faults) *watched;

/*
 * A peer process waits up to 5 s for the module to close a connection on
 * which an access failed. Tell it when the module has dropped that peer:
 * then a connection that still looks open to it was dropped without a
 * disconnect it could see ('R').
 */
void watch_lost(void)
{
	struct mwin_peer_info pi;
	int i;

	if (!watched || watched->fd < 0)
		return;
	for (i = 0; i < NSLOTS_PEER; i++) {
		struct peer_slot *s = &watched->sh->peer[i];
		uint32_t id = LOAD(s->lost_id);

		if (id && !LOAD(s->lost_gone) &&
		    mwin_peer_get(watched->fd, id, 0, &pi) == -ENOENT &&
		    LOAD(s->lost_id) == id)
			STORE(s->lost_gone, 1);
	}
}

/* Wait until peers @from..@to-1 are connected. */
int wait_peers_connected(FIXTURE_DATA(faults) *self, int from, int to, int ms)
{
	int64_t end = test_now_ms() + ms;
	int i;

	for (;;) {
		for (i = from; i < to; i++)
			if (!LOAD(self->sh->peer[i].id))
				break;
		if (i == to)
			return 0;
		if (test_now_ms() > end)
			return -ETIMEDOUT;
		watch_lost();
		usleep(10000);
	}
}

/* Command peers @from..@to-1; each acks the new epoch when done. */
void peers_cmd(FIXTURE_DATA(faults) *self, int from, int to, int cmd)
{
	int i;

	for (i = from; i < to; i++) {
		struct peer_slot *s = &self->sh->peer[i];

		if (!s->pid)
			continue;
		STORE(s->cmd, cmd);
		INC(s->epoch);
	}
}

/* Wait for the peers to carry out their last command. */
int peers_wait_ack(struct __test_metadata *_metadata,
		   FIXTURE_DATA(faults) *self, int from, int to, int ms)
{
	int64_t end = test_now_ms() + ms;
	int i;

	for (i = from; i < to; i++) {
		struct peer_slot *s = &self->sh->peer[i];

		if (!s->pid)
			continue;
		while (LOAD(s->ack) != LOAD(s->epoch)) {
			if (test_now_ms() > end) {
				TH_LOG("peer process %d (slot %d) did not answer in %d ms",
				       s->pid, i, ms);
				dump_stacks(_metadata, s->pid, "peer process");
				return -ETIMEDOUT;
			}
			watch_lost();
			usleep(5000);
		}
	}
	return 0;
}

/*
 * How the connections of peers @from..@to-1 ended. T, O and R (dropped by
 * the module without a disconnect the peer saw) are failures.
 */
void check_ends(struct __test_metadata *_metadata,
		FIXTURE_DATA(faults) *self, int from, int to)
{
	int i;

	for (i = from; i < to; i++) {
		struct peer_slot *s = &self->sh->peer[i];
		unsigned int k, n = LOAD(s->nends), cnt[128] = { 0 };
		unsigned int bad = 0, dropped = 0;

		for (k = 0; k < n && k < MAX_ENDS; k++) {
			char how = s->ends[k].how;

			cnt[(unsigned char)how & 127]++;
			if (how == 'R' && !dropped++)
				TH_LOG("peer %u (slot %d): the module dropped the peer, but the peer saw no disconnect in 5 s",
				       s->ends[k].id, i);
			if (how != 'T' && how != 'O')
				continue;
			if (!bad++)
				TH_LOG("peer %u (slot %d): an access %s, and the module did not drop the peer within 5 s",
				       s->ends[k].id, i,
				       how == 'T' ? "failed" : "timed out");
		}
		TH_LOG("peer slot %d: %u connections (%u failed to connect), %lu accesses (%lu OK, %lu failed, %lu timed out), %lu self-invalidations, %lu grants and %lu revokes; ends: %u closed by the module, %u after a failed access, %u dropped by the peer, %u dropped unseen, %u at exit",
		       i, s->connects, s->connect_fails, s->ops, s->ok,
		       s->failed, s->timeouts, s->self_inv, s->grants_seen,
		       s->revokes_seen, cnt['D'], cnt['Q'], cnt['S'],
		       cnt['R'], cnt['E']);
		if (n >= MAX_ENDS)
			TH_LOG("peer slot %d: only the first %d connections were recorded",
			       i, MAX_ENDS);
		EXPECT_EQ(0, bad);
		EXPECT_EQ(0, dropped);
		if (s->proto_errors)
			TH_LOG("peer slot %d: %u messages broke the protocol, first: %s",
			       i, s->proto_errors, s->proto_first);
		EXPECT_EQ(0, s->proto_errors);
	}
}

/* Did a peer process see connection @id end with @how (any if 0)? */
bool peer_saw_end(FIXTURE_DATA(faults) *self, uint32_t id,
		  const char *how)
{
	int i;
	unsigned int k;

	for (i = 0; i < NSLOTS_PEER; i++) {
		struct peer_slot *s = &self->sh->peer[i];
		unsigned int n = LOAD(s->nends);

		for (k = 0; k < n && k < MAX_ENDS; k++)
			if (s->ends[k].id == id)
				return strchr(how, s->ends[k].how);
		if (n >= MAX_ENDS)
			return true;	/* not recorded: cannot tell */
	}
	return false;
}

void stop_peers(struct __test_metadata *_metadata,
		FIXTURE_DATA(faults) *self, int from, int to)
{
	int i, status;

	peers_cmd(self, from, to, CMD_STOP);
	for (i = from; i < to; i++) {
		struct peer_slot *s = &self->sh->peer[i];

		if (!s->pid)
			continue;
		if (wait_pid(s->pid, 15000, &status)) {
			TH_LOG("peer process %d (slot %d) did not stop in 15 s",
			       s->pid, i);
			dump_stacks(_metadata, s->pid, "peer process");
			kill(s->pid, SIGKILL);
			wait_pid(s->pid, 5000, &status);
			step_failed(_metadata, self);
		} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			TH_LOG("peer process %d (slot %d) ended with status 0x%x",
			       s->pid, i, status);
			step_failed(_metadata, self);
		}
		s->pid = 0;
	}
}

/* Accesses that succeeded, over the NPEERS peers. */
unsigned long peers_ok(FIXTURE_DATA(faults) *self)
{
	unsigned long n = 0;
	int i;

	for (i = 0; i < NPEERS; i++)
		n += LOAD(self->sh->peer[i].ok);
	return n;
}

/* Connections ended, over the NPEERS peers. */
unsigned int peers_ends(FIXTURE_DATA(faults) *self)
{
	unsigned int n = 0;
	int i;

	for (i = 0; i < NPEERS; i++)
		n += LOAD(self->sh->peer[i].nends);
	return n;
}

/* -------------------------------------------------------- controller */

/* Log @what is done now, and which calls the controller has in flight. */
void log_inflight(struct __test_metadata *_metadata,
		  FIXTURE_DATA(faults) *self, const char *what)
{
	char buf[256];
	int64_t now = test_now_ms();
	size_t n = 0;
	int t;

	if (!self->ctl) {
		TH_LOG("%.2fs: %s", t_rel(self), what);
		return;
	}
	for (t = 0; t < NTHREADS; t++) {
		int op = LOAD(self->sh->ct[t].op);

		if (op == OP_NONE)
			n += snprintf(buf + n, sizeof(buf) - n, " t%d:-", t);
		else
			n += snprintf(buf + n, sizeof(buf) - n, " t%d:%s(%lldms)",
				      t, op_name[op],
				      (long long)(now - LOAD(self->sh->ct[t].since_ms)));
		if (n >= sizeof(buf))
			break;
	}
	TH_LOG("%.2fs: %s; calls in flight:%s", t_rel(self), what, buf);
}

/*
 * Fork the controller and wait (10 s at most) until its threads run;
 * with @disconnects its threads disconnect peers too.
 */
int start_ctl(struct __test_metadata *_metadata,
	      FIXTURE_DATA(faults) *self, bool disconnects)
{
	int64_t end = test_now_ms() + 10000;
	pid_t pid;

	STORE(self->sh->ctl_ready, 0);
	STORE(self->sh->ctl_stop, 0);
	STORE(self->sh->ctl_disconnects, disconnects);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (!pid)
		ctl_main(self->sh, self->seed ^ (unsigned int)test_now_ms());
	self->ctl = pid;
	while (!LOAD(self->sh->ctl_ready)) {
		int status;

		if (waitpid(pid, &status, WNOHANG) == pid) {
			TH_LOG("controller exited early: status 0x%x", status);
			self->ctl = 0;
			return -EIO;
		}
		if (test_now_ms() > end) {
			TH_LOG("controller not ready in 10 s");
			return -ETIMEDOUT;
		}
		usleep(2000);
	}
	return 0;
}

/* A call in flight for longer than STUCK_MS is a hang. */
static int ctl_stuck(struct __test_metadata *_metadata,
		     FIXTURE_DATA(faults) *self)
{
	int t;

	for (t = 0; t < NTHREADS; t++) {
		int op = LOAD(self->sh->ct[t].op);

		if (op != OP_NONE &&
		    test_now_ms() - LOAD(self->sh->ct[t].since_ms) > STUCK_MS) {
			TH_LOG("controller thread %d: %s has not returned in %d ms",
			       t, op_name[op], STUCK_MS);
			dump_stacks(_metadata, self->ctl, "controller");
			return 1;
		}
	}
	return 0;
}

/* Let the load run @ms, watching for calls that do not return. */
void run_load(struct __test_metadata *_metadata,
	      FIXTURE_DATA(faults) *self, int ms)
{
	int64_t end = test_now_ms() + ms;

	while (test_now_ms() < end) {
		if (self->ctl && ctl_stuck(_metadata, self)) {
			step_failed(_metadata, self);
			return;
		}
		watch_lost();
		usleep(ms < 20 ? 1000 : 10000);
	}
}

/* Milliseconds in [lo, hi). */
int rand_ms(FIXTURE_DATA(faults) *self, int lo, int hi)
{
	return lo + rand_r(&self->seed) % (hi > lo ? hi - lo : 1);
}

/* Wait (at most @ms) until a controller thread is in one of @ops. */
bool wait_for_op(FIXTURE_DATA(faults) *self, const int *ops, int nops,
		 int ms)
{
	int64_t end = test_now_ms() + ms;
	int t, k;

	while (test_now_ms() < end) {
		for (t = 0; t < NTHREADS; t++)
			for (k = 0; k < nops; k++)
				if (LOAD(self->sh->ct[t].op) == ops[k])
					return true;
		usleep(200);
	}
	return false;
}

/* Reap the controller: killed, or asked to stop. Returns its status. */
int reap_ctl(struct __test_metadata *_metadata,
	     FIXTURE_DATA(faults) *self, bool kill_it)
{
	int status = -1;

	if (!self->ctl)
		return -1;
	if (kill_it)
		kill(self->ctl, SIGKILL);
	else
		STORE(self->sh->ctl_stop, 1);
	if (wait_pid(self->ctl, 25000, &status)) {
		TH_LOG("controller (pid %d) did not %s in 25 s", self->ctl,
		       kill_it ? "die of SIGKILL" : "stop");
		dump_stacks(_metadata, self->ctl, "controller");
		kill(self->ctl, SIGKILL);
		wait_pid(self->ctl, 25000, &status);
		step_failed(_metadata, self);
	}
	self->ctl = 0;
	return status;
}

/* Log what the controller's calls returned: a bad result fails the test. */
void ctl_report(struct __test_metadata *_metadata,
		FIXTURE_DATA(faults) *self)
{
	unsigned long calls[NOPS] = { 0 }, errors[NOPS] = { 0 }, bad = 0;
	char buf[512];
	size_t n = 0;
	int t, op;

	for (t = 0; t < NTHREADS; t++) {
		struct ctl_thread *ct = &self->sh->ct[t];

		for (op = 1; op < NOPS; op++) {
			calls[op] += ct->calls[op];
			errors[op] += ct->errors[op];
		}
		if (ct->bad)
			TH_LOG("controller thread %d: %lu calls returned what they must not, first: %s",
			       t, ct->bad, ct->bad_msg);
		bad += ct->bad;
	}
	for (op = 1; op < NOPS && n < sizeof(buf); op++)
		n += snprintf(buf + n, sizeof(buf) - n, " %s %lu/%lu",
			      op_name[op], errors[op], calls[op]);
	TH_LOG("controller calls (errors/calls):%s", buf);
	EXPECT_EQ(0, bad);
}
