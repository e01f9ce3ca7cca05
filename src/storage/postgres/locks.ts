/**
 * Keys of the transaction-level advisory locks every replica takes on the shared database. Fixed
 * numbers (the text `agentd` followed by a purpose byte), so no other application is likely to
 * use the same ones by accident.
 */
const BASE = 0x6167656e7464n << 8n;

/** Held while a replica applies migrations: replicas starting together migrate one at a time. */
export const MIGRATION_LOCK = String(BASE | 1n);
/** Held from reading the audit chain head to the commit of the events linked to it. */
export const CHAIN_LOCK = String(BASE | 2n);
/**
 * Held while accepting a message of one channel: with the channel's name hashed as the second key
 * (the two-key form, a key space apart from the ones above).
 */
export const INBOX_LOCK_CLASS = 0x61676e69; // 'agni'
/** Held while creating a job: the job limit is counted and the job inserted under it. */
export const JOBS_LOCK = String(BASE | 4n);
/** Held while creating an API session: the session bound is counted and enforced under it. */
export const SESSIONS_LOCK = String(BASE | 5n);
/** Held while creating a browser session: expired ones are swept and the bound enforced under it. */
export const WEB_SESSIONS_LOCK = String(BASE | 6n);
/**
 * Held while deciding a provider call's hold on a session's budget: with the session id hashed as
 * the second key, so one session's calls are decided one at a time across replicas.
 */
export const COST_HOLD_LOCK_CLASS = 0x61676863; // 'aghc'
