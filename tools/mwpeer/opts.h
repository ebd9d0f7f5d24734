/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mwpeer: its command line (opts.c), and the numbers that the command
 * line and the commands on stdin share (decimal or 0x hex).
 */
#ifndef _MWPEER_OPTS_H
#define _MWPEER_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include <mwin/peer.h>

/* What the command line asks for: whom to connect to, and how. */
struct cmdline {
	struct mwpeer_opts o;	/* .key points at @key when a key was given */
	uint16_t port;
	const char *host;
	uint8_t key[MWIN_TENANT_KEY_MAX];
};

/*
 * Parse the options and HOST into @c, and read the key file. Exits 0
 * after --help or --version, 2 after a usage error (one line on stderr
 * that names the option and what it takes) or a bad key file.
 */
void parse_cmdline(int argc, char **argv, struct cmdline *c);

bool parse_u64(const char *s, uint64_t *out);
bool parse_u32(const char *s, uint32_t *out);

#endif /* _MWPEER_OPTS_H */
