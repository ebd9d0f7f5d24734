// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA devices: the ib_client that follows devices as they come and go.
 *
 * On removal every peer on the device is torn down (windows unbound, MRs
 * deregistered, QPs destroyed) before regions are unmapped from it. This
 * client registers after rdma_cm, so its remove callback runs before the
 * CM's: the peers' CM ids are gone by the time the CM looks for them.
 */
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_user_ioctl_verbs.h>

#include "mwin.h"

/* The device list; see the lock order in mwin.h. */
DEFINE_MUTEX(mwin_devs_lock);
LIST_HEAD(mwin_devs);

/*
 * The NUMA node whose memory @ibdev reaches fastest: its DMA device's, or
 * for a device without one (rxe: software, virtual DMA) that of the
 * network device its packets go through, the one of its first port's
 * first GID. NUMA_NO_NODE when not known.
 */
static int mwin_ibdev_node(struct ib_device *ibdev)
{
	const struct ib_gid_attr *attr;
	struct net_device *ndev;
	int node = NUMA_NO_NODE;

	if (ibdev->dma_device)
		return dev_to_node(ibdev->dma_device);
	attr = rdma_get_gid_attr(ibdev, rdma_start_port(ibdev), 0);
	if (IS_ERR(attr))
		return NUMA_NO_NODE;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	if (!IS_ERR_OR_NULL(ndev))
		node = dev_to_node(&ndev->dev);
	rcu_read_unlock();
	rdma_put_gid_attr(attr);
	return node;
}

/**
 * mwin_dev_node() - the NUMA node of a device, for its regions' memory
 * @index: the device's kernel index
 * @node: set to its node, or NUMA_NO_NODE when not known
 *
 * Return: 0, or -ENODEV when mwin has no device of that index.
 */
int mwin_dev_node(u32 index, int *node)
{
	struct mwin_dev *dev;
	int ret = -ENODEV;

	mutex_lock(&mwin_devs_lock);
	list_for_each_entry(dev, &mwin_devs, node) {
		if (dev->ibdev->index == index) {
			*node = mwin_ibdev_node(dev->ibdev);
			ret = 0;
			break;
		}
	}
	mutex_unlock(&mwin_devs_lock);
	return ret;
}

/* The largest MR page size the device supports, at most 2^@max_shift. */
u32 mwin_dev_page_shift(const struct mwin_dev *dev, u32 max_shift)
{
	u64 sizes = dev->page_size_cap & GENMASK_ULL(max_shift, PAGE_SHIFT);

	return sizes ? __fls(sizes) : PAGE_SHIFT;
}

/* Pages of 2^@shift bytes one window's MR can map on @dev. */
u32 mwin_dev_max_pages(const struct mwin_dev *dev, u32 shift)
{
	u32 small = dev->max_small_pages >> (shift - PAGE_SHIFT);

	return min(dev->max_pages, small - min(small, dev->spare_pages));
}

/* The largest window: aligned, in a region of full-size chunks. */
u64 mwin_dev_max_window_bytes(const struct mwin_dev *dev)
{
	u32 shift = mwin_dev_page_shift(dev, PAGE_SHIFT + MWIN_CHUNK_ORDER);

	return (u64)mwin_dev_max_pages(dev, shift) << shift;
}

static void mwin_dev_release(struct kref *kref)
{
	struct mwin_dev *dev = container_of(kref, struct mwin_dev, kref);

	xa_destroy(&dev->mr_windows);
	kfree(dev);
}

/*
 * A peer keeps its device's mwin_dev, so that a caller holding the peer
 * may look at dev->dying after the remove callback ran; dev->ibdev is not
 * to be touched then.
 */
void mwin_dev_put(struct mwin_dev *dev)
{
	kref_put(&dev->kref, mwin_dev_release);
}

static int mwin_add_one(struct ib_device *ibdev)
{
	struct ib_device_attr *attrs = &ibdev->attrs;
	struct mwin_dev *dev;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->ibdev = ibdev;
	kref_init(&dev->kref);
	spin_lock_init(&dev->lock);
	INIT_LIST_HEAD(&dev->peers);
	xa_init(&dev->mr_windows);
	dev->fast_reg = attrs->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS &&
			attrs->max_fast_reg_page_list_len;
	/* rxe does not enforce its limit; real hardware does: keep to it. */
	dev->max_pages = attrs->max_fast_reg_page_list_len;
	dev->atomic = attrs->atomic_cap != IB_ATOMIC_NONE;
	mwin_dev_set_provider(dev);
	dev->page_size_cap = attrs->page_size_cap | PAGE_SIZE;

	mutex_lock(&mwin_devs_lock);
	list_add_tail(&dev->node, &mwin_devs);
	mutex_unlock(&mwin_devs_lock);
	ib_set_client_data(ibdev, &mwin_client, dev);

	dev_info(&ibdev->dev, "mwin: added: %s, fast registration %s, %u pages per window (at most %llu MiB), atomics %s\n",
		 dev->transport, dev->fast_reg ? "yes" : "no", dev->max_pages,
		 mwin_dev_max_window_bytes(dev) >> 20,
		 dev->atomic ? "yes" : "no");
	mwin_dev_warn_defects(dev);
	return 0;
}

static void mwin_remove_one(struct ib_device *ibdev, void *client_data)
{
	struct mwin_dev *dev = client_data;
	struct mwin_peer *p;

	/* Peers being accepted hold mwin_devs_lock: they finish first. */
	mutex_lock(&mwin_devs_lock);
	spin_lock(&dev->lock);
	dev->dying = true;
	spin_unlock(&dev->lock);
	mutex_unlock(&mwin_devs_lock);

	for (;;) {
		spin_lock(&dev->lock);
		p = list_first_entry_or_null(&dev->peers, struct mwin_peer,
					     dev_node);
		if (p)
			mwin_obj_get(&p->obj);
		spin_unlock(&dev->lock);
		if (!p)
			break;
		peer_kill_sync(p, READ_ONCE(mwin_unloading) ?
				  MWIN_DOWN_UNLOAD : MWIN_DOWN_DEVICE);
		peer_put(p);
	}

	mutex_lock(&mwin_devs_lock);
	list_del(&dev->node);
	region_unmap_dev_all(dev);
	mutex_unlock(&mwin_devs_lock);

	WARN_ON(!xa_empty(&dev->mr_windows));
	dev_info(&ibdev->dev, "mwin: removed\n");
	mwin_dev_put(dev);
}

struct ib_client mwin_client = {
	.name = "mwin",
	.add = mwin_add_one,
	.remove = mwin_remove_one,
};
