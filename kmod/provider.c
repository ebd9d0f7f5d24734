// SPDX-License-Identifier: GPL-2.0
/*
 * What differs between RDMA providers, decided here alone: the rest of
 * mwin reads the mwin_dev fields set here, never a driver's name.
 * Documentation/qualify.rst ("Providers") lists each difference.
 *
 * rxe (soft-RoCE): page tables of its own (compat.h), and a send queue
 * that may stall until it is posted to again (peer_kick()).
 *
 * iWARP (siw, and iWARP hardware): a QP sends only once the iw_cm has
 * connected it to its TCP stream (siw_post_send() refuses a QP out of
 * RTS, and only iw_accept() moves it there), so a peer's window requests
 * go on its connected QP (peer_create_reg_qp()). A QP goes to error when
 * its stream closes, so a flushed request means the connection ended,
 * not that a request failed (peer_failed_why()). siw flushes the requests
 * queued on a QP when it moves to ERR from RTS, but from CLOSING (where a
 * disconnect leaves it) only the one it is sending: a peer's QPs go to ERR
 * before it is disconnected (peer_teardown()).
 *
 * MPA (RFC 5044, its rules of connection startup) lets the side that
 * accepted a connection send nothing before it has the other side's first
 * FPDU, unless both negotiated a "ready to receive" message (RFC 6581),
 * which siw does not: siw's connecting side fails the connection when an
 * FPDU comes with the accept's private data (siw_recv_mpa_rr()). So on
 * iWARP a peer owes its first SEND before the module sends it anything,
 * and is up only once it came (peer_heard()).
 *
 * siw invalidates an STag by its index, whatever its key byte
 * (siw_invalidate_stag()): a remote invalidation of an rkey the module
 * replaced kills the live one. And it answers an RDMA READ through any
 * valid STag of the QP's PD, whatever its rights (siw_qp_tx.c checks the
 * source with none): a window that may be written but not read cannot be
 * had there. Its transmit path builds a payload of up to 32 bytes that
 * crosses a page boundary from the wrong bytes (siw_try_1seg(), Debian 6.1
 * and 6.12): the second page's part is copied from a page's start, and,
 * when that part is the longer, the first page is read past its end. So a
 * short READ across a page boundary of a window can return bytes outside
 * it: those the page holds before the window, or those of the page
 * physically after. mwin cannot mend that; it says so when it adds the
 * device (mwin_dev_warn_defects()).
 *
 * mlx5 (by its source): none of these; its limits are its attributes.
 */
#include "compat.h"
#include "mwin.h"

/* siw: the short-READ defect above */
static const char siw_defect[] =
	"a READ of <= 32 bytes across pages returns bytes outside its window (siw_try_1seg())";

void mwin_dev_set_provider(struct mwin_dev *dev)
{
	struct ib_device *ibdev = dev->ibdev;
	u32 port = rdma_start_port(ibdev);

	dev->max_small_pages = U32_MAX;
	if (rdma_protocol_iwarp(ibdev, port)) {
		dev->transport = "iWARP";
		dev->reg_on_conn_qp = true;
		dev->flush_on_close = true;
		dev->initiator_first = true;
	} else if (rdma_protocol_roce(ibdev, port)) {
		dev->transport = "RoCE";
	} else {
		dev->transport = "InfiniBand";
	}
	switch (ibdev->ops.driver_id) {
	case RDMA_DRIVER_RXE:
		dev->spare_pages = MWIN_RXE_SPARE_PAGES;
		dev->max_small_pages = MWIN_RXE_MAX_SMALL_PAGES;
		dev->kick = true;
		break;
	case RDMA_DRIVER_SIW:
		dev->inv_any_key = true;
		dev->reads_unchecked = true;
		dev->defect = siw_defect;
		break;
	default:
		break;
	}
}

/**
 * mwin_dev_can_grant() - does @dev refuse all that @access does not allow?
 * @dev: the device of a window's MR
 * @access: MWIN_ACCESS_* rights of the window
 *
 * Return: true when the device enforces exactly these rights.
 */
bool mwin_dev_can_grant(const struct mwin_dev *dev, u32 access)
{
	if (access & MWIN_ACCESS_ATOMIC && !dev->atomic)
		return false;
	return !dev->reads_unchecked || access & MWIN_ACCESS_READ;
}

/**
 * mwin_dev_inv_kills() - does an invalidation of @rkey kill @live?
 * @dev: the device of both
 * @live: an MR's rkey
 * @rkey: the rkey a request invalidated, of the same MR (same index)
 *
 * Return: true when @live is dead after it.
 */
bool mwin_dev_inv_kills(const struct mwin_dev *dev, u32 live, u32 rkey)
{
	return live == rkey || (dev->inv_any_key && live >> 8 == rkey >> 8);
}

/**
 * mwin_dev_warn_defects() - log what the device does that mwin cannot mend
 * @dev: a device being added
 *
 * Once per device, so that whoever runs mwin there reads it in the log.
 */
void mwin_dev_warn_defects(const struct mwin_dev *dev)
{
	if (dev->defect)
		dev_warn(&dev->ibdev->dev, "mwin: the device's defect: %s\n",
			 dev->defect);
}
