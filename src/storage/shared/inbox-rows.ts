import type { InboxMessage } from '../ports/inbox.js';

/** A stored channel message: its metadata as JSON text. */
export type InboxRow = Omit<InboxMessage, 'metadata'> & { metadata: string };

export const inboxMessageOf = (row: InboxRow): InboxMessage => ({ ...row, metadata: JSON.parse(row.metadata) as Record<string, unknown> });

/** Expired signature records an `accept` that records one also removes. */
export const EXPIRED_PER_RECORD = 2;

/** A repeat is a retry unless both digests are known and differ (rows from before digests have none). */
export const sameContent = (stored: string | null, offered: string | null | undefined): boolean =>
  stored === null || offered === null || offered === undefined || stored === offered;
