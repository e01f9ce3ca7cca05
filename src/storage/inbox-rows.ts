import type { InboxMessage } from '../channels/inbox/types.js';

/** A stored channel message: its metadata as JSON text. */
export type InboxRow = Omit<InboxMessage, 'metadata'> & { metadata: string };

export const inboxMessageOf = (row: InboxRow): InboxMessage => ({ ...row, metadata: JSON.parse(row.metadata) as Record<string, unknown> });
