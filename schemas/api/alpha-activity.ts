/** `GET /v2/alpha/activity`: query and response. */
import { type Static, Type } from '@sinclair/typebox';
import { blockTimeRangeQuery, cursorQuery, Pagination, StringEnum } from './common.ts';

export const ACTIVITY_TYPES = ['SPLIT', 'MERGE', 'REDEEM', 'CONVERT'] as const;

export const ActivityQuery = Type.Object({
  wallet: Type.Optional(
    Type.String({
      maxLength: 20_000,
      description: 'Comma-separated wallet addresses (up to 50; order irrelevant, duplicates ignored)',
    }),
  ),
  type: Type.Optional(
    Type.String({
      maxLength: 100,
      description: `Comma-separated event types: ${ACTIVITY_TYPES.join(', ')} (default all)`,
    }),
  ),
  market_slug: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 300,
      description: 'Market slug; unknown slugs give an empty page',
    }),
  ),
  condition_id: Type.Optional(Type.String({ maxLength: 200, description: 'Condition id, 0x + 64 hex' })),
  neg_risk_market_id: Type.Optional(
    Type.String({ maxLength: 200, description: 'Neg-risk market id, 0x + 64 hex (CONVERT rows)' }),
  ),
  tx_hash: Type.Optional(Type.String({ maxLength: 200, description: '0x + 64 hex' })),
  after: Type.Optional(
    Type.String({
      maxLength: 40,
      description:
        '`<block_number>:<log_index>`: only rows strictly after that chain position, oldest first (catch-up after a stream gap); `order` is ignored',
    }),
  ),
  ...blockTimeRangeQuery,
  order: Type.Optional(
    StringEnum(['desc', 'asc'], {
      default: 'desc',
      description: 'Time order: desc (newest first, default) or asc',
    }),
  ),
  ...cursorQuery({ min: 1, max: 200, default: 50 }),
});
export type ActivityQuery = Static<typeof ActivityQuery>;

export const Activity = Type.Object({
  type: Type.Union(ACTIVITY_TYPES.map((t) => Type.Literal(t))),
  wallet: Type.String({
    description: 'The user who acted (adapter-mediated actions attributed to the user)',
  }),
  tx_hash: Type.String(),
  log_index: Type.Integer(),
  block_number: Type.Integer(),
  timestamp: Type.Integer({ description: 'Block time, Unix seconds' }),
  status: Type.Union([Type.Literal('confirmed'), Type.Literal('pending')]),
  condition_id: Type.Union([Type.String(), Type.Null()], { description: 'null on CONVERT rows' }),
  market_id: Type.Union([Type.String(), Type.Null()], { description: 'null on CONVERT rows' }),
  market_slug: Type.Union([Type.String(), Type.Null()]),
  neg_risk_market_id: Type.Union([Type.String(), Type.Null()], {
    description: '32-byte hex; only on CONVERT rows',
  }),
  index_set: Type.Union([Type.String(), Type.Null()], {
    description: 'Decimal bitmask of the outcomes involved; only on CONVERT rows',
  }),
  amount: Type.Number({
    description: 'SPLIT/MERGE/CONVERT: amount; REDEEM: the payout (6-decimal units ÷ 1e6)',
  }),
  payout: Type.Number({ description: 'REDEEM payout, USD; 0 otherwise' }),
  partition: Type.Array(Type.String(), { description: 'SPLIT/MERGE partition or REDEEM index sets' }),
  version: Type.Integer({ description: '2 when done through a version-2 collateral adapter, else 1' }),
  neg_risk: Type.Boolean(),
});
export type Activity = Static<typeof Activity>;

export const ActivityResponse = Type.Object(
  {
    activity: Type.Array(Activity),
    pagination: Pagination,
  },
  { description: 'One page of activity' },
);
export type ActivityResponse = Static<typeof ActivityResponse>;
