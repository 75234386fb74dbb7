/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Raft RPCs on the wire (uapi/linux/txrdma_raft.h): libraft's struct
 * raft_message to one transport message and back.  Pure: no I/O, no
 * clock; what a decoded message holds is allocated with raft_malloc(),
 * as libraft expects of what its raft_io hands it.
 */
#ifndef TXRAFT_WIRE_H
#define TXRAFT_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include <raft.h>

/*
 * Bytes @m takes on the wire; 0 when it cannot be encoded at all (an
 * unknown type, an address longer than TXRDMA_RAFT_MAX_ADDR, too many
 * entries or servers, an entry or a message past 4 GiB).
 */
size_t txraft_wire_size(const struct raft_message *m);

/*
 * Encode @m, sent by server @from, into @buf (@cap bytes, 8-byte
 * aligned).  Return: the bytes written, -EINVAL (@m cannot be encoded:
 * see txraft_wire_size()) or -ENOSPC (@cap is too small).
 */
long txraft_wire_encode(const struct raft_message *m, uint64_t from,
			void *buf, size_t cap);

/*
 * Check and decode the message in @buf (@len bytes, 8-byte aligned)
 * into *@m (server_id: the sender; server_address: NULL).  Return: 0;
 * -EBADMSG (a check failed: bad magic, version, type, length, count,
 * reserved field or CRC; nothing allocated); -ENOMEM.  On 0, *@m holds
 * memory for libraft: hand it to its recv callback, which takes it, or
 * free it with txraft_wire_release().
 */
int txraft_wire_decode(const void *buf, size_t len, struct raft_message *m);

/* Free what txraft_wire_decode() allocated for *@m. */
void txraft_wire_release(struct raft_message *m);

#endif /* TXRAFT_WIRE_H */
