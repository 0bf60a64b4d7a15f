/**
 * Every BullMQ queue pmdata uses, and the key prefix they live under (`<prefix>:<queue>`). In core so
 * the API's admin pages (queue dashboard, status) can name them without importing jobs/.
 */

/** Jobs of one kind of work share a queue so they can be scaled apart. */
export const QUEUE_NAMES = ['maintenance', 'chain', 'venues', 'analytics'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

export const DEFAULT_PREFIX = 'pmdata';
