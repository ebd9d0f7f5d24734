// SPDX-License-Identifier: GPL-2.0
/*
 * mwctl peer: the RDMA CM connections remote hosts made to the module.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "mwctl.h"

static int usage_peer(struct mw *mw)
{
	(void)mw;
	fputs("Usage: mwctl peer [ show [ ID ] ]\n"
	      "       mwctl peer gone [ ID ]\n"
	      "       mwctl peer disconnect ID\n"
	      "Peers are RDMA CM connections made by remote hosts, each as a tenant or\n"
	      "anonymous (tenant -); disconnect tears one down and unbinds its windows.\n"
	      "gone: the last 64 peers that went, as they were then, and why (reason).\n",
	      stdout);
	return 0;
}

/* the host and port of a sockaddr_in or sockaddr_in6; "-" and 0 else */
static void peer_addr(const uint8_t *addr, char *host, size_t len,
		      unsigned int *port)
{
	sa_family_t family;

	memcpy(&family, addr, sizeof(family));
	*port = 0;
	snprintf(host, len, "-");
	if (family == AF_INET) {
		struct sockaddr_in sin;

		memcpy(&sin, addr, sizeof(sin));
		inet_ntop(AF_INET, &sin.sin_addr, host, (socklen_t)len);
		*port = ntohs(sin.sin_port);
	} else if (family == AF_INET6) {
		struct sockaddr_in6 sin6;

		memcpy(&sin6, addr, sizeof(sin6));
		inet_ntop(AF_INET6, &sin6.sin6_addr, host, (socklen_t)len);
		*port = ntohs(sin6.sin6_port);
	}
}

static void print_peer(struct mw *mw, const union mw_info *info)
{
	const struct mwin_peer_info *p = &info->peer;
	char host[INET6_ADDRSTRLEN + 8], hostport[INET6_ADDRSTRLEN + 16];
	char dev[sizeof(p->dev_name) + 1], tenant[MWIN_TENANT_NAME_MAX + 1];
	unsigned int port;

	peer_addr(p->addr, host, sizeof(host), &port);
	if (strchr(host, ':'))
		snprintf(hostport, sizeof(hostport), "[%s]:%u", host, port);
	else
		snprintf(hostport, sizeof(hostport), "%s:%u", host, port);

	pr_label("peer");
	pr_uint(PR_ANY, "id", p->id);
	pr_str(PR_TEXT, "addr", hostport);
	pr_str(PR_JSON, "addr", host);
	pr_uint(PR_JSON, "port", port);
	pr_str(PR_ANY, "tenant", tenant_name(mw, p->tenant, tenant,
					     sizeof(tenant)));
	pr_uint(PR_JSON, "tenant_id", p->tenant);
	pr_str(PR_ANY, "dev", name_str(dev, p->dev_name, sizeof(p->dev_name)));
	pr_uint(PR_ANY, "qpn", p->qpn);
	pr_str(PR_ANY, "state", mwin_peer_state_name(p->state));
	pr_uint(PR_ANY, "windows", p->nr_windows);
	if (p->down_reason)
		pr_str(PR_ANY, "reason", mwin_down_reason_name(p->down_reason));
	if (mw->details) {
		pr_uint(PR_ANY, "msgs_sent", p->msgs_sent);
		pr_uint(PR_ANY, "msgs_received", p->msgs_received);
		pr_uint(PR_ANY, "remote_invalidations", p->remote_invalidations);
		pr_uint(PR_ANY, "rejected_invalidations",
			p->rejected_invalidations);
	}
}

static int get_peer(int fd, uint32_t id, uint32_t flags, union mw_info *info)
{
	return mwin_peer_get(fd, id, flags, &info->peer);
}

static const struct mw_object peer_object = {
	.name = "peer",
	.list = "peers",
	.get = get_peer,
	.print = print_peer,
};

static int get_gone(int fd, uint32_t id, uint32_t flags, union mw_info *info)
{
	return mwin_peer_get(fd, id, flags | MWIN_GET_GONE, &info->peer);
}

/* the module's history of peers that went (MWIN_GET_GONE) */
static const struct mw_object gone_object = {
	.name = "gone peer",
	.list = "gone",
	.get = get_gone,
	.print = print_peer,
};

static int peer_show(struct mw *mw)
{
	return mw_show(mw, &peer_object);
}

static int peer_gone(struct mw *mw)
{
	return mw_show(mw, &gone_object);
}

static int peer_disconnect(struct mw *mw)
{
	uint32_t id = take_id(mw);
	int ret;

	no_args(mw);
	mw_open(mw);
	ret = mwin_peer_disconnect(mw->fd, id);
	if (ret)
		id_failed(mw, ret, id);
	print_done(mw, id, "disconnected");
	return 0;
}

int cmd_peer(struct mw *mw)
{
	static const struct mw_cmd cmds[] = {
		{ "show", peer_show, MWIN_CALL_PEER_GET },
		{ "gone", peer_gone, MWIN_CALL_PEER_GET },
		{ "disconnect", peer_disconnect, MWIN_CALL_PEER_DISCONNECT },
		{ "help", usage_peer, MWIN_CALL_ANY },
		{ 0 },
	};

	return mw_object(mw, "peer", usage_peer, cmds);
}
