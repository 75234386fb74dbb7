/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libtxrdma: user-space library for the txrdma transport.
 *
 * This header is installed as <txrdma.h>.  It pulls in the kernel ABI
 * (<linux/txrdma.h>, <linux/txrdma_ring.h>), which libtxrdma installs
 * next to it, and the data-path ring helpers of <txrdma_ring.h>.
 *
 * Conventions:
 *  - every call that can fail returns 0 on success and a negative errno
 *    value on failure; errno is never the only carrier of an error;
 *  - unknown flags are rejected with -EINVAL, so flags can be given a
 *    meaning later without breaking old callers;
 *  - a struct txrdma_ctx is not thread-safe unless a call says otherwise.
 */
#ifndef TXRDMA_H
#define TXRDMA_H

#include <stddef.h>
#include <linux/txrdma.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TXRDMA_LIB_VERSION_MAJOR	0
#define TXRDMA_LIB_VERSION_MINOR	1
#define TXRDMA_LIB_VERSION_PATCH	0

/* Environment variable that overrides the device path (tests, chroots). */
#define TXRDMA_DEVICE_ENV	"TXRDMA_DEVICE"
#define TXRDMA_DEVICE_PATH	"/dev/" TXRDMA_DEVICE_NAME

/* Flags for txrdma_open(); none are defined yet. */
#define TXRDMA_OPEN_FLAGS_ALL	0U

/* A handle on /dev/txrdma; its layout is private to the library. */
struct txrdma_ctx;

/**
 * txrdma_open() - open the txrdma device and check that we speak its ABI
 * @ctxp:  where to store the new context; left untouched on failure
 * @flags: must be 0 (no flags are defined yet)
 *
 * Opens TXRDMA_DEVICE_PATH, or the path in the environment variable
 * TXRDMA_DEVICE when it is set (ignored in set-user-ID programs), with
 * O_RDWR | O_CLOEXEC, and runs TXRDMA_IOC_PROBE.  The ABI version and
 * the feature bits the kernel reports are kept in the context.
 *
 * Return: 0 on success, or a negative errno:
 *  -EINVAL  @ctxp is NULL or @flags has an unknown bit;
 *  -ENOENT  no such device (is the txrdma module loaded?);
 *  -ENOTTY  the file is not a txrdma device;
 *  -EPROTO  the kernel speaks an ABI version this library does not know;
 *  -ENOMEM  out of memory;
 *  any other error of open(2) or ioctl(2).
 * No file descriptor is left open on failure.
 */
int txrdma_open(struct txrdma_ctx **ctxp, unsigned int flags);

/**
 * txrdma_close() - close a context opened by txrdma_open()
 * @ctx: the context; NULL is allowed and does nothing
 */
void txrdma_close(struct txrdma_ctx *ctx);

/**
 * txrdma_probe() - ask the kernel again what it supports
 * @ctx: an open context
 * @out: receives the kernel's answer (may be NULL to only refresh @ctx)
 *
 * Runs TXRDMA_IOC_PROBE again, e.g. to learn the current number of RDMA
 * devices (@out->ndevs).  The features kept in @ctx are refreshed.
 *
 * Return: 0 on success; -EINVAL if @ctx is NULL; -EPROTO if the ABI
 * version changed under us; otherwise the negative errno of ioctl(2).
 */
int txrdma_probe(struct txrdma_ctx *ctx, struct txrdma_probe *out);

/**
 * txrdma_features() - feature bits of the kernel module
 * @ctx: an open context
 *
 * Return: the TXRDMA_FEAT_* bits from the last probe (0 if @ctx is NULL).
 * Bits this library does not know are passed through unchanged.
 */
__u64 txrdma_features(const struct txrdma_ctx *ctx);

/**
 * txrdma_abi_version() - ABI version the kernel module reported
 * @ctx: an open context
 *
 * Return: the ABI version (always one this library supports), or 0 if
 * @ctx is NULL.
 */
__u32 txrdma_abi_version(const struct txrdma_ctx *ctx);

/**
 * txrdma_fd() - the file descriptor of the device
 * @ctx: an open context
 *
 * The descriptor stays owned by @ctx: do not close it.  It is meant for
 * poll(2)/epoll(7) integration.
 *
 * Return: the descriptor, or -EINVAL if @ctx is NULL.
 */
int txrdma_fd(const struct txrdma_ctx *ctx);

/**
 * struct txrdma_region - a region as the library holds it
 * @id: the kernel's id; (id, offset, length) names memory in operations
 * @kind: TXRDMA_REGION_KIND_POOL (module-owned) or _USER (your memory)
 * @size: bytes
 * @addr: where the bytes are in this process: the mapping the library
 *	made of a module-owned region, or the memory you registered
 */
struct txrdma_region {
	__u32 id;
	__u32 kind;
	__u64 size;
	void *addr;
};

/**
 * txrdma_tenant() - the tenant this process belongs to
 * @ctx: context
 * @id: its id (may be NULL)
 * @name: buffer of at least 32 bytes for its name (may be NULL)
 *
 * Return: 0, -EPERM if the process's cgroup belongs to no tenant.
 */
int txrdma_tenant(struct txrdma_ctx *ctx, __u32 *id, char *name);

/**
 * txrdma_region_create() - allocate, pin, register and map memory
 * @ctx: context
 * @size: bytes, a multiple of TXRDMA_REGION_HUGE_SIZE (2 MiB), or of
 *	the page size with TXRDMA_REGION_F_SMALL_PAGES in @flags
 * @flags: TXRDMA_REGION_F_*
 * @out: the region; out->addr is a shared read/write mapping of it
 *
 * The memory is zeroed, charged to the tenant's pinned limit and
 * registered with every RDMA device once, here, so that no operation
 * pays for registration later.
 * Return: 0, -EPERM (no tenant), -EDQUOT (pinned limit), -ENOMEM,
 * -EINVAL (size or flags).  On error nothing is left behind.
 */
int txrdma_region_create(struct txrdma_ctx *ctx, __u64 size,
			 unsigned int flags, struct txrdma_region *out);

/**
 * txrdma_region_register() - make your own memory a region
 * @ctx: context
 * @addr: page-aligned start (e.g. a buffer pool on hugetlbfs)
 * @size: page-aligned length
 * @out: the region; out->addr == @addr
 *
 * The pages are pinned until the region is destroyed; they count
 * against the tenant's pinned limit and RLIMIT_MEMLOCK.
 * Return: 0 or -errno as for txrdma_region_create(), -EFAULT for memory
 * that is not mapped.
 */
int txrdma_region_register(struct txrdma_ctx *ctx, void *addr, __u64 size,
			   struct txrdma_region *out);

/**
 * txrdma_region_destroy() - destroy a region and unmap it
 * @ctx: context
 * @r: a region from txrdma_region_create() or _register(); zeroed after
 *
 * Module-owned memory is freed once no mapping of it is left (other
 * processes of the tenant may still map it).
 * Return: 0, -ENOENT (already destroyed), -EACCES (not your tenant's).
 */
int txrdma_region_destroy(struct txrdma_ctx *ctx, struct txrdma_region *r);

/**
 * txrdma_region_open() - map a region another process of your tenant made
 * @ctx: context
 * @id: its id
 * @out: the region, mapped here (module-owned regions only)
 *
 * Release it with txrdma_region_close(), which unmaps without destroying.
 * Return: 0, -ENOENT, -EACCES, -EINVAL (a user region: not mappable).
 */
int txrdma_region_open(struct txrdma_ctx *ctx, __u32 id,
		       struct txrdma_region *out);

/**
 * txrdma_region_close() - unmap a region opened with txrdma_region_open()
 * @r: the region; zeroed after
 */
void txrdma_region_close(struct txrdma_region *r);

/**
 * struct txrdma_ep_params - one side of an endpoint pair: what we accept
 *	or connect to, and our receive ring
 * @service: the service number to connect to or accept on (non-zero)
 * @flags: TXRDMA_EP_F_* (passed to the kernel, which rejects unknown
 *	bits with -EINVAL)
 * @rx_region: id of one of our module-owned regions, holding the ring
 * @rx_units: ring size in TXRDMA_FRAME_UNIT (64-byte) units: a power of
 *	two, TXRDMA_RX_MIN_UNITS..TXRDMA_RX_MAX_UNITS, or 0 for
 *	txrdma_rx_units_for(@rx_max_msg)
 * @rx_off: byte offset of the ring area in @rx_region, 64-byte aligned;
 *	the area is txrdma_rx_area_size(@rx_units) bytes
 * @timeout_ms: how long to wait for the other side, 0 for the kernel's
 *	default (3000 ms)
 * @rx_max_msg: the longest SEND we take, 0 for all the ring takes (half
 *	of it less the frame header, at most TXRDMA_FRAME_MAX_PAYLOAD).
 *	The other side's longer SENDs fail with -EMSGSIZE there; a small
 *	bound lets our ring return credits without an explicit update
 *	per message.  With @rx_units 0 the library picks
 *	txrdma_rx_units_for(@rx_max_msg), which @rx_off must leave room
 *	for (txrdma_rx_area_size() of it).
 *
 * Initialize it whole (``= { .service = ... }``): fields added later
 * take the place of what is padding today.
 */
struct txrdma_ep_params {
	__u32 service;
	__u32 flags;
	__u32 rx_region;
	__u32 rx_units;
	__u64 rx_off;
	__u32 timeout_ms;
	__u32 rx_max_msg;
};

/**
 * struct txrdma_ep_pair - an endpoint pair as connect or accept made it
 * @id: our endpoint: what SQEs and txrdma_ep_destroy() name
 * @peer_ep: the other side's endpoint id (in its frames' headers)
 * @qp_num: our queue pair of the pair
 * @max_msg: the longest SEND the other side's ring takes (-EMSGSIZE
 *	beyond)
 * @service: the pair's service
 * @flags: TXRDMA_EP_F_* as asked
 * @rx_region: our receive ring's region
 * @rx_units: its size in units, as used (the library's pick for 0)
 * @rx_off: its offset in @rx_region
 * @rx_max_msg: the longest SEND our ring takes, as declared (0: all it
 *	takes)
 * @grace_ms: the session's grace (txrdma_ep_connect_session(); after
 *	accept, what the connector asked for), 0 when the pair is not a
 *	session
 * @peer: the peer's name, NUL-terminated (after accept: who connected)
 *
 * What txrdma_ep_connect() and txrdma_ep_accept() return, as
 * struct txrdma_ep_params is what they take.
 */
struct txrdma_ep_pair {
	__u32 id;
	__u32 peer_ep;
	__u32 qp_num;
	__u32 max_msg;
	__u32 service;
	__u32 flags;
	__u32 rx_region;
	__u32 rx_units;
	__u64 rx_off;
	__u32 rx_max_msg;
	__u32 grace_ms;
	char peer[TXRDMA_PEER_NAME_MAX];
};

/**
 * txrdma_ep_listen() - serve a service: let peers connect to it
 * @ctx: context
 * @service: the service number, non-zero
 *
 * Runs TXRDMA_IOC_EP_LISTEN.  Once per service and context; each
 * endpoint is then taken with txrdma_ep_accept().  Requires
 * TXRDMA_FEAT_MESSAGES.
 *
 * Return: 0, or a negative errno: -EINVAL (NULL @ctx, @service 0, or
 * the kernel's refusal), -ENOTTY (a kernel without endpoint pairs),
 * any other error of the ioctl (e.g. -EADDRINUSE when the service is
 * taken).
 */
int txrdma_ep_listen(struct txrdma_ctx *ctx, __u32 service);

/**
 * txrdma_ep_connect() - make an endpoint pair with a peer's listener
 * @ctx: a context with rings (txrdma_rings_setup(): completions go there)
 * @peer: the peer's name as the administrator added it, NUL-terminated,
 *	at most TXRDMA_PEER_NAME_MAX - 1 characters
 * @p: the service and our receive ring
 * @out: on success, the pair: @out->id (our endpoint, for SQEs and
 *	txrdma_ep_destroy()), @out->peer_ep, @out->qp_num, @out->max_msg
 *	(the longest SEND the peer's ring takes) and our ring as used;
 *	untouched on failure
 *
 * Runs TXRDMA_IOC_EP_CONNECT, which blocks until the peer's listener
 * accepted or @p->timeout_ms passed.  While the peer is not Up or its
 * pool has no ready QP (right after "peer add"), it waits for one
 * within the same timeout (woken when one is ready) and then fails
 * with -ENOTCONN or -EAGAIN; TXRDMA_EP_F_NOWAIT in @p->flags fails
 * with those at once instead.  Arguments that are plainly wrong
 * are refused here, before any system call.  A signal interrupts the
 * wait: -EINTR is returned, not retried.
 *
 * Return: 0, or a negative errno: -EINVAL (a NULL argument, an empty
 * @peer, @p->service 0, @p->rx_units not a power of two in
 * TXRDMA_RX_MIN_UNITS..TXRDMA_RX_MAX_UNITS, @p->rx_off not 64-byte
 * aligned, or the kernel's refusal), -ENAMETOOLONG (@peer too long),
 * -ETIMEDOUT, -ECONNREFUSED (nobody listens on the service), -EINTR,
 * -ENOTCONN (the peer was not Up in time), -EAGAIN (its pool had no
 * ready QP in time), -EADDRINUSE (the ring's area overlaps an exported
 * range or another endpoint's ring), -EPERM, -EDQUOT, any other error
 * of the ioctl.
 */
int txrdma_ep_connect(struct txrdma_ctx *ctx, const char *peer,
		      const struct txrdma_ep_params *p,
		      struct txrdma_ep_pair *out);

/**
 * txrdma_ep_connect_session() - make an endpoint pair that outlives a QP
 * @ctx: as for txrdma_ep_connect()
 * @peer: as for txrdma_ep_connect()
 * @p: as for txrdma_ep_connect(); TXRDMA_EP_F_SESSION is added to
 *	@p->flags
 * @grace_ms: how long the pair may be without a QP before its
 *	operations fail, 1..TXRDMA_EP_GRACE_MAX_MS, or 0 for
 *	TXRDMA_EP_GRACE_MS; the other side's end gets the same
 * @out: as for txrdma_ep_connect(), @out->grace_ms the grace
 *
 * txrdma_ep_connect() with TXRDMA_EP_F_SESSION (<linux/txrdma.h>):
 * when the pair's QP fails, or the peer goes Down, for less than
 * @grace_ms, its SENDs wait and then complete once, successfully, and
 * arrive once, in order; when longer, every operation in flight fails
 * once, with -ENOTCONN when the peer went Down.  A grace shorter than
 * the peer's liveness detection time plus its pool's reconnection
 * (hundreds of ms on a loaded host) turns every Down into a failure.
 *
 * Return: as for txrdma_ep_connect(); -EINVAL also for @grace_ms above
 * TXRDMA_EP_GRACE_MAX_MS.
 */
int txrdma_ep_connect_session(struct txrdma_ctx *ctx, const char *peer,
			      const struct txrdma_ep_params *p, __u32 grace_ms,
			      struct txrdma_ep_pair *out);

/**
 * txrdma_ep_accept() - take the next endpoint pair a peer connects
 * @ctx: a context with rings that listens on @p->service
 * @p: the service and our receive ring
 * @out: on success, as for txrdma_ep_connect(), and @out->peer the
 *	name of the peer that connected (always NUL-terminated);
 *	untouched on failure
 *
 * Runs TXRDMA_IOC_EP_ACCEPT, which blocks until a peer connects or
 * @p->timeout_ms passed.  -EINTR is returned, not retried.
 *
 * Return: 0, or a negative errno: -EINVAL (as for txrdma_ep_connect(),
 * or a service this context does not listen on), -ETIMEDOUT, -EINTR,
 * any other error of the ioctl.
 */
int txrdma_ep_accept(struct txrdma_ctx *ctx, const struct txrdma_ep_params *p,
		     struct txrdma_ep_pair *out);

/**
 * txrdma_ep_export() - let the other side of a pair READ/WRITE a range
 * @ctx: context
 * @ep: our endpoint of the pair
 * @x: the range: @x->region (of our tenant, created or registered),
 *	@x->off and @x->len in it (@x->len 0: to the region's end), and
 *	@x->access: TXRDMA_EXPORT_READ, TXRDMA_EXPORT_WRITE or both
 * @timeout_ms: how long to wait for the other module, 0 for 3000 ms
 *
 * Runs TXRDMA_IOC_EP_EXPORT: returns once the other module stored the
 * export, so a message sent after it is never acted on before it, and
 * the other side finds it with txrdma_ep_exports().  It names the
 * bytes by our region id and their offset in the region in
 * txrdma_prep_read()/txrdma_prep_write().  The range gets a key of its
 * own, for this pair only, until the pair ends or
 * txrdma_ep_unexport(); exporting the same range again changes the
 * access.  A range can never overlap a receive ring: the other side
 * could write over it.
 *
 * Return: 0, or a negative errno: -EINVAL (NULL @ctx or @x, no or
 * unknown access bits), -ENOENT (no such endpoint or region), -EFAULT
 * (range not inside the region), -EADDRINUSE (it overlaps a receive
 * ring), -EEXIST (it overlaps another export of the pair), -EBUSY
 * (another export or revoke of @ep runs), -EAGAIN (a session away from
 * its QP: try again once it is back), -ENOTCONN (not a connected
 * pair), -ENOSPC (TXRDMA_EP_MAX_EXPORTS already), -ETIMEDOUT or -EINTR
 * (the range is then not exported at all, not even as before), any
 * other error of the ioctl.  A session that resumes on another device
 * (another path to the peer's host) ends its exports, and the other
 * side's: their READ/WRITE fail with -EPERM until exported again.
 */
int txrdma_ep_export(struct txrdma_ctx *ctx, __u32 ep,
		     const struct txrdma_export_info *x, __u32 timeout_ms);

/**
 * txrdma_ep_unexport() - revoke an export
 * @ctx: context
 * @ep: our endpoint of the pair
 * @x: the range as exported (@x->access is not looked at)
 * @timeout_ms: how long to wait for the other module, 0 for 3000 ms
 *
 * When it returns the range's key is dead: the other side's later
 * READ/WRITE of it fail with -EPERM; one of its operations still in
 * flight on the range fails with a remote access error, which resets
 * the pair (stop the other side's use first, as for any memory reuse).
 *
 * Return: 0, or a negative errno: -EINVAL (NULL @ctx or @x), -ENOENT
 * (no such endpoint, or that range is not exported), -ENOTCONN, -EBUSY
 * (another export or revoke of @ep runs), -EAGAIN (a session away from
 * its QP), -ETIMEDOUT or -EINTR (the
 * key is dead anyway: the other side was not told), any other error of
 * the ioctl.
 */
int txrdma_ep_unexport(struct txrdma_ctx *ctx, __u32 ep,
		       const struct txrdma_export_info *x, __u32 timeout_ms);

/**
 * txrdma_ep_exports() - what the two sides of a pair exported
 * @ctx: context
 * @ep: our endpoint of the pair
 * @out: filled on success: @out->imported[0..nimported) is what the
 *	other side lets us reach, @out->exported[0..nexported) what we
 *	let it reach; @out->imports_gen changes when @imported does
 *
 * Runs TXRDMA_IOC_EP_EXPORTS, no wait: the other side's
 * txrdma_ep_export() returned only after its entry was here.
 *
 * Return: 0, or a negative errno: -EINVAL (NULL argument), -ENOENT (no
 * such endpoint), any other error of the ioctl.
 */
int txrdma_ep_exports(struct txrdma_ctx *ctx, __u32 ep,
		      struct txrdma_ep_exports *out);

/**
 * txrdma_ep_destroy() - close an endpoint
 * @ctx: context
 * @id: the endpoint (out->id of txrdma_ep_connect() or
 *	txrdma_ep_accept(), or an id from TXRDMA_IOC_EP_CREATE)
 *
 * Runs TXRDMA_IOC_EP_DESTROY.  For an endpoint pair the other side's
 * endpoint then fails with -ECONNRESET; operations in flight complete
 * with -ECANCELED.  Its receive ring is ours again after this returns.
 *
 * Return: 0, or a negative errno: -EINVAL (NULL @ctx), -ENOENT (no such
 * endpoint of this context), any other error of the ioctl.
 */
int txrdma_ep_destroy(struct txrdma_ctx *ctx, __u32 id);

/**
 * txrdma_sess_export() - take a session's end off this host (hand-off)
 * @ctx: context
 * @ep: our endpoint of a session (txrdma_ep_connect_session(), an
 *	accepted session, or one imported here)
 * @timeout_ms: how long the module may take to close and reap the
 *	session's QP, 0 for its default (3000 ms)
 * @state: on success, the session's state: what txrdma_sess_import()
 *	takes on the new host; untouched on failure
 * @sends: room for @max_sends entries: on success the session's
 *	unsettled SENDs (sent or queued, their arrival unknown), oldest
 *	first, @state->nsends of them
 * @max_sends: entries at @sends, at least TXRDMA_SESS_SENDS_MAX (what
 *	a session has at most: an export never stops half done for want
 *	of room); more are never used
 *
 * Runs TXRDMA_IOC_EP_SESS_EXPORT (<linux/txrdma.h>, "Session
 * hand-off"): the module stops the session, closes and reaps its QP and
 * describes what is left.  The endpoint then carries nothing: SQEs
 * naming it later complete with -EXDEV, the unsettled SENDs complete
 * on no host until the import (then on the new one), a READ or WRITE in
 * flight completes here with -ECONNABORTED.  Completions of the SENDs
 * that settled are in the completion ring.  Destroy the endpoint
 * afterwards (txrdma_ep_destroy(); the other side is not told).  To
 * move the process, carry @state, @sends, the bytes of the receive ring
 * area (txrdma_rx_area_size(@state->rx_units) at the ring's offset)
 * and the payload bytes of @sends to the new host.  @state->secret is
 * the right to move the session once: keep the state as secret as the
 * process's memory.  A kernel without TXRDMA_FEAT_HANDOFF fails with
 * -ENOTTY.
 *
 * Return: 0, or a negative errno: -EINVAL (NULL @ctx, @state or
 * @sends, @max_sends below TXRDMA_SESS_SENDS_MAX, or the kernel's: not
 * a session, or it failed already), -EBUSY (an export or a resume of
 * the session runs: nothing changed, try again), -ETIMEDOUT (the QP was
 * not reaped within @timeout_ms: the session then fails here), -ENOENT
 * (no such endpoint), -ENOTTY, -EPROTO (the kernel reported more SENDs
 * than @max_sends), any other error of the ioctl.
 */
int txrdma_sess_export(struct txrdma_ctx *ctx, __u32 ep, __u32 timeout_ms,
		       struct txrdma_sess_state *state,
		       struct txrdma_sess_send *sends, __u32 max_sends);

/**
 * txrdma_sess_import() - bring a session's end back on this host
 * @ctx: a context with rings (txrdma_rings_setup(): the session's
 *	completions come there)
 * @peer: this host's name for the other side's host (as its
 *	administrator added it), NUL-terminated, at most
 *	TXRDMA_PEER_NAME_MAX - 1 characters
 * @state: as txrdma_sess_export() gave it on the old host
 * @sends: its @state->nsends unsettled SENDs, each @region replaced by
 *	the id of this host's region that holds the payload now (at @off
 *	if the layout stayed; change @off if not); NULL when there are none
 * @rx_region: a module-owned region of ours holding the receive ring
 * @rx_off: where the ring area is in it, 64-byte aligned; the area is
 *	txrdma_rx_area_size(@state->rx_units) bytes and holds the bytes
 *	of the old host's ring area, header included
 * @timeout_ms: how long to wait for the session to be Up here, 0 for
 *	the kernel's default (the session's grace and 1 s more, at least
 *	3000 ms); only a fatal signal ends the wait sooner (once the
 *	other side may have moved the session here, giving up ends it)
 * @out: on success, the pair as txrdma_ep_connect() describes one:
 *	@out->id the new endpoint, @out->qp_num its QP, the rest from
 *	@state (@out->peer_ep, @out->max_msg, the service, flags, grace
 *	and ring) and @peer; untouched on failure
 *
 * Runs TXRDMA_IOC_EP_SESS_IMPORT: the module checks the state, makes
 * an endpoint, proves to the other side that it holds the session's
 * secret and resumes the session.  It returns once the session is Up
 * here: the unsettled SENDs the other side had received have completed
 * in this context's completion ring, with their @user_data; the others
 * are sent again and complete later, as any SEND.  The ring continues
 * where it stopped: set up its view with txrdma_rx_init() on
 * @out->rx_units; frames that arrived on the old host and were not
 * released are read again from the ring's bytes.  A state moves a
 * session at most once; a refused import leaves the session as it
 * was, but when it failed after the module took the SENDs (a refusal
 * by the other side, a timeout), each of them completes in this
 * context's completion ring with the import's error.  A kernel
 * without TXRDMA_FEAT_HANDOFF fails with -ENOTTY.
 *
 * Return: 0, or a negative errno: -EINVAL (a NULL argument, an empty
 * @peer, a ring of @state->rx_units that cannot be, @rx_off not 64-byte
 * aligned, more than TXRDMA_SESS_SENDS_MAX SENDs or NULL @sends with
 * some, or the kernel's refusal of the state or of a SEND's payload),
 * -ENAMETOOLONG (@peer too long), -EPERM (refused by the other side: a
 * forged, altered or already used state, or another tenant's), -ENOENT
 * (no such peer, region, or session on the other side any more),
 * -ESTALE (a genuine state that does not fit the session as it is
 * now), -EFAULT (a payload outside its region), -ENOSPC (no room for
 * the SENDs' completions in the completion ring), -ENXIO (no rings),
 * -ETIMEDOUT (@timeout_ms or the session's grace passed), -ENOTTY, or
 * the errors of txrdma_ep_connect().
 */
int txrdma_sess_import(struct txrdma_ctx *ctx, const char *peer,
		       const struct txrdma_sess_state *state,
		       const struct txrdma_sess_send *sends, __u32 rx_region,
		       __u64 rx_off, __u32 timeout_ms,
		       struct txrdma_ep_pair *out);

/**
 * txrdma_rx_units_for() - a receive ring for messages of up to @max_msg
 * @max_msg: the longest SEND the ring must take, 0 for
 *	TXRDMA_FRAME_MAX_PAYLOAD
 *
 * The smallest ring of eight frames of @max_msg: credits then come back
 * without an explicit update per message (at most one per two messages
 * of a one-way stream, none in a ping-pong).  A smaller ring works but
 * may cost an RDMA WRITE per message for its credits ("credit updates"
 * close to "rx msgs" in txrdma-admin ep show).  What txrdma_ep_connect()
 * and txrdma_ep_accept() use for rx_units 0.
 *
 * Return: units (a power of two, TXRDMA_RX_MIN_UNITS..TXRDMA_RX_MAX_UNITS),
 * or 0 when @max_msg is above TXRDMA_FRAME_MAX_PAYLOAD.
 */
__u32 txrdma_rx_units_for(__u32 max_msg);

/**
 * txrdma_rx_area_size() - bytes a receive ring of @units takes in a region
 * @units: ring size in 64-byte units
 *
 * The area is the 128-byte header (TXRDMA_RX_HDR_LEN: the kernel's
 * tail and error words, our head) followed by the units.
 *
 * Return: TXRDMA_RX_HDR_LEN + @units * TXRDMA_FRAME_UNIT, or 0 when
 * @units is not a power of two in TXRDMA_RX_MIN_UNITS..TXRDMA_RX_MAX_UNITS.
 */
size_t txrdma_rx_area_size(__u32 units);

/* send buffers (<txrdma_ring.h>: struct txrdma_bufs, get/put/post) */
struct txrdma_bufs;

/**
 * txrdma_bufs_init() - carve @count buffers of @size bytes from a region
 * @b: the pool to set up
 * @r: a region of this process (created, registered or opened)
 * @off: where buffer 0 starts in it
 * @size: bytes per buffer (a multiple of 64 keeps buffers on cache
 *	lines of their own)
 * @count: how many
 *
 * Return: 0; -EINVAL for a zero size or count, or buffers that do not
 * fit in the region from @off; -ENOMEM.  @b is untouched on error.
 */
int txrdma_bufs_init(struct txrdma_bufs *b, const struct txrdma_region *r,
		     __u64 off, __u32 size, __u32 count);

/**
 * txrdma_bufs_fini() - free the pool's bookkeeping (not the region)
 * @b: the pool; NULL is allowed
 */
void txrdma_bufs_fini(struct txrdma_bufs *b);

/**
 * txrdma_strerror() - what an error of a txrdma call means
 * @err: a negative errno returned by a txrdma call (or a positive one)
 *
 * Says what the module means by the code and what to do, e.g. for
 * -EPERM from txrdma_tenant(), txrdma_region_create() or an endpoint
 * call: the process's cgroup belongs to no tenant; start it with
 * ``txrdma-admin tenant exec NAME -- CMD``.  Codes with no txrdma
 * meaning get the C library's text.  Thread-safe.
 *
 * Return: a static string; never NULL.
 */
const char *txrdma_strerror(int err);

/**
 * txrdma_version() - version of this library
 *
 * Return: a static string such as "0.1.0"; never NULL.
 */
const char *txrdma_version(void);

#ifdef __cplusplus
}
#endif

/* the data-path rings (static inline fast path; its own extern "C") */
#include "txrdma_ring.h"

#endif /* TXRDMA_H */
