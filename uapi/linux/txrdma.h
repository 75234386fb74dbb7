/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * txrdma: the ABI shared by txrdma.ko, libtxrdma and txrdma-admin.
 *
 * Two interfaces:
 *  - the misc device /dev/txrdma (ioctls, later mmap of rings and buffers);
 *  - the generic netlink family "txrdma" (administration and events).
 *
 * Rules (see Documentation/design.rst): fixed-size types only, user
 * pointers as __u64, explicit padding named resv*, sizes pinned by
 * static asserts on both sides.  Unknown flags and non-zero reserved
 * fields are rejected with -EINVAL.  The ABI grows by new feature bits,
 * new flags and new commands, never by changing an existing field.
 */
#ifndef _UAPI_LINUX_TXRDMA_H
#define _UAPI_LINUX_TXRDMA_H

#include <linux/types.h>
#include <linux/ioctl.h>
#include <linux/const.h>
#include <linux/txrdma_ring.h>

#define TXRDMA_ABI_VERSION	1
#define TXRDMA_DEVICE_NAME	"txrdma"	/* /dev/txrdma */

/* Feature bits reported by TXRDMA_IOC_PROBE in txrdma_probe.features. */
/* generic netlink "dev" object: get/dump/set and add/del/port events */
#define TXRDMA_FEAT_NL_DEV		_BITULL(0)
/* tenants over netlink and TXRDMA_IOC_TENANT_INFO */
#define TXRDMA_FEAT_TENANTS		_BITULL(1)
/* TXRDMA_IOC_REGION_*: module-owned huge-page regions and mmap */
#define TXRDMA_FEAT_REGIONS		_BITULL(2)
/* TXRDMA_IOC_REGION_REG_USER: registration of user memory */
#define TXRDMA_FEAT_USER_REGIONS	_BITULL(3)
/* peers over netlink: pooled RC queue pairs and BFD-style liveness */
#define TXRDMA_FEAT_PEERS		_BITULL(4)
/* TXRDMA_IOC_EP_*: endpoints holding a QP taken from a peer's pool */
#define TXRDMA_FEAT_ENDPOINTS		_BITULL(5)
/* TXRDMA_IOC_RING_*: submission/completion rings and the poller */
#define TXRDMA_FEAT_RINGS		_BITULL(6)

/* TXRDMA_IOC_EP_LISTEN/_CONNECT/_ACCEPT: endpoint pairs and SEND */
#define TXRDMA_FEAT_MESSAGES		_BITULL(7)
/* TXRDMA_IOC_EP_EXPORT and TXRDMA_OP_READ/_WRITE on exported regions */
#define TXRDMA_FEAT_ONE_SIDED		_BITULL(8)
/* the poller serves SQEs by priority class (sqe->prio, tenant prio) */
#define TXRDMA_FEAT_PRIO_CLASSES	_BITULL(9)
/* a poller per device: TXRDMA_A_DEV_POLLER, TXRDMA_A_POLLER_CPU */
#define TXRDMA_FEAT_DEV_POLLERS		_BITULL(10)
/*
 * Peers prove a shared key (TXRDMA_A_PEER_KEY, HMAC-SHA256) on every
 * connection and key every control message; services are per tenant
 * (a connect reaches the listener of its own tenant's name only).
 */
#define TXRDMA_FEAT_PEER_AUTH		_BITULL(11)
/*
 * Receive rings carry TXRDMA_RX_OFF_REPORTED and TXRDMA_RX_OFF_MAX_UNITS
 * (<linux/txrdma_ring.h>): a process rings the doorbell on release only
 * when an explicit credit update is due.
 */
#define TXRDMA_FEAT_RX_CREDIT_WORDS	_BITULL(12)
/*
 * TXRDMA_EP_F_RX_AHEAD: frames with a trailer, the receive ring's
 * words for reading ahead, a head ahead of the kernel's tail
 */
#define TXRDMA_FEAT_RX_AHEAD		_BITULL(13)
/*
 * TXRDMA_EP_F_SESSION, txrdma_ep_connect.grace_ms,
 * TXRDMA_SQE_F_IDEMPOTENT and -ECONNABORTED
 */
#define TXRDMA_FEAT_SESSIONS		_BITULL(14)
/*
 * TXRDMA_A_PEER_PATH_OF: a peer may be another path (address, device)
 * to the host of an earlier one; a session moves to another path when
 * its own dies (TXRDMA_A_STAT_PATH_MOVES)
 */
#define TXRDMA_FEAT_MULTIPATH		_BITULL(15)
/*
 * TXRDMA_IOC_EP_SESS_EXPORT/_IMPORT: a session moves to a process on
 * another host (session hand-off, struct txrdma_sess_state)
 */
#define TXRDMA_FEAT_HANDOFF		_BITULL(16)
/*
 * A session's SEND completes once the other side's process released its
 * frame (its credits say so), not when the QP delivered it: a frame the
 * other side's kernel refused (lost, corrupt, out of sequence) is sent
 * again on a new QP instead of failing the pair.  The receive ring's
 * TXRDMA_RX_OFF_FLAGS word says when the doorbell rule changes for it.
 */
#define TXRDMA_FEAT_SESSION_ACKS	_BITULL(17)
#define TXRDMA_FEAT_ALL		(TXRDMA_FEAT_NL_DEV | TXRDMA_FEAT_TENANTS | \
				 TXRDMA_FEAT_REGIONS | TXRDMA_FEAT_USER_REGIONS | \
				 TXRDMA_FEAT_PEERS | TXRDMA_FEAT_ENDPOINTS | \
				 TXRDMA_FEAT_RINGS | TXRDMA_FEAT_MESSAGES | \
				 TXRDMA_FEAT_ONE_SIDED | TXRDMA_FEAT_PRIO_CLASSES | \
				 TXRDMA_FEAT_DEV_POLLERS | TXRDMA_FEAT_PEER_AUTH | \
				 TXRDMA_FEAT_RX_CREDIT_WORDS | \
				 TXRDMA_FEAT_RX_AHEAD | TXRDMA_FEAT_SESSIONS | \
				 TXRDMA_FEAT_MULTIPATH | TXRDMA_FEAT_HANDOFF | \
				 TXRDMA_FEAT_SESSION_ACKS)

/*
 * TXRDMA_IOC_PROBE: what this kernel module speaks.
 * In:  flags must be 0, every resv field must be 0.
 * Out: abi_version, features, ndevs (RDMA devices txrdma tracks now).
 */
struct txrdma_probe {
	__u32 abi_version;
	__u32 flags;
	__u64 features;
	__u32 ndevs;
	__u32 resv0;
	__u64 resv[4];
};

/*
 * TXRDMA_IOC_TENANT_INFO: the tenant of the calling process, i.e. of the
 * nearest ancestor of its cgroup (v2) that a tenant is bound to.
 * In:  flags and resv must be 0.
 * Out: id and name; -EPERM when the process belongs to no tenant.
 */
struct txrdma_tenant_info {
	__u32 id;
	__u32 flags;
	__u8 name[32];		/* NUL-terminated */
	__u64 resv[2];
};

/*
 * Regions: memory that belongs to the caller's tenant and that txrdma
 * may use for RDMA.  User space never sees keys: it names memory as
 * (region id, offset, length) and the kernel checks the tenant.
 *
 * A region lives until it is destroyed or the file that created it is
 * closed (also on exit or kill -9), and its memory until the last
 * mapping of it goes.  Its bytes are charged to the tenant's pinned
 * limit from creation until the memory is freed.
 */
#define TXRDMA_REGION_HUGE_SIZE	(2ULL << 20)	/* module-owned page size */
#define TXRDMA_REGION_MAX_SIZE	_BITULL(40)	/* any region */
/* regions of 4 KiB pages: small-page and user regions */
#define TXRDMA_REGION_MAX_SMALL	(64ULL << 30)

/* region_create.flags */
enum {
	/* allow order-0 pages when 2 MiB pages cannot be had; size then
	 * need only be a multiple of the page size
	 */
	TXRDMA_REGION_F_SMALL_PAGES	= 1U << 0,
};

#define TXRDMA_REGION_F_ALL	(TXRDMA_REGION_F_SMALL_PAGES)

enum txrdma_region_kind {
	TXRDMA_REGION_KIND_POOL	= 1,	/* module-owned, mmap-able */
	TXRDMA_REGION_KIND_USER	= 2,	/* the caller's memory, pinned */
};

/*
 * TXRDMA_IOC_REGION_CREATE: allocate, pin and zero a module-owned region.
 * In:  size (> 0, at most TXRDMA_REGION_MAX_SIZE, a multiple of
 *      TXRDMA_REGION_HUGE_SIZE, or with F_SMALL_PAGES of the page size
 *      and then at most TXRDMA_REGION_MAX_SMALL), flags, resv 0.
 * Out: id, mmap_offset (mmap the region there, MAP_SHARED, or a
 *      page-aligned part of it at mmap_offset + offset).  Offsets are
 *      id << 40: 32-bit processes can map only the first ids.
 * The region is registered with every enabled RDMA device before this
 * returns.  Errors: -EPERM (no tenant), -EDQUOT (tenant's pinned limit),
 * -ENOMEM, -EINVAL (size, flags, reserved fields), -EINTR (fatal
 * signal), -ENOSPC (the tenant holds max_regions_per_tenant live
 * regions, a module parameter, 65536 by default, or no region id is
 * left), -EIO or -ETIMEDOUT (a device failed to register it), -EFAULT.
 */
struct txrdma_region_create {
	__u64 size;
	__u32 flags;
	__u32 id;
	__u64 mmap_offset;
	__u64 resv[2];
};

/*
 * TXRDMA_IOC_REGION_REG_USER: pin [addr, addr + size) of the caller's
 * memory long-term (charged to the tenant and to the process's locked
 * memory) and make it a region.  addr and size page-aligned, size > 0
 * and at most TXRDMA_REGION_MAX_SMALL; anonymous, shmem or hugetlbfs
 * memory only (-EOPNOTSUPP for file-backed page cache).
 * Out: id.  Errors as for create, -EFAULT for an unmapped range,
 * -ENOMEM over RLIMIT_MEMLOCK without CAP_IPC_LOCK.
 */
struct txrdma_region_reg_user {
	__u64 addr;
	__u64 size;
	__u32 flags;
	__u32 id;
	__u64 resv[2];
};

/*
 * TXRDMA_IOC_REGION_INFO: describe a region of the caller's tenant.
 * TXRDMA_IOC_REGION_DESTROY: unpublish it (memory goes with its last
 * mapping).  In: id, flags 0, resv 0.  -ENOENT: no such region;
 * -EACCES: the region belongs to another tenant.
 */
struct txrdma_region_info {
	__u32 id;
	__u32 flags;
	__u64 size;		/* out */
	__u64 mmap_offset;	/* out; 0 for user regions */
	__u32 kind;		/* out: enum txrdma_region_kind */
	__u32 tenant_id;	/* out */
	__u64 resv[2];
};

/*
 * Endpoints: a process's channel to a peer for its tenant.  Creating one
 * takes a ready, connected RC QP from the peer's pool (no connection
 * setup on this path) and charges the tenant one endpoint and one QP;
 * -EAGAIN when the pool has no ready QP at this moment (it grows), and
 * -ENOTCONN when the peer is not Up.  Endpoints belong to the open file
 * that created them and go when it is closed.
 */
struct txrdma_ep_create {
	__u8 peer[32];		/* in: peer name, NUL-terminated */
	__u32 flags;		/* in: 0 */
	__u32 id;		/* out */
	__u32 qp_num;		/* out: local number of the QP it holds */
	__u32 resv0;
	__u64 resv[4];
};

/*
 * TXRDMA_IOC_EP_INFO (id in, the rest out) and TXRDMA_IOC_EP_DESTROY (id
 * in).  @error is 0 while the endpoint can carry traffic, else why it
 * cannot: -ENOTCONN (the peer went Down or was deleted), -EIO (its QP
 * failed), -EPERM (its tenant was deleted).  A failed endpoint stays
 * until destroyed; its QP is not reused.
 */
struct txrdma_ep_info {
	__u32 id;
	__u32 flags;		/* in: 0 */
	__u32 peer_id;		/* out */
	__u32 qp_num;		/* out: 0 once the QP is gone */
	__s32 error;		/* out */
	__u32 resv0;
	__u64 resv[2];
};

/*
 * Endpoint pairs: the data path.  A process that serves @service calls
 * TXRDMA_IOC_EP_LISTEN once, then TXRDMA_IOC_EP_ACCEPT for each
 * endpoint; a process that uses it calls TXRDMA_IOC_EP_CONNECT with the
 * peer's name.  Both name their own receive ring: @rx_units 64-byte
 * units (a power of two, TXRDMA_RX_MIN_UNITS..TXRDMA_RX_MAX_UNITS) at
 * @rx_off of their module-owned region @rx_region, 64-byte aligned,
 * inside one page of the region (layout: TXRDMA_RX_* in
 * <linux/txrdma_ring.h>).  The file must have its rings
 * (TXRDMA_IOC_RING_SETUP) first: completions go there.  Both calls
 * block until the pair is bound or @timeout_ms (0: 3000) passes
 * (-ETIMEDOUT); a peer with no listener answers -ECONNREFUSED.  The
 * pair holds one pooled QP (charged as TXRDMA_IOC_EP_CREATE charges);
 * either side's TXRDMA_IOC_EP_DESTROY closes it, and the other side's
 * endpoint then fails with -ECONNRESET.
 */
struct txrdma_ep_listen {
	__u32 service;		/* in: non-zero */
	__u32 flags;		/* in: 0 */
	__u64 resv[2];
};

/* txrdma_ep_connect.flags */
#define TXRDMA_EP_F_DATA_CRC	_BITUL(0)	/* CRC32C over payloads too */
/*
 * EP_CONNECT: fail at once with -ENOTCONN (peer not Up) or -EAGAIN (no
 * ready QP in its pool) instead of waiting for them within timeout_ms
 */
#define TXRDMA_EP_F_NOWAIT	_BITUL(1)
/*
 * Our process reads frames ahead of the kernel (TXRDMA_FEAT_RX_AHEAD):
 * the peer's kernel puts a CRC32C over header and payload and a trailer
 * on every frame it places in our ring whose payload is at most
 * TXRDMA_RX_AHEAD_MAX_PAYLOAD bytes and 8 less than rx_max_msg, and
 * our kernel exports the words the check needs (<linux/txrdma_ring.h>,
 * "Reading ahead").
 */
#define TXRDMA_EP_F_RX_AHEAD	_BITUL(2)
/*
 * TXRDMA_EP_F_SESSION (connect): the pair outlives a lost QP.  When its
 * QP fails, the other side's end of it goes or the peer goes Down, its
 * operations wait instead of failing; the two modules move the pair to
 * a fresh QP of the peer's pool and send again what the other side
 * lacks, so every SEND in flight completes once, successfully, and
 * arrives once, in order.  If the pair is not back within its grace
 * (@grace_ms), it fails as any pair does.  A READ or WRITE in flight at
 * the loss runs again when its SQE has TXRDMA_SQE_F_IDEMPOTENT, else it
 * fails with -ECONNABORTED (whether it ran is unknown), except a WRITE
 * that a SEND which arrived followed: it ran, and completes.  An
 * accepted pair has the flag, and the grace, its connector asked for.
 * TXRDMA_FEAT_SESSIONS says the module has all this.  With
 * TXRDMA_FEAT_SESSION_ACKS a session's SEND completes only once the
 * other side's process released its frame (its payload stays in use
 * until then), and a frame the other side's kernel refuses (lost,
 * corrupt, out of sequence) is sent again rather than failing the pair;
 * the same frame refused twice, or more than 8 frames within a grace,
 * fail it (-EPROTO).
 */
#define TXRDMA_EP_F_SESSION	_BITUL(3)
#define TXRDMA_EP_F_ALL		(TXRDMA_EP_F_DATA_CRC | TXRDMA_EP_F_NOWAIT | \
				 TXRDMA_EP_F_RX_AHEAD | TXRDMA_EP_F_SESSION)
/*
 * How long a session may be without a QP (TXRDMA_EP_F_SESSION): the
 * default, and the most a connector may ask for in @grace_ms
 */
#define TXRDMA_EP_GRACE_MS	1000
#define TXRDMA_EP_GRACE_MAX_MS	60000

struct txrdma_ep_connect {
	__u8 peer[32];		/* CONNECT in, ACCEPT out: peer name */
	__u32 service;		/* in; ACCEPT: a service this file listens on */
	__u32 flags;		/* in: TXRDMA_EP_F_* */
	__u32 rx_region;	/* in */
	__u32 rx_units;		/* in */
	__u64 rx_off;		/* in */
	__u32 timeout_ms;	/* in */
	__u32 id;		/* out: our endpoint */
	__u32 peer_ep;		/* out: the other side's endpoint id */
	__u32 qp_num;		/* out: our QP of the pair */
	__u32 max_msg;		/* out: longest SEND the peer takes */
	/*
	 * in: the longest SEND we take (1..half the ring's bytes less the
	 * frame header, at most TXRDMA_FRAME_MAX_PAYLOAD), 0 for all the
	 * ring takes; out: what was used.  The peer's longer SENDs fail
	 * with -EMSGSIZE there, and our ring's credits come back without
	 * an explicit update per message once it holds 4 such frames.
	 */
	__u32 rx_max_msg;
	/*
	 * CONNECT in: with TXRDMA_EP_F_SESSION, the session's grace in ms
	 * (1..TXRDMA_EP_GRACE_MAX_MS), 0 for TXRDMA_EP_GRACE_MS; without
	 * it, 0.  ACCEPT in: 0.  Out: the pair's grace (0: no session).
	 */
	__u32 grace_ms;
	__u32 resv0;
	__u64 resv1;
};

/*
 * TXRDMA_IOC_EP_EXPORT: let the other side of endpoint pair @ep READ
 * and/or WRITE bytes [@off, @off + @len) of region @region of our
 * tenant with TXRDMA_OP_READ/_WRITE, naming them by the region's id and
 * their offset in the region.  @len 0 means up to the region's end.
 * The range gets a registration of its own, for this pair only, exactly
 * that range and access.  Returns once the other module has stored it
 * (or refused it), so a message sent after it is never read before it;
 * the other side sees it in TXRDMA_IOC_EP_EXPORTS.
 *
 * Exporting the same range again changes its access; @access 0 revokes
 * it: the other side's later READ/WRITE of it fail with -EPERM, and the
 * registration dies (an operation of the other side still in flight on
 * it fails with a remote access error, which resets the pair).  An
 * export lasts at most as long as the pair, and holds the region's
 * memory until then even if the region is destroyed.
 *
 * Refused with -EADDRINUSE when the range overlaps a receive ring of
 * the tenant's endpoints, -EEXIST when it overlaps another export of
 * the pair without being the same range, -ENOSPC when the pair holds
 * TXRDMA_EP_MAX_EXPORTS already, -EFAULT when it is not inside the
 * region, -ENOENT for a revoke of a range not exported, -EBUSY while
 * another export or revoke of the endpoint runs.  Receive rings are
 * refused over an exported range, or another ring, in turn
 * (-EADDRINUSE): nobody else can ever write over a ring.  When the
 * other module does not answer (-ETIMEDOUT, -EINTR) the range is not
 * exported at all afterwards: a revoke took effect anyway, an export
 * left no key behind (nor an earlier export of the same range).
 */
#define TXRDMA_EXPORT_READ	_BITUL(0)
#define TXRDMA_EXPORT_WRITE	_BITUL(1)
#define TXRDMA_EP_MAX_EXPORTS	16

struct txrdma_ep_export {
	__u32 ep;		/* in: our endpoint of the pair */
	__u32 region;		/* in: our tenant's region */
	__u32 access;		/* in: TXRDMA_EXPORT_*, 0 revokes */
	__u32 timeout_ms;	/* in: 0: 3000 */
	__u64 off;		/* in: first byte, in the region */
	__u64 len;		/* in: bytes, 0: to the region's end */
};

/* one export of a pair, as TXRDMA_IOC_EP_EXPORTS reports it */
struct txrdma_export_info {
	__u32 region;		/* the exporting side's region id */
	__u32 access;		/* TXRDMA_EXPORT_* */
	__u64 off;		/* first byte, in the region */
	__u64 len;		/* bytes */
};

/*
 * TXRDMA_IOC_EP_EXPORTS: what the two sides of endpoint pair @ep
 * exported to each other: @imported what the other side lets us reach
 * (what TXRDMA_OP_READ/_WRITE may name), @exported what we let it
 * reach.  @imports_gen counts changes of @imported since the pair was
 * made, so a process can tell cheaply whether to look again.
 */
struct txrdma_ep_exports {
	__u32 ep;		/* in */
	__u32 imports_gen;	/* out */
	__u32 nimported;	/* out: entries of @imported */
	__u32 nexported;	/* out: entries of @exported */
	struct txrdma_export_info imported[TXRDMA_EP_MAX_EXPORTS];
	struct txrdma_export_info exported[TXRDMA_EP_MAX_EXPORTS];
};

/*
 * Session hand-off (TXRDMA_FEAT_HANDOFF): one side of a session
 * (TXRDMA_EP_F_SESSION) moves to a process on another host - the same
 * process checkpointed and restored there, its memory with it.  The
 * other side sees a pause: no SEND is lost, none arrives twice.
 *
 * TXRDMA_IOC_EP_SESS_EXPORT, on the host the process leaves: the
 * module stops the session's traffic, closes and reaps its QP, and
 * writes the session's state to @state and its unsettled SENDs (taken
 * by the module, their arrival unknown) to @sends, oldest first.  When
 * it returns, every SEND that settled has its CQE in the CQ ring.  From
 * then on the endpoint carries nothing, never resumes and fails later
 * SQEs with -EXDEV - those still in the SQ ring at the export too (a
 * SEND waiting there for credits was not taken: the process sends it
 * again on the new host); its unsettled SENDs complete nowhere here
 * (they complete after the import).  A READ or WRITE in flight
 * completes here with -ECONNABORTED.  The process then destroys the
 * endpoint (the other side is not told: it waits within its grace).
 * @state.ho_gen grows by one with each move.
 * @state.secret proves the right to move the session once: keep the
 * state as secret as the process's memory, and import it at most once.
 * @max_sends must be at least TXRDMA_SESS_SENDS_MAX (-EINVAL).
 * -EBUSY: an export or a resume runs (nothing changed; try again);
 * -EINVAL: not a session, or it failed already; -ETIMEDOUT: the QP was
 * not reaped in time (the session then fails here).
 *
 * TXRDMA_IOC_EP_SESS_IMPORT, on the new host, by a process of a tenant
 * of the same name (the token covers it): @state as exported, the
 * unsettled SENDs as exported (same order, sequence numbers and
 * places) with their regions named by this host's ids (their payload
 * bytes where they were), the peer (this host's name for the
 * other side's host) and the receive ring, a module-owned region area
 * of @state.rx_units that holds the ring as it was (header and units:
 * frames published but not released are read from it again).  The
 * module checks the state as it checks SQEs, makes an endpoint, sends
 * the other side a HANDOFF with a token made from the secret and
 * resumes the session; it returns when the session is Up here, every
 * SEND the other side had completed with a CQE and the others sent
 * again, or failed: -EPERM (refused: a forged, altered or already used
 * state, or another tenant's), -ENOENT (no such session there any
 * more), -ESTALE (the claim does not fit the session as it is now),
 * -ETIMEDOUT (@timeout_ms, or the session's grace, passed), -ENOSPC
 * (no room for the SENDs' completions in the CQ ring), -EINVAL,
 * -EFAULT (a SEND outside its region), or the errors of
 * TXRDMA_IOC_EP_CONNECT.  An import refused by its checks here (the
 * state, the regions, the ring, the peer's name) changes nothing.
 * Once the module made the endpoint, a failure completes each
 * unsettled SEND in this process's CQ ring (its @user_data, res the
 * session's error: the other side's refusal, or -ECANCELED when the
 * import gave up); and once the HANDOFF left, the other side may have
 * moved the session here already: an import that gives up then (its
 * timeout, a fatal signal) ends the session, and the state cannot be
 * imported again (its secret was rotated).
 */
#define TXRDMA_SESS_STATE_VERSION	1
/*
 * unsettled SENDs a session's state holds room for (its send slots); a
 * state names at most one fewer (one slot is kept for credit updates)
 */
#define TXRDMA_SESS_SENDS_MAX		64

/* one unsettled SEND of a session, oldest first */
struct txrdma_sess_send {
	__u64 user_data;	/* its SQE's */
	__u64 off;		/* its payload: offset in @region */
	__u32 region;		/* the payload's region (this host's id) */
	__u32 len;		/* payload bytes */
	__u32 seq;		/* its frame's sequence number */
	__u32 start;		/* credits placed before it (free-running) */
	__u32 unit;		/* its frame's first unit in the peer's ring */
	__u32 units;		/* its frame's size in units */
	__u32 flags;		/* its SQE's TXRDMA_SQE_F_NO_CQE, _FENCE */
	__u32 resv;
};

struct txrdma_sess_state {
	__u32 version;		/* TXRDMA_SESS_STATE_VERSION */
	__u32 flags;		/* the pair's TXRDMA_EP_F_* */
	__u32 ep;		/* the mover's endpoint where it was */
	__u32 peer_ep;		/* the other side's endpoint */
	__u32 epoch;		/* the pair's */
	__u32 ho_gen;		/* hand-offs the session had */
	__u32 grace_ms;
	__u32 service;
	__u32 rx_units;		/* our receive ring */
	__u32 rx_max_msg;
	__u32 rx_seq;		/* next frame expected */
	__u32 rx_tail;		/* units the other side used */
	__u32 rx_consumed;	/* units the process released */
	__u32 rx_reported;	/* released units last reported */
	__u32 rx_gen;		/* registrations of the ring so far */
	__u32 peer_units;	/* the other side's ring */
	__u32 peer_max_msg;
	__u32 peer_ahead_max;
	__u32 peer_rx_gen;
	__u32 tx_seq;		/* our next frame */
	__u32 tx_head;		/* credits placed */
	__u32 tx_released;	/* the other side's released units */
	__u32 nsends;		/* unsettled SENDs */
	__u32 resv0;
	__u8 secret[32];
	__u64 resv[4];
};

struct txrdma_ep_sess_export {
	__u32 ep;		/* in: our endpoint of the session */
	__u32 flags;		/* in: 0 */
	__u32 timeout_ms;	/* in: QP reaping, 0: 3000, <= 60000 */
	__u32 max_sends;	/* in: entries at @sends */
	__u64 sends;		/* in: struct txrdma_sess_send[@max_sends] */
	__u64 resv;
	struct txrdma_sess_state state;	/* out */
};

struct txrdma_ep_sess_import {
	__u8 peer[32];		/* in: the other side's host */
	__u32 rx_region;	/* in: the ring's region here */
	__u32 flags;		/* in: 0 */
	__u64 rx_off;		/* in: the ring's offset in it */
	__u64 sends;		/* in: struct txrdma_sess_send[@state.nsends] */
	__u32 timeout_ms;	/* in: 0: the grace + 1000, >= 3000 */
	__u32 id;		/* out: our endpoint */
	__u32 qp_num;		/* out: its QP */
	__u32 resv0;
	__u64 resv1;
	struct txrdma_sess_state state;	/* in */
};

#define TXRDMA_IOC_MAGIC	0xB8
#define TXRDMA_IOC_PROBE	_IOWR(TXRDMA_IOC_MAGIC, 0x00, struct txrdma_probe)
#define TXRDMA_IOC_TENANT_INFO	_IOWR(TXRDMA_IOC_MAGIC, 0x01, \
				      struct txrdma_tenant_info)
#define TXRDMA_IOC_REGION_CREATE _IOWR(TXRDMA_IOC_MAGIC, 0x02, \
				       struct txrdma_region_create)
#define TXRDMA_IOC_REGION_REG_USER _IOWR(TXRDMA_IOC_MAGIC, 0x03, \
					 struct txrdma_region_reg_user)
#define TXRDMA_IOC_REGION_INFO	_IOWR(TXRDMA_IOC_MAGIC, 0x04, \
				      struct txrdma_region_info)
#define TXRDMA_IOC_REGION_DESTROY _IOW(TXRDMA_IOC_MAGIC, 0x05, \
				       struct txrdma_region_info)
#define TXRDMA_IOC_EP_CREATE	_IOWR(TXRDMA_IOC_MAGIC, 0x06, \
				      struct txrdma_ep_create)
#define TXRDMA_IOC_EP_INFO	_IOWR(TXRDMA_IOC_MAGIC, 0x07, \
				      struct txrdma_ep_info)
#define TXRDMA_IOC_EP_DESTROY	_IOW(TXRDMA_IOC_MAGIC, 0x08, \
				     struct txrdma_ep_info)
/* the data path rings: see <linux/txrdma_ring.h> */
#define TXRDMA_IOC_RING_SETUP	_IOWR(TXRDMA_IOC_MAGIC, 0x09, \
				      struct txrdma_ring_setup)
#define TXRDMA_IOC_RING_ENTER	_IO(TXRDMA_IOC_MAGIC, 0x0a)
#define TXRDMA_IOC_EP_LISTEN	_IOW(TXRDMA_IOC_MAGIC, 0x0b, \
				     struct txrdma_ep_listen)
#define TXRDMA_IOC_EP_CONNECT	_IOWR(TXRDMA_IOC_MAGIC, 0x0c, \
				      struct txrdma_ep_connect)
#define TXRDMA_IOC_EP_ACCEPT	_IOWR(TXRDMA_IOC_MAGIC, 0x0d, \
				      struct txrdma_ep_connect)
#define TXRDMA_IOC_EP_EXPORT	_IOW(TXRDMA_IOC_MAGIC, 0x0e, \
				     struct txrdma_ep_export)
#define TXRDMA_IOC_EP_EXPORTS	_IOWR(TXRDMA_IOC_MAGIC, 0x0f, \
				      struct txrdma_ep_exports)
#define TXRDMA_IOC_EP_SESS_EXPORT _IOWR(TXRDMA_IOC_MAGIC, 0x10, \
					struct txrdma_ep_sess_export)
#define TXRDMA_IOC_EP_SESS_IMPORT _IOWR(TXRDMA_IOC_MAGIC, 0x11, \
					struct txrdma_ep_sess_import)

/* ------------------------------------------------------------------ */
/* Generic netlink family "txrdma".                                    */

#define TXRDMA_GENL_NAME	"txrdma"
#define TXRDMA_GENL_VERSION	1
#define TXRDMA_GENL_MCGRP_EVENTS "events"

enum txrdma_cmd {
	TXRDMA_CMD_UNSPEC,
	TXRDMA_CMD_DEV_GET,		/* do (by NAME or INDEX) and dump */
	TXRDMA_CMD_DEV_SET,		/* CAP_NET_ADMIN: ENABLED */
	TXRDMA_CMD_DEV_ADD_NTF,		/* event: a device appeared */
	TXRDMA_CMD_DEV_DEL_NTF,		/* event: a device went away */
	TXRDMA_CMD_DEV_PORT_NTF,	/* event: a port changed state */
	TXRDMA_CMD_DEV_SET_NTF,		/* event: an admin changed a device */
	TXRDMA_CMD_TENANT_GET,		/* do (by TENANT_NAME) and dump */
	TXRDMA_CMD_TENANT_NEW,		/* CAP_NET_ADMIN */
	TXRDMA_CMD_TENANT_SET,		/* CAP_NET_ADMIN */
	TXRDMA_CMD_TENANT_DEL,		/* CAP_NET_ADMIN; TENANT_FORCE */
	TXRDMA_CMD_PEER_GET,		/* do (by PEER_NAME) and dump */
	TXRDMA_CMD_PEER_NEW,		/* CAP_NET_ADMIN */
	TXRDMA_CMD_PEER_SET,		/* CAP_NET_ADMIN */
	TXRDMA_CMD_PEER_DEL,		/* CAP_NET_ADMIN */
	TXRDMA_CMD_PEER_STATE_NTF,	/* event: liveness state changed */
	TXRDMA_CMD_EP_GET,		/* do (by EP_ID) and dump (EP_TENANT,
					 * EP_ID filter it)
					 */

	__TXRDMA_CMD_MAX,
	TXRDMA_CMD_MAX = __TXRDMA_CMD_MAX - 1
};

/* Port states, numerically equal to IB port states (enum ib_port_state). */
enum txrdma_port_state {
	TXRDMA_PORT_NOP		= 0,
	TXRDMA_PORT_DOWN	= 1,
	TXRDMA_PORT_INIT	= 2,
	TXRDMA_PORT_ARMED	= 3,
	TXRDMA_PORT_ACTIVE	= 4,
	TXRDMA_PORT_ACTIVE_DEFER = 5,
};

enum txrdma_attr {
	TXRDMA_A_UNSPEC,
	TXRDMA_A_PAD,
	TXRDMA_A_DEV_INDEX,		/* u32: ib_device index */
	TXRDMA_A_DEV_NAME,		/* string, < 64 bytes */
	TXRDMA_A_DEV_NODE_GUID,		/* u64, host byte order */
	TXRDMA_A_DEV_MAX_QP,		/* u32 */
	TXRDMA_A_DEV_MAX_MR_SIZE,	/* u64 */
	TXRDMA_A_DEV_ENABLED,		/* u8: 0/1, txrdma may use it */
	TXRDMA_A_DEV_PORTS,		/* nest of TXRDMA_A_PORT */
	TXRDMA_A_PORT,			/* nest of TXRDMA_A_PORT_* */
	TXRDMA_A_PORT_NUM,		/* u32 */
	TXRDMA_A_PORT_STATE,		/* u8: enum txrdma_port_state */
	TXRDMA_A_PORT_OLD_STATE,	/* u8: in DEV_PORT_NTF only */
	TXRDMA_A_PORT_ACTIVE_MTU,	/* u32: bytes */
	TXRDMA_A_PORT_NETDEV,		/* string: bound net device, if any */
	TXRDMA_A_EVENT_TIME_NS,		/* u64: CLOCK_REALTIME of the event */
	TXRDMA_A_EVENT_SEQ,		/* u64: per-module event counter */
	TXRDMA_A_TENANT_NAME,		/* string, < 32 bytes */
	TXRDMA_A_TENANT_ID,		/* u32: assigned by the module */
	TXRDMA_A_TENANT_CGROUP,		/* string: cgroup v2 path, "/a/b" */
	TXRDMA_A_TENANT_PRIO,		/* u8: enum txrdma_prio */
	TXRDMA_A_TENANT_LIMITS,		/* nest of TXRDMA_A_LIMIT_* */
	TXRDMA_A_TENANT_USAGE,		/* nest of TXRDMA_A_LIMIT_*: in use */
	TXRDMA_A_TENANT_REFUSED,	/* nest of TXRDMA_A_LIMIT_*: refusals */
	TXRDMA_A_TENANT_FORCE,		/* flag: delete even while in use */
	TXRDMA_A_LIMIT_QPS,		/* u64: queue pairs */
	TXRDMA_A_LIMIT_ENDPOINTS,	/* u64: endpoints */
	TXRDMA_A_LIMIT_PINNED_BYTES,	/* u64: pinned/registered memory */
	TXRDMA_A_LIMIT_BW_RATE,		/* u64: bytes per second */
	TXRDMA_A_LIMIT_BW_BURST,	/* u64: bytes */
	TXRDMA_A_LIMIT_OPS_RATE,	/* u64: operations per second */
	TXRDMA_A_LIMIT_OPS_BURST,	/* u64: operations */
	TXRDMA_A_DEV_MRS,		/* u32: region registrations here */
	TXRDMA_A_DEV_CAN_REGISTER,	/* u8: 1 if regions can be registered */
	TXRDMA_A_PEER_NAME,		/* string, < 32 bytes */
	TXRDMA_A_PEER_ID,		/* u32: assigned by the module */
	TXRDMA_A_PEER_ADDR,		/* binary: 4-byte IPv4, network order */
	TXRDMA_A_PEER_PORT,		/* u16: the peer's rdma_cm port */
	TXRDMA_A_PEER_DEV,		/* string: RDMA device to use / in use */
	TXRDMA_A_PEER_POOL_MIN,		/* u32: ready QPs kept while Up */
	TXRDMA_A_PEER_POOL_MAX,		/* u32: most QPs to this peer */
	TXRDMA_A_PEER_TX_US,		/* u32: desired min tx interval */
	TXRDMA_A_PEER_RX_US,		/* u32: required min rx interval */
	TXRDMA_A_PEER_MULT,		/* u8: detect multiplier */
	TXRDMA_A_PEER_STATE,		/* u8: enum txrdma_peer_state */
	TXRDMA_A_PEER_OLD_STATE,	/* u8: in PEER_STATE_NTF */
	TXRDMA_A_PEER_DIAG,		/* u8: enum txrdma_peer_diag */
	TXRDMA_A_PEER_REASON,		/* string: why the state changed */
	TXRDMA_A_PEER_REMOTE_STATE,	/* u8: state the peer last sent */
	TXRDMA_A_PEER_LOCAL_ADDR,	/* binary: our source address */
	TXRDMA_A_PEER_ROLE,		/* u8: enum txrdma_peer_role */
	TXRDMA_A_PEER_LOCAL_DISC,	/* u32: our BFD discriminator */
	TXRDMA_A_PEER_REMOTE_DISC,	/* u32: the peer's, 0 if unknown */
	TXRDMA_A_PEER_NEG_TX_US,	/* u32: negotiated tx interval */
	TXRDMA_A_PEER_DETECT_US,	/* u32: negotiated detection time */
	TXRDMA_A_PEER_RTT_MIN_NS,	/* u64: probe round trip, minimum */
	TXRDMA_A_PEER_RTT_AVG_NS,	/* u64: mean since the last Up */
	TXRDMA_A_PEER_RTT_MAX_NS,	/* u64 */
	TXRDMA_A_PEER_RTT_SAMPLES,	/* u64 */
	TXRDMA_A_PEER_LAST_CHANGE_NS,	/* u64: CLOCK_REALTIME, 0: never */
	TXRDMA_A_PEER_SILENCE_NS,	/* u64: since last probe heard */
	TXRDMA_A_PEER_POOL_READY,	/* u32 */
	TXRDMA_A_PEER_POOL_IN_USE,	/* u32 */
	TXRDMA_A_PEER_POOL_CONNECTING,	/* u32 */
	TXRDMA_A_PEER_POOL_CLOSING,	/* u32 */
	TXRDMA_A_PEER_POOL_TAKES,	/* u64 */
	TXRDMA_A_PEER_POOL_MISSES,	/* u64 */
	TXRDMA_A_PEER_POOL_FAILURES,	/* u64: connection attempts failed */
	TXRDMA_A_PEER_POOL_ERRORS,	/* u64: QPs that errored */
	TXRDMA_A_PEER_QPS,		/* u32: QPs held, pool + control */
	TXRDMA_A_PEER_TX_PKTS,		/* u64: probes sent */
	TXRDMA_A_PEER_RX_PKTS,		/* u64: probes accepted */
	TXRDMA_A_PEER_RX_DROPPED,	/* u64: probes dropped */
	TXRDMA_A_PEER_TX_SKIPPED,	/* u64: probes not sent, QP busy */
	TXRDMA_A_PEER_UPS,		/* u64: transitions to Up */
	TXRDMA_A_PEER_DOWNS,		/* u64: transitions from Up */
	TXRDMA_A_PEER_ADMIN_UP,		/* u8: 0 holds the session AdminDown */
	/* u64: this host's probe timer ran more than 2 ms late (excused) */
	TXRDMA_A_PEER_STALLS,
	TXRDMA_A_PEER_STALL_MAX_NS,	/* u64: the latest it ran */
	TXRDMA_A_EP_ID,			/* u32: endpoint id */
	TXRDMA_A_EP_TENANT,		/* string: its tenant's name */
	TXRDMA_A_EP_PEER,		/* string: its peer's name */
	TXRDMA_A_EP_STATE,		/* u8: enum txrdma_ep_state */
	TXRDMA_A_EP_SERVICE,		/* u32: service of the pair, 0: none */
	TXRDMA_A_EP_PEER_EP,		/* u32: the other side's id, 0: none */
	TXRDMA_A_EP_QPN,		/* u32: its QP's number, 0 once gone */
	TXRDMA_A_EP_ERROR,		/* s32: 0, or why it carries no more
					 * traffic (negative errno)
					 */
	/*
	 * nest of TXRDMA_A_STAT_*: TX_MSGS..ERR_SQE below, which are
	 * consecutive, and TX_COALESCED and RX_BATCHES at the end of this
	 * enum (added later: attributes are never renumbered); the same
	 * counters make the TXRDMA_A_TENANT_TRAFFIC nest
	 */
	TXRDMA_A_EP_STATS,
	TXRDMA_A_STAT_TX_MSGS,		/* u64: SENDs completed */
	TXRDMA_A_STAT_TX_BYTES,		/* u64: their payload bytes */
	TXRDMA_A_STAT_RX_MSGS,		/* u64: messages received (checked) */
	TXRDMA_A_STAT_RX_BYTES,		/* u64: their payload bytes */
	TXRDMA_A_STAT_RW_OPS,		/* u64: READs and WRITEs completed */
	TXRDMA_A_STAT_RW_BYTES,		/* u64: their bytes */
	TXRDMA_A_STAT_CREDIT_STALLS,	/* u64: SENDs held back: no credits */
	TXRDMA_A_STAT_CREDIT_UPDATES,	/* u64: explicit credit updates sent */
	TXRDMA_A_STAT_SLOT_STALLS,	/* u64: operations held back: no send
					 * slot (TXRDMA_EP_SLOTS in flight)
					 */
	TXRDMA_A_STAT_THROTTLED,	/* u64: operations that waited for the
					 * tenant's bw or ops bucket
					 */
	TXRDMA_A_STAT_ERR_CRC,		/* u64: frames refused: bad CRC */
	TXRDMA_A_STAT_ERR_SEQ,		/* u64: frames refused: out of sequence */
	TXRDMA_A_STAT_ERR_PROTO,	/* u64: frames or credit updates
					 * refused: any other check
					 */
	TXRDMA_A_STAT_ERR_QP,		/* u64: work requests that failed on
					 * the QP (post or completion)
					 */
	TXRDMA_A_STAT_ERR_SQE,		/* u64: ring state from the process
					 * that was ignored (e.g. a released
					 * head out of range)
					 */
	TXRDMA_A_TENANT_TRAFFIC,	/* nest as EP_STATS: the sum over the
					 * tenant's endpoints, present and past
					 * (never goes backwards)
					 */
	TXRDMA_A_DEV_POLLER,		/* nest: the device's poller thread,
					 * the POLLER attributes below
					 */
	TXRDMA_A_POLLER_CPU,		/* s32: the CPU it is bound to, -1 for
					 * the device's NUMA node (any CPU if
					 * none); DEV_SET takes it at the top
					 * level (CAP_NET_ADMIN)
					 */
	TXRDMA_A_POLLER_PID,		/* u32: the thread's pid */
	TXRDMA_A_POLLER_RINGS,		/* u32: rings it serves */
	TXRDMA_A_POLLER_PASSES,		/* u64: passes that consumed SQEs */
	TXRDMA_A_POLLER_SQES,		/* u64: SQEs consumed */
	TXRDMA_A_POLLER_SLEEPS,		/* u64: times it went to sleep */
	TXRDMA_A_PEER_KEY,		/* binary, TXRDMA_PEER_KEY_MIN.._MAX
					 * bytes: the secret both hosts hold
					 * (PEER_NEW only; never reported)
					 */
	TXRDMA_A_PEER_AUTH_FAILS,	/* u64: connections refused: they did
					 * not prove the key
					 */
	TXRDMA_A_PEER_RX_AUTH_DROPPED,	/* u64: control messages dropped: bad
					 * MAC or sequence number
					 */
	TXRDMA_A_LIMIT_LISTENERS,	/* u64: services listened on (in the
					 * LIMITS, USAGE and REFUSED nests)
					 */
	/* in the EP_STATS and TENANT_TRAFFIC nests, as TXRDMA_A_STAT_* above */
	TXRDMA_A_STAT_TX_COALESCED,	/* u64: SENDs whose frame left in the
					 * RDMA write of an earlier SEND of
					 * the endpoint (one WRITE_WITH_IMM
					 * carries several frames)
					 */
	TXRDMA_A_STAT_RX_BATCHES,	/* u64: RDMA writes received that
					 * carried more than one frame
					 */
	/*
	 * Why sessions went Down (enum txrdma_peer_down_cause).  In a
	 * PEER_STATE_NTF to Up after a Down: DOWN_CAUSE, DOWN_NS,
	 * DOWN_STALL_NS and FLAP describe that Down; in "peer show" the
	 * counts.
	 */
	TXRDMA_A_PEER_DOWN_CAUSE,	/* u8: enum txrdma_peer_down_cause */
	TXRDMA_A_PEER_DOWN_NS,		/* u64: how long it was not Up */
	TXRDMA_A_PEER_DOWN_STALL_NS,	/* u64: the stall that explains it */
	TXRDMA_A_PEER_FLAP,		/* u8: 1: back within 1 s (a flap) */
	TXRDMA_A_PEER_FLAPS,		/* u64: Downs that were flaps */
	TXRDMA_A_PEER_DOWNS_STALLED,	/* u64: Downs a stall explains */
	TXRDMA_A_PEER_DOWNS_UNEXPLAINED, /* u64: Downs no stall explains
					  * (a peer's restarts included)
					  */
	TXRDMA_A_PEER_REMOTE_STALL_MAX_NS, /* u64: longest stall the peer
					    * reported in its probes
					    */
	/* in the EP_STATS and TENANT_TRAFFIC nests (TXRDMA_EP_F_SESSION) */
	TXRDMA_A_STAT_TX_RESENT,	/* u64: frames sent again on a new QP
					 * (the other side lacked them)
					 */
	TXRDMA_A_STAT_RESUMES,		/* u64: times the pair came back on a
					 * new QP
					 */
	/*
	 * string: the peer this one is another path to (PEER_NEW; in
	 * "peer show"): the same host through another address and device
	 */
	TXRDMA_A_PEER_PATH_OF,
	/* in the EP_STATS and TENANT_TRAFFIC nests (TXRDMA_EP_F_SESSION) */
	TXRDMA_A_STAT_PATH_MOVES,	/* u64: resumes on another path */
	/* EP_GET, a pair with TXRDMA_EP_F_SESSION only: */
	TXRDMA_A_EP_SESSION,		/* u8: enum txrdma_ep_session */
	TXRDMA_A_EP_GRACE_MS,		/* u32: how long it may be away */
	TXRDMA_A_EP_PATH,		/* string: the peer whose QP carries it
					 * (TXRDMA_A_EP_PEER or another path
					 * to the same host)
					 */

	__TXRDMA_A_MAX,
	TXRDMA_A_MAX = __TXRDMA_A_MAX - 1
};

#define TXRDMA_DEV_NAME_MAX	64	/* IB_DEVICE_NAME_MAX, with NUL */
#define TXRDMA_TENANT_NAME_MAX	32	/* with NUL */
#define TXRDMA_CGROUP_PATH_MAX	4096	/* with NUL */

/* A limit of TXRDMA_UNLIMITED is no limit. */
#define TXRDMA_UNLIMITED	(~(__u64)0)

/* Priority classes of tenants: who goes first on a busy link. */
enum txrdma_prio {
	TXRDMA_PRIO_CRITICAL	= 0,
	TXRDMA_PRIO_NORMAL	= 1,
	TXRDMA_PRIO_BULK	= 2,
	__TXRDMA_PRIO_MAX
};

/* Peers: the rdma_cm port the module listens on unless told otherwise. */
#define TXRDMA_DEFAULT_PORT	7388
#define TXRDMA_PEER_NAME_MAX	32	/* with NUL */
#define TXRDMA_PEER_KEY_MIN	16	/* bytes of TXRDMA_A_PEER_KEY */
#define TXRDMA_PEER_KEY_MAX	64

/* Liveness states, numbered as BFD's on the wire (RFC 5880 4.1). */
enum txrdma_peer_state {
	TXRDMA_PEER_ADMIN_DOWN	= 0,
	TXRDMA_PEER_DOWN	= 1,
	TXRDMA_PEER_INIT	= 2,
	TXRDMA_PEER_UP		= 3,
};

/* Why a session changed state: BFD diagnostic codes (RFC 5880 4.1). */
enum txrdma_peer_diag {
	TXRDMA_PEER_DIAG_NONE		= 0,
	TXRDMA_PEER_DIAG_DETECT_EXPIRED	= 1,
	TXRDMA_PEER_DIAG_NEIGHBOR_DOWN	= 3,
	TXRDMA_PEER_DIAG_ADMIN_DOWN	= 7,
};

/*
 * What explains a session's last Down (TXRDMA_A_PEER_DOWN_CAUSE, in the
 * event of its return to Up): known only once the peer is heard again,
 * because a stalled host can report its stall only after it.
 */
enum txrdma_peer_down_cause {
	TXRDMA_PEER_DOWN_NONE		= 0,	/* no Down, or an admin one */
	TXRDMA_PEER_DOWN_UNEXPLAINED	= 1,	/* probes lost, both ran */
	TXRDMA_PEER_DOWN_PEER_STALL	= 2,	/* the peer did not run */
	TXRDMA_PEER_DOWN_LOCAL_STALL	= 3,	/* this host did not run */
	TXRDMA_PEER_DOWN_RESTART	= 4,	/* the peer came back as a new
						 * session (module reloaded,
						 * host rebooted)
						 */
};

/* Endpoint states (TXRDMA_A_EP_STATE). */
enum txrdma_ep_state {
	TXRDMA_EP_STATE_PLAIN		= 0,	/* TXRDMA_IOC_EP_CREATE: no pair */
	TXRDMA_EP_STATE_CONNECTING	= 1,	/* pairing: waiting for the answer */
	TXRDMA_EP_STATE_CONNECTED	= 2,	/* paired: carries traffic */
	TXRDMA_EP_STATE_REJECTED	= 3,	/* the other side refused the pair */
	TXRDMA_EP_STATE_CLOSED		= 4,	/* closed or failed (EP_ERROR) */
};

/* Where a session stands (TXRDMA_A_EP_SESSION). */
enum txrdma_ep_session {
	TXRDMA_EP_SESSION_UP		= 0,	/* on a QP, carrying frames */
	TXRDMA_EP_SESSION_DRAINING	= 1,	/* QP lost: reaping what it did */
	TXRDMA_EP_SESSION_WAITING	= 2,	/* for a QP, or for the RESUME */
	TXRDMA_EP_SESSION_RESUMING	= 3,	/* RESUME sent, awaiting answer */
	TXRDMA_EP_SESSION_FAILED	= 4,	/* over: its operations failed */
};

/* Who opens connections: the side with the lower source address. */
enum txrdma_peer_role {
	TXRDMA_PEER_ROLE_UNKNOWN	= 0,	/* address not resolved yet */
	TXRDMA_PEER_ROLE_INITIATOR	= 1,
	TXRDMA_PEER_ROLE_ACCEPTOR	= 2,
};

#endif /* _UAPI_LINUX_TXRDMA_H */
